//! Real processes under each policy, on real temp folders, with the native helper and with
//! bubblewrap; every test checks the file system afterwards, not only what the command said.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bounded;
mod git_attacks;
mod lockdown;
mod policies;
mod support;
