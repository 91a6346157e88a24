//! Test support for rein: [`MockServer`], an HTTP server on 127.0.0.1 that speaks the Anthropic
//! Messages, OpenAI Responses and OpenAI Chat Completions streaming protocols, plays a
//! [`Scenario`] one turn per request, and records every request it receives.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use rein_testkit::{MockServer, Scenario};
//!
//! let scenario = Scenario::from_json(r#"{"turns": [{"text": "Hello!"}]}"#).unwrap();
//! let server = MockServer::start(scenario).await?;
//! // Point an Anthropic client at server.url(), an OpenAI client at server.openai_url(),
//! // run it, then assert on what it sent:
//! let sent = server.requests();
//! # Ok(()) }
//! ```
//!
//! Routes: `POST /v1/messages` (Anthropic), `POST /v1/responses` (OpenAI Responses),
//! `POST /v1/chat/completions` (Chat Completions). Anything else gets a 404 with a JSON error;
//! requests past the last turn get a 500 saying the scenario is exhausted. Both are recorded.
#![deny(missing_docs)]

mod anthropic;
mod body;
mod cache;
mod conformance;
mod hang;
mod install;
mod openai_chat;
mod openai_responses;
mod recorded;
mod scenario;
mod server;
mod sse;
mod whole;
mod wire;

pub use conformance::{conformance_dir, conformance_file, git_init};
pub use hang::{HANG_LIMIT, without_hanging};
pub use install::{require, skip};
pub use recorded::RecordedRequest;
pub use scenario::{Fault, Scenario, ScenarioError, ScenarioToolCall, ScenarioTurn, ScenarioUsage};
pub use server::MockServer;
