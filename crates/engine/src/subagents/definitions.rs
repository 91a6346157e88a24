//! Agent definitions: Markdown files with a YAML frontmatter (`name`, `description`, `tools`,
//! `model`) whose body is the subagent's system prompt, as Claude Code reads them from
//! `.claude/agents/`; and the two built in (`general`, `explore`).

use std::path::{Path, PathBuf};

use rein_tools::PromptFiles;
use serde::Deserialize;

use crate::frontmatter::{self, NameList, split};

/// The model a subagent asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// The parent's model.
    Inherit,
    /// An alias (`sonnet`, `haiku`…) or a full model name.
    Named(String),
}

/// One kind of subagent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// What the model names in a `task` call (`agent`).
    pub name: String,
    /// When to use it (shown to the model in the `task` tool's description).
    pub description: String,
    /// rein tool names it may use; `None`: every tool the parent has but `task`.
    pub tools: Option<Vec<String>>,
    /// The model it asks.
    pub model: ModelChoice,
    /// Its system prompt (the file's body).
    pub prompt: String,
    /// Where it was read from (`built-in` for the two rein brings).
    pub source: String,
    /// Where it works: in the session's workspace, or its own git worktree.
    pub isolation: Isolation,
}

/// Where an agent works (`isolation` in an agent file or a `task` call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// In the session's workspace.
    #[default]
    Shared,
    /// In a git worktree of its own on a new branch (`worktree`).
    Worktree,
}

impl Isolation {
    /// `worktree` is the one value that isolates; anything else (Claude Code's `remote`, an
    /// empty field) shares the workspace.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "worktree" => Self::Worktree,
            _ => Self::Shared,
        }
    }
}

/// Tools that only observe: what `explore` gets.
const READ_ONLY_TOOLS: &[&str] = &["read_file", "glob", "grep", "bash_output"];

const GENERAL_PROMPT: &str = "\
You are a subagent of rein, a coding agent. Another agent handed you the task below; work on \
it on your own with your tools, then answer with what you found or did, completely and \
concisely: your final message is all the other agent will see. Quote paths and line numbers \
where they help.";

const EXPLORE_PROMPT: &str = "\
You are an exploring subagent of rein, a coding agent. Another agent handed you the question \
below. Search and read the workspace to answer it; you cannot change anything. Answer with \
what you found, with paths and line numbers: your final message is all the other agent will \
see.";

/// The definitions rein brings: `general` (every tool but `task`) and `explore` (read-only
/// tools; `explore_model` when configured).
pub fn built_in(explore_model: Option<&str>) -> Vec<AgentDefinition> {
    vec![
        AgentDefinition {
            name: "general".into(),
            description: "General-purpose agent for multi-step tasks: researching a question, \
                          searching code, making a self-contained change."
                .into(),
            tools: None,
            model: ModelChoice::Inherit,
            prompt: GENERAL_PROMPT.into(),
            source: "built-in".into(),
            isolation: Isolation::Shared,
        },
        AgentDefinition {
            name: "explore".into(),
            description: "Fast read-only agent for finding files, searching code and answering \
                          questions about the codebase; cannot change anything."
                .into(),
            tools: Some(READ_ONLY_TOOLS.iter().map(|s| s.to_string()).collect()),
            model: explore_model.map_or(ModelChoice::Inherit, |m| ModelChoice::Named(m.into())),
            prompt: EXPLORE_PROMPT.into(),
            source: "built-in".into(),
            isolation: Isolation::Shared,
        },
    ]
}

/// Definitions read from folders, and what could not be used, for the user.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The definitions, one per name (a later folder's file replaces an earlier one's).
    pub definitions: Vec<AgentDefinition>,
    /// Files that could not be read or lack a name, and tools rein does not have (each named
    /// once).
    pub warnings: Vec<String>,
}

/// Largest definition file read.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Reads the `*.md` files of `dirs` (least specific first; missing folders are skipped) on
/// top of `base`, each through `files`: one leading out of its root (a linked file or
/// `agents` folder) or sensitive is skipped with a warning naming it.
pub fn load(base: Vec<AgentDefinition>, dirs: &[PathBuf], files: &PromptFiles) -> Loaded {
    let mut loaded = Loaded {
        definitions: base,
        warnings: Vec::new(),
    };
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        found.sort();
        for file in found {
            match read(files, &file) {
                Ok((definition, unknown)) => {
                    if !unknown.is_empty() {
                        loaded.warnings.push(format!(
                            "agent `{}` ({}): rein has no {} tool; it runs without {}",
                            definition.name,
                            file.display(),
                            unknown.join(", "),
                            if unknown.len() == 1 { "it" } else { "them" }
                        ));
                    }
                    loaded.definitions.retain(|d| d.name != definition.name);
                    loaded.definitions.push(definition);
                }
                Err(why) => loaded
                    .warnings
                    .push(format!("agent file {} skipped: {why}", file.display())),
            }
        }
    }
    loaded
}

/// One definition file, and the tools it lists that rein lacks.
fn read(files: &PromptFiles, path: &Path) -> Result<(AgentDefinition, Vec<String>), String> {
    let text = files
        .read(path, MAX_FILE_BYTES)
        .map_err(|e| e.to_string())?
        .ok_or("it is gone")?;
    let mut definition = parse(&text).map_err(|e| e.to_string())?;
    definition.0.source = path.display().to_string();
    Ok(definition)
}

#[derive(Debug, Default, Deserialize)]
struct Frontmatter {
    name: Option<String>,
    description: Option<String>,
    tools: Option<NameList>,
    model: Option<String>,
    isolation: Option<String>,
}

/// Why a definition file's text is no definition (the caller names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The text does not open with a `---` frontmatter block.
    #[error("no `---` frontmatter with a name")]
    NoFrontmatter,
    /// The frontmatter has no (or an empty) `name`.
    #[error("the frontmatter has no `name`")]
    NoName,
}

/// A definition from a file's text, and the tools it lists that rein lacks.
pub fn parse(text: &str) -> Result<(AgentDefinition, Vec<String>), DefinitionError> {
    let (head, body) = split(text).ok_or(DefinitionError::NoFrontmatter)?;
    let front: Frontmatter = frontmatter::parse(head);
    let name = front
        .name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .ok_or(DefinitionError::NoName)?;
    let (tools, unknown) = match front.tools {
        None => (None, Vec::new()),
        Some(list) => {
            let (tools, unknown) = map_tools(&list.names());
            (Some(tools), unknown)
        }
    };
    let model = match front.model.as_deref().map(str::trim) {
        None | Some("" | "inherit") => ModelChoice::Inherit,
        Some(model) => ModelChoice::Named(model.to_string()),
    };
    Ok((
        AgentDefinition {
            name,
            description: front.description.unwrap_or_default().trim().to_string(),
            tools,
            model,
            prompt: body.trim().to_string(),
            source: String::new(),
            isolation: front
                .isolation
                .as_deref()
                .map_or(Isolation::Shared, Isolation::parse),
        },
        unknown,
    ))
}

/// rein's names for the tools a definition lists (Claude Code's names or rein's), and the
/// ones rein lacks. `Agent`/`Task` are dropped: a subagent starts no subagents.
pub(crate) fn map_tools(names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut tools: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for name in names {
        // `Agent(x)`, `Bash(git *)`: the tool is the part before the parenthesis.
        let base = name.split('(').next().unwrap_or(name).trim();
        let mapped: &[&str] = match base {
            "Bash" | "bash" => &["bash"],
            "Read" | "NotebookRead" | "read_file" => &["read_file"],
            "Write" | "write_file" => &["write_file", "apply_patch"],
            "Edit" | "MultiEdit" | "NotebookEdit" | "edit_file" => &["edit_file", "apply_patch"],
            "apply_patch" => &["apply_patch"],
            "Glob" | "LS" | "glob" => &["glob"],
            "Grep" | "grep" => &["grep"],
            "TodoWrite" | "todo_write" => &[
                "todo_write",
                "task_create",
                "task_get",
                "task_list",
                "task_update",
            ],
            "TaskCreate" | "task_create" => &["task_create"],
            "TaskGet" | "task_get" => &["task_get"],
            "TaskList" | "task_list" => &["task_list"],
            "TaskUpdate" | "task_update" => &["task_update"],
            "SendMessage" | "send_message" => &["send_message"],
            "BashOutput" | "TaskOutput" | "bash_output" => &["bash_output"],
            "KillBash" | "KillShell" | "TaskStop" | "kill_shell" => &["kill_shell"],
            "Skill" | "skill" => &["skill"],
            "Agent" | "Task" | "task" => &[],
            other if other.starts_with("mcp__") => {
                tools.push(other.to_string());
                continue;
            }
            _ => {
                if !unknown.iter().any(|u| u == base) {
                    unknown.push(base.to_string());
                }
                continue;
            }
        };
        for tool in mapped {
            if !tools.iter().any(|t| t == tool) {
                tools.push(tool.to_string());
            }
        }
    }
    (tools, unknown)
}

#[cfg(test)]
#[path = "definitions_tests.rs"]
mod tests;
