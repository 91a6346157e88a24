//! `@path` imports in memory files (`CLAUDE.md`, `AGENTS.md`), as Claude Code follows them:
//! a reference outside code spans and fenced blocks to a file that exists brings that file's
//! text in, relative to the importing file's folder (`~/` is the home folder), up to
//! [`MAX_DEPTH`] hops, each file once.

use std::path::{Path, PathBuf};

use rein_tools::PromptFiles;

use crate::commands::at_references;
use crate::prompt::MEMORY_FILE_READ_CAP;

/// Most hops from the memory file to an imported one.
const MAX_DEPTH: usize = 5;

/// `text` (of a memory file in `dir`) followed by the files it imports, each under a
/// heading naming it. Each import is read through `files`: one leading out of its root,
/// sensitive or unreadable is skipped and said in `warnings`. A reference to nothing
/// (`@alice`, a missing file) is plain text.
pub(crate) fn follow(
    text: String,
    dir: &Path,
    files: &PromptFiles,
    home: Option<&Path>,
    warnings: &mut Vec<String>,
) -> String {
    let mut following = Following {
        files,
        home,
        seen: Vec::new(),
        out: text.clone(),
        warnings,
    };
    following.collect(&text, dir, 1);
    following.out
}

/// The imports of one memory file being followed.
struct Following<'a> {
    files: &'a PromptFiles,
    home: Option<&'a Path>,
    /// The files imported so far (canonical): each comes once.
    seen: Vec<PathBuf>,
    /// The memory file's text and the imports so far.
    out: String,
    warnings: &'a mut Vec<String>,
}

impl Following<'_> {
    /// Adds the files `text` (in `dir`, `depth` hops from the memory file) imports, and
    /// theirs.
    fn collect(&mut self, text: &str, dir: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for (_, reference) in at_references(text) {
            let path = match (reference.strip_prefix("~/"), self.home) {
                (Some(rest), Some(home)) => home.join(rest),
                (Some(_), None) => continue,
                (None, _) => dir.join(&reference),
            };
            if !path.is_file() {
                continue;
            }
            let Ok(canonical) = path.canonicalize() else {
                continue;
            };
            if self.seen.contains(&canonical) {
                continue;
            }
            self.seen.push(canonical.clone());
            let imported = match self.files.read(&path, MEMORY_FILE_READ_CAP) {
                Ok(Some(imported)) => imported,
                Ok(None) => continue,
                Err(refused) => {
                    self.warnings
                        .push(format!("memory import @{reference} not read: {refused}"));
                    continue;
                }
            };
            self.out
                .push_str(&format!("\n\n## Imported from @{reference}\n\n"));
            self.out.push_str(imported.trim_end());
            // The path as named, not its canonical form: the root is matched as written.
            let parent = path.parent().unwrap_or(dir).to_path_buf();
            self.collect(&imported, &parent, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_tools::WorkspaceGuard;

    #[test]
    fn imports_are_followed_relative_bounded_and_once() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(
            root.join("docs/style.md"),
            "Use tabs. See @../AGENTS.md again",
        )
        .unwrap();
        std::fs::write(root.join("AGENTS.md"), "Top rules.").unwrap();
        let text = "Read @docs/style.md and @AGENTS.md; ask @alice.\n\
                    `@docs/style.md` in a span\n```\n@AGENTS.md\n```\n";
        let guard = WorkspaceGuard::new(root).unwrap();
        let mut warnings = Vec::new();
        let out = follow(
            text.into(),
            root,
            &PromptFiles::of_workspace(&guard),
            None,
            &mut warnings,
        );
        assert!(out.starts_with(text));
        assert_eq!(out.matches("## Imported from").count(), 2, "{out}");
        assert!(out.contains("## Imported from @docs/style.md\n\nUse tabs."));
        assert!(out.contains("## Imported from @../AGENTS.md\n\nTop rules."));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_workspace_memory_cannot_import_what_tools_may_not_read() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "SECRET").unwrap();
        std::fs::write(ws.path().join(".env"), "KEY=1").unwrap();
        let text = format!("@{}/secret.md and @.env", outside.path().display());
        let guard = WorkspaceGuard::new(ws.path()).unwrap();
        let mut warnings = Vec::new();
        let out = follow(
            text.clone(),
            ws.path(),
            &PromptFiles::of_workspace(&guard),
            None,
            &mut warnings,
        );
        assert_eq!(out, text);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn real_memory_files_import_what_they_name_and_skip_code() {
        let Some(dir) = rein_testkit::conformance_dir("agent-files/memory").unwrap() else {
            return;
        };
        // GEMINI.md imports only; its targets are not in the fixture folder, so nothing is
        // brought in and the text stays as it is.
        let gemini = std::fs::read_to_string(dir.join("obra__superpowers__GEMINI.md")).unwrap();
        let mut warnings = Vec::new();
        let files = PromptFiles::new([dir.clone()], rein_tools::SensitivePaths::default());
        assert_eq!(
            follow(gemini.clone(), &dir, &files, None, &mut warnings),
            gemini
        );
        // `@` inside code blocks of a large AGENTS.md is never an import.
        let vercel = std::fs::read_to_string(dir.join("vercel__ai__AGENTS.md")).unwrap();
        let refs: Vec<String> = at_references(&vercel).into_iter().map(|(_, r)| r).collect();
        assert!(refs.iter().all(|r| !r.starts_with("ai-sdk/")), "{refs:?}");
        let diversio =
            std::fs::read_to_string(dir.join("DiversioTeam__claude-plugins__CLAUDE.md")).unwrap();
        let refs: Vec<String> = at_references(&diversio)
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        assert_eq!(refs, ["AGENTS.md"]);
    }
}
