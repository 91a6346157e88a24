//! `rein tool NAME`: run one tool directly with the same guards the agent has.

use std::io::Read;

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
    for spec in ToolRegistry::builtin().specs() {
        let required: Vec<&str> = spec.input_schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let arguments: Vec<String> = spec.input_schema["properties"]
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
            .collect();
        out.push_str(&format!("  {:<12} {}\n", spec.name, arguments.join(", ")));
    }
    out
}

pub async fn run(args: ToolArgs) -> Result<(), Exit> {
    let registry = ToolRegistry::builtin();
    if args.list {
        let one = !args.name.is_empty();
        if one && !registry.names().contains(&args.name) {
            return Err(Exit::usage(format!(
                "unknown tool {:?}; available: {}",
                args.name,
                registry.names().join(", ")
            )));
        }
        for spec in registry
            .specs()
            .into_iter()
            .filter(|s| !one || s.name == args.name)
        {
            println!(
                "{}\n  {}\n  arguments: {}\n",
                spec.name, spec.description, spec.input_schema
            );
        }
        return Ok(());
    }
    let workspace = resolve::workspace(args.cwd.as_deref())?;
    let names = registry.names();
    if !names.contains(&args.name) {
        return Err(Exit::usage(format!(
            "unknown tool {:?}; available: {}",
            args.name,
            names.join(", ")
        )));
    }
    let raw = match args.args {
        Some(raw) => raw,
        None => {
            let mut raw = String::new();
            std::io::stdin()
                .read_to_string(&mut raw)
                .map_err(|e| Exit::usage(format!("cannot read arguments from stdin: {e}")))?;
            raw
        }
    };
    let input: Value = serde_json::from_str(&raw)
        .map_err(|e| Exit::usage(format!("the tool arguments are not valid JSON: {e}")))?;
    // The same guard the agent gets: configured sensitive paths and Read deny rules apply.
    let env = crate::env::process;
    let config = crate::trust::load(
        &workspace,
        &env,
        crate::trust::TrustFlag::Absent,
        crate::trust::Asking::Silently,
    )?;
    let policy = resolve::config_policy(&workspace, &config, &env)?;
    let sensitive = resolve::sensitive_paths(&config, &env);
    let guard = rein_engine::workspace_guard(&workspace, &sensitive, &policy)
        .map_err(|e| Exit::usage(e.to_string()))?;
    let cancel = CancellationToken::new();
    // Proven read-only commands run in the read-only sandbox, as in a session.
    let settings = crate::sandbox::settings(&config, guard.sensitive_paths(), &env);
    let sandbox_policy = crate::sandbox::policy(None, &config)?;
    let mode = policy.mode;
    let sandbox = crate::sandbox::detect(settings, sandbox_policy, mode)?;
    let ctx = ToolContext {
        cancel: cancel.clone(),
        sandbox,
        sandbox_policy,
        ..ToolContext::new(guard)
    };
    let interrupt = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let output = registry.call(&args.name, input, &ctx).await;
    interrupt.abort();
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
