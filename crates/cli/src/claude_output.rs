//! `--output-dialect claude`: the engine's events as Claude Code prints them headless
//! (`-p --output-format stream-json --verbose`): a `system`/`init` event, one `assistant` event
//! per content block in the Messages API's shape, one `user` event per tool result with
//! `tool_use_result` in Claude Code's shape for that tool, and a last `result`. Tools built on
//! Claude Code's headless output (CI actions, SDK wrappers, dashboards) read these.

use std::path::PathBuf;
use std::time::Instant;

use rein_protocol::{ContentBlock, Event, PermissionVerdict, RunOutcome, StopReason, Usage};
use serde_json::{Value, json};

/// What the `init` event says beyond what the engine's `SessionStart` carries.
#[derive(Debug, Clone, Default)]
pub struct InitFacts {
    /// The permission mode under Claude Code's names (`default`, `acceptEdits`, …).
    pub permission_mode: &'static str,
    /// The variable the API key came from (`none` without a key).
    pub api_key_source: String,
    /// The MCP servers started.
    pub mcp_servers: Vec<String>,
    /// The subagents' names.
    pub agents: Vec<String>,
}

/// Turns events into Claude Code's stream-json lines.
pub struct ClaudeDialect {
    facts: InitFacts,
    session_id: String,
    model: String,
    workspace: PathBuf,
    started: Instant,
    /// When the current model request went out, and the time spent in requests so far.
    request_started: Option<Instant>,
    api_ms: u64,
    first_request_ms: Option<u64>,
    last_usage: Usage,
    stop_reason: Option<StopReason>,
    denials: Vec<Value>,
    /// The calls started, for the denials' inputs.
    inputs: Vec<(String, String, Value)>,
}

impl ClaudeDialect {
    pub fn new(facts: InitFacts) -> Self {
        Self {
            facts,
            session_id: String::new(),
            model: String::new(),
            workspace: PathBuf::new(),
            started: Instant::now(),
            request_started: None,
            api_ms: 0,
            first_request_ms: None,
            last_usage: Usage::default(),
            stop_reason: None,
            denials: Vec::new(),
            inputs: Vec::new(),
        }
    }

    /// The lines `event` prints (none for most events).
    pub fn lines(&mut self, event: &Event) -> Vec<Value> {
        match event {
            Event::SessionStart {
                session_id,
                model,
                cwd,
                tools,
                ..
            } => {
                self.session_id.clone_from(session_id);
                self.model.clone_from(model);
                self.workspace = PathBuf::from(cwd);
                vec![self.init(cwd, tools)]
            }
            Event::TurnStart { .. } => {
                let now = Instant::now();
                self.first_request_ms
                    .get_or_insert_with(|| millis(now - self.started));
                self.request_started = Some(now);
                Vec::new()
            }
            Event::Usage { usage, .. } => {
                self.last_usage = *usage;
                if let Some(at) = self.request_started.take() {
                    self.api_ms += millis(at.elapsed());
                }
                Vec::new()
            }
            Event::TurnEnd { stop_reason, .. } => {
                self.stop_reason = Some(stop_reason.clone());
                Vec::new()
            }
            Event::AssistantMessage { message } => message
                .content
                .iter()
                .filter_map(|block| self.assistant(block))
                .collect(),
            Event::ToolCallStart {
                id, name, input, ..
            } => {
                self.inputs.push((id.clone(), name.clone(), input.clone()));
                Vec::new()
            }
            // A headless run has nobody to ask: a call that needs approval is not run either.
            Event::Permission {
                id,
                name,
                decision: PermissionVerdict::Deny | PermissionVerdict::Ask,
                ..
            } => {
                let input = (self.inputs.iter().find(|(i, _, _)| i == id))
                    .map_or(Value::Null, |(_, tool, input)| self.input(tool, input));
                self.denials.push(json!({
                    "tool_name": claude_name(name),
                    "tool_use_id": id,
                    "tool_input": input,
                }));
                Vec::new()
            }
            Event::ToolCallEnd {
                id,
                output,
                is_error,
                tool_response,
                ..
            } => vec![self.user(id, output, *is_error, tool_response.as_ref())],
            Event::Result { .. } => vec![self.result(event)],
            _ => Vec::new(),
        }
    }

    fn init(&self, cwd: &str, tools: &[String]) -> Value {
        let tools: Vec<&str> = tools.iter().map(|t| claude_name(t)).collect();
        let servers: Vec<Value> = (self.facts.mcp_servers.iter())
            .map(|name| json!({"name": name, "status": "connected"}))
            .collect();
        json!({
            "type": "system",
            "subtype": "init",
            "cwd": cwd,
            "session_id": self.session_id,
            "tools": tools,
            "mcp_servers": servers,
            "model": self.model,
            "permissionMode": self.facts.permission_mode,
            "slash_commands": [],
            "apiKeySource": self.facts.api_key_source,
            // The Claude Code version whose output rein's dialect follows (its conformance
            // recordings' — the Agent SDK warns below 2.0.0), and rein's own beside it.
            "claude_code_version": CLAUDE_CODE_PROTOCOL,
            "rein_version": env!("CARGO_PKG_VERSION"),
            "output_style": "default",
            "agents": self.facts.agents,
            "skills": [],
            "plugins": [],
            "analytics_disabled": true,
            "product_feedback_disabled": true,
            "uuid": uuid::Uuid::new_v4().to_string(),
            "memory_paths": {"auto": ""},
            "fast_mode_state": "off",
        })
    }

    /// One content block of the model's message as its own `assistant` event.
    fn assistant(&self, block: &ContentBlock) -> Option<Value> {
        let content = match block {
            ContentBlock::Text { text } if !text.is_empty() => {
                json!({"type": "text", "text": text})
            }
            ContentBlock::Thinking {
                thinking,
                signature,
            } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            ContentBlock::ToolUse { id, name, input } => json!({
                "type": "tool_use",
                "id": id,
                "name": claude_name(name),
                "input": self.input(name, input),
            }),
            _ => return None,
        };
        Some(json!({
            "type": "assistant",
            "message": {
                "id": format!("msg_{}", uuid::Uuid::new_v4().simple()),
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [content],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage(&self.last_usage),
                "context_management": null,
            },
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": uuid::Uuid::new_v4().to_string(),
        }))
    }

    /// A call's input under Claude Code's argument names.
    fn input(&self, tool: &str, input: &Value) -> Value {
        rein_engine::hooks::hook_tool_input(tool, input, &self.workspace)
    }

    fn user(&self, id: &str, output: &str, is_error: bool, response: Option<&Value>) -> Value {
        let result = response
            .cloned()
            .unwrap_or_else(|| json!({"output": output, "is_error": is_error}));
        json!({
            "type": "user",
            "message": {"role": "user", "content": [{
                "tool_use_id": id,
                "type": "tool_result",
                "content": output,
                "is_error": is_error,
            }]},
            "parent_tool_use_id": null,
            "session_id": self.session_id,
            "uuid": uuid::Uuid::new_v4().to_string(),
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "tool_use_result": result,
        })
    }

    fn result(&self, event: &Event) -> Value {
        let Event::Result {
            outcome,
            text,
            turns,
            usage: spent,
            cost_usd,
            duration_ms,
            ..
        } = event
        else {
            return Value::Null;
        };
        let (subtype, terminal) = match outcome {
            RunOutcome::Completed => ("success", "completed"),
            RunOutcome::MaxTurns => ("error_max_turns", "max_turns"),
            RunOutcome::MaxBudget => ("error_max_budget_usd", "max_budget_usd"),
            RunOutcome::Cancelled => ("error_during_execution", "aborted"),
            RunOutcome::Failed => ("error_during_execution", "error"),
        };
        let cost = cost_usd.unwrap_or(0.0);
        let mut model_usage = serde_json::Map::new();
        model_usage.insert(
            self.model.clone(),
            json!({
                "inputTokens": spent.input_tokens,
                "outputTokens": spent.output_tokens,
                "cacheReadInputTokens": spent.cache_read_input_tokens,
                "cacheCreationInputTokens": spent.cache_creation_input_tokens,
                "webSearchRequests": 0,
                "costUSD": cost,
                "contextWindow": rein_engine::context::context_window(&self.model),
                "maxOutputTokens": rein_llm::models::limits(&self.model).max_output,
            }),
        );
        let first = self.first_request_ms.unwrap_or(0);
        json!({
            "type": "result",
            "subtype": subtype,
            "is_error": *outcome != RunOutcome::Completed,
            "api_error_status": null,
            "duration_ms": duration_ms,
            "duration_api_ms": self.api_ms,
            "ttft_ms": self.api_ms.min(*duration_ms),
            "ttft_stream_ms": self.api_ms.min(*duration_ms),
            "time_to_request_ms": first,
            "num_turns": turns,
            "result": text,
            "stop_reason": stop_reason(self.stop_reason.as_ref()),
            "session_id": self.session_id,
            "total_cost_usd": cost,
            "usage": usage(spent),
            "modelUsage": model_usage,
            "permission_denials": self.denials,
            "terminal_reason": terminal,
            "fast_mode_state": "off",
            "uuid": uuid::Uuid::new_v4().to_string(),
        })
    }
}

/// A permission mode under Claude Code's names.
pub fn mode_name(mode: rein_policy::PermissionMode) -> &'static str {
    use rein_policy::PermissionMode;
    match mode {
        PermissionMode::Default => "default",
        PermissionMode::AcceptEdits => "acceptEdits",
        PermissionMode::Plan => "plan",
        PermissionMode::Bypass => "bypassPermissions",
        PermissionMode::Auto => "auto",
    }
}

/// Claude Code's name for a tool, from the one table (an MCP tool keeps its `mcp__…` name).
fn claude_name(name: &str) -> &str {
    rein_tools::claude_names::claude_name(name).unwrap_or(name)
}

/// The Claude Code release whose headless output the Claude dialect reproduces (the one the
/// conformance recordings come from).
pub const CLAUDE_CODE_PROTOCOL: &str = "2.1.197";

/// Usage in the Messages API's shape, with the fields Claude Code adds.
fn usage(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": usage.output_tokens,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": 0,
            "ephemeral_5m_input_tokens": usage.cache_creation_input_tokens,
        },
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
    })
}

/// The Messages API's name for why the model stopped.
fn stop_reason(reason: Option<&StopReason>) -> &'static str {
    match reason {
        Some(StopReason::ToolUse) => "tool_use",
        Some(StopReason::MaxTokens) => "max_tokens",
        Some(StopReason::PauseTurn) => "pause_turn",
        Some(StopReason::Refusal) => "refusal",
        _ => "end_turn",
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
