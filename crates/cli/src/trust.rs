//! Loading the configuration with the workspace's trust applied: the stored decision, the
//! `--trust-workspace` flag, the interactive question, and the one stderr line a headless run
//! prints about what it ignored. Also `rein trust`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use crate::Exit;
use crate::config::trust::{TrustStore, digest, has_workspace_config};
use crate::config::{Config, Ignored, Scope, Why};
use crate::overrides::TrustFlag;
use crate::resolve::{self, Folders};

/// How to settle an untrusted workspace whose files would grant something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// Ask on the terminal (interactive `rein`), when there is one.
    Terminal,
    /// Never ask: apply only what makes rein stricter and say so on stderr (`rein exec`).
    Never,
    /// Never ask and print nothing (`rein tool`, `rein config show`).
    Silently,
}

/// What `rein trust` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustCommand {
    /// Trust the workspace's files as they are now (`rein trust`).
    Grant,
    /// Forget the workspace's trust (`rein trust --revoke`).
    Revoke,
}

/// The configuration of `workspace` and the user's config in `folders`, the workspace's own
/// files applied as far as the user trusts them (the trust stored in `folders.data`). Files
/// skipped unread (a FIFO, a link to a device, a folder, an oversized file) are said on
/// stderr whatever `asking` says: a setting the user counts on may be missing.
pub fn load(
    workspace: &Path,
    folders: &Folders,
    flag: TrustFlag,
    asking: Asking,
) -> Result<Config, Exit> {
    let config = settle(workspace, folders, flag, asking)?;
    for unread in &config.unread {
        eprintln!("rein: {unread}");
    }
    Ok(config)
}

/// The configuration of `workspace` for a command that only reads it (`rein config show`,
/// `sessions`, `mcp list`, `sandbox check`, `tool`): the process environment, no `--trust`
/// flag, no question asked.
pub fn load_for_reading(workspace: &Path) -> Result<Config, Exit> {
    load(
        workspace,
        &Folders::of(&crate::env::process),
        TrustFlag::Absent,
        Asking::Silently,
    )
}

fn settle(
    workspace: &Path,
    folders: &Folders,
    flag: TrustFlag,
    asking: Asking,
) -> Result<Config, Exit> {
    if !has_workspace_config(workspace) {
        return resolve::config(workspace, folders, Scope::TrustedWorkspace);
    }
    let store = folders.data.as_deref().map(TrustStore::new);
    let now = digest(workspace);
    let trusted = store
        .as_ref()
        .is_some_and(|s| s.is_trusted(workspace, &now));
    let trusted_config = |record: bool| -> Result<Config, Exit> {
        if record && let Some(store) = &store {
            store
                .trust(workspace, &now)
                .map_err(|e| Exit::failed(format!("cannot record the workspace's trust: {e}")))?;
        }
        let config = resolve::config(workspace, folders, Scope::TrustedWorkspace)?;
        report_ignored(&config, asking);
        Ok(config)
    };
    if trusted || flag == TrustFlag::Given {
        return trusted_config(!trusted);
    }
    let mut config = resolve::config(workspace, folders, Scope::UntrustedWorkspace)?;
    hold_back_agents(workspace, &mut config);
    let held_back = held_back(&config);
    if held_back.is_empty() {
        report_ignored(&config, asking);
        return Ok(config);
    }
    let answer = match asking {
        Asking::Terminal if std::io::stdin().is_terminal() => ask(workspace, &held_back),
        _ => false,
    };
    if answer {
        return trusted_config(true);
    }
    if asking != Asking::Silently {
        eprintln!(
            "rein: this workspace's config is not trusted, so {} ignored ({}); to apply it, \
             run `rein trust` in {} or pass --trust-workspace",
            count(held_back.len(), "setting was", "settings were"),
            kinds(&held_back),
            workspace.display()
        );
    }
    report_ignored(&config, asking);
    Ok(config)
}

/// Warns when the workspace is the home folder itself (every project and dotfile in reach;
/// the sensitive list still guards credentials and start-up files); on a terminal, asks first.
pub fn confirm_home(
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    asking: Asking,
) -> Result<(), Exit> {
    let home = env("HOME").and_then(|home| std::fs::canonicalize(home).ok());
    if home.as_deref() != Some(workspace) || asking == Asking::Silently {
        return Ok(());
    }
    let warning = format!(
        "rein: the workspace is your home folder ({}): every project and file in it is in the \
         model's reach; start rein in a project folder instead",
        workspace.display()
    );
    if asking == Asking::Never || !std::io::stdin().is_terminal() {
        eprintln!("{warning}");
        return Ok(());
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{warning}.\nWork in the home folder anyway? [y/N] ");
    let _ = err.flush();
    let mut line = String::new();
    let yes = std::io::stdin().lock().read_line(&mut line).is_ok()
        && matches!(line.trim(), "y" | "Y" | "yes" | "Yes");
    if yes {
        Ok(())
    } else {
        Err(Exit::usage("not started: the workspace is the home folder"))
    }
}

/// `rein trust [--revoke]`: shows what the workspace's files enable and records the trust.
pub fn command(workspace: &Path, what: TrustCommand) -> Result<(), Exit> {
    let folders = Folders::of(&crate::env::process);
    let store = (folders.data.as_deref())
        .map(TrustStore::new)
        .ok_or_else(|| Exit::usage("cannot store trust: set HOME or XDG_DATA_HOME"))?;
    if what == TrustCommand::Revoke {
        let had = store
            .revoke(workspace)
            .map_err(|e| Exit::failed(format!("cannot update the trust store: {e}")))?;
        println!(
            "{} {}",
            if had {
                "No longer trusted:"
            } else {
                "Was not trusted:"
            },
            workspace.display()
        );
        return Ok(());
    }
    let mut config = resolve::config(workspace, &folders, Scope::UntrustedWorkspace)?;
    hold_back_agents(workspace, &mut config);
    store
        .trust(workspace, &digest(workspace))
        .map_err(|e| Exit::failed(format!("cannot update the trust store: {e}")))?;
    println!("Trusted: {}", workspace.display());
    let held_back = held_back(&config);
    if held_back.is_empty() {
        println!("Its config files grant nothing beyond the defaults.");
    } else {
        println!("Its config files now apply:");
        for ignored in held_back {
            println!("  {} ({})", ignored.what, ignored.source);
        }
    }
    println!("A change to .rein/, .claude/ or .mcp.json asks again.");
    Ok(())
}

/// What an untrusted workspace's files would enable once trusted.
/// The workspace's MCP servers, agent definitions, commands and skills, which only a trusted
/// workspace's files may add.
fn hold_back_agents(workspace: &Path, config: &mut Config) {
    if let Ok(Some(text)) = rein_tools::read_regular(&workspace.join(".mcp.json"), 1024 * 1024)
        && let Ok(parsed) =
            rein_mcp::parse_mcp_json(&text, ".mcp.json", &rein_mcp::Vars::user(&|_| None))
    {
        for server in parsed.servers {
            config.ignored.push(Ignored {
                what: format!("MCP server {} ({})", server.name, server.transport.name()),
                source: ".mcp.json".into(),
                why: Why::Untrusted,
            });
        }
    }
    for (kind, dir) in crate::config::trust::PROMPT_DIRS {
        let Ok(entries) = std::fs::read_dir(workspace.join(dir)) else {
            continue;
        };
        let skills = *kind == "skill";
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.') && (skills || name.ends_with(".md")))
            .collect();
        names.sort();
        for name in names {
            config.ignored.push(Ignored {
                what: format!("{kind} {}", name.trim_end_matches(".md")),
                source: format!("{dir}/{name}"),
                why: Why::Untrusted,
            });
        }
    }
}

fn held_back(config: &Config) -> Vec<&Ignored> {
    config
        .ignored
        .iter()
        .filter(|i| i.why == Why::Untrusted)
        .collect()
}

/// Asks on the terminal; `true` to trust.
fn ask(workspace: &Path, held_back: &[&Ignored]) -> bool {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "This workspace's config files ({}) would:",
        workspace.display()
    );
    for ignored in held_back {
        let _ = writeln!(err, "  {}  ({})", ignored.what, ignored.source);
    }
    let _ = write!(
        err,
        "Trust them? Hooks run commands on your machine. [y/N] (no: only their deny and ask \
         rules apply) "
    );
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim(), "y" | "Y" | "yes" | "Yes")
}

/// Says once which workspace settings were dropped because they route credentials, and which
/// rules name tools rein does not have (kept: they apply once the tool exists).
fn report_ignored(config: &Config, asking: Asking) {
    if asking == Asking::Silently {
        return;
    }
    let has_rules = !(config.allow.is_empty() && config.ask.is_empty() && config.deny.is_empty());
    let missing = if has_rules {
        let known: Vec<String> = rein_tools::ToolRegistry::builtin_names()
            .map(String::from)
            .collect();
        crate::config::missing_tools::missing_tools(config, &known)
    } else {
        Vec::new()
    };
    if !missing.is_empty() {
        eprintln!(
            "rein: permission rules for tools rein does not have ({}) are kept; they apply \
             once those tools exist",
            missing.join(", ")
        );
    }
    for ignored in config.ignored.iter().filter(|i| i.why == Why::Credentials) {
        eprintln!(
            "rein: ignored {} ({}): a workspace file never routes your API key; set it in \
             ~/.config/rein/config.toml or pass it as a flag",
            ignored.what, ignored.source
        );
    }
}

/// `hooks, allow rules` — the kinds of settings held back.
fn kinds(held_back: &[&Ignored]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for ignored in held_back {
        let kind = if ignored.what.contains(" hook: ") {
            "hooks"
        } else if ignored.what.starts_with("allow rule") {
            "allow rules"
        } else if ignored.what.starts_with("agent definition") {
            "agent definitions"
        } else if ignored.what.starts_with("MCP server") {
            "MCP servers"
        } else if ignored.what.starts_with("command ") {
            "commands"
        } else if ignored.what.starts_with("skill ") {
            "skills"
        } else {
            "the permission mode"
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds.join(", ")
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
