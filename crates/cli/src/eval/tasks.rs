//! The task file: one JSON object per line, each a task with its repository, prompt and check.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::origin::Origins;
use crate::Exit;

/// One task of a task file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Unique within the file; names the task in results.
    pub id: String,
    /// A local folder (relative to the task file's folder, and within it or a `--repo-root`)
    /// or a git URL (https, http, git, ssh).
    pub repo: String,
    /// The commit to start from (a git repository's; with a local folder, the folder must be
    /// one). Without it a local folder is copied as it is and a URL's default branch is taken.
    #[serde(default)]
    pub commit: Option<String>,
    /// What the agent is asked.
    pub prompt: String,
    /// A shell command run in the copy before the agent (a failure ends the run).
    #[serde(default)]
    pub setup: Option<String>,
    /// A shell command run in the copy after the agent: exit 0 means solved.
    pub check: String,
    /// Limit of each step (setup, agent, check) in seconds.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Maximum model requests.
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// Budget in USD.
    #[serde(default)]
    pub max_budget_usd: Option<f64>,
    /// Model name.
    #[serde(default)]
    pub model: Option<String>,
    /// How hard the model thinks.
    #[serde(default)]
    pub effort: Option<String>,
}

/// Where a task's repository comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A folder on this machine.
    Folder(PathBuf),
    /// A repository to clone.
    Url(String),
}

impl Task {
    /// The repository: a URL, or the folder `origins` allows (refused naming why).
    pub fn source(&self, origins: &Origins) -> Result<Source, super::origin::BadOrigin> {
        let repo = self.repo.as_str();
        if let Some(path) = repo.strip_prefix("file://") {
            // A local repository by URL: the folder rules hold all the same.
            origins.folder(path)?;
            Ok(Source::Url(repo.to_string()))
        } else if super::origin::is_url(repo) {
            Ok(Source::Url(repo.to_string()))
        } else {
            origins.folder(repo).map(Source::Folder)
        }
    }
}

/// Reads a task file: every line a task (blank lines and lines starting with `#` skipped),
/// ids unique, the numbers sane. Errors name the line.
pub fn read(path: &Path) -> Result<Vec<Task>, Exit> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Exit::usage(format!("task file {}: {e}", path.display())))?;
    parse(&text).map_err(|e| Exit::usage(format!("task file {}: {e}", path.display())))
}

/// What is wrong with a task file, naming the line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadTasks(String);

/// The tasks of a task file's text.
pub fn parse(text: &str) -> Result<Vec<Task>, BadTasks> {
    parse_lines(text).map_err(BadTasks)
}

fn parse_lines(text: &str) -> Result<Vec<Task>, String> {
    let mut tasks: Vec<Task> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = number + 1;
        let task: Task =
            serde_json::from_str(line).map_err(|e| format!("line {at}: not a task: {e}"))?;
        if let Some(problem) = problem(&task) {
            return Err(format!("line {at}: task {:?}: {problem}", task.id));
        }
        if tasks.iter().any(|t| t.id == task.id) {
            return Err(format!("line {at}: the id {:?} is used twice", task.id));
        }
        tasks.push(task);
    }
    if tasks.is_empty() {
        return Err("no tasks in it".to_string());
    }
    Ok(tasks)
}

/// What is wrong with a task's fields, if anything.
fn problem(task: &Task) -> Option<String> {
    let id_ok = !task.id.is_empty()
        && task.id.len() <= 100
        && task
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !id_ok {
        return Some("an id is 1 to 100 letters, digits, `-`, `_` or `.`".to_string());
    }
    for (name, value) in [
        ("repo", &task.repo),
        ("prompt", &task.prompt),
        ("check", &task.check),
    ] {
        if value.trim().is_empty() {
            return Some(format!("`{name}` is empty"));
        }
    }
    if let Some(problem) = super::origin::repo_problem(&task.repo) {
        return Some(problem);
    }
    if task.timeout == Some(0) || task.max_turns == Some(0) {
        return Some("`timeout` and `max_turns` are at least 1".to_string());
    }
    if task
        .max_budget_usd
        .is_some_and(|usd| !usd.is_finite() || usd <= 0.0)
    {
        return Some("`max_budget_usd` is a positive number of dollars".to_string());
    }
    if let Some(effort) = &task.effort
        && rein_llm::Effort::parse(effort).is_err()
    {
        return Some(format!(
            "`effort` {effort:?} is not minimal, low, medium or high"
        ));
    }
    if let Some(commit) = &task.commit
        && (commit.starts_with('-') || commit.trim().is_empty())
    {
        return Some(format!("`commit` {commit:?} is not a revision"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_file_with_comments_and_blank_lines_parses() {
        let text = r#"
# the suite
{"id": "a", "repo": "a", "prompt": "fix it", "check": "true"}

{"id": "b.2", "repo": "https://example.com/x.git", "commit": "abc", "prompt": "p", "check": "make test", "timeout": 5, "effort": "low"}
"#;
        let tasks = parse(text).unwrap();
        assert_eq!(tasks.len(), 2);
        let base = tempfile::tempdir().unwrap();
        let base = base.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("a")).unwrap();
        let origins = Origins {
            base: base.clone(),
            roots: Vec::new(),
            home: None,
            sensitive: Vec::new(),
        };
        assert_eq!(
            tasks[0].source(&origins),
            Ok(Source::Folder(base.join("a")))
        );
        assert_eq!(
            tasks[1].source(&origins),
            Ok(Source::Url("https://example.com/x.git".into()))
        );
    }

    #[test]
    fn bad_tasks_are_refused_with_their_line() {
        let cases = [
            ("{\"id\": \"a\"}", "line 1: not a task"),
            (
                "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\", \"extra\": 1}",
                "unknown field",
            ),
            (
                "{\"id\": \"a b\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\"}",
                "an id is",
            ),
            (
                "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \" \"}",
                "`check` is empty",
            ),
            (
                "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\", \"max_budget_usd\": -1}",
                "positive",
            ),
            (
                "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\", \"commit\": \"--upload-pack=x\"}",
                "not a revision",
            ),
            (
                "{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\"}\n{\"id\": \"a\", \"repo\": \"r\", \"prompt\": \"p\", \"check\": \"c\"}",
                "line 2: the id \"a\" is used twice",
            ),
            ("\n# nothing\n", "no tasks"),
        ];
        for (text, expected) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
