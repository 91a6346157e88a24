//! Streaming model clients. One small trait, [`ModelClient`], turns a [`ModelRequest`] into a
//! stream of [`ModelEvent`]s; three implementations speak the Anthropic Messages, OpenAI
//! Responses and OpenAI Chat Completions wire protocols over HTTP with server-sent events.
#![deny(missing_docs)]

mod client;
mod error;

pub use client::{ModelClient, ModelEvent, ModelEventStream, ModelRequest, ProviderKind};
pub use error::{LlmError, LlmErrorKind};
