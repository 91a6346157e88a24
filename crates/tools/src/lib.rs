//! rein's tools: the [`Tool`] trait, the [`ToolRegistry`] that validates arguments and
//! dispatches calls, the [`WorkspaceGuard`] every file path goes through, and the built-in tools.
#![deny(missing_docs)]

mod tool;

pub use tool::{Effect, Tool, ToolContext, ToolOutput};
