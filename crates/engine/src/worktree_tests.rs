#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
use std::path::Path;
use std::process::Command;

use super::*;

fn run(dir: &Path, args: &[&str]) {
    rein_testkit::git(dir, args);
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    rein_testkit::committed_repo(dir.path(), &[("a.txt", "one\n")]);
    dir
}

fn branches(dir: &Path) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["branch", "--list"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn an_unchanged_worktree_goes_and_takes_its_branch_with_it() {
    let repo = repo();
    let tree = create(repo.path(), "look", BaseRef::Head).unwrap();
    assert!(tree.path.join("a.txt").exists());
    assert_eq!(tree.branch, "rein/look");
    assert!(branches(repo.path()).contains("rein/look"));
    // Git ignores the folder: the main tree stays clean.
    let status = Command::new("git")
        .arg("-C")
        .arg(repo.path())
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    assert_eq!(list(repo.path()).unwrap(), vec![tree.clone()]);
    assert!(remove_if_unchanged(&tree).unwrap());
    assert!(!tree.path.exists());
    assert!(!branches(repo.path()).contains("rein/look"));
}

#[test]
fn a_changed_worktree_is_kept_and_removing_it_needs_force() {
    let repo = repo();
    let tree = create(repo.path(), "edit/one", BaseRef::Head).unwrap();
    std::fs::write(tree.path.join("a.txt"), "two\n").unwrap();
    assert_eq!(changes(&tree).unwrap(), ["1 uncommitted file"]);
    assert!(!remove_if_unchanged(&tree).unwrap());
    run(&tree.path, &["commit", "-q", "-am", "two"]);
    assert_eq!(changes(&tree).unwrap(), ["1 commit"]);
    let refused = remove(&tree, Force::No).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("1 commit; pass discard_changes"),
        "{refused}"
    );
    // The main tree does not see the worktree's edit; its branch holds it.
    assert_eq!(
        std::fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "one\n"
    );
    let pruned = prune(repo.path()).unwrap();
    assert!(pruned.removed.is_empty());
    assert_eq!(pruned.kept[0].1, "1 commit");
    remove(&tree, Force::Yes).unwrap();
    assert!(list(repo.path()).unwrap().is_empty());
}

#[test]
fn a_working_tree_base_carries_uncommitted_changes() {
    let repo = repo();
    std::fs::write(repo.path().join("a.txt"), "draft\n").unwrap();
    let tree = create(repo.path(), "draft", BaseRef::WorkingTree).unwrap();
    assert_eq!(
        std::fs::read_to_string(tree.path.join("a.txt")).unwrap(),
        "draft\n"
    );
    // The main tree keeps its change.
    assert_eq!(
        std::fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "draft\n"
    );
    assert!(changes(&tree).unwrap().is_empty());
    let head = create(repo.path(), "clean", BaseRef::Head).unwrap();
    assert_eq!(
        std::fs::read_to_string(head.path.join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn outside_git_and_bad_names_get_clear_errors() {
    let plain = tempfile::tempdir().unwrap();
    let error = create(plain.path(), "x", BaseRef::Head).unwrap_err();
    assert!(
        error.to_string().contains("is not inside a git repository"),
        "{error}"
    );
    let repo = repo();
    for name in ["", "../up", "a b", "x/./y", &"n".repeat(65)] {
        assert!(
            matches!(
                create(repo.path(), name, BaseRef::Head),
                Err(WorktreeError::BadName(_))
            ),
            "{name}"
        );
    }
    create(repo.path(), "twice", BaseRef::Head).unwrap();
    assert!(matches!(
        create(repo.path(), "twice", BaseRef::Head),
        Err(WorktreeError::Exists(_))
    ));
    // From inside a worktree, the repository is still the main one.
    let inner = list(repo.path()).unwrap().remove(0);
    assert_eq!(
        std::fs::canonicalize(repository(&inner.path).unwrap()).unwrap(),
        std::fs::canonicalize(repo.path()).unwrap()
    );
}

/// A repository that ships rein's worktree folder (or a folder on its way) as a link would
/// make rein check itself out, and an agent work, outside the repository.
#[test]
fn a_worktree_folder_shipped_as_a_link_is_refused() {
    type Plant = fn(&Path, &Path);
    let cases: [(&str, Plant); 3] = [
        ("worktrees is a link", |repo, out| {
            std::fs::create_dir(repo.join(".rein")).unwrap();
            std::os::unix::fs::symlink(out, repo.join(".rein/worktrees")).unwrap();
        }),
        (".rein is a link", |repo, out| {
            std::os::unix::fs::symlink(out, repo.join(".rein")).unwrap();
        }),
        ("a part of the name is a link", |repo, out| {
            std::fs::create_dir_all(repo.join(".rein/worktrees")).unwrap();
            std::os::unix::fs::symlink(out, repo.join(".rein/worktrees/team")).unwrap();
        }),
    ];
    for (case, plant) in cases {
        let repo = repo();
        let outside = tempfile::tempdir().unwrap();
        plant(repo.path(), outside.path());
        let refused = create(repo.path(), "team/one", BaseRef::Head).unwrap_err();
        assert!(
            refused.to_string().contains("is a symbolic link"),
            "{case}: {refused}"
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{case}: nothing checked out outside"
        );
        assert!(!branches(repo.path()).contains("rein/team/one"), "{case}");
    }
}
