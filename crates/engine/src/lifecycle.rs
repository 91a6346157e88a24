//! Moments of a session that hooks and front ends name, below everything that reaches them:
//! what started a compaction, why a session ended, and the front end's own errors.

/// What started a compaction (the `PreCompact` hooks' `trigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTrigger {
    /// The user asked (`/compact`, `rein exec --compact`).
    Manual,
    /// The context estimate crossed the threshold.
    Auto,
    /// The provider said the prompt is too long.
    Reactive,
    /// The model called the `compact` tool.
    Model,
}

impl CompactTrigger {
    /// The name hooks and events use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Auto => "auto",
            Self::Reactive => "reactive",
            Self::Model => "model",
        }
    }
}

/// Why a session ended (the `SessionEnd` hooks' `reason`, as Claude Code names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// A new session replaced it (`/clear`).
    Clear,
    /// A stored session replaced it (`/resume`).
    Resume,
    /// The user quit the interactive UI.
    PromptInputExit,
    /// Anything else (`rein exec` finished).
    Other,
}

impl EndReason {
    /// The name hooks see.
    pub fn name(self) -> &'static str {
        match self {
            Self::Clear => "clear",
            Self::Resume => "resume",
            Self::PromptInputExit => "prompt_input_exit",
            Self::Other => "other",
        }
    }
}

/// An error from outside the engine kept as the source of a [`ControlError`]: the front
/// end's own (its configuration, its session store), whose type the engine does not know.
pub type FrontEndError = Box<dyn std::error::Error + Send + Sync + 'static>;
