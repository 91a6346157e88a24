//! Which of rein's environment variables an MCP configuration may read (`${VAR}` in
//! `.mcp.json`, `env_vars`, `bearer_token_env_var`, `env_http_headers` in TOML).
//!
//! A workspace chooses its servers' commands and URLs, so a variable it may expand is a
//! variable it may send anywhere: `"Authorization": "Bearer ${ANTHROPIC_API_KEY}"` to a host of
//! its own. The user's own configuration reads every variable (a server of theirs may need a
//! provider key on purpose); a workspace's reads only the variables the user lists in
//! `mcp_env_allow` of their own config, and never a provider key, listed or not. A variable
//! refused is left empty (or its `:-default`) and said in a warning naming server, file and
//! variable.

use std::cell::RefCell;

/// What a configuration file may read, and the refusals met.
pub struct Vars<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    scope: Scope<'a>,
    refused: RefCell<Vec<String>>,
}

enum Scope<'a> {
    /// The user's own file: every variable.
    User,
    /// A workspace's file: only `allowed`, never `keys`.
    Workspace {
        allowed: &'a [String],
        keys: &'a [String],
    },
}

/// A variable looked up.
pub(crate) enum Lookup {
    /// Its value.
    Value(String),
    /// It is not set.
    Unset,
    /// The file may not read it (already said in the warnings).
    Refused,
}

impl<'a> Vars<'a> {
    /// For the user's own configuration: every variable of `env`.
    pub fn user(env: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Self {
            env,
            scope: Scope::User,
            refused: RefCell::default(),
        }
    }

    /// For a workspace's configuration: only the variables in `allowed` (the user's
    /// `mcp_env_allow`), and none in `keys` (the provider keys, [`rein_tool::HiddenEnv`]'s
    /// names) even when allowed.
    pub fn workspace(
        env: &'a dyn Fn(&str) -> Option<String>,
        allowed: &'a [String],
        keys: &'a [String],
    ) -> Self {
        Self {
            env,
            scope: Scope::Workspace { allowed, keys },
            refused: RefCell::default(),
        }
    }

    /// The refusals met so far, each once, for the user.
    pub fn take_warnings(&self) -> Vec<String> {
        self.refused.take()
    }

    /// `var` for server `server` of file `source`.
    pub(crate) fn lookup(&self, var: &str, server: &str, source: &str) -> Lookup {
        if let Scope::Workspace { allowed, keys } = &self.scope {
            let why = if keys.iter().any(|k| k == var) {
                Some("it holds a provider key, which a workspace's configuration never reads")
            } else if !allowed.iter().any(|a| a == var) {
                Some(
                    "a workspace's configuration reads only the variables listed in \
                     `mcp_env_allow` of your own config.toml",
                )
            } else {
                None
            };
            if let Some(why) = why {
                let warning =
                    format!("MCP server `{server}` ({source}): ${var} is not expanded: {why}");
                let mut refused = self.refused.borrow_mut();
                if !refused.contains(&warning) {
                    refused.push(warning);
                }
                return Lookup::Refused;
            }
        }
        match (self.env)(var) {
            Some(value) => Lookup::Value(value),
            None => Lookup::Unset,
        }
    }

    /// `var`'s value when it may be read and is set.
    pub(crate) fn get(&self, var: &str, server: &str, source: &str) -> Option<String> {
        match self.lookup(var, server, source) {
            Lookup::Value(value) => Some(value),
            Lookup::Unset | Lookup::Refused => None,
        }
    }
}

/// `${VAR}` and `${VAR:-default}` in `text` replaced through `vars`; a variable that is not
/// set (or may not be read) and has no default becomes empty; one unset is said once in
/// `warnings` (one refused is said by `vars`).
pub(crate) fn expand_vars(
    text: &str,
    vars: &Vars<'_>,
    server: &str,
    source: &str,
    warnings: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((var, default)) => (var, Some(default)),
            None => (inner, None),
        };
        match (vars.lookup(var, server, source), default) {
            // `${VAR:-default}`: the default also stands for an empty value.
            (Lookup::Value(value), Some(default)) if value.is_empty() => out.push_str(default),
            (Lookup::Value(value), _) => out.push_str(&value),
            (Lookup::Unset | Lookup::Refused, Some(default)) => out.push_str(default),
            (Lookup::Refused, None) => {}
            (Lookup::Unset, None) => {
                let warning = format!("MCP server `{server}` ({source}): {var} is not set");
                if !warnings.contains(&warning) {
                    warnings.push(warning);
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}
