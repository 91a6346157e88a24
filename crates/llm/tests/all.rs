//! Integration tests: every provider against the mock LLM server over real HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod anthropic;
mod caching;
mod chat;
mod effort;
mod faults;
mod gateways;
mod real_streams;
mod responses;
mod support;
