//! Paths no tool may read or write even inside the workspace: credentials and secrets.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// A sensitive-path pattern or path glob that does not compile.
#[derive(Debug, thiserror::Error)]
pub enum SensitiveError {
    /// A name pattern of the list (`*.pem`).
    #[error("invalid sensitive-path pattern {pattern:?}: {source}")]
    Pattern {
        /// The pattern as written.
        pattern: String,
        /// What the glob compiler said.
        source: globset::Error,
    },
    /// The name patterns together.
    #[error("invalid sensitive-path patterns: {0}")]
    Patterns(#[source] globset::Error),
    /// An absolute path glob (a `Read` deny rule's).
    #[error("invalid path pattern {glob:?}: {source}")]
    PathGlob {
        /// The glob as written.
        glob: String,
        /// What the glob compiler said.
        source: globset::Error,
    },
}

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

/// Names that a wildcard pattern (`.env*`) would catch but that document a secret's shape
/// instead of holding one: projects commit them, and Claude Code reads them. A pattern that
/// names one of them exactly still refuses it.
pub const DOCUMENTATION_NAMES: &[&str] = &[".env.example", ".env.sample", ".env.template"];

/// Whether `name` is one of [`DOCUMENTATION_NAMES`] caught by a pattern other than itself.
fn is_documentation(name: &OsStr, pattern: &str) -> bool {
    DOCUMENTATION_NAMES
        .iter()
        .any(|doc| name.as_bytes() == doc.as_bytes() && pattern != *doc)
}

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
    /// `lengths[n]`: whether some clean prefix is `n` bytes long. An ancestor of another
    /// length cannot be one, so it is not looked up.
    clean_lengths: Vec<bool>,
    names: GlobSet,
    /// The bytes a name pattern can match a component starting with, when every pattern
    /// starts with a literal character (`.` for `.env*`): other components are not matched.
    name_starts: Option<Vec<u8>>,
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
    ) -> Result<Self, SensitiveError> {
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
                let glob = Glob::new(pattern).map_err(|source| SensitiveError::Pattern {
                    pattern: pattern.to_string(),
                    source,
                })?;
                names.add(glob);
                name_patterns.push(pattern.to_string());
            }
        }
        let names = names.build().map_err(SensitiveError::Patterns)?;
        let (clean_prefixes, unclean_prefix) = index(&prefixes);
        Ok(Self {
            clean_lengths: lengths(clean_prefixes.keys()),
            prefixes,
            clean_prefixes,
            unclean_prefix,
            names,
            name_starts: literal_starts(&name_patterns),
            name_patterns,
            globs: Vec::new(),
        })
    }

    /// Adds an absolute path glob (`/ws/secrets/**`), reported as `label` when it matches.
    pub fn with_glob(mut self, glob: &str, label: &str) -> Result<Self, SensitiveError> {
        let matcher = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .map_err(|source| SensitiveError::PathGlob {
                glob: glob.to_string(),
                source,
            })?
            .compile_matcher();
        self.globs.push((matcher, label.to_string()));
        Ok(self)
    }

    /// The absolute path globs added with [`SensitivePaths::with_glob`], as written.
    pub fn globs(&self) -> impl Iterator<Item = &str> {
        self.globs.iter().map(|(g, _)| g.glob().glob())
    }

    /// A list that refuses nothing.
    pub fn empty() -> Self {
        Self {
            prefixes: Vec::new(),
            clean_prefixes: rustc_hash::FxHashMap::default(),
            unclean_prefix: false,
            clean_lengths: Vec::new(),
            names: GlobSet::empty(),
            name_starts: Some(Vec::new()),
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
        let spelling = Spelling::of(path);
        let clean = spelling == Spelling::Clean;
        if let Some(pattern) = self.prefix_of(path, spelling, granted) {
            return Some(pattern);
        }
        if let Some((_, label)) = self.globs.iter().find(|(g, _)| g.is_match(path)) {
            return Some(label);
        }
        match strip_prefix(path, spelling, root) {
            // The components of a clean relative path are its names between slashes.
            Some(relative) if clean => relative
                .as_os_str()
                .as_bytes()
                .split(|b| *b == b'/')
                .filter(|name| !name.is_empty())
                .find_map(|name| self.name_matching(OsStr::from_bytes(name))),
            relative => relative
                .unwrap_or(path)
                .components()
                .find_map(|component| self.name_matching(component.as_os_str())),
        }
    }

    /// The name pattern one component of a path matches, if any.
    fn name_matching(&self, name: &OsStr) -> Option<&str> {
        if let Some(starts) = &self.name_starts
            && !name.as_bytes().first().is_some_and(|b| starts.contains(b))
        {
            return None;
        }
        // `is_match` first: `matches` allocates, and almost every component misses.
        if !self.names.is_match(name) {
            return None;
        }
        let hits = self.names.matches(name);
        hits.into_iter()
            .map(|i| self.name_patterns[i].as_str())
            .find(|pattern| !is_documentation(name, pattern))
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
        self.hard_linked_inode_within(nlink, target, None)
    }

    /// [`SensitivePaths::hard_linked_inode`], not searching the sensitive folders that hold
    /// `granted` (a folder rein reads on purpose, such as `~/.claude`: the file's own name
    /// there is not another one).
    pub(crate) fn hard_linked_inode_within(
        &self,
        nlink: u64,
        target: (u64, u64),
        granted: Option<&Path>,
    ) -> Option<&str> {
        if nlink < 2 {
            return None;
        }
        let mut budget = MAX_LINK_SEARCH;
        self.prefixes
            .iter()
            .filter(|(prefix, _)| !granted.is_some_and(|g| g.starts_with(prefix)))
            .find(|(prefix, _)| holds_inode(prefix, target, &mut budget))
            .map(|(_, pattern)| pattern.as_str())
    }
}

impl SensitivePaths {
    /// The pattern of the first prefix (in list order) that holds `path` and does not hold
    /// `granted`.
    fn prefix_of(&self, path: &Path, spelling: Spelling, granted: Option<&Path>) -> Option<&str> {
        let holds = |prefix: &Path| {
            starts_with(path, spelling, prefix) && !granted.is_some_and(|g| g.starts_with(prefix))
        };
        if spelling == Spelling::Unclean || self.unclean_prefix {
            return self
                .prefixes
                .iter()
                .find(|(prefix, _)| holds(prefix))
                .map(|(_, pattern)| pattern.as_str());
        }
        // Every ancestor of a clean path is `/`, ends before one of its other `/`s, or is the
        // path itself; only those as long as some prefix are looked up.
        let bytes = path.as_os_str().as_bytes();
        let ends = bytes
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'/' && *i > 0)
            .map(|(i, _)| i)
            .chain([1, bytes.len()])
            .filter(|end| self.clean_lengths.get(*end).copied().unwrap_or(false));
        ends.filter_map(|end| self.clean_prefixes.get(&bytes[..end]).copied())
            .filter(|i| holds(&self.prefixes[*i].0))
            .min()
            .map(|i| self.prefixes[i].1.as_str())
    }
}

/// The clean prefixes by their bytes (first place in the list), and whether any is not clean.
fn index(prefixes: &[(PathBuf, String)]) -> (rustc_hash::FxHashMap<Vec<u8>, usize>, bool) {
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

/// `lengths[n]` is whether one of `prefixes` is `n` bytes long.
fn lengths<'a>(prefixes: impl Iterator<Item = &'a Vec<u8>>) -> Vec<bool> {
    let mut lengths = Vec::new();
    for prefix in prefixes {
        if lengths.len() <= prefix.len() {
            lengths.resize(prefix.len() + 1, false);
        }
        lengths[prefix.len()] = true;
    }
    lengths
}

/// The first bytes of `patterns` when each starts with a literal character (anything but a
/// glob's `*`, `?`, `[`, `{` or escaping `\`), so that it only matches names starting with
/// that character's first byte; `None` when one may match a name starting with anything.
fn literal_starts(patterns: &[String]) -> Option<Vec<u8>> {
    patterns
        .iter()
        .map(|p| match p.as_bytes().first() {
            Some(b'*' | b'?' | b'[' | b'{' | b'\\') | None => None,
            Some(b) => Some(*b),
        })
        .collect()
}

/// Whether a path is spelled clean (see [`is_clean`]), worked out once for several
/// comparisons: two clean paths are compared as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// [`is_clean`] holds.
    Clean,
    /// It may not: compare component by component.
    Unclean,
}

impl Spelling {
    /// How `path` is spelled.
    pub(crate) fn of(path: &Path) -> Self {
        if is_clean(path) {
            Self::Clean
        } else {
            Self::Unclean
        }
    }
}

/// [`Path::starts_with`] (component by component), compared as bytes when both paths are
/// clean (see [`is_clean`]); `spelling` says whether `path` is.
pub(crate) fn starts_with(path: &Path, spelling: Spelling, prefix: &Path) -> bool {
    if !(spelling == Spelling::Clean && is_clean(prefix)) {
        return path.starts_with(prefix);
    }
    let (p, q) = (path.as_os_str().as_bytes(), prefix.as_os_str().as_bytes());
    p.starts_with(q) && (p.len() == q.len() || q == b"/" || p[q.len()] == b'/')
}

/// [`Path::strip_prefix`], cut as bytes when both paths are clean (see [`is_clean`]).
pub(crate) fn strip_prefix<'a>(
    path: &'a Path,
    spelling: Spelling,
    prefix: &Path,
) -> Option<&'a Path> {
    // A clean path equal to `/` is spelt `/`: compared as bytes, not as components.
    if !(spelling == Spelling::Clean && is_clean(prefix)) || prefix.as_os_str().as_bytes() == b"/" {
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
pub fn is_clean(path: &Path) -> bool {
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
#[allow(clippy::disallowed_methods)] // HOME for `~` in the sensitive list when the caller gives none
pub(crate) fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
#[path = "sensitive_tests.rs"]
mod tests;
