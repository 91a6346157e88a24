//! Whether the repository git would use from a directory has an inert configuration.
//!
//! Git discovers its repository by walking up from the current directory; the walk here does
//! the same, inside the workspace only. A repository rein cannot read plainly is not proven:
//! `.git` as a file (a linked worktree or submodule), a directory that is itself a repository
//! (a bare repository planted in the tree), a linked `commondir`, submodules, or no
//! repository inside the workspace at all (git would use one above it).

use nix::errno::Errno;
use nix::sys::stat::SFlag;
use std::path::{Path, PathBuf};

use crate::WorkspaceGuard;
use rein_fs::lstats::{Entry, Lstats};
use rein_fs::path::joined;

/// Sections whose keys are all inert for reading commands.
const ANY_KEY: &[&str] = &[
    "user", "color", "advice", "init", "pull", "fetch", "lfs", "index",
];

/// Inert keys of other sections (section name and key, lower case).
const KEYS: &[(&str, &[&str])] = &[
    (
        "core",
        &[
            "repositoryformatversion",
            "filemode",
            "bare",
            "logallrefupdates",
            "ignorecase",
            "precomposeunicode",
            "symlinks",
            "autocrlf",
            "safecrlf",
            "eol",
            "quotepath",
            "sparsecheckout",
            "sparsecheckoutcone",
            "checkstat",
            "trustctime",
            "abbrev",
            "compression",
            "loosecompression",
            "commentchar",
            "whitespace",
            "untrackedcache",
            "preloadindex",
            "multipackindex",
            "commitgraph",
            "longpaths",
            "fscache",
        ],
    ),
    (
        "remote",
        &[
            "url",
            "pushurl",
            "fetch",
            "push",
            "tagopt",
            "prune",
            "prunetags",
            "mirror",
            "skipdefaultupdate",
            "skipfetchall",
            "promisor",
            "partialclonefilter",
        ],
    ),
    (
        "branch",
        &["remote", "merge", "rebase", "pushremote", "description"],
    ),
    (
        "extensions",
        &[
            "objectformat",
            "worktreeconfig",
            "refstorage",
            "partialclone",
            "preciousobjects",
            "noop",
        ],
    ),
    ("push", &["default", "autosetupremote"]),
    ("gc", &["auto"]),
];

/// Sections that may carry a subsection (`[remote "origin"]`).
const WITH_SUBSECTION: &[&str] = &["remote", "branch", "lfs"];

/// Whether git, started in `cwd`, would use a repository inside the workspace whose
/// configuration (`config`, `config.worktree`) has only inert keys.
pub(super) fn repository_config_is_inert(
    guard: &WorkspaceGuard,
    cwd: &Path,
    lstats: &Lstats,
    memo: &super::repo_memo::RepoMemo,
) -> bool {
    let Some(mut dir) = cwd
        .to_str()
        .and_then(|cwd| guard.locate_anywhere_with(cwd, lstats).ok())
    else {
        return false;
    };
    let exists = |path: PathBuf| lstats.get(&path) != Entry::Missing;
    loop {
        // What git's discovery takes for a repository: `HEAD`, `objects/` and `refs/` (any
        // entry by those names counts, which can only make the answer "no").
        let looks_like_git_dir = || {
            ["HEAD", "objects", "refs"]
                .iter()
                .all(|name| exists(joined(&dir, name)))
        };
        if !guard.contains(&dir) || looks_like_git_dir() {
            return false;
        }
        // Asked directly, not through `lstats`: the memo stamps the folder with the answer.
        let dot_git = joined(&dir, ".git");
        match nix::sys::stat::lstat(&dot_git) {
            Ok(stat)
                if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR =>
            {
                return memo.inert(&dot_git, &stat, || git_dir_is_inert(&dot_git, lstats));
            }
            Err(Errno::ENOENT | Errno::ENOTDIR) => {}
            _ => return false,
        }
        if !dir.pop() {
            return false;
        }
    }
}

pub(super) fn git_dir_is_inert(git_dir: &Path, lstats: &Lstats) -> bool {
    let exists = |name: &str| lstats.get(&joined(git_dir, name)) != Entry::Missing;
    if exists("commondir") || exists("modules") {
        return false;
    }
    ["config", "config.worktree"]
        .iter()
        .all(|name| match read_config(&git_dir.join(name)) {
            ConfigFile::Missing => true,
            ConfigFile::Text(text) => config_is_inert(&text),
            ConfigFile::Unreadable => false,
        })
}

/// Largest configuration file read; a larger one is not proven inert.
const MAX_CONFIG_BYTES: u64 = 256 * 1024;

enum ConfigFile {
    Missing,
    Text(String),
    /// Not a regular file (a FIFO would block the read), too large, or not readable.
    Unreadable,
}

fn read_config(path: &Path) -> ConfigFile {
    match crate::read_regular(path, MAX_CONFIG_BYTES) {
        Ok(None) => ConfigFile::Missing,
        Ok(Some(text)) => ConfigFile::Text(text),
        Err(_) => ConfigFile::Unreadable,
    }
}

/// Whether a git configuration text sets only keys known to be inert. Includes, aliases,
/// pagers, filters, diff drivers, hooks, fsmonitor, editors, credential helpers, signing
/// programs, transports — anything not listed — make it not inert. Continuation lines and
/// keys after a section header on the same line are read as keys of their own, so they
/// cannot hide a setting.
pub(super) fn config_is_inert(text: &str) -> bool {
    let mut section: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let key_part = if let Some(header) = line.strip_prefix('[') {
            let Some((inside, after)) = header.split_once(']') else {
                return false;
            };
            let name = inside.trim();
            let base = name
                .split(|c: char| c.is_whitespace() || c == '.' || c == '"')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            let has_subsection = name.len() > base.len();
            if has_subsection && !WITH_SUBSECTION.contains(&base.as_str()) {
                return false;
            }
            section = Some(base);
            after.trim()
        } else {
            line
        };
        if key_part.is_empty() || key_part.starts_with(['#', ';']) {
            continue;
        }
        let key = key_part
            .split(|c: char| c == '=' || c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match &section {
            Some(section) if key_is_inert(section, &key) => {}
            _ => return false,
        }
    }
    true
}

fn key_is_inert(section: &str, key: &str) -> bool {
    ANY_KEY.contains(&section)
        || KEYS
            .iter()
            .any(|(s, keys)| *s == section && keys.contains(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_inert_keys_make_a_config_inert() {
        let inert = [
            "",
            "# comment\n; comment\n",
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
            "[remote \"origin\"]\n\turl = git@x:y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
            "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
            "[user]\n\tname = X\n[color]\n\tui = auto\n",
        ];
        for text in inert {
            assert!(config_is_inert(text), "{text:?}");
        }
        let hostile = [
            "[core]\n\tfsmonitor = x\n",
            "[Core]\n\tFsMonitor = x\n",
            "[core] fsmonitor = x\n",
            "[core]\n\tpager = x\n",
            "[core]\n\tworktree = /\n",
            "[core]\n\tattributesFile = x\n",
            "[pager]\n\tlog = x\n",
            "[alias]\n\tst = !x\n",
            "[include]\n\tpath = x\n",
            "[includeIf \"onbranch:main\"]\n\tpath = x\n",
            "[diff \"x\"]\n\ttextconv = x\n",
            "[diff]\n\texternal = x\n",
            "[filter \"x\"]\n\tsmudge = x\n",
            "[remote \"origin\"]\n\tuploadpack = x\n",
            "[remote \"origin\"]\n\tvcs = x\n",
            "[submodule \"x\"]\n\turl = x\n",
            "[core]\n\tabbrev = 8 \\\nfsmonitor = x\n",
            "fsmonitor = x\n",
            "[core\n",
            "[unknown]\n\tkey = x\n",
        ];
        for text in hostile {
            assert!(!config_is_inert(text), "{text:?}");
        }
    }

    #[test]
    fn a_config_that_is_not_a_regular_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("config");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(!git_dir_is_inert(dir.path(), &Lstats::default()));
        std::fs::remove_file(&fifo).unwrap();
        std::fs::create_dir(&fifo).unwrap();
        assert!(!git_dir_is_inert(dir.path(), &Lstats::default()));
    }
}
