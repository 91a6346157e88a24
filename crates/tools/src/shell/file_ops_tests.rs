use super::*;
use crate::shell::analyse;

/// A workspace with files, a folder holding a secret, a hard link and a symlink leading out.
fn fixture() -> (tempfile::TempDir, WorkspaceGuard) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    for (path, text) in [
        ("tracked.txt", "t\n"),
        ("b3/x.o", ""),
        ("b3/deep/y.o", ""),
        ("src/main.rs", "fn main() {}\n"),
        ("conf/.env", "KEY=1\n"),
        ("conf/app.toml", ""),
        (".env", "KEY=1\n"),
    ] {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir(root.join("empty")).unwrap();
    std::fs::write(dir.path().join("outside.txt"), "o\n").unwrap();
    std::fs::hard_link(dir.path().join("outside.txt"), root.join("hardlink.txt")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("out-link")).unwrap();
    let guard = WorkspaceGuard::new(&root).unwrap();
    (dir, guard)
}

#[test]
fn file_commands_inside_the_workspace_are_proven() {
    let (_dir, guard) = fixture();
    let cwd = guard.root().to_path_buf();
    for line in [
        "mkdir -p build && touch build/out.txt",
        "cat tracked.txt > copy.txt",
        "rm -Rf b3",
        "rm -rf b3/deep; rmdir empty",
        "mv tracked.txt renamed.txt",
        "cp -r src src-copy",
        "cp -a src/main.rs src/main.rs.bak",
        "echo hello > notes.txt && echo more >> notes.txt",
        "ls -la > listing.txt 2>&1",
        "mkdir -m 755 -v out",
        "touch -c -d 2024-01-01 tracked.txt",
        "rm -- -odd-name",
        "/bin/mkdir new",
        "grep -n main src/main.rs > hits.txt",
    ] {
        assert!(
            only_changes_workspace_files(&analyse(line), &guard, &cwd),
            "{line}"
        );
    }
}

#[test]
fn anything_else_is_not_proven() {
    let (dir, guard) = fixture();
    let cwd = guard.root().to_path_buf();
    let outside = dir.path().join("elsewhere");
    let cases = [
        "touch /tmp/x".to_string(),
        format!("mkdir {}", outside.display()),
        "cp tracked.txt ../escaped.txt".to_string(),
        "cp ../outside.txt here.txt".to_string(),
        "rm -rf .".to_string(),
        "rm -rf ./".to_string(),
        "rm -rf \"$DIR\"".to_string(),
        "rm -rf *.o".to_string(),
        "rm -rf ~/x".to_string(),
        "cp .env env.txt".to_string(),
        "cat .env > env.txt".to_string(),
        "echo KEY=2 > .env.local".to_string(),
        "mv conf settings".to_string(),
        "cp -r conf conf-copy".to_string(),
        "rm -r conf".to_string(),
        "rm hardlink.txt".to_string(),
        "touch out-link".to_string(),
        "rmdir -p empty".to_string(),
        "cp -s tracked.txt link".to_string(),
        "cp -l tracked.txt link".to_string(),
        "touch -r tracked.txt new".to_string(),
        "mv -t empty tracked.txt".to_string(),
        "mv tracked.txt".to_string(),
        "rm".to_string(),
        "X=1 touch a".to_string(),
        "cargo build > log.txt".to_string(),
        "mkdir build && curl https://example.com".to_string(),
        "touch a $(id)".to_string(),
        "ln -s /etc/passwd p".to_string(),
        "chmod +x tracked.txt".to_string(),
        "sed -i s/t/u/ tracked.txt".to_string(),
        "./mkdir x".to_string(),
        "tee out.txt < tracked.txt".to_string(),
    ];
    for line in &cases {
        assert!(
            !only_changes_workspace_files(&analyse(line), &guard, &cwd),
            "{line}"
        );
    }
}

#[test]
fn a_current_directory_outside_the_workspace_is_not_proven() {
    let (dir, guard) = fixture();
    assert!(!only_changes_workspace_files(
        &analyse("touch a"),
        &guard,
        dir.path()
    ));
}
