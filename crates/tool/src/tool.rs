//! The seam between the engine and a tool.

use async_trait::async_trait;
use rein_protocol::{Media, ToolSpec};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{CallFacts, CallKind, FileLocks, OutputBudget, ToolDetails, WorkspaceGuard};

/// The session's own agent, as board owners and messages name it.
pub const LEAD: &str = "main";

/// What a call does to the world; drives concurrency and permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Only observes; may run concurrently with other read-only calls.
    ReadOnly,
    /// Changes files or runs arbitrary commands; runs alone.
    Mutating,
}

/// What a tool call gives back to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Text shown to the model.
    pub text: String,
    /// Whether the call failed (bad arguments, timeout, non-zero exit…).
    pub is_error: bool,
    /// What the call did, as data (for hooks); `None` when the tool states nothing more than
    /// the text. Boxed: most results carry none, and results travel by value.
    pub details: Option<Box<ToolDetails>>,
    /// What the result shows besides its text (an image, a PDF); the output budget does not
    /// apply to it (the tool fits each item to what the APIs accept).
    pub media: Vec<Media>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
            details: None,
            media: Vec::new(),
        }
    }

    /// A failed result, with a message the model can act on.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
            details: None,
            media: Vec::new(),
        }
    }

    /// The same result showing `media` as well.
    pub fn with_media(mut self, media: Vec<Media>) -> Self {
        self.media = media;
        self
    }

    /// The same result with `details` attached.
    pub fn with_details(mut self, details: ToolDetails) -> Self {
        self.details = Some(Box::new(details));
        self
    }
}

/// Where a running call reports output as it comes (a shell's stdout and stderr), so a front
/// end can show the last lines live. Called with what arrived since the last call (a tool may
/// coalesce chunks, as `bash` does to one call per 100 ms), lossily decoded.
#[derive(Clone)]
pub struct Progress(std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl Progress {
    /// A sink calling `report` with each piece of output.
    pub fn new(report: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(report))
    }

    /// Reports `bytes` (at most the last 4 KiB of them: a live view needs only the tail).
    pub fn report(&self, bytes: &[u8]) {
        let tail = &bytes[bytes.len().saturating_sub(4096)..];
        (self.0)(&String::from_utf8_lossy(tail));
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// What a running call may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace: its canonical root ([`WorkspaceGuard::root`]) and the resolver every
    /// file path goes through.
    pub guard: WorkspaceGuard,
    /// Cancelled when the user interrupts the turn; tools stop and clean up promptly.
    pub cancel: CancellationToken,
    /// Path-level locks shared by every call of the session: take the write lock of a file
    /// before reading it for a change and keep it until the new contents are in place.
    pub locks: FileLocks,
    /// The size limit every result passes, and where over-long output is saved.
    pub budget: OutputBudget,
    /// Where live output goes while the call runs, if anyone watches.
    pub progress: Option<Progress>,
    /// Variables a process the call starts must not inherit (the provider keys).
    pub hidden_env: crate::HiddenEnv,
    /// What this call touches, as the permission check saw it (set by the engine's dispatch;
    /// absent when a tool is run directly, which then works it out itself).
    pub facts: Option<std::sync::Arc<CallFacts>>,
    /// The OS sandbox, when this machine has one: proven read-only shell lines always run
    /// under [`rein_sandbox::Policy::ReadOnly`] in it.
    pub sandbox: Option<std::sync::Arc<rein_sandbox::Sandbox>>,
    /// The policy other shell commands run under (set per call by the engine from the
    /// configured policy and the permission mode; `auto` means `workspace-write`).
    pub sandbox_policy: rein_sandbox::Policy,
    /// The id of the model's call being run (set by the engine's dispatch).
    pub call_id: Option<String>,
    /// The name of the agent making the call, as the board records owners (`main` for the
    /// session's own agent, a teammate's name).
    pub agent_name: std::sync::Arc<str>,
    /// Where outside files (PDFs, pictures) are parsed: in a child under limits in rein, so
    /// a file made to overflow the parser's stack or to decompress into gigabytes ends the
    /// child, not the session.
    pub parsers: rein_sandbox::bounded::Parsers,
    /// What the session's tools share, by type (the shell's jobs, the task board, the
    /// editor's buffers, the language servers): see [`crate::Services`].
    pub services: crate::Services,
}

impl ToolContext {
    /// A context for `guard`'s workspace with a fresh cancellation token, its own lock table
    /// and the default output budget (nothing saved to disk).
    pub fn new(guard: WorkspaceGuard) -> Self {
        Self {
            guard,
            cancel: CancellationToken::new(),
            locks: FileLocks::new(),
            budget: OutputBudget::default(),
            progress: None,
            hidden_env: crate::HiddenEnv::default(),
            facts: None,
            sandbox: None,
            sandbox_policy: rein_sandbox::Policy::Off,
            call_id: None,
            agent_name: std::sync::Arc::from(LEAD),
            parsers: rein_sandbox::bounded::Parsers::in_process(),
            services: crate::Services::default(),
        }
    }
}

/// A tool the model can call.
///
/// Contract: `call` never returns a Rust error for a failure the model caused or can fix
/// (bad arguments, missing file, timeout, non-zero exit): those are [`ToolOutput::error`]
/// results. Arguments reach `call` only after the registry validated them against the spec's
/// schema.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Name, description and argument schema.
    fn spec(&self) -> ToolSpec;
    /// How the tool appears in the lean profile (small context windows); the default: as in
    /// the full one.
    fn lean(&self) -> crate::Lean {
        crate::Lean::Same
    }
    /// The effect of a call with these arguments, judged without the workspace (the
    /// conservative answer; [`Tool::facts`] has the final one).
    fn effect(&self, args: &Value) -> Effect;
    /// What a call with these arguments touches ([`CallFacts`]); the registry asks once per
    /// call. The default names the tool and its effect and nothing more.
    fn facts(&self, args: &Value, guard: &WorkspaceGuard) -> CallFacts {
        let _ = guard;
        let name = self.spec().name;
        CallFacts::new(&name, &name, CallKind::Other, self.effect(args))
    }
    /// The change a call with these arguments would make to files, worked out without making
    /// it, for the user deciding whether to allow it. The default: none to show.
    fn preview(&self, args: &Value, guard: &WorkspaceGuard) -> Vec<crate::FileChange> {
        let _ = (args, guard);
        Vec::new()
    }
    /// Runs the call.
    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput;
}

/// Tools that may change during a session (an MCP server's, when it says its list changed):
/// offered beside the built-in ones and asked between model requests whether they changed.
#[async_trait]
pub trait ToolSource: Send + Sync + std::fmt::Debug {
    /// Its tools as they are now, uniquely named beside `taken`.
    fn tools(&self, taken: &[String]) -> Vec<std::sync::Arc<dyn Tool>>;

    /// Brings the tools up to date when they may have changed since the last call; whether
    /// they did (then [`ToolSource::tools`] gives the new set).
    async fn refresh(&self) -> bool;
}
