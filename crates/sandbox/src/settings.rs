//! Policies and the user's settings for them.

use std::fmt;
use std::path::PathBuf;

/// How far a shell command is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// Not confined: the command has the user's rights.
    #[default]
    Off,
    /// Writes only in the workspace, temp folders and writable roots (never the protected
    /// paths); reads only system folders, the workspace, temp and read roots; no network.
    WorkspaceWrite,
    /// Writes nowhere but `/dev/null` and a private temp folder; reads as above; no network.
    ReadOnly,
}

impl Policy {
    /// The name used on the command line and in config.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::WorkspaceWrite => "workspace-write",
            Self::ReadOnly => "read-only",
        }
    }

    /// Parses a policy name.
    pub fn parse(name: &str) -> Result<Self, UnknownPolicy> {
        match name {
            "off" => Ok(Self::Off),
            "workspace-write" => Ok(Self::WorkspaceWrite),
            "read-only" => Ok(Self::ReadOnly),
            other => Err(UnknownPolicy(other.to_string())),
        }
    }

    /// The stricter of two policies.
    pub fn stricter(self, other: Self) -> Self {
        let rank = |p: Self| match p {
            Self::Off => 0,
            Self::WorkspaceWrite => 1,
            Self::ReadOnly => 2,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// A name that is none of the policies (the name given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox policy {0:?}; expected read-only, workspace-write or off")]
pub struct UnknownPolicy(pub String);

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Home-relative folders and files that toolchains read (rustup, cargo, npm, nvm, pyenv,
/// pip's user site, git's user config): readable under both restricted policies when they
/// exist.
pub const DEFAULT_READ_ROOTS: &[&str] = &[
    "~/.rustup",
    "~/.cargo",
    "~/.npm",
    "~/.nvm",
    "~/.pyenv",
    "~/.local",
    "~/.gitconfig",
    "~/.config/git",
];

/// What every restricted call adds to its policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Whether restricted commands may reach the network (off by default).
    pub network: bool,
    /// Extra readable folders and files (absolute), besides [`DEFAULT_READ_ROOTS`].
    pub read_roots: Vec<PathBuf>,
    /// Writable folders (absolute) under `workspace-write`: `~/.cargo/registry`, `~/.npm`.
    pub writable_roots: Vec<PathBuf>,
    /// Paths never shown, even inside a root or the workspace (the sensitive list, absolute).
    pub hidden: Vec<PathBuf>,
    /// Git's config files besides a repository's own (system and user): a `core.hooksPath`
    /// or an include there may name a path in the workspace, held still like the
    /// repository's.
    pub git_configs: Vec<PathBuf>,
}

impl Settings {
    /// Settings with the default read roots of `home` (those that exist are shown).
    pub fn with_home(home: Option<&std::path::Path>) -> Self {
        let read_roots = home
            .map(|home| {
                DEFAULT_READ_ROOTS
                    .iter()
                    .filter_map(|root| root.strip_prefix("~/"))
                    .map(|rest| home.join(rest))
                    .collect()
            })
            .unwrap_or_default();
        let mut git_configs = vec![PathBuf::from("/etc/gitconfig")];
        if let Some(home) = home {
            git_configs.push(home.join(".gitconfig"));
            git_configs.push(home.join(".config/git/config"));
        }
        Self {
            read_roots,
            git_configs,
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_by_name_and_order_by_strictness() {
        for policy in [Policy::Off, Policy::WorkspaceWrite, Policy::ReadOnly] {
            assert_eq!(Policy::parse(policy.name()), Ok(policy));
        }
        assert!(
            Policy::parse("workspace")
                .unwrap_err()
                .to_string()
                .contains("read-only")
        );
        assert_eq!(
            Policy::Off.stricter(Policy::WorkspaceWrite),
            Policy::WorkspaceWrite
        );
        assert_eq!(
            Policy::ReadOnly.stricter(Policy::WorkspaceWrite),
            Policy::ReadOnly
        );
    }
}
