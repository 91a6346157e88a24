//! rein-tools end to end: the registry, `bash` and `read_file` against real temp workspaces
//! and real processes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bash;
mod read_file;
mod registry;
mod support;
