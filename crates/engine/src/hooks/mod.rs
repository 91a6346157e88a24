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
