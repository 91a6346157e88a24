//! The agent loop end to end: real providers against the mock LLM server, real tools in temp
//! workspaces.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod attacks;
mod background;
mod board;
mod caching;

mod cancel;
mod commands;
mod compact_notes;
mod controller;
mod dispatch;
mod hooks;
mod hooks_claude;
mod lean;
mod limits;
mod linked_out;
mod loop_;
mod permissions;
mod plan;
mod questions;
mod recovery;
mod rewind;
mod scheduled;
mod session40;
mod special_files;
mod stores;
mod subagent_control;
mod subagents;
mod support;
mod team;
mod todos;
mod worktrees;
