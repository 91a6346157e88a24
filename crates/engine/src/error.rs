//! Errors that stop the engine before a run can start.

use std::path::PathBuf;

/// Why an agent could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The workspace directory is unusable.
    #[error("workspace {path}: {message}")]
    Workspace {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}
