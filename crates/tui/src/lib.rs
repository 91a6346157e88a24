//! rein's interactive terminal UI: a front end of the engine's event stream, started by
//! `rein` and `rein "initial prompt"`.
//!
//! It is an *inline* UI: finished output (prompts, answers, tool calls, diffs) is written to
//! the terminal's own scrollback, so scrolling, search and copy/paste are the terminal's; only
//! a small live area at the bottom is redrawn (what is streaming or running, the input box or
//! a permission prompt, the status line), and only when something changed. When standard
//! output is not a terminal it falls back to plain lines.
//!
//! The crate holds no engine logic: [`App`] turns keys and [`rein_protocol::Event`]s into
//! lines and [`Action`]s; the runner carries the actions out as the engine's session
//! controller's [`rein_engine::Op`]s, with agents from a [`SessionHost`] the binary provides.
//!
//! ```no_run
//! # async fn demo(agent: rein_engine::Agent, host: std::sync::Arc<dyn rein_tui::SessionHost>) {
//! let launch = rein_tui::Launch { agent, host, prompt: Some("fix the tests".into()), no_color: false };
//! rein_tui::run(launch).await.ok();
//! # }
//! ```
#![deny(missing_docs)]

mod actions;
pub mod app;
mod clipboard;
mod diff;
pub mod export;
mod highlight;
pub mod history;
mod host;
pub mod input;
pub mod markdown;
mod markdown_table;
mod muted;
mod plain;
mod runner;
mod sanitize;
mod screen;
pub mod settings;
pub mod slash;
mod start;
mod status_command;
mod term;
pub mod theme;
pub mod tool_view;
mod wrap;

pub use app::{Action, App, Status};
pub use host::{Launch, Listing, McpServerView, SessionHost};
pub use runner::{run, stopped_by};
pub use sanitize::text_block as terminal_safe;
pub use screen::TuiError;
pub use screen::{Screen, ScreenError};
pub use status_command::StatusCommand;
pub use term::resume_hint;
pub use wrap::wrap_all;
