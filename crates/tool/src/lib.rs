//! rein's tool seam: the [`Tool`] trait, the [`ToolContext`] a call gets (its workspace
//! guard, cancellation, output budget, sandbox, and the session's features as typed
//! [`Services`]), what a call returns ([`ToolOutput`], [`ToolDetails`]) and what it touches
//! ([`CallFacts`]). No built-in tool lives here: `rein-tools` has them, and a crate that only
//! implements the trait (the MCP client) needs nothing else.

mod budget;
mod change;
pub mod details;
pub mod facts;
mod hidden_env;
pub mod hunks;
mod lean;
pub mod output;
pub mod picture;
mod services;
mod tool;

pub use budget::{OutputBudget, SESSION_SAVED_CAP};
pub use change::{FileChange, of_details, unified};
pub use details::{CommandRun, FileEdit, FileRead, FileWrite, Hunk, ToolDetails};
pub use facts::{CallFacts, CallKind, ShellFacts, normalise, resolve_for_rules};
pub use hidden_env::{HiddenEnv, PROVIDER_KEY_VARS};
pub use lean::Lean;
pub use output::{
    DEFAULT_OUTPUT_LIMIT, HeadTailBuffer, ceil_char_boundary, floor_char_boundary,
    truncate_head_tail,
};
pub use rein_fs::{FileLocks, WorkspaceGuard};
pub use services::{Service, Services};
pub use tool::{Effect, LEAD, Progress, Tool, ToolContext, ToolOutput, ToolSource};
