//! The two tools `rein mcp serve` offers, their argument schemas, and how a call's arguments
//! become the settings of a session (the server's own, narrowed by the call).

use std::path::PathBuf;
use std::sync::Arc;

use rein_policy::PermissionMode;
use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::overrides::{Mode, Overrides, SessionStart, StartAt};

/// The tool that runs a prompt in a new session.
pub const RUN: &str = "rein";
/// The tool that continues a session.
pub const REPLY: &str = "rein-reply";

/// The tools, as `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let run = json!({
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The task, as you would type it to rein."},
            "cwd": {"type": "string", "description": "The workspace: an absolute path (default: the server's)."},
            "model": {"type": "string", "description": "The model (default: the server's)."},
            "permission_mode": {
                "type": "string",
                "enum": ["plan", "default", "accept-edits", "auto", "bypass"],
                "description": "What runs without asking; at most the server's own mode."
            },
            "allowed_tools": {"type": "array", "items": {"type": "string"},
                "description": "Rules for calls that run without asking, e.g. \"Bash(cargo test *)\": only rules the server's own allowed rules include (a caller narrows them)."},
            "disallowed_tools": {"type": "array", "items": {"type": "string"},
                "description": "Rules for calls that never run, e.g. \"Bash(git push *)\"."},
            "max_turns": {"type": "integer", "minimum": 1, "description": "Most model requests for this prompt."},
            "max_budget_usd": {"type": "number", "exclusiveMinimum": 0, "description": "Stop once the session has cost this much (at most the server's limit)."},
            "effort": {"type": "string", "enum": ["minimal", "low", "medium", "high"], "description": "How hard the model thinks."},
            "append_system_prompt": {"type": "string", "description": "Text added to the end of the system prompt."}
        },
        "required": ["prompt"]
    });
    let reply = json!({
        "type": "object",
        "properties": {
            "session_id": {"type": "string", "description": "The session id an earlier `rein` call returned."},
            "prompt": {"type": "string", "description": "What to say next."},
            "cwd": {"type": "string", "description": "The session's workspace, when the server has restarted since (default: the server's)."}
        },
        "required": ["session_id", "prompt"]
    });
    vec![
        tool(
            RUN,
            "Runs a coding task with rein (a coding agent with shell, file, search and edit \
             tools) in a new session, to its answer. Returns the answer and the session id; \
             continue the session with rein-reply.",
            run,
        ),
        tool(
            REPLY,
            "Continues a rein session: the next prompt, with everything said and done so far.",
            reply,
        ),
    ]
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(schema) => schema,
        _ => serde_json::Map::new(),
    };
    Tool::new(name, description, Arc::new(schema))
}

/// A `rein` call's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunCall {
    pub prompt: String,
    pub cwd: Option<PathBuf>,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub disallowed_tools: Vec<String>,
    pub max_turns: Option<u32>,
    pub max_budget_usd: Option<f64>,
    pub effort: Option<String>,
    pub append_system_prompt: Option<String>,
}

/// A `rein-reply` call's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyCall {
    pub session_id: String,
    pub prompt: String,
    pub cwd: Option<PathBuf>,
}

/// What is wrong with a call: said to the client as the tool's error result.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadCall(pub String);

/// Reads a call's arguments as `T`, saying what is wrong with them.
pub fn parse<T: for<'de> Deserialize<'de>>(
    tool: &str,
    arguments: Option<serde_json::Map<String, Value>>,
) -> Result<T, BadCall> {
    let arguments = Value::Object(arguments.unwrap_or_default());
    serde_json::from_value(arguments).map_err(|e| BadCall(format!("{tool}: bad arguments: {e}")))
}

/// The settings of a new session for `call`: the server's, narrowed by the call. `ceiling` is
/// the server's resolved mode: a call asking for a broader one is refused, never obeyed.
pub fn for_run(
    server: &Overrides,
    ceiling: PermissionMode,
    call: RunCall,
) -> Result<Overrides, BadCall> {
    narrowed(server, ceiling, call).map_err(BadCall)
}

fn narrowed(
    server: &Overrides,
    ceiling: PermissionMode,
    call: RunCall,
) -> Result<Overrides, String> {
    let mut args = server.clone();
    if let Some(asked) = &call.permission_mode {
        let mode = PermissionMode::parse(asked).ok_or_else(|| {
            format!("permission_mode {asked:?}: one of plan, default, accept-edits, auto, bypass")
        })?;
        if mode.at_most(ceiling) != mode {
            return Err(format!(
                "permission_mode {}: broader than this server's {} (its --permission-mode); \
                 ask for {} or narrower",
                mode.name(),
                ceiling.name(),
                ceiling.name()
            ));
        }
        args.mode = Some(Mode::Named(mode));
    }
    if let Some(asked) = call.max_budget_usd {
        if !asked.is_finite() || asked <= 0.0 {
            return Err(format!(
                "max_budget_usd {asked}: a positive number of dollars"
            ));
        }
        let own = server.limits.max_budget_usd;
        args.limits.max_budget_usd = Some(own.map_or(asked, |own| own.min(asked)));
    }
    if let Some(effort) = &call.effort {
        args.limits.effort =
            Some(rein_llm::Effort::parse(effort).map_err(|e| format!("effort {effort:?}: {e}"))?);
    }
    if call.max_turns == Some(0) {
        return Err("max_turns: at least 1".to_string());
    }
    args.limits.max_turns = call.max_turns.or(args.limits.max_turns);
    args.route.model = call.model.or(args.route.model);
    args.cwd = call.cwd.or(args.cwd);
    if !call.allowed_tools.is_empty() {
        args.rules.allow = narrower_allows(&server.rules.allow, call.allowed_tools)?;
    }
    args.rules.deny.extend(call.disallowed_tools);
    args.prompt.append = call.append_system_prompt;
    Ok(args)
}

/// A caller's `allowed_tools`, each kept only when one of the server's own rules includes it:
/// a caller narrows what runs without asking, never widens it.
fn narrower_allows(server: &[String], asked: Vec<String>) -> Result<Vec<String>, String> {
    use rein_policy::Rule;
    let here = std::path::Path::new("/");
    let parse = |text: &String| Rule::parse(text, here, None).map_err(|e| e.to_string());
    let own: Vec<Rule> = server.iter().filter_map(|t| parse(t).ok()).collect();
    for text in &asked {
        let rule = parse(text).map_err(|e| format!("allowed_tools {text:?}: {e}"))?;
        if !own.iter().any(|own| own.includes(&rule)) {
            let list = if server.is_empty() {
                "it has none".to_string()
            } else {
                server.join(", ")
            };
            return Err(format!(
                "allowed_tools {text:?}: a caller may only narrow the rules that run without \
                 asking, and none of this server's own --allowed-tools includes it ({list})"
            ));
        }
    }
    Ok(asked)
}

/// The settings that continue the stored session of `call` (one this server no longer holds).
pub fn for_reply(server: &Overrides, call: &ReplyCall) -> Overrides {
    let mut args = server.clone();
    args.cwd = call.cwd.clone().or(args.cwd);
    args.start = SessionStart {
        at: StartAt::Resume(call.session_id.clone()),
        fork: false,
    };
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp_args::ServeArgs;

    fn call(json: Value) -> RunCall {
        let Value::Object(map) = json else {
            panic!("an object")
        };
        parse(RUN, Some(map)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_call_may_narrow_the_mode_but_not_widen_it() {
        let server = ServeArgs::default().overrides().unwrap();
        let narrower = for_run(
            &server,
            PermissionMode::AcceptEdits,
            call(json!({"prompt": "hi", "permission_mode": "plan"})),
        );
        assert_eq!(
            narrower.map(|a| a.mode),
            Ok(Some(Mode::Named(PermissionMode::Plan)))
        );
        let wider = for_run(
            &server,
            PermissionMode::AcceptEdits,
            call(json!({"prompt": "hi", "permission_mode": "bypass"})),
        );
        assert_eq!(
            wider.map(|a| a.mode).map_err(|e| e.0),
            Err(
                "permission_mode bypass: broader than this server's accept-edits (its \
                 --permission-mode); ask for accept-edits or narrower"
                    .into()
            )
        );
    }

    #[test]
    fn a_call_may_narrow_the_allowed_rules_but_never_add_one() {
        let server = ServeArgs {
            allowed_tools: vec!["Bash(cargo test *)".into(), "Read".into()],
            ..ServeArgs::default()
        }
        .overrides()
        .unwrap();
        let run = |allowed: Value| {
            for_run(
                &server,
                PermissionMode::Default,
                call(json!({"prompt": "hi", "allowed_tools": allowed})),
            )
            .map(|a| a.rules.allow)
            .map_err(|e| e.0)
        };
        // Kept: the server's own rules, or narrower ones.
        assert_eq!(run(json!([])), Ok(server.rules.allow.clone()));
        assert_eq!(
            run(json!(["Read(./src/**)"])),
            Ok(vec!["Read(./src/**)".to_string()])
        );
        assert_eq!(
            run(json!(["Bash(cargo test *)"])),
            Ok(vec!["Bash(cargo test *)".to_string()])
        );
        // Refused: anything the server does not already allow.
        for wider in [
            "Bash",
            "Bash(*)",
            "Bash(cargo *)",
            "Edit",
            "Write(src/**)",
            "mcp__x",
        ] {
            let refused = run(json!([wider])).unwrap_err();
            assert!(
                refused.contains("a caller may only narrow"),
                "{wider}: {refused}"
            );
        }
        let bare = ServeArgs::default().overrides().unwrap();
        let refused = for_run(
            &bare,
            PermissionMode::Bypass,
            call(json!({"prompt": "hi", "allowed_tools": ["Bash"]})),
        )
        .map(|_| ())
        .unwrap_err();
        assert!(refused.0.contains("it has none"), "{}", refused.0);
    }

    #[test]
    fn a_call_budget_is_at_most_the_servers() {
        let server = ServeArgs {
            max_budget_usd: Some(1.0),
            ..ServeArgs::default()
        }
        .overrides()
        .unwrap();
        let more = for_run(
            &server,
            PermissionMode::Default,
            call(json!({"prompt": "hi", "max_budget_usd": 5.0})),
        );
        assert_eq!(more.map(|a| a.limits.max_budget_usd), Ok(Some(1.0)));
        let less = for_run(
            &server,
            PermissionMode::Default,
            call(json!({"prompt": "hi", "max_budget_usd": 0.25})),
        );
        assert_eq!(less.map(|a| a.limits.max_budget_usd), Ok(Some(0.25)));
    }

    #[test]
    fn unknown_or_missing_arguments_are_named() {
        let missing = parse::<RunCall>(RUN, None).map(|_| ());
        assert!(
            missing
                .as_ref()
                .is_err_and(|e| e.0.contains("missing field `prompt`")),
            "{missing:?}"
        );
        let Value::Object(typo) = json!({"prompt": "hi", "permision_mode": "plan"}) else {
            panic!("an object")
        };
        let typo = parse::<RunCall>(RUN, Some(typo)).map(|_| ());
        assert!(
            typo.as_ref()
                .is_err_and(|e| e.0.contains("unknown field `permision_mode`")),
            "{typo:?}"
        );
    }
}
