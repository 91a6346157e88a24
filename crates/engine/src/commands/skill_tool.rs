//! The `skill` tool: the model loads a skill's instructions when its task matches the
//! catalog's description.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::{Catalog, substitute};

/// The tool's name.
pub(crate) const SKILL_TOOL: &str = "skill";
/// Most of a skill's other files listed.
const MAX_LISTED: usize = 100;
/// Deepest folder listed under a skill.
const MAX_DEPTH: usize = 4;

/// Returns a skill's body and the list of its other files.
pub(crate) struct SkillTool(pub(crate) Catalog);

fn skill_name(args: &Value) -> &str {
    args.get("name")
        .or_else(|| args.get("skill"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
}

#[async_trait]
impl Tool for SkillTool {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::Short {
            description: "Loads a skill of the system prompt's list; follow it.",
            arguments: &[("name", ""), ("args", "")],
        }
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: SKILL_TOOL.into(),
            description: "Loads a skill from the system prompt's list: its instructions and \
                          the paths of its other files. Load one when the task matches its \
                          description, then follow it."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The skill's name"},
                    "args": {"type": "string", "description": "Arguments for the skill"}
                },
                "required": ["name"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(SKILL_TOOL, "Skill", CallKind::Other, Effect::ReadOnly);
        let name = skill_name(args);
        facts.summary = name.to_string();
        // Rules name skills: `Skill(pdf)`.
        facts.subject = Some(name.to_string());
        facts
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let name = skill_name(&args);
        let Some(skill) = self.0.model_skill(name) else {
            let names: Vec<&str> = self.0.skills_for_model().map(|s| s.name.as_str()).collect();
            return ToolOutput::error(format!(
                "there is no skill `{name}`; the skills are: {}",
                names.join(", ")
            ));
        };
        let Some(info) = &skill.skill else {
            return ToolOutput::error(format!("`{name}` is not a skill"));
        };
        let extra = args.get("args").and_then(Value::as_str).unwrap_or("");
        ToolOutput::ok(skill_text(&skill.body, &info.dir, extra))
    }
}

/// What loading a skill gives: its folder, its body (arguments substituted) and its other
/// files as absolute paths, so the body's relative references can be read.
pub(crate) fn skill_text(body: &str, dir: &Path, args: &str) -> String {
    let mut out = format!("Base directory for this skill: {}\n\n", dir.display());
    out.push_str(&substitute(body, args, Some(dir)));
    let mut files = Vec::new();
    list(dir, 0, &mut files);
    files.retain(|f| f != &dir.join("SKILL.md"));
    if !files.is_empty() {
        out.push_str(
            "\n\nThe skill's other files (read the ones its instructions point to when needed):\n",
        );
        for file in files.iter().take(MAX_LISTED) {
            out.push_str(&format!("- {}\n", file.display()));
        }
        if files.len() > MAX_LISTED {
            out.push_str(&format!("- … and {} more\n", files.len() - MAX_LISTED));
        }
    }
    out
}

/// Files under `dir`, sorted, hidden ones skipped; links are not followed.
fn list(dir: &Path, depth: usize, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<(PathBuf, bool)> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| (e.path(), e.file_type().is_ok_and(|t| t.is_dir())))
        .collect();
    paths.sort();
    for (path, is_dir) in paths {
        if into.len() > MAX_LISTED {
            return;
        }
        if is_dir {
            if depth + 1 < MAX_DEPTH {
                list(&path, depth + 1, into);
            }
        } else {
            into.push(path);
        }
    }
}
