//! rein's plain data: the canonical transcript model, tool specs, token usage and the engine's
//! event stream. Everything here is serde data with no I/O, so every other crate can depend on
//! it and front ends can consume events without knowing how they were produced.
//!
//! ```
//! use rein_protocol::{ContentBlock, Message};
//! let msg = Message::user_text("hello");
//! assert!(matches!(&msg.content[0], ContentBlock::Text { text } if text == "hello"));
//! ```
#![deny(missing_docs)]

mod board;
mod event;
mod message;
mod record;
mod schedule;
mod tool;
mod usage;

pub use board::{BoardTask, TaskStatus};
pub use event::{
    EVENT_SCHEMA_VERSION, Event, EventEnvelope, PermissionVerdict, RunOutcome, TodoItem,
    TodoStatus, files_restored, retry_notice, sources_line, tools_changed, wait_text,
};
pub use message::{ContentBlock, ImageSource, Media, Message, Role};
pub use record::{SESSION_SCHEMA_VERSION, SessionLine, SessionRecord};
pub use schedule::{JobKind, ScheduledJob};
pub use tool::{INVALID_ARGUMENTS, ToolSpec};
pub use usage::{StopReason, Usage};
