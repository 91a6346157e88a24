//! rein's agent loop: an [`Agent`] holds a transcript and drives turns — stream the model,
//! dispatch the tool calls it makes, append the results, repeat — until the model answers
//! without tools, the turn limit is reached, or the run is cancelled. Everything that happens
//! is reported as [`rein_protocol::Event`]s on one channel; front ends only consume events.
//!
//! ```no_run
//! # async fn demo(client: std::sync::Arc<dyn rein_llm::ModelClient>) {
//! use rein_engine::{Agent, AgentConfig};
//! use tokio_util::sync::CancellationToken;
//! let config = AgentConfig::new("claude-sonnet-4-5", std::path::PathBuf::from("."));
//! let tools = rein_tools::ToolRegistry::builtin();
//! let mut agent = Agent::new(client, tools, config).unwrap();
//! let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
//! let summary = agent.run("list the files", &tx, CancellationToken::new()).await;
//! println!("{:?}", summary.outcome);
//! # }
//! ```
#![deny(missing_docs)]

mod agent;
pub mod auto_memory;
pub mod commands;
pub mod context;
pub mod controller;
mod dispatch;
mod emitter;
mod error;
mod frontmatter;
mod gate;
pub mod hooks;
mod imports;
mod lifecycle;
mod memory;
pub mod plan;
mod prompt;
pub mod questions;
pub mod session;
mod session_rules;
pub mod subagents;
mod turn;
pub mod undo;
pub mod web;
pub mod worktree;

pub use agent::{
    Agent, AgentConfig, CompactionError, ContextReport, Fallback, PromptText, RepeatLimits,
    RewindPoint, RunSummary, workspace_guard,
};
pub use controller::{
    AgentFactory, Answers, Applied, ControlError, Controller, Op, RewindWhat, SessionStatus,
};
pub use dispatch::DispatchLimits;
pub use error::EngineError;
pub use gate::{Approval, ApprovalRequest, Approver};
pub use lifecycle::{CompactTrigger, EndReason, FrontEndError};
pub use prompt::{SystemPrompt, SystemPromptBuilder};
pub use rein_checkpoint::Restore;
pub use rein_llm::Effort;

/// Where the engine sends its events. A closed receiver is fine: events are then dropped.
pub type EventSender = tokio::sync::mpsc::UnboundedSender<rein_protocol::Event>;
