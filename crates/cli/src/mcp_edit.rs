//! `rein mcp add` and `rein mcp remove`: a server written to the user's `config.toml`
//! (`[mcp_servers.<name>]`, codex's keys, the rest of the file kept as it was) or, with
//! `--scope project`, to the workspace's `.mcp.json` (Claude Code's shape, shared with the
//! team). A project file rein writes at the user's word keeps the workspace's trust.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Exit;
use crate::edit_files::{read_json, read_toml, trusted, write, write_json};
use crate::mcp_args::{McpAddArgs, McpScope};

/// Where a server is written.
enum Target {
    /// The user's `config.toml`.
    User(PathBuf),
    /// The workspace's `.mcp.json`.
    Project(PathBuf),
}

fn target(scope: McpScope, workspace: &Path) -> Result<Target, Exit> {
    let env = crate::env::process;
    match scope {
        McpScope::User => (crate::resolve::Folders::of(&env).config)
            .map(|dir| Target::User(dir.join("config.toml")))
            .ok_or_else(|| Exit::usage("cannot find the user config: set HOME or XDG_CONFIG_HOME")),
        McpScope::Project => Ok(Target::Project(workspace.join(".mcp.json"))),
    }
}

/// A server name as every provider accepts it inside `mcp__<name>__<tool>`.
fn check_name(name: &str) -> Result<(), Exit> {
    if name.is_empty()
        || name.len() > 40
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Exit::usage(format!(
            "`{name}` cannot name a server: use letters, digits, `-` and `_` (at most 40)"
        )));
    }
    // The same rule as when servers are loaded: no `__`, no `_` at an end.
    rein_mcp::check_name(name, "the command line").map_err(|e| Exit::usage(e.to_string()))
}

/// `KEY=VALUE` pairs.
fn pairs(items: &[String], what: &str, sep: char) -> Result<Vec<(String, String)>, Exit> {
    items
        .iter()
        .map(|item| match item.split_once(sep) {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(Exit::usage(format!(
                "`{item}` is not a {what} (expected NAME{sep}VALUE)"
            ))),
        })
        .collect()
}

/// `rein mcp add`.
pub fn add(args: McpAddArgs, workspace: &Path) -> Result<(), Exit> {
    check_name(&args.name)?;
    let env = pairs(&args.env, "variable", '=')?;
    let headers = pairs(&args.header, "header", ':')?;
    let http = args.transport.as_deref() == Some("http");
    let sse = args.transport.as_deref() == Some("sse");
    if sse {
        return Err(Exit::usage(
            "the legacy SSE transport is not supported; use --transport http with the \
             server's streamable HTTP address (often ending in /mcp)",
        ));
    }
    let (first, rest) = match args.target.split_first() {
        Some((first, rest)) => (first.clone(), rest.to_vec()),
        None if http => return Err(Exit::usage("rein mcp add --transport http NAME URL")),
        None => return Err(Exit::usage("rein mcp add NAME -- COMMAND [ARGS…]")),
    };
    if http
        && (!rest.is_empty() || !(first.starts_with("http://") || first.starts_with("https://")))
    {
        return Err(Exit::usage(format!(
            "`{}` is not an http:// or https:// URL",
            args.target.join(" ")
        )));
    }
    if !http && !headers.is_empty() {
        return Err(Exit::usage("--header belongs to --transport http"));
    }
    if http && !env.is_empty() {
        return Err(Exit::usage("--env belongs to a server rein starts (stdio)"));
    }
    match target(args.scope, workspace)? {
        Target::User(path) => {
            let mut doc = read_toml(&path)?;
            let servers = doc
                .entry("mcp_servers")
                .or_insert_with(|| toml_edit::Item::Table(implicit_table()))
                .as_table_mut()
                .ok_or_else(|| {
                    Exit::failed(format!("{}: `mcp_servers` is not a table", path.display()))
                })?;
            if servers.contains_key(&args.name) {
                return Err(exists(&args.name, &path));
            }
            servers.insert(
                &args.name,
                toml_edit::Item::Table(toml_server(http, &first, &rest, &env, &headers)),
            );
            write(&path, &doc.to_string())?;
            println!("Added MCP server {} to {}", args.name, path.display());
        }
        Target::Project(path) => {
            let was_trusted = trust_of(workspace);
            let mut doc = read_json(&path)?;
            let servers = doc
                .as_object_mut()
                .map(|o| o.entry("mcpServers").or_insert_with(|| json!({})))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| {
                    Exit::failed(format!("{}: `mcpServers` is not an object", path.display()))
                })?;
            if servers.contains_key(&args.name) {
                return Err(exists(&args.name, &path));
            }
            servers.insert(
                args.name.clone(),
                json_server(http, &first, &rest, &env, &headers),
            );
            write_json(&path, &doc)?;
            println!("Added MCP server {} to {}", args.name, path.display());
            keep_trust(workspace, was_trusted)?;
        }
    }
    Ok(())
}

/// `rein mcp remove NAME`: from the scope given, or from wherever it is when that is one place.
pub fn remove(name: &str, scope: Option<McpScope>, workspace: &Path) -> Result<(), Exit> {
    let in_user = |path: &Path| -> Result<bool, Exit> {
        Ok(read_toml(path)?
            .get("mcp_servers")
            .and_then(|s| s.as_table_like())
            .is_some_and(|s| s.contains_key(name)))
    };
    let in_project = |path: &Path| -> Result<bool, Exit> {
        Ok(read_json(path)?
            .get("mcpServers")
            .and_then(Value::as_object)
            .is_some_and(|s| s.contains_key(name)))
    };
    let user = target(McpScope::User, workspace)?;
    let project = target(McpScope::Project, workspace)?;
    let (Target::User(user), Target::Project(project)) = (user, project) else {
        return Err(Exit::failed("internal: scopes"));
    };
    let chosen = match scope {
        Some(McpScope::User) => McpScope::User,
        Some(McpScope::Project) => McpScope::Project,
        None => match (in_user(&user)?, in_project(&project)?) {
            (true, true) => {
                return Err(Exit::usage(format!(
                    "{name} is in both {} and {}: say which with --scope user or --scope project",
                    user.display(),
                    project.display()
                )));
            }
            (false, true) => McpScope::Project,
            _ => McpScope::User,
        },
    };
    match chosen {
        McpScope::User => {
            let mut doc = read_toml(&user)?;
            let removed = doc
                .get_mut("mcp_servers")
                .and_then(|s| s.as_table_like_mut())
                .and_then(|s| s.remove(name))
                .is_some();
            if !removed {
                return Err(missing(name, &user));
            }
            write(&user, &doc.to_string())?;
            println!("Removed MCP server {name} from {}", user.display());
        }
        McpScope::Project => {
            let was_trusted = trust_of(workspace);
            let mut doc = read_json(&project)?;
            let removed = doc
                .get_mut("mcpServers")
                .and_then(Value::as_object_mut)
                .and_then(|s| s.remove(name))
                .is_some();
            if !removed {
                return Err(missing(name, &project));
            }
            write_json(&project, &doc)?;
            println!("Removed MCP server {name} from {}", project.display());
            if was_trusted == Trust::Trusted {
                keep_trust(workspace, was_trusted)?;
            }
        }
    }
    Ok(())
}

fn exists(name: &str, path: &Path) -> Exit {
    Exit::usage(format!(
        "{} already names an MCP server {name}; remove it first (rein mcp remove {name})",
        path.display()
    ))
}

fn missing(name: &str, path: &Path) -> Exit {
    Exit::usage(format!("{} has no MCP server {name}", path.display()))
}

fn implicit_table() -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    table
}

fn toml_server(
    http: bool,
    first: &str,
    rest: &[String],
    env: &[(String, String)],
    headers: &[(String, String)],
) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    if http {
        table["url"] = toml_edit::value(first);
        let mut fixed = toml_edit::InlineTable::new();
        let mut from_env = toml_edit::InlineTable::new();
        for (name, value) in headers {
            // `Bearer ${TOKEN}` and `${VAR}` are read from the environment when rein starts.
            let var = |v: &str| {
                v.strip_prefix("${")
                    .and_then(|v| v.strip_suffix('}'))
                    .filter(|v| v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                    .map(str::to_string)
            };
            if name.eq_ignore_ascii_case("authorization")
                && let Some(token) = value.strip_prefix("Bearer ").and_then(var)
            {
                table["bearer_token_env_var"] = toml_edit::value(token);
            } else if let Some(var) = var(value) {
                from_env.insert(name, var.into());
            } else {
                fixed.insert(name, value.as_str().into());
            }
        }
        if !fixed.is_empty() {
            table["http_headers"] = toml_edit::value(fixed);
        }
        if !from_env.is_empty() {
            table["env_http_headers"] = toml_edit::value(from_env);
        }
    } else {
        table["command"] = toml_edit::value(first);
        if !rest.is_empty() {
            table["args"] = toml_edit::value(rest.iter().collect::<toml_edit::Array>());
        }
        if !env.is_empty() {
            let mut vars = toml_edit::InlineTable::new();
            for (k, v) in env {
                vars.insert(k, v.as_str().into());
            }
            table["env"] = toml_edit::value(vars);
        }
    }
    table
}

fn json_server(
    http: bool,
    first: &str,
    rest: &[String],
    env: &[(String, String)],
    headers: &[(String, String)],
) -> Value {
    if http {
        let mut server = json!({"type": "http", "url": first});
        if !headers.is_empty() {
            server["headers"] = headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        }
        return server;
    }
    let mut server = json!({"type": "stdio", "command": first, "args": rest});
    if !env.is_empty() {
        server["env"] = env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    }
    server
}

/// Keeps the workspace's trust after rein changed its `.mcp.json`, or says how to trust it.
fn keep_trust(workspace: &Path, trust: Trust) -> Result<(), Exit> {
    match trust {
        Trust::Trusted => crate::edit_files::retrust(workspace),
        Trust::Untrusted => {
            println!(
                "This workspace is not trusted, so its .mcp.json is not used yet: run `rein trust` in {}",
                workspace.display()
            );
            Ok(())
        }
    }
}

/// Whether the workspace was trusted before rein changed one of its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    Trusted,
    Untrusted,
}

fn trust_of(workspace: &Path) -> Trust {
    if trusted(workspace) {
        Trust::Trusted
    } else {
        Trust::Untrusted
    }
}
