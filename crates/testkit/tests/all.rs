//! Integration tests for the mock LLM server: real HTTP on 127.0.0.1 with reqwest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod anthropic;
mod binary;
mod chat;
mod faults;
mod recording;
mod responses;
mod support;
