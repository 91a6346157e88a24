//! The workspace's paths for the UI's `@` completion: walked once with ripgrep's walker
//! (what .gitignore ignores left out, `.git` too), the sensitive ones left out, at most
//! [`MAX_PATHS`].

use std::path::Path;

use rein_tools::SensitivePaths;

/// Most paths indexed.
pub const MAX_PATHS: usize = 50_000;

/// The paths under `workspace`, relative, folders ending with `/`, in walk order (each
/// folder's entries by name).
pub fn index(workspace: &Path, sensitive: &SensitivePaths) -> Vec<String> {
    let walker = ignore::WalkBuilder::new(workspace)
        .hidden(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(std::ffi::OsStr::cmp)
        .build();
    walker
        .flatten()
        .filter(|entry| entry.depth() > 0)
        .filter(|entry| sensitive.matching(entry.path(), workspace).is_none())
        .filter_map(|entry| {
            let relative = entry
                .path()
                .strip_prefix(workspace)
                .ok()?
                .to_str()?
                .to_string();
            let folder = entry.file_type().is_some_and(|t| t.is_dir());
            Some(if folder {
                format!("{relative}/")
            } else {
                relative
            })
        })
        .take(MAX_PATHS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_leaves_out_ignored_sensitive_and_git_paths() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        for (path, text) in [
            (".gitignore", "target/\n"),
            ("src/lib.rs", ""),
            ("target/debug/x", ""),
            (".env", "KEY=1"),
            (".git/config", ""),
            (".github/workflows/ci.yml", ""),
        ] {
            std::fs::create_dir_all(ws.join(path).parent().unwrap()).unwrap();
            std::fs::write(ws.join(path), text).unwrap();
        }
        // The walker reads .gitignore only inside a repository.
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        let sensitive = SensitivePaths::new([".env*"], None).unwrap();
        assert_eq!(
            index(ws, &sensitive),
            [
                ".github/",
                ".github/workflows/",
                ".github/workflows/ci.yml",
                ".gitignore",
                "src/",
                "src/lib.rs",
            ]
        );
    }
}
