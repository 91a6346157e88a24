//! Streaming model clients. One small trait, [`ModelClient`], turns a [`ModelRequest`] into a
//! stream of [`ModelEvent`]s; three implementations speak the Anthropic Messages, OpenAI
//! Responses and OpenAI Chat Completions wire protocols over HTTP with server-sent events.
//!
//! Shared by all three: one SSE decoder, one retry policy (exponential backoff with jitter on
//! 429/5xx/529/connection errors, honouring `retry-after`, never after output has streamed), an
//! idle-stream timeout, errors a user can act on ([`LlmError`]), and a pricing table
//! ([`cost_usd`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), rein_llm::LlmError> {
//! use futures::StreamExt;
//! use rein_llm::{ModelRequest, ProviderConfig, ProviderKind, ResponseAssembler, connect};
//! use rein_protocol::Message;
//!
//! let config = ProviderConfig::new(
//!     ProviderKind::Anthropic,
//!     rein_llm::default_base_url(ProviderKind::Anthropic),
//!     std::env::var("ANTHROPIC_API_KEY").ok(),
//!     "ANTHROPIC_API_KEY",
//! );
//! let client = connect(config);
//! let mut stream = client.stream(ModelRequest {
//!     model: "claude-sonnet-4-5".into(),
//!     system: "Be brief.".into(),
//!     messages: vec![Message::user_text("Hello")],
//!     tools: vec![],
//!     max_tokens: 1024,
//!     cache: Default::default(),
//!     effort: None,
//!     web_search: None,
//! });
//! let mut assembler = ResponseAssembler::new();
//! while let Some(event) = stream.next().await {
//!     assembler.push(&event?);
//! }
//! println!("{}", assembler.finish()?.message.text());
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod anthropic;
mod assemble;
mod cache;
mod client;
mod effort;
mod error;
mod http;
pub mod models;
mod openai_chat;
mod openai_responses;
mod pricing;
mod provider;
mod retry;
mod sse;
#[cfg(test)]
mod test_request;
mod transport;
mod whole;
mod wire;

pub use assemble::{AssembledResponse, ResponseAssembler};
pub use cache::{CacheTtl, PromptCache, UnknownCacheTtl};
pub use client::{
    HostedSearch, ModelClient, ModelEvent, ModelEventStream, ModelRequest, ProviderKind,
};
pub use effort::{Effort, UnknownEffort};
pub use error::{LlmError, LlmErrorKind};
pub use pricing::{ModelPrice, cost_usd, cost_usd_with, price, round_cost};
pub use provider::{
    DEFAULT_IDLE_TIMEOUT, DEFAULT_NO_PROGRESS_TIMEOUT, ProviderConfig, connect, connect_with,
    default_base_url, default_key_env, http_client, infer_provider, install_tls_provider,
};
pub use retry::{DEFAULT_MAX_RETRY_WAIT, RetryPolicy};
