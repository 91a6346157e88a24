//! Language servers: rein starts the project's servers (rust-analyzer, pyright,
//! typescript-language-server, gopls, clangd, or configured ones) the first time the model
//! touches a file of their type, keeps them in step with the files rein changes, and reports
//! the errors a change brought, waiting a bounded time for the server to settle. The model can
//! also ask for a file's diagnostics, a definition, the references and hover information.
//!
//! The client speaks LSP's base protocol itself ([`wire`]) with `lsp-types`' shapes; how a
//! server's process is made is the caller's ([`Launch`]: rein's tools run it in the OS
//! sandbox, like a command).

mod client;
mod incoming;
mod launch;
mod query;
mod report;
mod servers;
mod table;
mod uri;
pub mod wire;

use std::time::Duration;

pub use client::{Client, Published, Sent};
pub use launch::{Launch, Launched, Unconfined};
pub use query::{Place, Query, QueryError};
pub use report::{FileReport, render_all, render_changes};
pub use servers::{Found, Running, Servers};
pub use table::{BadEntry, NeedsRoot, ServerEntry, ServerSpec, builtin, language_id, with_entries};

/// How long a change waits for the servers' diagnostics by default.
pub const DEFAULT_SETTLE: Duration = Duration::from_secs(2);

/// The most diagnostics listed in one result by default.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 20;

/// How long a question (definition, references, hover) waits by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Which diagnostics are shown after a change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shown {
    /// Errors only (the default).
    #[default]
    Errors,
    /// Errors and warnings.
    Warnings,
}

impl Shown {
    /// Whether `diagnostic` is shown (a diagnostic without a severity counts as an error).
    pub fn has(self, diagnostic: &lsp_types::Diagnostic) -> bool {
        use lsp_types::DiagnosticSeverity as S;
        matches!(
            (self, diagnostic.severity),
            (_, None | Some(S::ERROR)) | (Self::Warnings, Some(S::WARNING))
        )
    }

    fn noun(self) -> &'static str {
        match self {
            Self::Errors => "errors",
            Self::Warnings => "errors or warnings",
        }
    }
}

/// How the servers are used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LspSettings {
    /// How long a change waits for diagnostics.
    pub settle: Duration,
    /// Which diagnostics a change reports.
    pub shown: Shown,
    /// The most diagnostics listed in one result.
    pub max_diagnostics: usize,
    /// How long a question waits for its answer.
    pub request_timeout: Duration,
    /// How long a server may take to start (`None`: 30 s).
    pub init_timeout: Option<Duration>,
}

impl Default for LspSettings {
    fn default() -> Self {
        Self {
            settle: DEFAULT_SETTLE,
            shown: Shown::Errors,
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            init_timeout: None,
        }
    }
}

/// What went wrong with a server.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// Its process could not be made.
    #[error("{server} could not start: {source}")]
    Spawn {
        /// The server.
        server: String,
        /// Why.
        source: std::io::Error,
    },
    /// It did not answer in time.
    #[error("{server} did not answer {method} within {after:?}")]
    Timeout {
        /// The server.
        server: String,
        /// The request.
        method: String,
        /// The time it had.
        after: Duration,
    },
    /// It ended.
    #[error("{server} ended: {reason}")]
    Ended {
        /// The server.
        server: String,
        /// How (its last words on standard error included).
        reason: String,
    },
    /// It answered with an error.
    #[error("{server} could not answer {method}: {message}")]
    Rpc {
        /// The server.
        server: String,
        /// The request.
        method: String,
        /// Its message.
        message: String,
    },
    /// It failed recently and starts again later.
    #[error("{server} is not running ({last}); it starts again in {retry_in:.0?}")]
    Waiting {
        /// The server.
        server: String,
        /// The last failure.
        last: String,
        /// The wait left.
        retry_in: Duration,
    },
}

impl LspError {
    /// The server it is about.
    pub fn server(&self) -> &str {
        match self {
            Self::Spawn { server, .. }
            | Self::Timeout { server, .. }
            | Self::Ended { server, .. }
            | Self::Rpc { server, .. }
            | Self::Waiting { server, .. } => server,
        }
    }
}
