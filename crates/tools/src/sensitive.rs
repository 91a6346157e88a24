//! Paths no tool may read or write even inside the workspace: credentials and secrets.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The default list: credentials in the home directory, rein's and other
/// agents' own configuration and data (a write there could grant `bypass` to every later run;
/// a read there shows other projects' transcripts), shell start-up files (run by every later
/// shell) and histories, and `.env` files. rein's folders under `$XDG_*` are added by the CLI.
pub const DEFAULT_SENSITIVE: &[&str] = &[
    // Credentials.
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.gnupg",
    "~/.kube",
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.config/hub",
    "~/.config/glab-cli",
    "~/.config/doctl",
    "~/.docker/config.json",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    "~/.password-store",
    "~/.local/share/keyrings",
    // rein's and other agents' configuration, sessions and trust.
    "~/.config/rein",
    "~/.local/share/rein",
    "~/.claude",
    "~/.claude.json",
    "~/.codex",
    "~/.gemini",
    "~/.config/opencode",
    "~/.local/share/opencode",
    // Shell start-up files and histories.
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.bash_logout",
    "~/.profile",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.config/fish",
    "~/.bash_history",
    "~/.zsh_history",
    ".env*",
];

/// A compiled sensitive-path list. A pattern starting with `~/` or `/` names a file or folder
/// (everything under a folder is sensitive); any other pattern is a glob matched against every
/// component of a path (`.env*` matches `app/.env.local`).
#[derive(Debug, Clone)]
pub struct SensitivePaths {
    prefixes: Vec<(PathBuf, String)>,
    /// The clean prefixes by their bytes, to their first place in `prefixes`: a clean path
    /// looks up each of its ancestors instead of comparing itself with every prefix.
    clean_prefixes: rustc_hash::FxHashMap<Vec<u8>, usize>,
    /// Whether some prefix is not clean (then every prefix is compared).
    unclean_prefix: bool,
    names: GlobSet,
    name_patterns: Vec<String>,
    /// Absolute path globs with what to call them (e.g. the user's `Read` deny rules).
    globs: Vec<(globset::GlobMatcher, String)>,
}

impl Default for SensitivePaths {
    fn default() -> Self {
        // The built-in patterns are valid globs.
        Self::new(DEFAULT_SENSITIVE.iter().copied(), home_dir().as_deref())
            .unwrap_or_else(|_| Self::empty())
    }
}

impl SensitivePaths {
    /// The folders and files the list names by path (`~/.ssh`, rein's data folder), absolute:
    /// what an OS sandbox hides.
    pub fn named_paths(&self) -> impl Iterator<Item = &Path> {
        self.prefixes.iter().map(|(path, _)| path.as_path())
    }

    /// Compiles `patterns`, expanding `~` to `home` (patterns under `~` are dropped without a
    /// home directory). An invalid glob is an error naming it.
    pub fn new<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
        home: Option<&Path>,
    ) -> Result<Self, String> {
        let mut prefixes = Vec::new();
        let mut names = GlobSetBuilder::new();
        let mut name_patterns = Vec::new();
        for pattern in patterns {
            let pattern = pattern.trim();
            if pattern.is_empty() {
                continue;
            }
            if let Some(rest) = pattern.strip_prefix("~/") {
                if let Some(home) = home {
                    push_prefix(&mut prefixes, home.join(rest), pattern);
                }
            } else if pattern.starts_with('/') {
                push_prefix(&mut prefixes, PathBuf::from(pattern), pattern);
            } else {
                let glob = Glob::new(pattern)
                    .map_err(|e| format!("invalid sensitive-path pattern {pattern:?}: {e}"))?;
                names.add(glob);
                name_patterns.push(pattern.to_string());
            }
        }
        let names = names
            .build()
            .map_err(|e| format!("invalid sensitive-path patterns: {e}"))?;
        let (clean_prefixes, unclean_prefix) = index(&prefixes);
        Ok(Self {
            prefixes,
            clean_prefixes,
            unclean_prefix,
            names,
            name_patterns,
            globs: Vec::new(),
        })
    }

    /// Adds an absolute path glob (`/ws/secrets/**`), reported as `label` when it matches.
    pub fn with_glob(mut self, glob: &str, label: &str) -> Result<Self, String> {
        let matcher = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid path pattern {glob:?}: {e}"))?
            .compile_matcher();
        self.globs.push((matcher, label.to_string()));
        Ok(self)
    }

    /// A list that refuses nothing.
    pub fn empty() -> Self {
        Self {
            prefixes: Vec::new(),
            clean_prefixes: rustc_hash::FxHashMap::default(),
            unclean_prefix: false,
            names: GlobSet::empty(),
            name_patterns: Vec::new(),
            globs: Vec::new(),
        }
    }

    /// The pattern that makes the canonical `path` sensitive, if any. Name patterns are
    /// matched against the components below `root` only when `path` lies under it, so a
    /// workspace that itself sits in a folder called `.envs` is not refused wholesale.
    pub fn matching(&self, path: &Path, root: &Path) -> Option<&str> {
        self.matching_within(path, root, None)
    }

    /// [`SensitivePaths::matching`] for a path inside `granted`, a folder rein itself lets
    /// tools read (the session's saved outputs, inside rein's data folder): the sensitive
    /// folders that hold `granted` do not refuse it.
    pub fn matching_within(
        &self,
        path: &Path,
        root: &Path,
        granted: Option<&Path>,
    ) -> Option<&str> {
        let clean = is_clean(path);
        if let Some(pattern) = self.prefix_of(path, clean, granted) {
            return Some(pattern);
        }
        if let Some((_, label)) = self.globs.iter().find(|(g, _)| g.is_match(path)) {
            return Some(label);
        }
        let relative = strip_prefix(path, clean, root).unwrap_or(path);
        relative.components().find_map(|component| {
            // `is_match` first: `matches` allocates, and almost every component misses.
            if !self.names.is_match(component.as_os_str()) {
                return None;
            }
            let hits = self.names.matches(component.as_os_str());
            hits.first().map(|i| self.name_patterns[*i].as_str())
        })
    }
}

impl SensitivePaths {
    /// For a file with more than one name (a hard link): the pattern of a sensitive folder or
    /// file that holds another name of it (`ln ~/.ssh/id_rsa notes.txt`). A hard link's other
    /// names cannot be listed, so the sensitive folders are searched for the same inode
    /// (bounded; files with one name cost one `stat`).
    pub fn hard_linked(&self, file: &Path) -> Option<&str> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(file).ok()?;
        if !meta.is_file() {
            return None;
        }
        self.hard_linked_inode(meta.nlink(), (meta.dev(), meta.ino()))
    }

    /// [`SensitivePaths::hard_linked`] for a regular file already open: its link count and
    /// `(device, inode)`, from `fstat` on its descriptor.
    pub(crate) fn hard_linked_inode(&self, nlink: u64, target: (u64, u64)) -> Option<&str> {
        if nlink < 2 {
            return None;
        }
        let mut budget = MAX_LINK_SEARCH;
        self.prefixes
            .iter()
            .find(|(prefix, _)| holds_inode(prefix, target, &mut budget))
            .map(|(_, pattern)| pattern.as_str())
    }
}

impl SensitivePaths {
    /// The pattern of the first prefix (in list order) that holds `path` and does not hold
    /// `granted`.
    fn prefix_of(&self, path: &Path, clean: bool, granted: Option<&Path>) -> Option<&str> {
        use std::os::unix::ffi::OsStrExt;
        let holds = |prefix: &Path| {
            starts_with(path, clean, prefix) && !granted.is_some_and(|g| g.starts_with(prefix))
        };
        if !clean || self.unclean_prefix {
            return self
                .prefixes
                .iter()
                .find(|(prefix, _)| holds(prefix))
                .map(|(_, pattern)| pattern.as_str());
        }
        // Every ancestor of a clean path ends before one of its `/`s (or is the path itself).
        let bytes = path.as_os_str().as_bytes();
        let ends = bytes
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'/' && *i > 0)
            .map(|(i, _)| i)
            .chain([bytes.len()]);
        let root = self.clean_prefixes.get(b"/".as_slice()).copied();
        ends.filter_map(|end| self.clean_prefixes.get(&bytes[..end]).copied())
            .chain(root)
            .filter(|i| holds(&self.prefixes[*i].0))
            .min()
            .map(|i| self.prefixes[i].1.as_str())
    }
}

/// The clean prefixes by their bytes (first place in the list), and whether any is not clean.
fn index(prefixes: &[(PathBuf, String)]) -> (rustc_hash::FxHashMap<Vec<u8>, usize>, bool) {
    use std::os::unix::ffi::OsStrExt;
    let mut clean = rustc_hash::FxHashMap::default();
    let mut unclean = false;
    for (i, (prefix, _)) in prefixes.iter().enumerate() {
        if is_clean(prefix) {
            clean
                .entry(prefix.as_os_str().as_bytes().to_vec())
                .or_insert(i);
        } else {
            unclean = true;
        }
    }
    (clean, unclean)
}

/// [`Path::starts_with`] (component by component), compared as bytes when both paths are
/// clean (see [`is_clean`]); `path_clean` says whether `path` is.
pub(crate) fn starts_with(path: &Path, path_clean: bool, prefix: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if !(path_clean && is_clean(prefix)) {
        return path.starts_with(prefix);
    }
    let (p, q) = (path.as_os_str().as_bytes(), prefix.as_os_str().as_bytes());
    p.starts_with(q) && (p.len() == q.len() || q == b"/" || p[q.len()] == b'/')
}

/// [`Path::strip_prefix`], cut as bytes when both paths are clean (see [`is_clean`]).
pub(crate) fn strip_prefix<'a>(
    path: &'a Path,
    path_clean: bool,
    prefix: &Path,
) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    if !(path_clean && is_clean(prefix)) || prefix == Path::new("/") {
        return path.strip_prefix(prefix).ok();
    }
    let (p, q) = (path.as_os_str().as_bytes(), prefix.as_os_str().as_bytes());
    let rest = p.strip_prefix(q)?;
    match rest.first() {
        None => Some(Path::new("")),
        Some(b'/') => Some(Path::new(std::ffi::OsStr::from_bytes(&rest[1..]))),
        Some(_) => None,
    }
}

/// Whether `path` is absolute and spelled as its components would be joined: no `//`, `/./`,
/// trailing `/` (the root aside) or trailing `/.`. Such paths start with one another, component
/// by component, exactly when their bytes do up to a `/`.
pub(crate) fn is_clean(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let b = path.as_os_str().as_bytes();
    if b == b"/" {
        return true;
    }
    b.first() == Some(&b'/')
        && b.iter().enumerate().all(|(i, &c)| {
            // After each `/`: a name, neither empty nor `.`.
            c != b'/'
                || !matches!(
                    (b.get(i + 1), b.get(i + 2)),
                    (None | Some(b'/'), _) | (Some(b'.'), None | Some(b'/'))
                )
        })
}

/// Most entries looked at while searching the sensitive folders for a hard link's inode.
const MAX_LINK_SEARCH: usize = 5_000;

fn holds_inode(path: &Path, target: (u64, u64), budget: &mut usize) -> bool {
    use std::os::unix::fs::MetadataExt;
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if meta.is_file() {
        return (meta.dev(), meta.ino()) == target;
    }
    if !meta.is_dir() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    entries
        .flatten()
        .any(|entry| holds_inode(&entry.path(), target, budget))
}

/// Adds `path` and, when it differs, its canonical form (a home reached through a symlink).
fn push_prefix(prefixes: &mut Vec<(PathBuf, String)>, path: PathBuf, pattern: &str) {
    if let Ok(canonical) = std::fs::canonicalize(&path)
        && canonical != path
    {
        prefixes.push((canonical, pattern.to_string()));
    }
    prefixes.push((path, pattern.to_string()));
}

/// The user's home directory from `$HOME`.
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_folders_and_env_files_are_sensitive() {
        let home = Path::new("/home/u");
        let list = SensitivePaths::new(DEFAULT_SENSITIVE.iter().copied(), Some(home)).unwrap();
        let root = Path::new("/home/u/proj");
        let cases = [
            ("/home/u/.ssh/id_ed25519", Some("~/.ssh")),
            ("/home/u/.ssh", Some("~/.ssh")),
            ("/home/u/.aws/credentials", Some("~/.aws")),
            ("/home/u/.netrc", Some("~/.netrc")),
            ("/home/u/.config/gcloud/x.json", Some("~/.config/gcloud")),
            ("/home/u/proj/.env", Some(".env*")),
            ("/home/u/proj/app/.env.local", Some(".env*")),
            ("/home/u/proj/.envrc", Some(".env*")),
            ("/home/u/proj/src/env.rs", None),
            ("/home/u/.config/rein/config.toml", Some("~/.config/rein")),
            (
                "/home/u/.local/share/rein/trust.json",
                Some("~/.local/share/rein"),
            ),
            ("/home/u/.claude/.credentials.json", Some("~/.claude")),
            ("/home/u/.codex/auth.json", Some("~/.codex")),
            ("/home/u/.git-credentials", Some("~/.git-credentials")),
            ("/home/u/.config/gh/hosts.yml", Some("~/.config/gh")),
            ("/home/u/.bashrc", Some("~/.bashrc")),
            ("/home/u/.config/nvim/init.lua", None),
            ("/home/u/.claude-notes.md", None),
            ("/home/u/.sshd_config_notes", None),
            ("/home/u/proj/.ssh-notes.md", None),
        ];
        for (path, expected) in cases {
            assert_eq!(list.matching(Path::new(path), root), expected, "{path}");
        }
    }

    #[test]
    fn looking_up_ancestors_finds_what_comparing_every_prefix_finds() {
        let home = Path::new("/home/u");
        let list = SensitivePaths::new(
            DEFAULT_SENSITIVE
                .iter()
                .copied()
                .chain(["/srv/keys", "/home/u/.config", "/"]),
            Some(home),
        )
        .unwrap();
        let paths = [
            "/home/u/.ssh/id",
            "/home/u/.sshx",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.config",
            "/home/u/.configs/x",
            "/home/u/proj/src/main.rs",
            "/srv/keys",
            "/srv/keys/a/b",
            "/srv/keysx",
            "/",
            "/etc/passwd",
            "/home/u/.local/share/rein/x",
        ];
        let granted = [None, Some(Path::new("/home/u/.config/gh"))];
        for path in paths {
            for granted in granted {
                let linear = list
                    .prefixes
                    .iter()
                    .find(|(p, _)| {
                        Path::new(path).starts_with(p) && !granted.is_some_and(|g| g.starts_with(p))
                    })
                    .map(|(_, pattern)| pattern.as_str());
                let indexed = list.prefix_of(Path::new(path), true, granted);
                assert_eq!(indexed, linear, "{path} granted {granted:?}");
            }
        }
    }

    #[test]
    fn name_patterns_only_apply_below_the_root() {
        let list = SensitivePaths::new([".env*"], None).unwrap();
        let root = Path::new("/srv/.envs/proj");
        assert_eq!(
            list.matching(Path::new("/srv/.envs/proj/main.rs"), root),
            None
        );
        assert_eq!(
            list.matching(Path::new("/srv/.envs/proj/.env"), root),
            Some(".env*")
        );
    }

    #[test]
    fn extra_globs_are_reported_by_their_label() {
        let list = SensitivePaths::empty()
            .with_glob("/ws/secrets/**", "deny rule Read(./secrets/**)")
            .unwrap();
        let root = Path::new("/ws");
        assert_eq!(
            list.matching(Path::new("/ws/secrets/a/key.pem"), root),
            Some("deny rule Read(./secrets/**)")
        );
        assert_eq!(list.matching(Path::new("/ws/src/main.rs"), root), None);
    }

    #[test]
    fn prefixes_match_by_component_however_the_path_is_spelled() {
        let list = SensitivePaths::new(["/home/u/.ssh"], None).unwrap();
        let root = Path::new("/work");
        let cases = [
            ("/home/u/.ssh", true),
            ("/home/u/.ssh/id_rsa", true),
            ("/home/u/.sshx", false),
            ("/home/u/.ss", false),
            ("/home//u/.ssh/key", true),
            ("/home/u/./.ssh", true),
            ("/home/u/.ssh/", true),
            ("/home/u/.ssh/.", true),
            ("/home/u", false),
        ];
        for (path, sensitive) in cases {
            assert_eq!(
                list.matching(Path::new(path), root).is_some(),
                sensitive,
                "{path}"
            );
            assert_eq!(
                Path::new(path).starts_with("/home/u/.ssh"),
                sensitive,
                "{path}"
            );
        }
    }

    #[test]
    fn bad_globs_are_errors_naming_them() {
        let err = SensitivePaths::new(["a[b"], None).unwrap_err();
        assert!(err.contains("a[b"), "{err}");
    }
}
