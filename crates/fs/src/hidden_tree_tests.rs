use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;

use super::*;

fn is_env(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_bytes().starts_with(b".env"))
}

fn write(root: &Path, rel: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "x").unwrap();
}

/// Sets every folder's modification time under `root` (itself included) to a minute ago, as
/// if nothing had changed recently: their listings can then be trusted until they change.
fn age(root: &Path) {
    let past = SystemTime::now() - Duration::from_secs(60);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
        }
        let file = std::fs::File::open(&dir).unwrap();
        file.set_modified(past).unwrap();
    }
}

fn sorted(mut paths: Vec<PathBuf>, root: &Path) -> Vec<String> {
    paths.sort();
    paths
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect()
}

#[test]
fn entries_to_hide_are_found_at_every_depth_but_not_inside_git_or_hidden_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for rel in [
        ".env",
        "src/main.rs",
        "sub/.env",
        "sub/deeper/.env.local",
        "sub/deeper/still/ok.txt",
        "node_modules/pkg/.env",
        ".git/.env",
        ".envs/inside/.env",
    ] {
        write(root, rel);
    }
    let found = HiddenTree::default()
        .hidden(&[root.to_path_buf()], is_env)
        .unwrap();
    assert_eq!(
        sorted(found.paths, root),
        [
            ".env",
            ".envs",
            "node_modules/pkg/.env",
            "sub/.env",
            "sub/deeper/.env.local"
        ]
    );
    assert_eq!(found.not_covered, 0);
}

#[test]
fn a_later_call_reads_only_the_folders_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for rel in ["a/one.txt", "a/b/two.txt", "c/three.txt"] {
        write(root, rel);
    }
    age(root);
    let tree = HiddenTree::default();
    let asked = Cell::new(0);
    let counting = |path: &Path| {
        asked.set(asked.get() + 1);
        is_env(path)
    };
    let roots = [root.to_path_buf()];
    assert!(tree.hidden(&roots, counting).unwrap().paths.is_empty());
    assert_eq!(asked.replace(0), 6, "every entry is matched once");
    assert!(tree.hidden(&roots, counting).unwrap().paths.is_empty());
    assert_eq!(asked.replace(0), 0, "nothing changed: nothing is read");
    // A secret created after the earlier calls changes its folder's time.
    write(root, "a/b/.env");
    let found = tree.hidden(&roots, counting).unwrap();
    assert_eq!(sorted(found.paths, root), ["a/b/.env"]);
    assert_eq!(asked.replace(0), 2, "only a/b is read again");
}

#[test]
fn a_folder_changed_just_before_its_reading_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a/one.txt");
    let tree = HiddenTree::default();
    let asked = Cell::new(0);
    let counting = |path: &Path| {
        asked.set(asked.get() + 1);
        is_env(path)
    };
    let roots = [root.to_path_buf()];
    tree.hidden(&roots, counting).unwrap();
    asked.set(0);
    // Both folders were changed a moment ago: a change in the same clock tick would not
    // move their times, so their listings are not trusted yet.
    tree.hidden(&roots, counting).unwrap();
    assert_eq!(asked.get(), 2);
}

#[test]
fn a_replaced_folder_is_read_again_and_removed_ones_are_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a/b/one.txt");
    age(root);
    let tree = HiddenTree::default();
    let roots = [root.to_path_buf()];
    tree.hidden(&roots, is_env).unwrap();
    std::fs::rename(root.join("a/b"), root.join("b-old")).unwrap();
    write(root, "a/b/.env");
    age(root);
    let found = tree.hidden(&roots, is_env).unwrap();
    assert_eq!(sorted(found.paths, root), ["a/b/.env"]);
    assert_eq!(tree.lock().len(), 4, "root, a, a/b, b-old");
}

#[test]
fn folders_past_the_cap_are_reported_not_covered_and_node_modules_come_last() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for rel in ["node_modules/p/.env", "a/b/c/.env", "x.txt"] {
        write(root, rel);
    }
    let tree = HiddenTree::default();
    // Root, a, a/b, a/b/c: node_modules waits for every other folder.
    let found = tree.walk(&[root.to_path_buf()], &is_env, 4).unwrap();
    assert_eq!(sorted(found.paths, root), ["a/b/c/.env"]);
    assert_eq!(found.not_covered, 1);
}

#[test]
fn too_many_entries_to_hide_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..=MAX_HIDDEN {
        std::fs::write(root.join(format!(".env{i}")), "").unwrap();
    }
    let tree = HiddenTree::default();
    assert!(tree.hidden(&[root.to_path_buf()], is_env).is_err());
}

#[test]
fn nested_and_repeated_roots_are_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "sub/.env");
    let roots = [root.join("sub"), root.to_path_buf(), root.to_path_buf()];
    let found = HiddenTree::default().hidden(&roots, is_env).unwrap();
    assert_eq!(sorted(found.paths, root), ["sub/.env"]);
}

#[test]
fn a_root_missing_at_one_call_and_made_before_the_next_is_walked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let everything = |_: &Path| true;
    let tree = HiddenTree::default();
    // A deny glob's folder, not there yet; its parent is not a root.
    let roots = [root.join("outside/secrets")];
    assert!(tree.hidden(&roots, everything).unwrap().paths.is_empty());
    write(root, "outside/secrets/key");
    age(root);
    let found = tree.hidden(&roots, everything).unwrap();
    assert_eq!(sorted(found.paths, root), ["outside/secrets/key"]);
    // Unchanged since: the kept answer, then a change in a folder walked.
    let found = tree.hidden(&roots, everything).unwrap();
    assert_eq!(sorted(found.paths, root), ["outside/secrets/key"]);
    write(root, "outside/secrets/other");
    age(root);
    let found = tree.hidden(&roots, everything).unwrap();
    assert_eq!(
        sorted(found.paths, root),
        ["outside/secrets/key", "outside/secrets/other"]
    );
}
