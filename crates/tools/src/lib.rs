//! rein's tools: the [`Tool`] trait, the [`ToolRegistry`] that validates arguments and
//! dispatches calls, the [`WorkspaceGuard`] every file path goes through, and the built-in tools
//! (`bash`, `read_file`).
//!
//! A tool is usually written as a [`TypedTool`] — an argument struct deriving `Deserialize` and
//! `JsonSchema`, whose doc comments become the schema's descriptions — and wrapped with
//! [`typed`]. The registry compiles each tool's schema once, at its first call, and checks
//! every call's arguments against it before the tool runs, so a tool only ever sees well-formed arguments; what the
//! model got wrong comes back as an error result it can act on.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use rein_tools::{ToolContext, ToolRegistry, WorkspaceGuard};
//!
//! let dir = std::env::temp_dir().join(format!("rein-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("hello.txt"), "hello\nworld\n")?;
//! let registry = ToolRegistry::builtin();
//! let ctx = ToolContext::new(WorkspaceGuard::new(&dir)?);
//! let args = serde_json::json!({"path": "hello.txt"});
//! let out = registry.call("read_file", args, &ctx).await;
//! assert_eq!(out.text, "     1\thello\n     2\tworld\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod apply_patch;
mod bash;
mod board;
pub mod claude_names;
mod edit;
mod editor;
mod lsp;
pub mod media;
mod notebook;
mod profile;
mod read_file;
mod registry;
mod repo_map;
pub mod schedule;
mod schema;
mod search;
pub mod shell;
mod todo;
mod typed;
mod write_file;

// The seam (the trait, the context, outputs, budgets, facts) lives in `rein-tool`, file safety
// in `rein-fs`; the names tools and their callers use are re-exported.
pub use apply_patch::{ApplyPatch, ApplyPatchArgs};
pub use bash::{
    Bash, BashArgs, BashOutput, BashOutputArgs, CodexWriteStdin, CodexWriteStdinArgs,
    DEFAULT_MAX_TERMINALS, DEFAULT_TIMEOUT_MS, ExecCommand, ExecCommandArgs, JobError, JobRead,
    JobStatus, JobSummary, Jobs, KillShell, KillShellArgs, MAX_TIMEOUT_MS, READ_ONLY_MEMORY_LIMIT,
    TerminalError, TerminalSummary, Terminals, WriteStdin, WriteStdinArgs,
};
pub use board::{
    BOARD_WRITERS, LEAD, TaskCreate, TaskCreateArgs, TaskGet, TaskGetArgs, TaskList, TaskListArgs,
    TaskUpdate, TaskUpdateArgs, render as render_board,
};
pub use edit::{EditFile, EditFileArgs};
pub use editor::{Editor, EditorFiles};
pub use lsp::{
    Code, DIAGNOSTICS, DiagnosticsArgs, DiagnosticsTool, LSP_TOOLS, PlaceArgs, PlaceTool,
    SessionLaunch, lsp_tools,
};
pub use notebook::{NotebookEdit, NotebookEditArgs};
pub use profile::{LEAN_WINDOW, ToolsProfile, UnknownToolsProfile};
pub use read_file::{DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, ReadFile, ReadFileArgs};
pub use registry::{ToolRegistry, codex_trained};
pub use rein_fs::{
    DEFAULT_SENSITIVE, FileLocks, GuardError, PromptFiles, ReadRefusal, SensitiveError,
    SensitivePaths, WorkspaceGuard, open_regular, own, private, read_capped, read_regular,
    read_regular_bytes, write_atomic, write_atomic_private,
};
pub use rein_tool::{
    CallFacts, CallKind, CommandRun, DEFAULT_OUTPUT_LIMIT, Effect, FileChange, FileEdit, FileRead,
    FileWrite, HeadTailBuffer, HiddenEnv, Hunk, Lean, OutputBudget, PROVIDER_KEY_VARS, Progress,
    SESSION_SAVED_CAP, Service, Services, ShellFacts, Tool, ToolContext, ToolDetails, ToolOutput,
    ToolSource, ceil_char_boundary, floor_char_boundary, normalise, of_details, resolve_for_rules,
    truncate_head_tail, unified,
};
use rein_tool::{facts, hunks, output};
pub use repo_map::{REPO_MAP, REPO_MAP_TOKENS, RepoMapArgs, RepoMapTool};
pub use search::{Glob, GlobArgs, Grep, GrepArgs, MAX_GLOB_RESULTS};
pub use todo::{TodoWrite, TodoWriteArgs};
pub use typed::{Typed, TypedTool, schema_for, typed, without_nulls};
pub use write_file::{WriteFile, WriteFileArgs};
