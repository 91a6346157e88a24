//! Changes to the user's settings files asked for from the UI (`/config set`, `/permissions
//! allow …`, `/statusline …`): the host writes the file; the UI applies what changes now.

use rein_policy::{RuleEdit, RuleList};

/// Which settings file a change goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsScope {
    /// The user's own `config.toml`: every workspace.
    User,
    /// The workspace's `.rein/config.toml`, shared with the team.
    Workspace,
    /// The workspace's `.rein/config.local.toml`, the user's own.
    Local,
}

impl SettingsScope {
    /// Its name in commands: `user`, `workspace`, `local`.
    pub fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Workspace => "workspace",
            Self::Local => "local",
        }
    }

    /// The scope a name stands for.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::User, Self::Workspace, Self::Local]
            .into_iter()
            .find(|scope| scope.name() == name)
    }
}

/// A change to a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsChange {
    /// Set `key` (dotted: `tools.max_parallel`) to `value` (TOML: `true`, `30`,
    /// `["a"]`; anything else is a string).
    Set {
        /// The key.
        key: String,
        /// The value as typed.
        value: String,
        /// Which file.
        scope: SettingsScope,
    },
    /// Remove `key`.
    Unset {
        /// The key.
        key: String,
        /// Which file.
        scope: SettingsScope,
    },
    /// Add a permission rule to a list.
    AddRule {
        /// Which list.
        list: RuleList,
        /// The rule as written (`Bash(cargo test *)`).
        rule: String,
        /// Which file.
        scope: SettingsScope,
    },
    /// Remove a permission rule from whichever list holds it.
    RemoveRule {
        /// The rule as written.
        rule: String,
        /// Which file; `None`: the one file that has it.
        scope: Option<SettingsScope>,
    },
}

/// What a change did.
#[derive(Debug, Clone)]
pub struct SettingsChanged {
    /// One line for the user: what was written where, and when it applies.
    pub message: String,
    /// What changes in this session now.
    pub live: LiveChange,
}

/// What a settings change changes in the running session.
#[derive(Debug, Clone)]
pub enum LiveChange {
    /// Nothing now (it applies to new sessions).
    Nothing,
    /// The live permission rules.
    Rules(RuleEdit),
    /// The status line command (`None`: the built-in line).
    StatusLine(Option<crate::StatusCommand>),
}

/// Why a settings change was not made: the file is left as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SettingsRefused(pub String);
