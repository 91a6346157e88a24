//! What a call touches: one description per call, computed once when the call is dispatched
//! (`rein_tools::ToolRegistry::facts`) and read by the permission policy, the hooks, the events
//! and the front ends. Nothing else matches tool names or re-parses a call's arguments.

use rein_fs::path::joined;
use std::path::{Component, Path, PathBuf};

use crate::{Effect, WorkspaceGuard};
use rein_fs::lstats::Lstats;
use rein_shell::ShellLine;

/// What sort of thing a call does, as rules and modes see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// Runs a shell line.
    Shell,
    /// Reads files by path.
    Read,
    /// Searches under a folder (glob, grep).
    Search,
    /// Creates, changes or deletes files by path.
    Edit,
    /// Reads from the network (`web_fetch`): asks for a new domain unless a rule allows it,
    /// in every mode `plan` included, since nothing on the machine changes.
    Fetch,
    /// Anything else (agent tools, MCP tools).
    Other,
}

/// The shell line of a call, analysed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellFacts {
    /// The line as the model sent it.
    pub line: String,
    /// The line analysed (`rein_shell::analyse`): its simple commands as written, what
    /// actually runs (wrappers stripped, `sh -c` and `eval` bodies, what `xargs` and
    /// `find -exec` run), or why it could not be analysed and its words split naively.
    pub analysis: ShellLine,
    /// Some word that may name a file could not be resolved (`cat $F`), so the paths below
    /// are not all the paths the line touches.
    pub unresolved_paths: bool,
    /// Every command only reads, or creates, changes, moves or deletes files inside the
    /// workspace (`rein_tools::shell::only_changes_workspace_files`; false when read-only):
    /// what `accept-edits` runs without asking.
    pub workspace_files_only: bool,
}

/// What one call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallFacts {
    /// rein's tool name (`read_file`).
    pub tool: String,
    /// Claude Code's name for the tool (`Read`), which hooks and settings files use.
    pub claude_name: String,
    /// What sort of call it is.
    pub kind: CallKind,
    /// Whether it only observes (drives concurrency and the modes).
    pub effect: Effect,
    /// It may run beside read-only calls though it is not proven read-only: its tool says it
    /// changes nothing (an MCP tool's `readOnlyHint`), which grants no permission.
    pub concurrent: bool,
    /// It runs alone though it changes no file: its effect is on shared state whose order
    /// matters (the task board gives ids in the order of the calls).
    pub serial: bool,
    /// Paths it reads, absolute and normalised (symlinks resolved where they exist).
    pub reads: Vec<PathBuf>,
    /// Paths it creates, changes or deletes, absolute and normalised.
    pub writes: Vec<PathBuf>,
    /// For a shell call: its line, analysed.
    pub shell: Option<ShellFacts>,
    /// What `Skill(name)` or `Agent(type)` rules match: the skill or agent named.
    pub subject: Option<String>,
    /// One line for people: `cargo test`, `src/lib.rs`, `**/*.rs in src`.
    pub summary: String,
    /// For a shell call that asks to run outside the OS sandbox: its one-line reason (the
    /// call always asks the user, who sees the reason).
    pub unsandboxed: Option<String>,
}

impl CallFacts {
    /// Facts naming only the tool and its effect; a tool adds what it touches.
    pub fn new(tool: &str, claude_name: &str, kind: CallKind, effect: Effect) -> Self {
        Self {
            tool: tool.to_string(),
            claude_name: claude_name.to_string(),
            kind,
            effect,
            concurrent: false,
            serial: false,
            reads: Vec::new(),
            writes: Vec::new(),
            shell: None,
            subject: None,
            summary: String::new(),
            unsandboxed: None,
        }
    }

    /// Whether it may run beside other read-only calls.
    pub fn runs_concurrently(&self) -> bool {
        !self.serial && (self.effect == Effect::ReadOnly || self.concurrent)
    }

    /// Every path the call touches, read or written.
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.reads.iter().chain(&self.writes)
    }
}

/// A path as rules see it: resolved by the guard when it can be (symlinks followed), else
/// joined to `base` (or home for `~/`) and normalised lexically. Never fails.
pub fn resolve_for_rules(path: &str, base: &Path, guard: &WorkspaceGuard) -> PathBuf {
    resolve_for_rules_with(path, base, guard, &Lstats::default())
}

/// [`resolve_for_rules`], asking `lstats` about the file system (one call's paths share it).
pub fn resolve_for_rules_with(
    path: &str,
    base: &Path,
    guard: &WorkspaceGuard,
    lstats: &Lstats,
) -> PathBuf {
    let home = guard.home().unwrap_or(Path::new(""));
    let joined = match path.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None if path == "~" => home.to_path_buf(),
        None => joined(base, path),
    };
    joined
        .to_str()
        .and_then(|text| guard.locate_anywhere_with(text, lstats).ok())
        .unwrap_or_else(|| normalise(&joined))
}

/// [`resolve_for_rules_with`] for a word of a line proven read-only: the classifier has
/// resolved every word the line's programs read as a path, so a word it did not resolve (a
/// search pattern, a subcommand, an option's value) is joined and normalised without asking
/// the file system.
pub fn resolve_for_rules_known(path: &str, base: &Path, lstats: &Lstats) -> PathBuf {
    let joined = joined(base, path);
    joined
        .to_str()
        .and_then(|text| lstats.located(text))
        .unwrap_or_else(|| normalise(&joined))
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::with_capacity(path.as_os_str().len());
    push_normalised(&mut out, path);
    out
}

/// Pushes the components of `path` onto `out`, `.` dropped and `..` popping (an absolute
/// `path` replaces `out`, as [`Path::join`] does).
fn push_normalised(out: &mut PathBuf, path: &Path) {
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_is_what_path_join_gives() {
        let bases = ["/w", "/w/", "/", "", "rel", "rel/", "/w/./x/.."];
        let paths = ["a", "a/b", "", ".", "..", "/abs", "/abs/", "a//b", "~/x"];
        for base in bases {
            for path in paths {
                assert_eq!(
                    joined(Path::new(base), path),
                    Path::new(base).join(path),
                    "{base:?} + {path:?}"
                );
                assert_eq!(
                    joined(Path::new(base), path).as_os_str(),
                    Path::new(base).join(path).as_os_str(),
                    "{base:?} + {path:?} as bytes"
                );
            }
        }
    }

    #[test]
    fn paths_resolve_lexically_unless_a_symlink_lies_below_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let outside = std::fs::canonicalize(outside.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("out")).unwrap();
        let guard = WorkspaceGuard::new(dir.path()).unwrap();
        let root = guard.root().to_path_buf();
        let cases: &[(&str, PathBuf)] = &[
            ("src/a.rs", root.join("src/a.rs")),
            ("missing/a.rs", root.join("missing/a.rs")),
            ("./src//a.rs", root.join("src/a.rs")),
            ("src/../b", root.join("b")),
            ("out/key", outside.join("key")),
            ("src/../out/key", outside.join("key")),
            // `out/..` is the folder above the one `out` points to, not the root.
            ("out/../secret", outside.parent().unwrap().join("secret")),
            ("/etc/passwd", PathBuf::from("/etc/passwd")),
        ];
        for (path, expected) in cases {
            assert_eq!(&resolve_for_rules(path, &root, &guard), expected, "{path}");
        }
        assert_eq!(
            resolve_for_rules("a.rs", &root.join("src"), &guard),
            root.join("src/a.rs")
        );
    }
}
