//! The system prompt, assembled from parts: identity and rules, the environment, guidance for
//! the tools on offer, and the workspace's memory file (`AGENTS.md`, else `CLAUDE.md`).
//!
//! The prompt is sent on every request, so every part is kept short; `SystemPrompt::len` lets
//! benchmarks and tests watch its size. In the lean profile (small context windows) the
//! opening is shorter, the tools' guidance is left to their descriptions, and the memory files
//! and the skill list are capped lower ([`LEAN_MEMORY_CAP`],
//! [`crate::commands::LEAN_CATALOG_CAP`]).

use std::path::{Path, PathBuf};

use rein_tools::{PromptFiles, ToolsProfile, WorkspaceGuard, read_regular};

/// Memory files larger than this are cut, with a note, so one file cannot eat the window.
const MEMORY_FILE_CAP: usize = 40_000;

/// Memory files larger than this are cut in the lean profile (about 700 tokens each).
pub const LEAN_MEMORY_CAP: usize = 2_500;

/// Most of a memory file read from disk (before the cut to [`MEMORY_FILE_CAP`]); a larger
/// file, or anything but a regular file, is skipped with a warning.
pub(crate) const MEMORY_FILE_READ_CAP: u64 = 256 * 1024;

/// Most of `.git/HEAD` or of a worktree's `.git` file read: a ref name or a path, far below it.
const GIT_FILE_CAP: u64 = 4 * 1024;

const IDENTITY: &str = "\
You are rein, a coding agent working in the user's workspace through tools. \
Do what the user asks: read the code before changing it, make focused changes, \
and check your work (build, tests) when you can.

Rules:
- Work inside the workspace. Paths are relative to its root.
- Prefer reading files with read_file over printing them with bash.
- Tool errors are information: read them and correct the call.
- Never guess file contents; read them first.
- When done, answer briefly: what you changed and how you verified it.";

/// The opening of the lean profile: the same rules, said shortly.
const LEAN_IDENTITY: &str = "\
You are rein, a coding agent working in the user's workspace through tools. Read code before \
changing it, make focused changes and check them (build, tests) when you can. Paths are \
relative to the workspace root. Prefer read_file, grep and glob to cat, grep and find in bash. \
Tool errors are information: correct the call. When done, answer briefly: what you changed \
and how you verified it.";

/// The environment facts the model needs to orient itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// Workspace root.
    pub cwd: PathBuf,
    /// Operating system name (`linux`, `macos`…).
    pub os: String,
    /// Today's date, `YYYY-MM-DD`.
    pub date: String,
    /// Current git branch (or short commit when detached), if the workspace is in a repository.
    pub git_branch: Option<String>,
    /// Problems met while detecting it (a `.git/HEAD` that is not a regular file…), for the
    /// user.
    pub warnings: Vec<String>,
}

impl Environment {
    /// Reads the environment of `cwd` from the machine: OS, local date, git branch.
    pub fn detect(cwd: &Path) -> Self {
        let mut warnings = Vec::new();
        Self {
            cwd: cwd.to_path_buf(),
            os: std::env::consts::OS.to_string(),
            date: chrono::Local::now().format("%Y-%m-%d").to_string(),
            git_branch: git_branch(cwd, &mut warnings),
            warnings,
        }
    }
}

/// The assembled system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrompt(String);

impl SystemPrompt {
    /// The prompt text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the prompt is empty (never, once built).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Builds a [`SystemPrompt`] from its parts.
#[derive(Debug, Clone)]
pub struct SystemPromptBuilder {
    identity: String,
    environment: Environment,
    tool_names: Vec<String>,
    memory: Option<(String, String)>,
    user_memory: Vec<(String, String)>,
    auto_memory: Option<String>,
    skills: Option<String>,
    profile: ToolsProfile,
    /// Whether [`Self::identity`] replaced the opening (a subagent's, kept in any profile).
    own_identity: bool,
    /// The user's text added at the end (`--append-system-prompt`).
    appended: Option<String>,
    /// The repository map of the session's start.
    repo_map: Option<String>,
    /// Folders added to the workspace (`--add-dir`).
    added_dirs: Vec<std::path::PathBuf>,
    warnings: Vec<String>,
    /// The workspace's prompt files, whose sensitive list the user's memory is checked
    /// against too.
    workspace_files: PromptFiles,
}

impl SystemPromptBuilder {
    /// Starts from the environment; memory files are read from its `cwd`.
    /// The workspace's memory file (and what it imports) is read only when it stays inside the
    /// workspace and is not sensitive for `guard`: a cloned repository's `AGENTS.md` linked to
    /// `~/.ssh/id_rsa` or `/etc/shadow` is not sent.
    pub fn new(environment: Environment, guard: &WorkspaceGuard) -> Self {
        let mut warnings = environment.warnings.clone();
        let source = MemorySource::workspace(guard);
        let memory = read_memory_file(&environment.cwd, &source, &mut warnings);
        Self {
            identity: IDENTITY.to_string(),
            environment,
            tool_names: Vec::new(),
            memory,
            user_memory: Vec::new(),
            auto_memory: None,
            skills: None,
            profile: ToolsProfile::Full,
            own_identity: false,
            appended: None,
            repo_map: None,
            added_dirs: guard.added_dirs().to_vec(),
            warnings,
            workspace_files: source.file,
        }
    }

    /// Also follows the user's own memory file in `dir` (e.g. `~/.config/rein/AGENTS.md`),
    /// which applies to every workspace. It must not lead out of `dir`; what it imports may
    /// be anywhere in the home folder but not sensitive (`@~/.ssh/id_rsa` is not sent).
    pub fn user_memory(mut self, dir: &Path) -> Self {
        let source = MemorySource::user(&self.workspace_files, dir);
        let found = read_memory_file(dir, &source, &mut self.warnings)
            .map(|(name, text)| (format!("{}/{name}", dir.display()), text));
        self.user_memory.extend(found);
        self
    }

    /// Problems met reading the environment and the memory files (each skipped), for the user.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Replaces rein's own opening (who the agent is, its rules) with `text`: a subagent's
    /// definition.
    pub fn identity(mut self, text: &str) -> Self {
        self.identity = text.trim().to_string();
        self.own_identity = true;
        self
    }

    /// Opens the model's own memory of the workspace: the head of `/memories/MEMORY.md`,
    /// read once at the start of the session.
    pub fn auto_memory(mut self, index: &str) -> Self {
        self.auto_memory = Some(index.trim().to_string());
        self
    }

    /// Adds `text` at the end of the prompt (`--append-system-prompt`).
    pub fn appended(mut self, text: &str) -> Self {
        self.appended = Some(text.trim().to_string());
        self
    }

    /// Adds the repository map (`repo_map`'s outline as the session starts).
    pub fn repo_map(mut self, outline: &str) -> Self {
        self.repo_map = Some(outline.trim().to_string());
        self
    }

    /// Builds the prompt for `profile`: in the lean one a shorter opening, no tool guidance
    /// and lower caps (call before [`Self::skills`]).
    pub fn profile(mut self, profile: ToolsProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Names of the tools offered, so guidance is given only for those.
    pub fn tools(mut self, names: Vec<String>) -> Self {
        self.tool_names = names;
        self
    }

    /// Lists the skills of `catalog` the model may load (when the `skill` tool is offered:
    /// call after [`Self::tools`] and [`Self::profile`]).
    pub fn skills(mut self, catalog: &crate::commands::Catalog) -> Self {
        if self
            .tool_names
            .iter()
            .any(|t| t == crate::commands::SKILL_TOOL)
        {
            self.skills = catalog.prompt_section_within(match self.profile {
                ToolsProfile::Full => crate::commands::CATALOG_CAP,
                ToolsProfile::Lean => crate::commands::LEAN_CATALOG_CAP,
            });
        }
        self
    }

    /// Assembles the prompt.
    pub fn build(self) -> SystemPrompt {
        let env = &self.environment;
        let lean = self.profile == ToolsProfile::Lean;
        let mut out = String::with_capacity(2048);
        match (lean, self.own_identity) {
            (true, false) => out.push_str(LEAN_IDENTITY),
            _ => out.push_str(&self.identity),
        }
        out.push_str("\n\n# Environment\n");
        out.push_str(&format!("- Working directory: {}\n", env.cwd.display()));
        if !self.added_dirs.is_empty() {
            let dirs: Vec<String> = (self.added_dirs.iter())
                .map(|d| d.display().to_string())
                .collect();
            out.push_str(&format!(
                "- Also in the workspace (use absolute paths): {}\n",
                dirs.join(", ")
            ));
        }
        out.push_str(&format!("- OS: {}\n", env.os));
        out.push_str(&format!("- Date: {}\n", env.date));
        match &env.git_branch {
            Some(branch) => out.push_str(&format!("- Git branch: {branch}\n")),
            None => out.push_str("- Not a git repository\n"),
        }
        // The lean profile leaves the guidance to the tools' own descriptions.
        let guidance: Vec<&str> = match lean {
            true => Vec::new(),
            false => self
                .tool_names
                .iter()
                .filter_map(|name| tool_guidance(name))
                .collect(),
        };
        if !guidance.is_empty() {
            out.push_str("\n# Tools\n");
            for line in guidance {
                out.push_str("- ");
                out.push_str(line);
                out.push('\n');
            }
        }
        if let Some(section) = &self.skills {
            out.push_str(section);
        }
        for (name, text) in &self.user_memory {
            out.push_str(&format!(
                "\n# The user's instructions ({name})\nFollow these in every workspace.\n\n"
            ));
            out.push_str(&self.memory_text(name, text));
            out.push('\n');
        }
        if let Some((name, text)) = &self.memory {
            out.push_str(&format!(
                "\n# Project instructions ({name})\nFollow these instructions from the workspace.\n\n"
            ));
            out.push_str(&self.memory_text(name, text));
            out.push('\n');
        }
        if let Some(index) = self.auto_memory.as_deref().filter(|t| !t.is_empty()) {
            out.push_str(
                "\n# Your memory of this workspace (/memories/MEMORY.md)\nWhat you noted in \
                 earlier sessions; the memory tool reads and keeps it.\n\n",
            );
            out.push_str(&self.memory_text("/memories/MEMORY.md", index));
            out.push('\n');
        }
        self.push_closing(&mut out);
        SystemPrompt(out)
    }

    /// The repository map and the user's appended text, which close the prompt.
    fn push_closing(&self, out: &mut String) {
        if let Some(map) = self.repo_map.as_deref().filter(|t| !t.is_empty()) {
            out.push_str(
                "\n# Repository map\nThe most used definitions, as the session started.\n\n",
            );
            out.push_str(map);
            out.push('\n');
        }
        if let Some(text) = self.appended.as_deref().filter(|t| !t.is_empty()) {
            out.push('\n');
            out.push_str(text);
            out.push('\n');
        }
    }

    /// The memory file `name`'s `text` as sent: in the lean profile cut to
    /// [`LEAN_MEMORY_CAP`], naming the file.
    fn memory_text(&self, name: &str, text: &str) -> String {
        let text = text.trim_end();
        if self.profile == ToolsProfile::Full || text.len() <= LEAN_MEMORY_CAP {
            return text.to_string();
        }
        let mut cut = LEAN_MEMORY_CAP;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!(
            "{}\n[... cut for a small context window; the whole file is {name} ...]",
            &text[..cut]
        )
    }
}

fn tool_guidance(name: &str) -> Option<&'static str> {
    Some(match name {
        "bash" => {
            "bash: runs a command with `bash -c` in the workspace; `cd` persists between calls. \
             Avoid interactive commands; long output is cut to its head and tail."
        }
        "read_file" => {
            "read_file: numbered lines; page large files with offset/limit instead of reading \
             them whole."
        }
        "edit_file" => {
            "edit_file: read the file first; quote old_string exactly (no line-number prefixes) \
             with enough context to be unique. Prefer it to rewriting whole files."
        }
        "write_file" => "write_file: for new files or complete rewrites only.",
        "apply_patch" => {
            "apply_patch: edit files with *** Begin Patch hunks; read the file first so context \
             lines match."
        }
        "grep" => "grep: search contents (regex); prefer it to bash grep/rg.",
        "glob" => "glob: find files by name pattern; prefer it to bash find/ls -R.",
        _ => return None,
    })
}

/// Where a memory file and the files it imports may be read from.
#[derive(Debug, Clone)]
pub(crate) struct MemorySource {
    /// The memory file's root.
    file: PromptFiles,
    /// The imports' root.
    imports: PromptFiles,
    /// What `~/` in an import stands for.
    home: Option<PathBuf>,
}

impl MemorySource {
    /// A workspace's memory files and imports: inside the workspace, not sensitive.
    pub(crate) fn workspace(guard: &WorkspaceGuard) -> Self {
        let file = PromptFiles::of_workspace(guard);
        Self {
            imports: file.clone(),
            file,
            home: guard.home().map(Path::to_path_buf),
        }
    }

    /// The user's memory file in `dir` (inside it) and its imports (inside the home folder,
    /// where the user names them on purpose), checked against the sensitive list of
    /// `workspace`.
    #[allow(clippy::disallowed_methods)] // HOME: the folder the user's memory file may import from
    fn user(workspace: &PromptFiles, dir: &Path) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let import_root = home.clone().unwrap_or_else(|| dir.to_path_buf());
        Self {
            file: workspace.with_roots([dir.to_path_buf()]),
            imports: workspace.with_roots([import_root]),
            home,
        }
    }
}

/// The memory file of a folder: `AGENTS.md`, falling back to `CLAUDE.md`, as (file name,
/// text cut to a cap). One that is not a regular file, is over [`MEMORY_FILE_READ_CAP`],
/// leads out of its root or is sensitive ([`PromptFiles::read`]) is skipped (the next name is
/// tried) and said in `warnings`.
pub(crate) fn read_memory_file(
    cwd: &Path,
    source: &MemorySource,
    warnings: &mut Vec<String>,
) -> Option<(String, String)> {
    ["AGENTS.md", "CLAUDE.md"].iter().find_map(|name| {
        let path = cwd.join(name);
        let text = match source.file.read(&path, MEMORY_FILE_READ_CAP) {
            Ok(text) => text?,
            Err(refused) => {
                warnings.push(format!("memory file not read: {refused}"));
                return None;
            }
        };
        if text.trim().is_empty() {
            return None;
        }
        let text =
            crate::imports::follow(text, cwd, &source.imports, source.home.as_deref(), warnings);
        Some((name.to_string(), cap_text(text)))
    })
}

fn cap_text(mut text: String) -> String {
    if text.len() <= MEMORY_FILE_CAP {
        return text;
    }
    let mut cut = MEMORY_FILE_CAP;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let total = text.len();
    text.truncate(cut);
    text.push_str(&format!("\n[... cut: the file has {total} bytes ...]"));
    text
}

/// The branch checked out in the repository containing `dir`, read from `.git/HEAD` without
/// spawning git. Detached heads give the short commit id.
fn git_branch(dir: &Path, warnings: &mut Vec<String>) -> Option<String> {
    let git_dir = find_git_dir(dir, warnings)?;
    let head = read_git_file(&git_dir.join("HEAD"), warnings)?;
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(reference) => Some(
            reference
                .strip_prefix("refs/heads/")
                .unwrap_or(reference)
                .to_string(),
        ),
        None => Some(format!("(detached at {})", head.get(..8).unwrap_or(head))),
    }
}

/// A small git file read for the prompt; a refusal is a warning and no branch.
fn read_git_file(path: &Path, warnings: &mut Vec<String>) -> Option<String> {
    match read_regular(path, GIT_FILE_CAP) {
        Ok(text) => text,
        Err(refused) => {
            warnings.push(format!("git branch not read: {refused}"));
            None
        }
    }
}

fn find_git_dir(start: &Path, warnings: &mut Vec<String>) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            // A worktree or submodule: `.git` is a file saying `gitdir: <path>`.
            let text = read_git_file(&dot_git, warnings)?;
            let target = text.trim().strip_prefix("gitdir: ")?;
            return Some(dir.join(target));
        }
    }
    None
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
