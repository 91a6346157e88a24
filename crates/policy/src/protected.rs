//! Files that grant powers or run code later: rein's and Claude Code's own config, git's
//! config and hooks, MCP servers, editor tasks, CI workflows, toolchain configs that run
//! commands. A change to one always asks (outside `bypass`), so a call can never raise rein's
//! permissions, in this run or the next (a changed config file also loses its trust).

use std::path::{Component, Path};

use rein_tool::{CallFacts, CallKind, Effect, WorkspaceGuard};

/// Folder names protected wherever they appear in the workspace.
const FOLDERS: &[&str] = &[
    ".git",
    ".rein",
    ".claude",
    ".vscode",
    ".idea",
    ".devcontainer",
    ".husky",
];

/// File names protected wherever they appear.
const FILES: &[&str] = &[
    ".mcp.json",
    ".envrc",
    ".gitmodules",
    ".gitattributes",
    ".pre-commit-config.yaml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "direnv.toml",
];

/// Paths relative to a folder anywhere, protected with everything under them.
const NESTED: &[&[&str]] = &[
    &[".cargo", "config"],
    &[".cargo", "config.toml"],
    &[".github", "workflows"],
    &[".github", "actions"],
    &[".gitlab-ci.yml"],
    &[".circleci"],
];

/// Shell start-up files, run by every later shell. A shell line that is not proven read-only
/// and names one anywhere asks, however it spells the path (`$HOME/.bashrc` cannot be resolved
/// before it runs); file tools cannot reach them at all (the sensitive list).
const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    "config.fish",
];

/// Whether `relative` (a path inside the workspace, relative to its root) is protected.
pub fn protected(relative: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    // Every protected name but one starts with a dot: most paths are cleared without
    // collecting their components.
    let bytes = relative.as_os_str().as_bytes();
    if !bytes.starts_with(b".")
        && !bytes.windows(2).any(|w| w == b"/.")
        && !bytes.ends_with(b"direnv.toml")
    {
        return false;
    }
    let names: Vec<&str> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    names.iter().any(|n| FOLDERS.contains(n))
        || names.last().is_some_and(|n| FILES.contains(n))
        || NESTED
            .iter()
            .any(|nested| names.windows(nested.len()).any(|window| window == *nested))
}

/// The first protected path the call may change, shown relative to the root: any path a
/// file tool writes, and any path a shell line that is not proven read-only names (rein
/// cannot tell which of `cp a .git/hooks/x`'s words it writes).
pub(super) fn touched(facts: &CallFacts, guard: &WorkspaceGuard) -> Option<String> {
    if let Some(shell) = &facts.shell
        && facts.effect == Effect::Mutating
        && let Some(name) = STARTUP_FILES.iter().find(|n| shell.line.contains(*n))
    {
        return Some(format!("a shell start-up file ({name})"));
    }
    let candidates: Box<dyn Iterator<Item = &std::path::PathBuf>> = match facts.kind {
        CallKind::Shell if facts.effect == Effect::Mutating => Box::new(facts.paths()),
        _ => Box::new(facts.writes.iter()),
    };
    // In the workspace and in every folder added to it: each has its own `.git`, settings…
    candidates
        .flat_map(|path| {
            guard
                .roots()
                .filter_map(move |root| path.strip_prefix(root).ok())
        })
        .find(|relative| protected(relative))
        .map(|relative| relative.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_hooks_and_workflows_are_protected_and_sources_are_not() {
        let protected_paths = [
            ".rein/config.toml",
            ".claude/settings.json",
            ".claude/hooks/pre.sh",
            ".git/config",
            ".git/hooks/pre-commit",
            "vendor/lib/.git/config",
            ".mcp.json",
            ".cargo/config.toml",
            "sub/.cargo/config",
            ".vscode/tasks.json",
            ".github/workflows/ci.yml",
            ".envrc",
            ".gitattributes",
            ".husky/pre-commit",
        ];
        for path in protected_paths {
            assert!(protected(Path::new(path)), "{path}");
        }
        let ordinary = [
            "src/main.rs",
            "Cargo.toml",
            ".github/CODEOWNERS",
            "docs/.claude.md",
            "gitconfig",
            "README.md",
        ];
        for path in ordinary {
            assert!(!protected(Path::new(path)), "{path}");
        }
    }
}
