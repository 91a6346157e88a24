//! Environment variables no child process may inherit: the provider keys rein itself uses.
//! A command the model runs (or a hook it triggers) could otherwise print or send them.

use std::sync::Arc;

/// The key variables of the built-in providers, always hidden.
pub const PROVIDER_KEY_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Shortest value taken for a key: anything shorter would redact ordinary words.
const MIN_SECRET_LEN: usize = 8;

/// The variables removed from every child's environment, and their values at start-up, which
/// rein takes out of everything it stores or sends ([`HiddenEnv::redact`]): the model never
/// needs a key.
#[derive(Debug, Clone)]
pub struct HiddenEnv {
    names: Arc<Vec<String>>,
    /// `(name, value)` of each hidden variable set to a usable value, longest value first (a
    /// key containing another is replaced whole).
    values: Arc<Vec<(String, String)>>,
}

impl Default for HiddenEnv {
    fn default() -> Self {
        Self::with(Vec::new())
    }
}

impl HiddenEnv {
    /// The built-in list plus `extra` (the configured key variable, `--api-key-env`), with
    /// their values read from this process's environment.
    #[allow(clippy::disallowed_methods)] // the hidden list reads the values it hides, to redact them
    pub fn with(extra: impl IntoIterator<Item = String>) -> Self {
        Self::with_values(extra, |name| std::env::var(name).ok())
    }

    /// [`HiddenEnv::with`], reading values through `env`.
    pub fn with_values(
        extra: impl IntoIterator<Item = String>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let mut names: Vec<String> = PROVIDER_KEY_VARS.iter().map(|s| s.to_string()).collect();
        for name in extra {
            if !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
        let mut values: Vec<(String, String)> = names
            .iter()
            .filter_map(|name| {
                let value = env(name)?;
                let value = value.trim();
                (value.len() >= MIN_SECRET_LEN).then(|| (name.clone(), value.to_string()))
            })
            .collect();
        values.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
        Self {
            names: Arc::new(names),
            values: Arc::new(values),
        }
    }

    /// The names hidden.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// `text` with every hidden variable's value replaced by `[redacted: $NAME]`.
    pub fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let mut out = std::borrow::Cow::Borrowed(text);
        for (name, value) in self.values.iter() {
            if out.contains(value.as_str()) {
                out = std::borrow::Cow::Owned(
                    out.replace(value.as_str(), &format!("[redacted: ${name}]")),
                );
            }
        }
        out
    }

    /// Removes the hidden variables from `command`'s environment.
    pub fn apply(&self, command: &mut tokio::process::Command) {
        for name in self.names.iter() {
            command.env_remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values_are_redacted_and_short_or_missing_ones_ignored() {
        let env = |name: &str| match name {
            "ANTHROPIC_API_KEY" => Some("sk-ant-0123456789".to_string()),
            "OPENAI_API_KEY" => Some("short".to_string()),
            "MY_KEY" => Some("  sk-gw-abcdefgh  ".to_string()),
            _ => None,
        };
        let hidden = HiddenEnv::with_values(["MY_KEY".to_string()], env);
        let text = "a=sk-ant-0123456789 b=sk-gw-abcdefgh c=short";
        assert_eq!(
            hidden.redact(text),
            "a=[redacted: $ANTHROPIC_API_KEY] b=[redacted: $MY_KEY] c=short"
        );
        assert!(matches!(
            hidden.redact("nothing"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert!(hidden.names().contains(&"MY_KEY".to_string()));
    }
}
