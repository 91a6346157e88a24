//! rein-tools end to end: the registry and every built-in tool against real temp workspaces
//! and real processes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod apply_patch;
mod attacks;
mod bash;
mod details;
mod edit_file;
mod editor;
mod hiding;
mod jobs;
mod notebook;
mod preview;
mod races;
mod read_file;
mod registry;
mod sandbox;
mod search;
mod shell;
mod support;
mod terminal;
mod write_file;
