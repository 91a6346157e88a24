//! Prompt commands: custom slash commands (`.claude/commands/*.md`) and skills (folders with a
//! `SKILL.md`), read as Claude Code writes them. Both are a Markdown body with a frontmatter;
//! a command becomes the user's prompt when typed as `/name args`, a skill also when the model
//! loads it with the `skill` tool, which the system prompt's catalog advertises.

mod expand;
mod skill_tool;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_tools::PromptFiles;
use serde::Deserialize;

use crate::frontmatter::{self, NameList};

pub(crate) use expand::{at_references, shell_snippets, substitute};
pub(crate) use skill_tool::{SKILL_TOOL, SkillTool, skill_text};

/// Largest command or `SKILL.md` file read.
const MAX_FILE_BYTES: u64 = 512 * 1024;
/// Longest description shown in the catalog and in completion lists.
const DESCRIPTION_CHARS: usize = 100;
/// Most bytes the system prompt's skill catalog takes; past it, skills are listed by name.
pub const CATALOG_CAP: usize = 6_000;
/// The same in the lean profile (small context windows).
pub const LEAN_CATALOG_CAP: usize = 800;
/// Deepest folder nesting of commands (`a/b/c.md` is `/a:b:c`).
const MAX_DEPTH: usize = 3;

/// One command or skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptCommand {
    /// What follows the slash: the file's stem (`commit`), folders joined with `:`
    /// (`git:commit`); a skill's frontmatter `name` or its folder's.
    pub name: String,
    /// One line for catalogs and completion.
    pub description: String,
    /// How to call it (`[version] | [entry-type]`), shown in completion.
    pub argument_hint: Option<String>,
    /// Permission rules (Claude Code's syntax) that hold while its `!` lines run.
    pub allowed_tools: Vec<String>,
    /// The model its prompt is sent to, when not the session's.
    pub model: Option<String>,
    /// The Markdown body, frontmatter removed.
    pub body: String,
    /// The file it came from.
    pub source: PathBuf,
    /// Set for skills.
    pub skill: Option<SkillInfo>,
    /// Its text is fetched when typed, from [`crate::AgentConfig::prompt_source`] (an MCP
    /// server's prompt, `/mcp__server__prompt args`); `body` is then empty.
    pub fetched: bool,
}

/// Prompts kept elsewhere (an MCP server's), fetched when the user types one.
#[async_trait::async_trait]
pub trait PromptSource: Send + Sync + std::fmt::Debug {
    /// The text of prompt `name` with the words the user typed after it, or why not (the
    /// source's own error: an MCP server's, say).
    async fn fetch(&self, name: &str, args: &str) -> Result<String, crate::FrontEndError>;
}

/// What makes a command a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillInfo {
    /// The skill's folder: its other files are relative to it.
    pub dir: PathBuf,
    /// The model may load it (`disable-model-invocation` not set).
    pub model_invocable: bool,
    /// The user may type it as `/name` (`user-invocable` not false).
    pub user_invocable: bool,
}

/// Every command and skill of an invocation, shared.
#[derive(Debug, Clone, Default)]
pub struct Catalog(Arc<Vec<PromptCommand>>);

impl Catalog {
    /// A catalog of `commands` (a later one replaces an earlier one of the same name).
    pub fn new(commands: Vec<PromptCommand>) -> Self {
        let mut unique: Vec<PromptCommand> = Vec::with_capacity(commands.len());
        for command in commands {
            unique.retain(|c| c.name != command.name);
            unique.push(command);
        }
        Self(Arc::new(unique))
    }

    /// This catalog with `more` added after its own commands (a same-named one of its own
    /// wins: a file the user wrote beats a server's prompt).
    pub fn with(&self, more: Vec<PromptCommand>) -> Self {
        let mut all = self.0.as_ref().clone();
        for command in more {
            if !all.iter().any(|c| c.name == command.name) {
                all.push(command);
            }
        }
        Self(Arc::new(all))
    }

    /// All of them, in load order.
    pub fn all(&self) -> &[PromptCommand] {
        &self.0
    }

    /// What the user can type as `/name`.
    pub fn for_user(&self) -> impl Iterator<Item = &PromptCommand> {
        self.0
            .iter()
            .filter(|c| c.skill.as_ref().is_none_or(|s| s.user_invocable))
    }

    /// The skills the model may load.
    pub fn skills_for_model(&self) -> impl Iterator<Item = &PromptCommand> {
        self.0
            .iter()
            .filter(|c| c.skill.as_ref().is_some_and(|s| s.model_invocable))
    }

    /// The command the user typed as `/name`.
    pub fn user_command(&self, name: &str) -> Option<&PromptCommand> {
        self.for_user().find(|c| c.name == name)
    }

    /// The skill the model asked for.
    pub fn model_skill(&self, name: &str) -> Option<&PromptCommand> {
        let name = name.trim().trim_start_matches('/');
        self.skills_for_model().find(|c| c.name == name)
    }

    /// The system prompt's section listing the skills, one line each, at most
    /// [`CATALOG_CAP`] bytes; `None` without skills for the model.
    pub fn prompt_section(&self) -> Option<String> {
        self.prompt_section_within(CATALOG_CAP)
    }

    /// The same within `cap` bytes ([`LEAN_CATALOG_CAP`] in the lean profile).
    pub fn prompt_section_within(&self, cap: usize) -> Option<String> {
        let skills: Vec<&PromptCommand> = self.skills_for_model().collect();
        if skills.is_empty() {
            return None;
        }
        let mut out = String::from(
            "\n# Skills\nLoad a skill with the skill tool when the task matches its \
             description; follow it once loaded.\n",
        );
        let mut unlisted = Vec::new();
        for skill in skills {
            let line = format!("- {}: {}\n", skill.name, skill.description);
            if unlisted.is_empty() && out.len() + line.len() <= cap.saturating_sub(200) {
                out.push_str(&line);
            } else {
                unlisted.push(skill.name.as_str());
            }
        }
        if !unlisted.is_empty() {
            let mut tail = format!("- and {} more, by name: ", unlisted.len());
            for (n, name) in unlisted.iter().enumerate() {
                let sep = if n == 0 { "" } else { ", " };
                if out.len() + tail.len() + sep.len() + name.len() + 2 > cap {
                    tail.push_str(", …");
                    break;
                }
                tail.push_str(sep);
                tail.push_str(name);
            }
            out.push_str(&tail);
            out.push('\n');
        }
        Some(out)
    }
}

/// A catalog and what could not be used, for the user.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Commands then skills, each folder's after the less specific ones'.
    pub catalog: Catalog,
    /// Files skipped, each named.
    pub warnings: Vec<String>,
}

/// Reads the commands of `command_dirs` (`*.md`, nested folders as `a:b`) and the skills of
/// `skill_dirs` (`<name>/SKILL.md`), least specific folder first; missing folders are fine.
/// Each file is read through `files`: one leading out of its root (a linked file, skill
/// folder or commands folder) or sensitive is skipped with a warning naming it.
pub fn load(command_dirs: &[PathBuf], skill_dirs: &[PathBuf], files: &PromptFiles) -> Loaded {
    let mut commands = Vec::new();
    let mut warnings = Vec::new();
    for dir in command_dirs {
        let mut found = Vec::new();
        markdown_files(dir, "", 0, &mut found);
        for (name, path) in found {
            match read_command(files, &path, name, None) {
                Ok(command) => commands.push(command),
                Err(why) => warnings.push(format!("command {} skipped: {why}", path.display())),
            }
        }
    }
    for dir in skill_dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut folders: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("SKILL.md").is_file())
            .collect();
        folders.sort();
        for folder in folders {
            let name = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let path = folder.join("SKILL.md");
            match read_command(files, &path, name, Some(folder.clone())) {
                Ok(command) => commands.push(command),
                Err(why) => warnings.push(format!("skill {} skipped: {why}", path.display())),
            }
        }
    }
    Loaded {
        catalog: Catalog::new(commands),
        warnings,
    }
}

/// `*.md` files under `dir` with their command names, sorted.
fn markdown_files(dir: &Path, prefix: &str, depth: usize, into: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem.starts_with('.') {
            continue;
        }
        let name = format!("{prefix}{stem}");
        if path.is_dir() {
            if depth + 1 < MAX_DEPTH {
                markdown_files(&path, &format!("{name}:"), depth + 1, into);
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            into.push((name, path));
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct Frontmatter {
    name: Option<String>,
    description: Option<String>,
    #[serde(rename = "argument-hint")]
    argument_hint: Option<serde_yaml_ng::Value>,
    #[serde(rename = "allowed-tools")]
    allowed_tools: Option<NameList>,
    model: Option<String>,
    #[serde(rename = "disable-model-invocation")]
    disable_model_invocation: Option<serde_yaml_ng::Value>,
    #[serde(rename = "user-invocable")]
    user_invocable: Option<serde_yaml_ng::Value>,
}

/// One file: a command named `name`, or the skill in `skill_dir`.
fn read_command(
    files: &PromptFiles,
    path: &Path,
    name: String,
    skill_dir: Option<PathBuf>,
) -> Result<PromptCommand, String> {
    let text = files
        .read(path, MAX_FILE_BYTES)
        .map_err(|e| e.to_string())?
        .ok_or("it is gone")?;
    let (front, body) = match frontmatter::split(&text) {
        Some((head, body)) => (frontmatter::parse::<Frontmatter>(head), body),
        None => (Frontmatter::default(), text.as_str()),
    };
    let body = body.trim().to_string();
    let name = match &skill_dir {
        Some(_) => front
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
            .map_or(name, str::to_string),
        None => name,
    };
    let description = front
        .description
        .as_deref()
        .map(one_line)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| one_line(body.lines().find(|l| !l.trim().is_empty()).unwrap_or("")));
    let skill = skill_dir.map(|dir| SkillInfo {
        dir,
        model_invocable: !truthy(front.disable_model_invocation.as_ref()),
        user_invocable: front
            .user_invocable
            .as_ref()
            .is_none_or(|v| truthy(Some(v))),
    });
    Ok(PromptCommand {
        fetched: false,
        name,
        description,
        argument_hint: front.argument_hint.as_ref().and_then(hint_text),
        allowed_tools: front.allowed_tools.map(|l| l.names()).unwrap_or_default(),
        model: front
            .model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty() && m != "inherit"),
        body,
        source: path.to_path_buf(),
        skill,
    })
}

/// `true`, `"true"`, `yes`: frontmatter writes booleans every way.
fn truthy(value: Option<&serde_yaml_ng::Value>) -> bool {
    match value {
        Some(serde_yaml_ng::Value::Bool(b)) => *b,
        Some(serde_yaml_ng::Value::String(s)) => {
            matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "true" | "yes" | "on"
            )
        }
        _ => false,
    }
}

/// An argument hint as written: a string, or the list YAML reads `[a] [b]` as.
fn hint_text(value: &serde_yaml_ng::Value) -> Option<String> {
    match value {
        serde_yaml_ng::Value::String(s) => Some(s.trim().to_string()),
        serde_yaml_ng::Value::Sequence(items) => Some(format!(
            "[{}]",
            items
                .iter()
                .filter_map(|i| serde_yaml_ng::to_string(i).ok())
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => None,
    }
    .filter(|h| !h.is_empty())
}

/// The first line of `text`, whitespace-collapsed, cut to [`DESCRIPTION_CHARS`].
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(DESCRIPTION_CHARS) {
        Some((at, _)) => format!("{}…", joined[..at].trim_end()),
        None => joined,
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
