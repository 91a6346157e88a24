//! The engine's one event stream. The terminal UI, the headless printer and `stream-json` are
//! all consumers of these events; `stream-json` prints each as an [`EventEnvelope`] line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Message, StopReason, Usage};

/// Version of the event schema. Bump it when an event changes incompatibly.
pub const EVENT_SCHEMA_VERSION: u32 = 1;

/// An event with its schema version, as written by `--output-format stream-json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    /// Schema version ([`EVENT_SCHEMA_VERSION`]).
    pub v: u32,
    /// The event.
    #[serde(flatten)]
    pub event: Event,
}

impl From<Event> for EventEnvelope {
    fn from(event: Event) -> Self {
        Self {
            v: EVENT_SCHEMA_VERSION,
            event,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// The model answered without calling more tools.
    Completed,
    /// The turn limit was reached.
    MaxTurns,
    /// The user cancelled.
    Cancelled,
    /// The model API failed.
    Failed,
}

/// The outcome of a permission check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionVerdict {
    /// The call runs.
    Allow,
    /// The call needs the user's approval.
    Ask,
    /// The call is refused.
    Deny,
}

/// Something that happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A run started.
    SessionStart {
        /// Session identifier.
        session_id: String,
        /// Provider name (`anthropic`, `openai`, `openai-chat`).
        provider: String,
        /// Model name.
        model: String,
        /// Workspace root.
        cwd: String,
        /// Names of the tools offered to the model.
        tools: Vec<String>,
    },
    /// A model request is about to be sent.
    TurnStart {
        /// 1-based turn number.
        turn: u32,
    },
    /// Streamed answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Streamed reasoning text.
    ThinkingDelta {
        /// The new text.
        text: String,
    },
    /// The provider asked to retry the request.
    Retry {
        /// 1-based number of the attempt that failed.
        attempt: u32,
        /// Wait before the next attempt, in milliseconds.
        delay_ms: u64,
        /// Why the attempt failed.
        reason: String,
    },
    /// The model failed in a way its fallback may not (overloaded, not found): the rest of
    /// the session asks the fallback model.
    ModelFallback {
        /// The model that failed.
        from: String,
        /// The model asked from now on.
        to: String,
        /// Why the first failed.
        reason: String,
    },
    /// Tools beside the built-in ones changed (an MCP server said its list changed): these
    /// are offered from the next request on, and these no longer.
    ToolsChanged {
        /// Tools offered now that were not before.
        added: Vec<String>,
        /// Tools no longer offered.
        removed: Vec<String>,
    },
    /// Files were put back as they were before some user turns (`rein undo`, `/rewind`):
    /// the model is told in its next request.
    FilesRestored {
        /// The turns undone (1 = the session's first prompt that changed files).
        turns: Vec<u32>,
        /// The files restored, recreated or removed, relative to the workspace.
        files: Vec<String>,
    },
    /// The complete assistant message of a turn.
    AssistantMessage {
        /// The message as it enters the transcript.
        message: Message,
    },
    /// A tool call is about to run.
    ToolCallStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        input: Value,
        /// What the call touches, in one line for people (`cargo test`, `src/lib.rs`),
        /// from the call's facts: front ends show it instead of reading the input.
        summary: String,
    },
    /// The permission check of a tool call decided (every call gets one, before it runs).
    Permission {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The outcome.
        decision: PermissionVerdict,
        /// What decided: a rule and its source, the mode, `read-only call`, a dangerous
        /// command, a hook, or the user's answer.
        reason: String,
    },
    /// The engine waits for the user to approve a call (interactive front ends answer).
    PermissionRequest {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        input: Value,
        /// Why approval is needed.
        reason: String,
    },
    /// The transcript was compacted to fit the context window.
    Compaction {
        /// `auto` (the estimate crossed the threshold), `reactive` (the provider said the
        /// prompt is too long), `manual` or `model` (the `compact` tool).
        trigger: String,
        /// Estimated tokens before.
        tokens_before: u64,
        /// Estimated tokens after.
        tokens_after: u64,
        /// Messages kept verbatim after the summary.
        kept_messages: usize,
    },
    /// A hook command ran.
    HookRun {
        /// The hook event (`PreToolUse`…).
        event: String,
        /// The command.
        command: String,
        /// Its exit code; absent when it was killed or could not start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// Whether it blocked what it hooks.
        blocked: bool,
        /// What it said to the user (a reason, a system message, an error), if anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Output of a running tool call as it comes (a shell's stdout and stderr), for live
    /// display; the result in [`Event::ToolCallEnd`] is what the model sees.
    ToolOutputDelta {
        /// Call id.
        id: String,
        /// The output since the previous delta (at most its last 4 KiB; `bash` sends one
        /// delta per 100 ms at most).
        text: String,
    },
    /// A tool call finished.
    ToolCallEnd {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Result text given to the model.
        output: String,
        /// Whether the result is an error.
        is_error: bool,
        /// Wall time of the call in milliseconds, from when it was cleared to run (the wait
        /// for a permission answer is not counted).
        duration_ms: u64,
    },
    /// Token usage of the last request.
    Usage {
        /// Usage reported by the provider.
        usage: Usage,
        /// Cost of this request in US dollars; absent when the model's price is unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// A model turn ended.
    TurnEnd {
        /// 1-based turn number.
        turn: u32,
        /// Why the model stopped.
        stop_reason: StopReason,
    },
    /// Something a subagent's own run reported (its turns, tool calls, usage, result),
    /// wrapped with the call that started it.
    Subagent {
        /// The id of the parent's `task` call running the subagent.
        parent_tool_use_id: String,
        /// The subagent's definition (`general`, `explore`, a file's `name`).
        agent: String,
        /// The subagent's event.
        event: Box<Event>,
    },
    /// The todo list changed (a `todo_write` call): the whole list as it is now.
    Todos {
        /// The items, in the model's order.
        todos: Vec<TodoItem>,
    },
    /// An error the user should see.
    Error {
        /// What went wrong and what to do about it.
        message: String,
    },
    /// The run ended. Always the last event.
    Result {
        /// How it ended.
        outcome: RunOutcome,
        /// The final answer text (the last assistant message's text).
        text: String,
        /// Model turns taken.
        turns: u32,
        /// Usage summed over all requests.
        usage: Usage,
        /// Total cost in US dollars, absent when unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        /// Wall time of the run in milliseconds.
        duration_ms: u64,
        /// Usage summed over the whole session (earlier runs of a resumed session included).
        #[serde(default)]
        session_usage: Usage,
        /// Cost of the whole session in US dollars, absent when unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_cost_usd: Option<f64>,
    },
}

/// One item of the model's todo list (Claude Code's `TodoWrite` shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// What is to be done, imperative (`Run the tests`).
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: TodoStatus,
    /// The same in the present continuous, shown while it is in progress (`Running the tests`).
    #[serde(rename = "activeForm", default)]
    pub active_form: String,
}

/// Where a todo item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one item at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One line for a change of the offered tools: `tools changed: + a, b; - c`.
pub fn tools_changed(added: &[String], removed: &[String]) -> String {
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("+ {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("- {}", removed.join(", ")));
    }
    format!("tools changed: {}", parts.join("; "))
}

/// One line saying which files were put back (`restored 2 files to before turn 3: a, b`).
pub fn files_restored(turns: &[u32], files: &[String]) -> String {
    let turns = match turns {
        [one] => format!("turn {one}"),
        many => format!(
            "turns {}",
            many.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let count = match files.len() {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    format!("restored {count} to before {turns}: {}", files.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn envelope_carries_the_schema_version_next_to_the_event_tag() {
        let line = serde_json::to_value(EventEnvelope::from(Event::TurnStart { turn: 3 })).unwrap();
        assert_eq!(
            line,
            json!({"v": EVENT_SCHEMA_VERSION, "type": "turn_start", "turn": 3})
        );
    }

    #[test]
    fn result_without_cost_omits_the_field_and_round_trips() {
        let event = Event::Result {
            outcome: RunOutcome::MaxTurns,
            text: String::new(),
            turns: 2,
            usage: Usage::default(),
            cost_usd: None,
            duration_ms: 5,
            session_usage: Usage::default(),
            session_cost_usd: None,
        };
        let value = serde_json::to_value(EventEnvelope::from(event.clone())).unwrap();
        assert!(value.get("cost_usd").is_none());
        assert_eq!(value["outcome"], "max_turns");
        let back: EventEnvelope = serde_json::from_value(value).unwrap();
        assert_eq!(back.event, event);
    }

    /// One event of each kind; the match makes a new kind fail to compile until it is listed
    /// here (and so checked against the documentation).
    fn one_of_each() -> Vec<Event> {
        let text = || String::from("x");
        let events = vec![
            Event::SessionStart {
                session_id: text(),
                provider: text(),
                model: text(),
                cwd: text(),
                tools: vec![],
            },
            Event::TurnStart { turn: 1 },
            Event::TextDelta { text: text() },
            Event::ThinkingDelta { text: text() },
            Event::Retry {
                attempt: 1,
                delay_ms: 1,
                reason: text(),
            },
            Event::ModelFallback {
                from: text(),
                to: text(),
                reason: text(),
            },
            Event::ToolsChanged {
                added: vec![text()],
                removed: vec![],
            },
            Event::FilesRestored {
                turns: vec![1],
                files: vec![text()],
            },
            Event::AssistantMessage {
                message: Message {
                    role: crate::Role::Assistant,
                    content: vec![],
                },
            },
            Event::ToolCallStart {
                id: text(),
                name: text(),
                input: json!({}),
                summary: text(),
            },
            Event::Permission {
                id: text(),
                name: text(),
                decision: PermissionVerdict::Allow,
                reason: text(),
            },
            Event::PermissionRequest {
                id: text(),
                name: text(),
                input: json!({}),
                reason: text(),
            },
            Event::Compaction {
                trigger: text(),
                tokens_before: 2,
                tokens_after: 1,
                kept_messages: 1,
            },
            Event::HookRun {
                event: text(),
                command: text(),
                exit_code: None,
                blocked: false,
                message: None,
            },
            Event::ToolOutputDelta {
                id: text(),
                text: text(),
            },
            Event::ToolCallEnd {
                id: text(),
                name: text(),
                output: text(),
                is_error: false,
                duration_ms: 1,
            },
            Event::Usage {
                usage: Usage::default(),
                cost_usd: None,
            },
            Event::TurnEnd {
                turn: 1,
                stop_reason: StopReason::EndTurn,
            },
            Event::Subagent {
                parent_tool_use_id: text(),
                agent: text(),
                event: Box::new(Event::TurnStart { turn: 1 }),
            },
            Event::Todos {
                todos: vec![TodoItem {
                    content: text(),
                    status: TodoStatus::InProgress,
                    active_form: text(),
                }],
            },
            Event::Error { message: text() },
            Event::Result {
                outcome: RunOutcome::Completed,
                text: text(),
                turns: 1,
                usage: Usage::default(),
                cost_usd: None,
                duration_ms: 1,
                session_usage: Usage::default(),
                session_cost_usd: None,
            },
        ];
        for event in &events {
            match event {
                Event::SessionStart { .. }
                | Event::TurnStart { .. }
                | Event::TextDelta { .. }
                | Event::ThinkingDelta { .. }
                | Event::Retry { .. }
                | Event::ModelFallback { .. }
                | Event::ToolsChanged { .. }
                | Event::FilesRestored { .. }
                | Event::AssistantMessage { .. }
                | Event::ToolCallStart { .. }
                | Event::Permission { .. }
                | Event::PermissionRequest { .. }
                | Event::Compaction { .. }
                | Event::HookRun { .. }
                | Event::ToolOutputDelta { .. }
                | Event::ToolCallEnd { .. }
                | Event::Usage { .. }
                | Event::TurnEnd { .. }
                | Event::Subagent { .. }
                | Event::Todos { .. }
                | Event::Error { .. }
                | Event::Result { .. } => {}
            }
        }
        events
    }

    const DOC: &str = include_str!("../../../docs/stream-json.md");

    #[test]
    fn every_event_is_documented_with_its_fields() {
        for event in one_of_each() {
            let value = serde_json::to_value(EventEnvelope::from(event)).unwrap();
            let kind = value["type"].as_str().unwrap().to_string();
            let row = DOC
                .lines()
                .find(|line| line.starts_with(&format!("| `{kind}` |")))
                .unwrap_or_else(|| panic!("{kind} is not in docs/stream-json.md"));
            for field in value.as_object().unwrap().keys() {
                if field != "v" && field != "type" {
                    assert!(row.contains(&format!("`{field}`")), "{kind}: {field}");
                }
            }
        }
    }

    #[test]
    fn the_documented_run_parses() {
        let lines: Vec<&str> = DOC.lines().filter(|l| l.starts_with("{\"v\":1")).collect();
        assert!(lines.len() > 10, "the example run is in the document");
        for line in lines {
            let envelope: EventEnvelope = serde_json::from_str(line).unwrap();
            assert_eq!(envelope.v, EVENT_SCHEMA_VERSION);
        }
    }
}
