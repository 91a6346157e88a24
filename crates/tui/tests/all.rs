//! Integration tests of the terminal UI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod frames;
mod resize;
mod support;
