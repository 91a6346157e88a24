//! rein-checkpoint end to end: snapshots and restores on real temp workspaces with real git.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod snapshot_attacks;
mod undo_links;
