//! Test support for rein: [`MockServer`], an HTTP server on 127.0.0.1 that speaks the Anthropic
//! Messages, OpenAI Responses and OpenAI Chat Completions streaming protocols, plays a
//! [`Scenario`] one turn per request, and records every request it receives.
#![deny(missing_docs)]

mod scenario;

pub use scenario::{Fault, Scenario, ScenarioToolCall, ScenarioTurn, ScenarioUsage};
