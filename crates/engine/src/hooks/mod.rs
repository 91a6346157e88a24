//! Hooks: external commands run at points of a session, compatible with Claude Code's hook
//! protocol so existing hook scripts work.

use std::time::Duration;

/// Default time a hook command may take.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// A session starts.
    SessionStart,
    /// The user submitted a prompt (before the model sees it).
    UserPromptSubmit,
    /// A tool call passed the permission check and is about to run.
    PreToolUse,
    /// A tool call succeeded.
    PostToolUse,
    /// A tool call failed (error result).
    PostToolUseFailure,
    /// The agent is about to finish its answer.
    Stop,
    /// A subagent is about to finish.
    SubagentStop,
    /// The transcript is about to be compacted.
    PreCompact,
    /// The session ends.
    SessionEnd,
}

impl HookEvent {
    /// Every event, in the order of a session.
    pub const ALL: [HookEvent; 9] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::Stop,
        Self::SubagentStop,
        Self::PreCompact,
        Self::SessionEnd,
    ];

    /// The protocol name (`PreToolUse`).
    pub fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
            Self::SessionEnd => "SessionEnd",
        }
    }

    /// Parses a protocol name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether the event concerns a tool (its matcher is matched against the tool name).
    pub fn has_tool(self) -> bool {
        matches!(
            self,
            Self::PreToolUse | Self::PostToolUse | Self::PostToolUseFailure
        )
    }
}

/// One configured hook command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    /// When it runs.
    pub event: HookEvent,
    /// For tool events: which tools (`Bash`, `Edit|Write`, a regex, `*` or empty for all).
    pub matcher: Option<String>,
    /// A shell command line (run with `sh -c`) or an absolute path.
    pub command: String,
    /// How long it may take before it is killed.
    pub timeout: Duration,
    /// Where it was configured, for messages.
    pub source: String,
}

mod input;
mod output;
mod run;

pub(crate) use input::Ran;
pub use input::{hook_tool_input, hook_tool_response};
/// The variables a hook's (or the status line's) command must not see.
pub use rein_tools::HiddenEnv;
/// Runs a user's command as a hook is run (JSON on stdin, a timeout, the process group killed
/// when it expires, the provider keys removed): also the status line's command.
pub use run::{Finished, run as run_command};

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use futures::future::join_all;
use regex::Regex;
use rein_protocol::{Event, PermissionVerdict};
use serde_json::{Map, Value, json};

use crate::EventSender;
use crate::emitter::Emitter;
use output::interpret;

/// What the hooks of one event said, combined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// A hook blocked (exit code 2, or `decision: "block"`): the reason.
    pub block: Option<String>,
    /// A `PreToolUse` permission decision (`deny` beats `ask` beats `allow`) and its reason.
    pub permission: Option<(PermissionVerdict, String)>,
    /// A `PreToolUse` rewrite of the tool input (the last hook's wins).
    pub updated_input: Option<Value>,
    /// Text for the model (`additionalContext`; plain stdout of `SessionStart` and
    /// `UserPromptSubmit` hooks).
    pub context: Vec<String>,
    /// A hook asked to end the session (`continue: false`): its `stopReason`.
    pub stop: Option<String>,
}

/// The session's hooks and what every hook input carries.
#[derive(Debug, Default)]
pub struct Hooks {
    specs: Vec<HookSpec>,
    workspace: PathBuf,
    session_id: String,
    facts: Mutex<SessionFacts>,
    hidden_env: rein_tools::HiddenEnv,
}

/// What the common fields say that changes as the session goes.
#[derive(Debug, Clone, Default)]
struct SessionFacts {
    /// The session file (`transcript_path`); empty while the session is not recorded.
    transcript_path: String,
    /// The current user prompt's id, from its `UserPromptSubmit` on.
    prompt_id: Option<String>,
}

impl Hooks {
    /// Hooks for a session in `workspace`.
    pub fn new(specs: Vec<HookSpec>, workspace: PathBuf, session_id: String) -> Self {
        Self {
            specs,
            workspace,
            session_id,
            facts: Mutex::default(),
            hidden_env: rein_tools::HiddenEnv::default(),
        }
    }

    /// The same hooks, never given the variables `hidden` names (the provider keys).
    pub fn with_hidden_env(mut self, hidden: rein_tools::HiddenEnv) -> Self {
        self.hidden_env = hidden;
        self
    }

    /// Names the file the session is recorded to: every input's `transcript_path` from now on.
    pub fn set_transcript_path(&self, path: &Path) {
        self.facts().transcript_path = path.display().to_string();
    }

    /// A new user prompt: the events from its `UserPromptSubmit` on carry a fresh `prompt_id`.
    pub fn begin_prompt(&self) {
        self.facts().prompt_id = Some(uuid::Uuid::new_v4().to_string());
    }

    /// The fields of a tool event's input: the tool and its input as Claude Code names them,
    /// the call's id, and rein's own name for the tool.
    pub fn tool_fields(
        &self,
        id: &str,
        facts: &rein_tools::CallFacts,
        input: &Value,
    ) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("tool_name".into(), json!(facts.claude_name));
        fields.insert(
            "tool_input".into(),
            hook_tool_input(&facts.tool, input, &self.workspace),
        );
        fields.insert("tool_use_id".into(), json!(id));
        fields.insert("rein_tool_name".into(), json!(facts.tool));
        fields
    }

    fn facts(&self) -> std::sync::MutexGuard<'_, SessionFacts> {
        self.facts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether any hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.specs.iter().any(|s| s.event == event)
    }

    /// Runs the hooks of `event` (for tool events, those whose matcher matches the call's
    /// tool, by Claude Code's name or ours) in
    /// parallel with `fields` plus the common fields on stdin, reports each run, and combines
    /// what they said. Hooks never fail the session: a crash or timeout is reported and
    /// ignored.
    pub async fn run(
        &self,
        event: HookEvent,
        tool: Option<&rein_tools::CallFacts>,
        permission_mode: &str,
        fields: Map<String, Value>,
        events: &EventSender,
    ) -> HookOutcome {
        let specs: Vec<&HookSpec> = self
            .specs
            .iter()
            .filter(|s| s.event == event)
            .filter(|s| {
                !event.has_tool() || tool.is_some_and(|t| matcher_matches(s.matcher.as_deref(), t))
            })
            .collect();
        if specs.is_empty() {
            return HookOutcome::default();
        }
        let facts = self.facts().clone();
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.session_id));
        input.insert("transcript_path".into(), json!(facts.transcript_path));
        input.insert("cwd".into(), json!(self.workspace.display().to_string()));
        if let Some(prompt_id) = facts.prompt_id {
            input.insert("prompt_id".into(), json!(prompt_id));
        }
        // As in Claude Code: the session's start and end say no permission mode.
        if !matches!(event, HookEvent::SessionStart | HookEvent::SessionEnd) {
            input.insert("permission_mode".into(), json!(permission_mode));
        }
        input.insert("hook_event_name".into(), json!(event.name()));
        input.extend(fields);
        let input = Value::Object(input).to_string();
        let project = self.workspace.display().to_string();
        let env = [
            ("CLAUDE_PROJECT_DIR", project.clone()),
            ("REIN_PROJECT_DIR", project),
        ];
        let runs = specs.iter().map(|spec| async {
            let started = std::time::Instant::now();
            let finished = run::run(
                &spec.command,
                &self.workspace,
                &env,
                &self.hidden_env,
                &input,
                spec.timeout,
            )
            .await;
            (*spec, finished, started.elapsed())
        });
        let mut outcome = HookOutcome::default();
        for (spec, finished, took) in join_all(runs).await {
            let message = interpret(event, &finished, &mut outcome);
            events.emit(Event::HookRun {
                event: event.name().to_string(),
                command: spec.command.clone(),
                exit_code: finished.code,
                blocked: finished.code == Some(2) || message.as_ref().is_some_and(|m| m.blocked),
                message: message.map(|m| m.text),
                duration_ms: Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX)),
            });
        }
        outcome
    }
}

/// Whether a hook's matcher selects `tool`: empty or `*` selects all; otherwise a regex
/// matched in full against Claude Code's name or ours (`Bash`, `Edit|Write`, `mcp__.*`).
fn matcher_matches(matcher: Option<&str>, tool: &rein_tools::CallFacts) -> bool {
    let Some(matcher) = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")
    else {
        return true;
    };
    let mut names = vec![tool.claude_name.as_str(), tool.tool.as_str()];
    names.extend(input::legacy_tool_name(&tool.tool));
    match Regex::new(&format!("^(?:{matcher})$")) {
        Ok(re) => names.iter().any(|n| re.is_match(n)),
        Err(_) => names.contains(&matcher),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
