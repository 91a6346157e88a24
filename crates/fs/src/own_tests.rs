use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

fn setup() -> (tempfile::TempDir, tempfile::TempDir, OwnRoot) {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "KEY").unwrap();
    let own = OwnRoot::new(root.path()).unwrap();
    (root, outside, own)
}

#[test]
fn folders_are_made_and_files_read_beneath_the_root() {
    let (root, _outside, own) = setup();
    let made = own.create_dir(Path::new(".rein/worktrees/a")).unwrap();
    assert_eq!(made, own.path().join(".rein/worktrees/a"));
    assert!(made.is_dir());
    // Again: the folders are there already.
    assert_eq!(
        own.create_dir(Path::new(".rein/worktrees/a")).unwrap(),
        made
    );
    std::fs::write(root.path().join(".rein/index.md"), "hello").unwrap();
    assert_eq!(
        own.read(Path::new(".rein/index.md"), 100)
            .unwrap()
            .as_deref(),
        Some("hello")
    );
    assert_eq!(own.read(Path::new(".rein/none.md"), 100).unwrap(), None);
    assert_eq!(own.read(Path::new("no/such/file"), 100).unwrap(), None);
    assert_eq!(
        own.check(Path::new(".rein/worktrees/b/c")).unwrap(),
        own.path().join(".rein/worktrees/b/c")
    );
}

/// Each way a repository (or anyone who can write beneath the root) could send rein's own
/// state elsewhere, and what rein does.
#[test]
fn links_anywhere_on_the_way_are_refused_naming_the_link() {
    type Plant = fn(&Path, &Path);
    let cases: [(&str, Plant, &str); 6] = [
        (
            "the state folder itself is a link out",
            |root, out| {
                std::fs::create_dir(root.join(".rein")).unwrap();
                symlink(out, root.join(".rein/worktrees")).unwrap();
            },
            ".rein/worktrees",
        ),
        (
            "a parent folder is a link out",
            |root, out| symlink(out, root.join(".rein")).unwrap(),
            ".rein",
        ),
        (
            "a link that stays inside the root is not followed either",
            |root, _| {
                std::fs::create_dir(root.join("elsewhere")).unwrap();
                symlink(root.join("elsewhere"), root.join(".rein")).unwrap();
            },
            ".rein",
        ),
        (
            "a relative link",
            |root, _| symlink("..", root.join(".rein")).unwrap(),
            ".rein",
        ),
        (
            "a dangling link (made to be created through)",
            |root, out| symlink(out.join("new"), root.join(".rein")).unwrap(),
            ".rein",
        ),
        (
            "a link below the state folder",
            |root, out| {
                std::fs::create_dir_all(root.join(".rein/worktrees")).unwrap();
                symlink(out, root.join(".rein/worktrees/a")).unwrap();
            },
            ".rein/worktrees/a",
        ),
    ];
    for (case, plant, link) in cases {
        let (root, outside, own) = setup();
        plant(root.path(), outside.path());
        let want = own.path().join(link);
        for (what, result) in [
            (
                "create_dir",
                own.create_dir(Path::new(".rein/worktrees/a/b")),
            ),
            ("check", own.check(Path::new(".rein/worktrees/a/b"))),
        ] {
            match result {
                Err(OwnPathError::Link { link, .. }) => assert_eq!(link, want, "{case}: {what}"),
                other => panic!("{case}: {what}: {other:?}"),
            }
        }
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            1,
            "{case}: nothing made outside"
        );
    }
}

#[test]
fn a_file_planted_as_a_link_is_not_read() {
    let (root, outside, own) = setup();
    std::fs::create_dir(root.path().join("memory")).unwrap();
    symlink(
        outside.path().join("secret"),
        root.path().join("memory/MEMORY.md"),
    )
    .unwrap();
    let refused = own.read(Path::new("memory/MEMORY.md"), 100).unwrap_err();
    assert!(
        refused.to_string().contains("MEMORY.md is a symbolic link"),
        "{refused}"
    );
    // Control: the same file read by name, as before, follows the link.
    assert_eq!(
        crate::read_regular(&root.path().join("memory/MEMORY.md"), 100)
            .unwrap()
            .as_deref(),
        Some("KEY")
    );
}

#[test]
fn what_is_not_a_regular_file_or_a_plain_path_is_refused() {
    let (root, _outside, own) = setup();
    std::fs::create_dir(root.path().join("dir")).unwrap();
    std::fs::write(root.path().join("file"), "x").unwrap();
    std::fs::write(root.path().join("big"), "x".repeat(200)).unwrap();
    nix::unistd::mkfifo(&root.path().join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert!(matches!(
        own.read(Path::new("dir"), 100),
        Err(OwnPathError::Refused(ReadRefusal::NotRegular { .. }))
    ));
    assert!(matches!(
        own.read(Path::new("fifo"), 100),
        Err(OwnPathError::Refused(ReadRefusal::NotRegular { .. }))
    ));
    assert!(matches!(
        own.read(Path::new("big"), 100),
        Err(OwnPathError::Refused(ReadRefusal::TooLarge { .. }))
    ));
    assert!(own.create_dir(Path::new("file/sub")).is_err());
    for rel in ["../x", "/etc", "a/../../x"] {
        assert!(
            matches!(
                own.check(Path::new(rel)),
                Err(OwnPathError::NotPlain { .. })
            ),
            "{rel}"
        );
    }
}
