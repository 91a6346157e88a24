//! Tool profiles: how much of the tool definitions every request carries. The full profile
//! offers every tool with its whole description; the lean one, for small context windows
//! (a local model served with Ollama's 8k default), offers the everyday tools with short
//! descriptions and only their main arguments, so that the fixed part of a request (system
//! prompt and tool definitions) stays near 1k tokens instead of ~3k.
//!
//! A tool says how it appears in the lean profile with [`Lean`] ([`crate::Tool::lean`]); a
//! tool left out of the lean profile can still be called (a resumed session's calls, a model
//! that knows it anyway): only its definition is not sent.
//!
//! ```
//! use rein_tools::{ToolRegistry, ToolsProfile};
//! assert_eq!(ToolsProfile::for_window(8_192), ToolsProfile::Lean);
//! assert_eq!(ToolsProfile::for_window(200_000), ToolsProfile::Full);
//! let lean = ToolRegistry::builtin().specs_for(ToolsProfile::Lean);
//! assert!(lean.iter().all(|s| s.name != "todo_write"));
//! ```

/// Which tool definitions requests carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolsProfile {
    /// Every tool, described in full.
    #[default]
    Full,
    /// The everyday tools, described briefly (small context windows).
    Lean,
}

/// Windows of at most this many tokens get the lean profile unless the user chose one.
pub const LEAN_WINDOW: u64 = 16_384;

/// A profile name that is neither `full` nor `lean` (the spelling given, trimmed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tools profile {0:?}: expected \"full\" or \"lean\"")]
pub struct UnknownToolsProfile(pub String);

impl ToolsProfile {
    /// The profile for a model whose window is `tokens`: lean up to [`LEAN_WINDOW`].
    pub fn for_window(tokens: u64) -> Self {
        if tokens <= LEAN_WINDOW {
            Self::Lean
        } else {
            Self::Full
        }
    }

    /// Parses the config spelling: `full` or `lean`.
    pub fn parse(text: &str) -> Result<Self, UnknownToolsProfile> {
        match text.trim() {
            "full" => Ok(Self::Full),
            "lean" => Ok(Self::Lean),
            other => Err(UnknownToolsProfile(other.to_string())),
        }
    }

    /// The spelling [`ToolsProfile::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Lean => "lean",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lean;
    use pretty_assertions::assert_eq;
    use rein_protocol::ToolSpec;
    use serde_json::json;

    #[test]
    fn windows_up_to_16k_get_the_lean_profile() {
        assert_eq!(ToolsProfile::for_window(4_096), ToolsProfile::Lean);
        assert_eq!(ToolsProfile::for_window(16_384), ToolsProfile::Lean);
        assert_eq!(ToolsProfile::for_window(16_385), ToolsProfile::Full);
    }

    #[test]
    fn the_config_spelling_round_trips_and_others_are_refused() {
        for profile in [ToolsProfile::Full, ToolsProfile::Lean] {
            assert_eq!(ToolsProfile::parse(profile.name()), Ok(profile));
        }
        assert_eq!(
            ToolsProfile::parse("small").unwrap_err().to_string(),
            "unknown tools profile \"small\": expected \"full\" or \"lean\""
        );
    }

    #[test]
    fn a_short_entry_keeps_only_the_named_arguments_with_their_new_descriptions() {
        let full = ToolSpec {
            name: "t".into(),
            description: "A long description.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "description": "The a, described at length."},
                    "b": {"type": ["integer", "null"], "description": "The b."},
                    "c": {"type": "boolean", "description": "The c."},
                    "d": {"anyOf": [
                        {"oneOf": [{"const": "x", "description": "An x."}], "description": "D."},
                        {"type": "null"}
                    ]}
                },
                "required": ["a", "c"],
                "additionalProperties": false
            })
            .into(),
        };
        let lean = Lean::Short {
            description: "Short.",
            arguments: &[("b", "B."), ("a", ""), ("d", "")],
        };
        assert_eq!(
            lean.apply(&full),
            Some(ToolSpec {
                name: "t".into(),
                description: "Short.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "b": {"type": ["integer", "null"], "description": "B."},
                        "a": {"type": "string"},
                        "d": {"anyOf": [{"oneOf": [{"const": "x"}]}, {"type": "null"}]}
                    },
                    "required": ["a"],
                    "additionalProperties": false
                })
                .into(),
            })
        );
        assert_eq!(Lean::LeftOut.apply(&full), None);
        assert_eq!(Lean::Same.apply(&full), Some(full));
    }

    #[test]
    fn every_argument_a_lean_entry_names_exists_and_its_numbers_are_the_tools_own() {
        let registry = crate::ToolRegistry::builtin();
        for tool in [
            crate::typed(crate::Bash::new()),
            crate::typed(crate::ReadFile),
            crate::typed(crate::WriteFile),
            crate::typed(crate::EditFile),
            crate::typed(crate::ApplyPatch),
            crate::typed(crate::Glob),
            crate::typed(crate::Grep),
        ] {
            let full = tool.spec();
            let Lean::Short { arguments, .. } = tool.lean() else {
                panic!("{} has a short lean entry", full.name);
            };
            for (name, _) in arguments {
                assert!(
                    full.input_schema["properties"].get(name).is_some(),
                    "{}: no argument {name}",
                    full.name
                );
            }
        }
        let lean = registry.specs_for(ToolsProfile::Lean);
        let description = |name: &str| {
            lean.iter()
                .find(|s| s.name == name)
                .map(|s| s.description.clone())
                .unwrap_or_default()
        };
        let bash = description("bash");
        assert!(
            bash.contains(&format!("Timeout {} s", crate::DEFAULT_TIMEOUT_MS / 1000)),
            "{bash}"
        );
        assert!(
            bash.contains(&format!("at most {}", crate::MAX_TIMEOUT_MS)),
            "{bash}"
        );
        let read = description("read_file");
        assert!(
            read.contains(&format!("{} lines", crate::DEFAULT_LINE_LIMIT)),
            "{read}"
        );
    }
}
