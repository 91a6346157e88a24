//! The values of flags several commands share (`--provider`, the output and input formats,
//! the output dialect, a budget in dollars): a leaf every flag struct and printer uses.

use clap::ValueEnum;

/// Wire protocol names accepted by `--provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    Anthropic,
    Openai,
    OpenaiChat,
}

impl ProviderArg {
    /// The protocol it names.
    pub fn kind(self) -> rein_llm::ProviderKind {
        match self {
            Self::Anthropic => rein_llm::ProviderKind::Anthropic,
            Self::Openai => rein_llm::ProviderKind::Openai,
            Self::OpenaiChat => rein_llm::ProviderKind::OpenaiChat,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum OutputFormat {
    /// Progress on stderr, the final answer on stdout.
    #[default]
    Text,
    /// One JSON object with the result at the end.
    Json,
    /// One JSON event per line, as it happens.
    StreamJson,
}

/// Whose event shapes the JSON output formats print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum OutputDialect {
    /// rein's stream-json schema v1 (docs/stream-json.md).
    #[default]
    Rein,
    /// What Claude Code prints with `-p --output-format stream-json --verbose`.
    Claude,
}

impl OutputDialect {
    /// The config spelling: `rein` or `claude`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "rein" => Some(Self::Rein),
            "claude" => Some(Self::Claude),
            _ => None,
        }
    }

    /// The config spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rein => "rein",
            Self::Claude => "claude",
        }
    }
}

/// How `rein exec` reads its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum InputFormat {
    /// The prompt argument, or standard input as one text.
    #[default]
    Text,
    /// User messages on standard input, one JSON object per line (Claude Code's SDK format),
    /// each run in turn in one session.
    StreamJson,
}

/// A budget that is not a positive number of dollars.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a positive amount of dollars (e.g. 0.50)")]
pub struct NotUsd(String);

/// A budget in dollars: a positive number.
pub fn positive_usd(text: &str) -> Result<f64, NotUsd> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd > 0.0 => Ok(usd),
        _ => Err(NotUsd(text.to_string())),
    }
}

/// The mode `--permission-mode NAME` names; an unknown one is a usage error naming the flag.
pub fn mode_flag(name: &str) -> Result<rein_policy::PermissionMode, crate::Exit> {
    rein_policy::PermissionMode::parse(name).ok_or_else(|| {
        crate::Exit::usage(format!(
            "--permission-mode: unknown permission mode {name:?}"
        ))
    })
}

/// The OS sandbox's policy `--sandbox NAME` names; an unknown one is a usage error naming the
/// flag.
pub fn sandbox_flag(name: &str) -> Result<rein_sandbox::Policy, crate::Exit> {
    rein_sandbox::Policy::parse(name).map_err(|e| crate::Exit::usage(format!("--sandbox: {e}")))
}
