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
    /// The session's cost reached the budget (`--max-budget-usd`).
    MaxBudget,
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
        /// The prompt this run answers, for in-process consumers only (telemetry attaches it
        /// when asked to); never printed or stored.
        #[serde(skip)]
        prompt: Option<String>,
    },
    /// A web page the answer streaming now cites (the provider's citations of its search
    /// results), once per page and reply: front ends list it under the answer.
    Citation {
        /// The page's title.
        title: String,
        /// Its address.
        url: String,
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
        /// The change a file tool's call would make, as a unified diff (absent for other
        /// calls, and when it cannot be worked out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
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
        /// What wrote the summary: `notes` (built from the session's notes — the task
        /// board, memory written, the last summary — without a model call) or `model`;
        /// absent when old tool results were only cleared (`micro`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        /// How long it took in milliseconds (absent when not measured).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// A compaction the user asked for (`/compact`) ended: after its [`Event::Compaction`],
    /// or with why the transcript was left as it was. What a run's [`Event::Result`] is to a
    /// prompt, this is to a compaction job.
    CompactionEnd {
        /// Why nothing was compacted (`nothing to compact: …`, the summary request's error);
        /// absent when the transcript was compacted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
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
        /// How long it ran in milliseconds (absent when not measured).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
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
        /// The change a file tool made, as a unified diff with numbered hunks (absent for
        /// other calls and failed ones).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// The result in the shape Claude Code gives that tool's result (`tool_use_result`
        /// in its stream-json, `tool_response` for its hooks), when the front end asked for
        /// it (`--output-dialect claude`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_response: Option<Value>,
        /// The exit code of the command the call ran (`bash`), when it exited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// The OS sandbox policy the command ran under (`read-only`, `workspace-write`,
        /// `off`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox: Option<String>,
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
    /// A teammate started, went idle, went back to work or stopped.
    Teammate {
        /// Its name (`alice`).
        name: String,
        /// Its definition (`general`, a file's `name`).
        agent: String,
        /// `working`, `idle` or `stopped`.
        state: String,
        /// Why it stopped (`shutdown`, `stopped by the user`, an error), when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// One agent of a team sent another a message (`send_message`).
    TeamMessage {
        /// The sender (`main` or a teammate's name).
        from: String,
        /// The recipient.
        to: String,
        /// `message`, `shutdown_request`, `shutdown_response`, `plan_approval_request` or
        /// `plan_approval_response`.
        kind: String,
        /// The text.
        text: String,
    },
    /// The task board changed (`task_create`, `task_update`, `todo_write`, a teammate's
    /// claim): the whole board as it is now, by id.
    Tasks {
        /// The tasks.
        tasks: Vec<crate::BoardTask>,
    },
    /// The task board seen as a todo list (for consumers of the older event; sent after each
    /// `tasks` event): each task's subject, status and activeForm.
    Todos {
        /// The items, in the model's order.
        todos: Vec<TodoItem>,
    },
    /// The session's scheduled jobs changed (`cron_create`, `cron_delete`,
    /// `schedule_wakeup`, `/loop`, a job fired or expired): every job as it is now.
    Schedule {
        /// The jobs, the next to fire first.
        jobs: Vec<crate::ScheduledJob>,
    },
    /// A scheduled job fired: its prompt runs now as the session's next turn (a run that
    /// ends with its own `result`).
    ScheduledPrompt {
        /// The job's id.
        id: String,
        /// The prompt it queued.
        prompt: String,
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
        /// Usage summed over the whole session (earlier runs of a resumed session included;
        /// a fork's session starts at zero: its parent's requests are the parent's).
        #[serde(default)]
        session_usage: Usage,
        /// Cost of the whole session in US dollars, absent when unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_cost_usd: Option<f64>,
    },
}

impl Event {
    /// Whether this event ends a job: a run's `Result`, a compaction's `CompactionEnd`. The
    /// one rule every front end's event loop stops a job by.
    pub fn ends_job(&self) -> bool {
        matches!(self, Self::Result { .. } | Self::CompactionEnd { .. })
    }
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

/// A wait for people: `0.5 s` under ten seconds, `45 s` under two minutes, else `5 min` or
/// `2 min 30 s`.
pub fn wait_text(ms: u64) -> String {
    if ms < 10_000 {
        return format!("{:.1} s", ms as f64 / 1000.0);
    }
    let secs = (ms + 500) / 1000;
    match (secs / 60, secs % 60) {
        _ if secs < 120 => format!("{secs} s"),
        (min, 0) => format!("{min} min"),
        (min, rest) => format!("{min} min {rest} s"),
    }
}

/// One line for a failed request that is sent again after `delay_ms`.
pub fn retry_notice(attempt: u32, delay_ms: u64, reason: &str) -> String {
    format!(
        "attempt {attempt} failed, retrying in {}: {reason}",
        wait_text(delay_ms)
    )
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;

/// The pages a reply cited, as front ends list them under it:
/// `Sources: Title <https://…>, Other <https://…>`.
pub fn sources_line(sources: &[(String, String)]) -> String {
    let listed: Vec<String> = sources
        .iter()
        .map(|(title, url)| match title.trim() {
            "" => format!("<{url}>"),
            title => format!("{title} <{url}>"),
        })
        .collect();
    format!("Sources: {}", listed.join(", "))
}
