//! Environment variables no child process may inherit: the provider keys rein itself uses.
//! A command the model runs (or a hook it triggers) could otherwise print or send them.

use std::sync::Arc;

/// The key variables of the built-in providers, always hidden.
pub const PROVIDER_KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// The variables removed from every child's environment.
#[derive(Debug, Clone)]
pub struct HiddenEnv(Arc<Vec<String>>);

impl Default for HiddenEnv {
    fn default() -> Self {
        Self(Arc::new(
            PROVIDER_KEY_VARS.iter().map(|s| s.to_string()).collect(),
        ))
    }
}

impl HiddenEnv {
    /// The built-in list plus `extra` (the configured key variable, `--api-key-env`).
    pub fn with(extra: impl IntoIterator<Item = String>) -> Self {
        let mut names: Vec<String> = PROVIDER_KEY_VARS.iter().map(|s| s.to_string()).collect();
        for name in extra {
            if !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
        Self(Arc::new(names))
    }

    /// The names hidden.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// Removes the hidden variables from `command`'s environment.
    pub fn apply(&self, command: &mut tokio::process::Command) {
        for name in self.0.iter() {
            command.env_remove(name);
        }
    }
}
