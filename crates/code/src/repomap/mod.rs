//! The repository map, after aider's: tree-sitter tags of every source file (Rust, Python,
//! JavaScript/TypeScript, Go, Java, C/C++, Ruby), the files ranked by how they refer to each
//! other, and the best definitions rendered as an outline (file → signatures) within a token
//! budget. Files come from a gitignore-aware walk; their tags are cached on disk by path,
//! modification time and size, so a second build reparses only the files that changed.

mod cache;
mod languages;
mod rank;
mod render;
mod tags;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

pub use tags::{Def, FileTags, Uses};

use cache::Entry;
use languages::Lang;

/// Source files larger than this are left out (generated code, bundles).
const LARGEST_FILE: u64 = 1 << 20;

/// Why a map could not be built.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// The root is not a folder that can be read.
    #[error("{0} is not a folder rein can read")]
    NotAFolder(PathBuf),
}

/// What a map is built for.
#[derive(Debug, Clone)]
pub struct MapOptions {
    /// The most tokens the outline may take (estimated at four bytes a token).
    pub budget: usize,
    /// Files (paths relative to the root, or their last components) and names to centre on.
    pub focus: Vec<String>,
    /// The most source files read (the walk stops there).
    pub max_files: usize,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self {
            budget: 1000,
            focus: Vec::new(),
            max_files: 50_000,
        }
    }
}

/// A built map and what it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The outline.
    pub text: String,
    /// Source files found.
    pub files: usize,
    /// Of those, the files parsed now (the rest came from the cache).
    pub parsed: usize,
    /// Definitions in the outline.
    pub shown: usize,
    /// Definitions found in all.
    pub definitions: usize,
    /// The outline's estimated tokens.
    pub tokens: usize,
    /// The walk stopped at [`MapOptions::max_files`].
    pub truncated: bool,
}

/// Which files may be read (the caller's rules: rein's guard refuses sensitive files).
pub type Keep = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// The map of one repository.
#[derive(Clone)]
pub struct RepoMap {
    root: PathBuf,
    /// The cache file, when tags are kept between builds.
    cache: Option<PathBuf>,
    keep: Option<Keep>,
}

impl std::fmt::Debug for RepoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoMap")
            .field("root", &self.root)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

/// A source file found by the walk.
struct Found {
    relative: String,
    absolute: PathBuf,
    lang: Lang,
    modified_ns: u128,
    size: u64,
}

impl RepoMap {
    /// The map of `root`, caching tags in a file under `cache_dir` when given.
    pub fn new(root: &Path, cache_dir: Option<&Path>) -> Self {
        Self {
            root: root.to_path_buf(),
            cache: cache_dir.map(|dir| cache::path_for(dir, root)),
            keep: None,
        }
    }

    /// Reads only the files `keep` allows.
    pub fn keeping(mut self, keep: Keep) -> Self {
        self.keep = Some(keep);
        self
    }

    /// Builds the map: walks, parses what changed, ranks, fits the budget.
    pub fn build(&self, options: &MapOptions) -> Result<Build, MapError> {
        if !self.root.is_dir() {
            return Err(MapError::NotAFolder(self.root.clone()));
        }
        let (found, truncated) = self.walk(options.max_files);
        let mut stored = self.cache.as_deref().map(cache::load).unwrap_or_default();
        let mut entries: Vec<Option<Entry>> = found
            .iter()
            .map(|f| {
                stored
                    .files
                    .remove(&f.relative)
                    .filter(|e| e.modified_ns == f.modified_ns && e.size == f.size)
            })
            .collect();
        let stale: Vec<usize> = (0..found.len()).filter(|&i| entries[i].is_none()).collect();
        for (i, tags) in parse_all(&found, &stale) {
            entries[i] = Some(Entry {
                modified_ns: found[i].modified_ns,
                size: found[i].size,
                tags,
            });
        }
        let entries: Vec<Entry> = entries.into_iter().map(Option::unwrap_or_default).collect();
        let paths: Vec<String> = found.iter().map(|f| f.relative.clone()).collect();
        let tags: Vec<&FileTags> = entries.iter().map(|e| &e.tags).collect();
        let centre = centre(&paths, &tags, &options.focus);
        let ranked = rank::rank(&tags, &centre);
        let (text, shown) = render::fitted(&paths, &tags, &ranked, options.budget);
        let build = Build {
            tokens: render::tokens(&text),
            text,
            files: found.len(),
            parsed: stale.len(),
            shown,
            definitions: ranked.len(),
            truncated,
        };
        if let Some(path) = &self.cache
            && !stale.is_empty()
        {
            let kept = paths.into_iter().zip(entries).collect();
            cache::save(path, kept);
        }
        Ok(build)
    }

    /// The source files under the root, in path order: `.gitignore`d and hidden ones left
    /// out, symlinks not followed, and only those the caller keeps.
    fn walk(&self, max_files: usize) -> (Vec<Found>, bool) {
        let mut found = Vec::new();
        let mut truncated = false;
        let walker = ignore::WalkBuilder::new(&self.root)
            .hidden(true)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_path(|a, b| a.cmp(b))
            .build();
        for entry in walker.flatten() {
            let path = entry.path();
            let Some(lang) = Lang::of(path) else {
                continue;
            };
            // Not followed: a symlink's own metadata is not a file's.
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if !meta.is_file() || meta.len() > LARGEST_FILE {
                continue;
            }
            if self.keep.as_ref().is_some_and(|keep| !keep(path)) {
                continue;
            }
            if found.len() == max_files {
                truncated = true;
                break;
            }
            let Ok(relative) = path.strip_prefix(&self.root) else {
                continue;
            };
            let modified_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            found.push(Found {
                relative: relative.to_string_lossy().into_owned(),
                absolute: path.to_path_buf(),
                lang,
                modified_ns,
                size: meta.len(),
            });
        }
        (found, truncated)
    }
}

/// Parses the files at `indexes` on every core; their tags by index.
fn parse_all(found: &[Found], indexes: &[usize]) -> Vec<(usize, FileTags)> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(indexes.len().max(1));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(indexes.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut tagger = tags::Tagger::new();
                let mut mine = Vec::new();
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = indexes.get(at) else { break };
                    let file = &found[i];
                    let tags = match std::fs::read(&file.absolute) {
                        Ok(source) => tagger.tags(file.lang, &source),
                        Err(_) => FileTags::default(),
                    };
                    mine.push((i, tags));
                }
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend(mine);
            });
        }
    });
    results.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// The focus as files and names: an entry naming a file (its path from the root, or its last
/// components) centres on that file; any other is a name, which centres on the files defining
/// or using it.
fn centre(paths: &[String], tags: &[&FileTags], focus: &[String]) -> rank::Centre {
    let mut centre = rank::Centre::default();
    for entry in focus {
        let entry = entry.trim().trim_start_matches("./");
        if entry.is_empty() {
            continue;
        }
        let files: Vec<usize> = (0..paths.len())
            .filter(|&i| paths[i] == entry || paths[i].ends_with(&format!("/{entry}")))
            .collect();
        if files.is_empty() {
            centre.names.insert(entry.to_string());
        } else {
            centre.files.extend(files);
        }
    }
    if !centre.names.is_empty() {
        let names: HashSet<&str> = centre.names.iter().map(String::as_str).collect();
        for (i, file) in tags.iter().enumerate() {
            let defines = file.defs.iter().any(|d| names.contains(d.name.as_str()));
            let uses =
                (file.refs.iter().chain(&file.members)).any(|(n, _)| names.contains(n.as_str()));
            if defines || uses {
                centre.files.insert(i);
            }
        }
    }
    centre
}
