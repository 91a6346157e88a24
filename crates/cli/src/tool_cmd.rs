//! `rein tool NAME`: run one tool directly with the same guards the agent has.

use std::io::Read;
use std::path::Path;

use rein_tools::{ToolContext, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::args::ToolArgs;
use crate::resolve;

/// The tools and their arguments (`*`: required), for `rein tool --help`.
pub fn help() -> String {
    let mut out =
        String::from("Tools (`rein tool --list [NAME]` shows descriptions and schemas):\n");
    for spec in listed().specs() {
        let arguments = arguments(&spec.input_schema);
        out.push_str(&format!("  {:<12} {}\n", spec.name, arguments.join(", ")));
    }
    out
}

/// Runs `rein tool`: lists the tools, or calls one with the agent's guards.
pub async fn run(args: ToolArgs) -> Result<(), Exit> {
    if args.list {
        return list(&args.name);
    }
    let workspace = resolve::workspace(args.cwd.as_deref())?;
    known(&args.name)?;
    // Only the tool called is built: building one derives its schema.
    let mut registry = ToolRegistry::builtin_only(|name| name == args.name);
    if args.name == rein_tools::REPO_MAP
        && let Some(tool) = crate::setup::repo_map_tool(None)
    {
        // With its cache, as in a session.
        registry.register(rein_tools::typed(tool));
    }
    let input = read_input(args.args)?;
    let cancel = CancellationToken::new();
    let ctx = context(&workspace, cancel.clone(), None)?;
    if rein_tools::LSP_TOOLS.contains(&args.name.as_str()) {
        ctx.services.put(one_shot_servers(&workspace)?);
        registry = ToolRegistry::new();
        for tool in rein_tools::lsp_tools() {
            registry.register(tool);
        }
    }
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let output = registry.call(&args.name, input, &ctx).await;
    interrupt.abort();
    (ctx.services.get::<rein_tools::Code>())
        .shutdown(crate::lsp::SHUTDOWN_GRACE)
        .await;
    if args.json {
        println!(
            "{}",
            json!({"output": output.text, "is_error": output.is_error})
        );
    } else if output.text.ends_with('\n') {
        print!("{}", output.text);
    } else {
        println!("{}", output.text);
    }
    if output.is_error {
        return Err(Exit::silent_failure());
    }
    Ok(())
}

/// A usage error unless `name` is a built-in tool's.
fn known(name: &str) -> Result<(), Exit> {
    if ToolRegistry::builtin_names().any(|n| n == name) || rein_tools::LSP_TOOLS.contains(&name) {
        return Ok(());
    }
    let mut names: Vec<&str> = ToolRegistry::builtin_names().collect();
    names.extend(rein_tools::LSP_TOOLS);
    Err(Exit::usage(format!(
        "unknown tool {name:?}; available: {}",
        names.join(", ")
    )))
}

/// The tools a session adds to the built-in ones, which `rein tool` does not run.
const SESSION_TOOLS: &str = "In a session the model also has task (subagents), skill, \
exit_plan_mode (plan mode), ask_user_question (request_user_input for GPT models), \
tool_search (many MCP tools), compact (when configured) and the MCP servers' tools (`rein \
mcp list` shows them).";

/// `rein tool --list`: each built-in tool on a line (what it does, its arguments; `*`:
/// required); `rein tool --list NAME`: that tool's whole description and argument schema.
/// The tools `rein tool` runs: the built-in ones and the language servers'.
fn listed() -> ToolRegistry {
    let mut registry = ToolRegistry::builtin();
    for tool in rein_tools::lsp_tools() {
        registry.register(tool);
    }
    registry
}

fn list(name: &str) -> Result<(), Exit> {
    let mut out = String::new();
    if !name.is_empty() {
        known(name)?;
        for spec in listed().subset(|n| n == name).specs() {
            let schema = serde_json::to_string_pretty(&*spec.input_schema).unwrap_or_default();
            out.push_str(&format!(
                "{}\n\n{}\n\narguments:\n{schema}\n",
                spec.name, spec.description
            ));
        }
        return crate::output::print_all(&out);
    }
    out.push_str(
        "Run with `rein tool NAME --args JSON` (`rein tool --list NAME` shows one whole):\n",
    );
    for spec in listed().specs() {
        let first_line = spec.description.lines().next().unwrap_or("");
        let first = first_line
            .split_inclusive(". ")
            .next()
            .unwrap_or("")
            .trim()
            .trim_end_matches(':');
        let arguments = arguments(&spec.input_schema).join(", ");
        out.push_str(&format!(
            "  {:<12} {first}\n  {:<12} arguments: {arguments}\n",
            spec.name, ""
        ));
    }
    out.push_str(&format!("\n{SESSION_TOOLS}\n"));
    crate::output::print_all(&out)
}

/// A schema's argument names, `*` after the required ones.
fn arguments(schema: &Value) -> Vec<String> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, _)| {
            let mark = if required.contains(&name.as_str()) {
                "*"
            } else {
                ""
            };
            format!("{name}{mark}")
        })
        .collect()
}

/// The tool's arguments: the flag's JSON, else standard input's.
fn read_input(flag: Option<String>) -> Result<Value, Exit> {
    let raw = match flag {
        Some(raw) => raw,
        None => {
            let mut raw = String::new();
            std::io::stdin()
                .read_to_string(&mut raw)
                .map_err(|e| Exit::usage(format!("cannot read arguments from stdin: {e}")))?;
            raw
        }
    };
    serde_json::from_str(&raw)
        .map_err(|e| Exit::usage(format!("the tool arguments are not valid JSON: {e}")))
}

/// The language servers for one call of a language-server tool: started cold, so a file's
/// diagnostics are awaited up to 30 s (a session's servers are warm after the first read).
fn one_shot_servers(workspace: &Path) -> Result<rein_tools::Code, Exit> {
    let env = crate::env::process;
    let mut config = crate::trust::load_for_reading(workspace)?;
    let found = crate::lsp::found(&config, &env, workspace)?;
    let settle = config.lsp.settle_ms.as_ref().map_or(0, |s| s.value);
    config.lsp.settle_ms = Some(crate::config::Sourced {
        value: settle.max(30_000),
        source: "rein tool".into(),
    });
    let workspace = workspace
        .canonicalize()
        .map_err(|e| Exit::usage(format!("{}: {e}", workspace.display())))?;
    Ok(crate::lsp::code(&config, &workspace, found))
}

/// The same guard the agent gets (configured sensitive paths and Read deny rules apply), and
/// the read-only sandbox proven read-only commands run in, as in a session.
/// `sandbox` overrides the configured policy (`rein eval`'s setup and check commands).
pub fn context(
    workspace: &Path,
    cancel: CancellationToken,
    sandbox: Option<rein_sandbox::Policy>,
) -> Result<ToolContext, Exit> {
    let env = crate::env::process;
    let config = crate::trust::load_for_reading(workspace)?;
    let policy = resolve::config_policy(workspace, &config, &env)?;
    let sensitive = crate::sandbox::sensitive_list(&config, &env)?;
    let guard = rein_engine::workspace_guard(workspace, &[], Some(&sensitive), &policy)
        .map_err(|e| Exit::usage(e.to_string()))?;
    let mut settings = crate::sandbox::settings(&config, guard.sensitive_paths(), &env);
    // A confined language server must see its own installation.
    let found = crate::lsp::found(&config, &env, workspace)?;
    settings
        .read_roots
        .extend(crate::lsp::install_roots(&found));
    let sandbox_policy = crate::sandbox::policy(sandbox, &config);
    let sandbox = crate::sandbox::detect(settings, sandbox_policy, policy.mode)?;
    Ok(ToolContext {
        cancel,
        sandbox,
        sandbox_policy,
        parsers: crate::sandbox::parsers(),
        hidden_env: crate::secrets::hidden(&config, None),
        ..ToolContext::new(guard)
    })
}
