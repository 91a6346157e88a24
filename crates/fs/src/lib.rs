//! rein's file safety: everything between a path a tool (or rein itself) names and the bytes
//! on disk.
//!
//! - [`WorkspaceGuard`] resolves every path a tool touches and refuses what leaves the
//!   workspace, what the [`SensitivePaths`] list names, and what a hidden folder hides;
//! - [`checked`] and [`beneath`] then open exactly what was checked, through descriptors and
//!   following no symlink, so a path swapped after the check changes nothing;
//! - [`write_atomic`] replaces a file so readers see the old bytes or the new ones,
//!   [`private`] keeps rein's own data (sessions, history, trust) readable by the user only;
//! - [`read_regular`] and [`PromptFiles`] read the files rein reads on its own (memory files,
//!   settings, commands) without following them out of their root or blocking on a FIFO;
//! - [`own::OwnRoot`] makes and reads the folders and files of rein's own state beneath a root
//!   (worktrees, memory, board, schedules, eval copies) following no link at all;
//! - [`FileLocks`] serialises changes to one file; [`lstats::Lstats`] and [`FileStamp`] say
//!   what the file system holds and whether it changed.
//!
//! Nothing here knows about tools, shells or models: the tools crate applies it.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use rein_fs::WorkspaceGuard;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "hi")?;
//! let guard = WorkspaceGuard::new(dir.path())?;
//! assert!(guard.resolve_read("notes.txt").is_ok());
//! assert!(guard.resolve_read("../elsewhere").is_err());
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod atomic;
pub mod beneath;
pub mod checked;
mod file_stamp;
mod guard;
pub mod hidden_tree;
mod locks;
pub mod lstats;
pub mod own;
pub mod path;
pub mod private;
mod prompt_file;
mod regular_file;
pub mod sensitive;

pub use atomic::{write_atomic, write_atomic_private};
pub use file_stamp::FileStamp;
pub use guard::{GuardError, WorkspaceGuard};
pub use locks::FileLocks;
pub use prompt_file::PromptFiles;
pub use regular_file::{ReadRefusal, open_regular, read_capped, read_regular, read_regular_bytes};
pub use sensitive::{DEFAULT_SENSITIVE, SensitiveError, SensitivePaths};
