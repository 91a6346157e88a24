//! What can go wrong reading a server's configuration or talking to it. Each error names
//! the server (or the file) it is about; its `Display` is the line the user or the model
//! reads.

use std::time::Duration;

/// A failure of the MCP client, with the server or file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A `.mcp.json` text is not JSON.
    #[error("{origin}: not valid JSON: {error}")]
    NotJson {
        /// Where the text came from.
        origin: String,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// A `.mcp.json` holds something other than an object of servers.
    #[error("{origin}: expected an object of servers")]
    NotAnObject {
        /// Where the text came from.
        origin: String,
    },
    /// A server name that would make tool names ambiguous ([`crate::check_name`]).
    #[error(
        "MCP server `{name}` ({origin}) skipped: its name {} `__` or `_` at an end, so \
         permission rules naming a server (`mcp__<server>`) could also cover another \
         server's tools; rename it (e.g. `{suggestion}`)",
        how_shown(.name, .shown)
    )]
    AmbiguousName {
        /// The name as configured.
        name: String,
        /// Where it was configured.
        origin: String,
        /// The name as it appears in tool names.
        shown: String,
        /// A name that would do.
        suggestion: String,
    },
    /// The variable holding a server's bearer token is not set.
    #[error("MCP server `{server}` ({origin}): {var} is not set")]
    TokenUnset {
        /// The server.
        server: String,
        /// Where it was configured.
        origin: String,
        /// The variable.
        var: String,
    },
    /// The variable holding a server's bearer token may not be read from this file.
    #[error(
        "MCP server `{server}` ({origin}) skipped: its bearer token variable {var} is not \
         read (see the warning above)"
    )]
    TokenRefused {
        /// The server.
        server: String,
        /// Where it was configured.
        origin: String,
        /// The variable.
        var: String,
    },
    /// A `[mcp_servers]` table with neither or both of `command` and `url`.
    #[error("MCP server `{server}` ({origin}) needs either `command` or `url`")]
    NoTransport {
        /// The server.
        server: String,
        /// Where it was configured.
        origin: String,
    },
    /// A server that did not start.
    #[error("MCP server `{server}` did not start: {reason}")]
    NotStarted {
        /// The server.
        server: String,
        /// Why.
        reason: Box<StartError>,
    },
    /// A server that started but did not list its tools.
    #[error("MCP server `{server}` did not list its tools: {error}")]
    ToolsNotListed {
        /// The server.
        server: String,
        /// What the client said.
        error: Box<rmcp::service::ServiceError>,
    },
    /// A prompt called without one of its required arguments.
    #[error("it needs `{argument}`: /{command} {hint}")]
    MissingArgument {
        /// The argument.
        argument: String,
        /// The prompt's slash command.
        command: String,
        /// How to call it.
        hint: String,
    },
    /// A prompt whose messages hold no text.
    #[error("the server returned no text for it")]
    NoText,
    /// A stopped server that failed to start again recently, not yet tried again.
    #[error("the server stopped and could not be started again; next try in {seconds:.0} s")]
    Backoff {
        /// Seconds until the next try.
        seconds: f64,
    },
    /// A stopped server that failed to start again.
    #[error("the server stopped and could not be started again: {reason}")]
    NotRestarted {
        /// Why.
        reason: Box<StartError>,
    },
    /// No connection (not expected once started).
    #[error("the server is not running")]
    NotRunning,
    /// The server stopped while a call waited.
    #[error("the server stopped during the call{stderr}; it is started again at the next call")]
    StoppedDuringCall {
        /// ` (its stderr: …)` with its last lines, or nothing.
        stderr: String,
    },
    /// A call that outlived the server's tool timeout.
    #[error("the call timed out after {:.0} s", .timeout.as_secs_f64())]
    CallTimedOut {
        /// The timeout.
        timeout: Duration,
    },
    /// A prompt request that outlived the server's tool timeout.
    #[error("the server did not answer in time")]
    PromptTimedOut,
    /// A resource read that outlived the server's tool timeout.
    #[error("the read timed out")]
    ReadTimedOut,
    /// A call answered with something other than a tool result.
    #[error("the server answered the call with something else")]
    UnexpectedAnswer,
    /// A call the user cancelled before the server answered.
    #[error("cancelled by the user before the MCP server answered")]
    Cancelled,
    /// An answer longer than rein reads.
    #[error(
        "the server answered with a message longer than {limit_mib} MiB, the most rein \
         reads of one; it was dropped (ask the tool for less: a narrower query, a page, a \
         limit)"
    )]
    Oversized {
        /// The limit, in MiB.
        limit_mib: usize,
    },
    /// Any other failure of the request, as the client reports it.
    #[error(transparent)]
    Service(Box<rmcp::service::ServiceError>),
}

/// Why a server's process or connection did not start, with what it said on its standard
/// error where that helps.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// No handshake within the startup timeout.
    #[error("no answer within {:.0} s{stderr}", .timeout.as_secs_f64())]
    NoAnswer {
        /// The startup timeout.
        timeout: Duration,
        /// ` (its stderr: …)` with its last lines, or nothing.
        stderr: String,
    },
    /// A server configured with `type: "sse"`.
    #[error(
        "the legacy HTTP+SSE transport (`type: \"sse\"`) is not supported; most servers \
         also answer streamable HTTP, usually at the same address ending in /mcp \
         (`type: \"http\"`)"
    )]
    LegacySse,
    /// The server's program could not be run.
    #[error("cannot run `{command}`: {error}")]
    CannotRun {
        /// The program.
        command: String,
        /// Why.
        error: std::io::Error,
    },
    /// A stdio server that did not complete the handshake.
    #[error("the MCP handshake failed: {error}{stderr}")]
    Handshake {
        /// What the client said.
        error: rmcp::service::ClientInitializeError,
        /// ` (its stderr: …)` with its last lines, or nothing.
        stderr: String,
    },
    /// A configured header whose name is not valid.
    #[error("`{0}` is not a valid header name")]
    HeaderName(String),
    /// A configured header whose value is not valid.
    #[error("the value of header `{0}` is not valid in a header")]
    HeaderValue(String),
    /// The HTTP client could not be built.
    #[error("cannot build an HTTP client: {0}")]
    HttpClient(reqwest::Error),
    /// An HTTP server that did not complete the handshake.
    #[error("the MCP handshake with {url} failed: {error}")]
    HttpHandshake {
        /// The endpoint.
        url: String,
        /// What the client said.
        error: rmcp::service::ClientInitializeError,
    },
}

/// `contains` when the name is shown as it is, else how it is shown.
fn how_shown(name: &str, shown: &str) -> String {
    if name == shown {
        "contains".to_string()
    } else {
        format!("becomes `{shown}` in tool names, with")
    }
}

impl From<rmcp::service::ServiceError> for McpError {
    fn from(error: rmcp::service::ServiceError) -> Self {
        Self::Service(Box::new(error))
    }
}
