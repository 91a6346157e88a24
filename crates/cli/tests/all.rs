//! The `rein` binary as a user runs it: against the mock LLM server, on real temp workspaces.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod claude_flags;
mod claude_output;
mod claude_settings;
mod commands;
mod compaction;
mod config;
mod control;
mod errors;
mod exec;
mod fallback;
mod kill;
mod lean;
mod mcp;
mod mcp_manage;
mod odd_workspaces;
mod rate_limits;
mod sandbox;
mod secrets;
mod sessions;
mod special_files;
mod stored_data;
mod subagents;
mod support;
mod terminal;
mod terminal_changes;
mod terminal_details;
mod terminal_mcp;
mod terminal_rewind;
mod terminal_settings;
mod terminal_status;
mod tmux;
mod todos;
mod tool;
mod trust;
mod undo;
