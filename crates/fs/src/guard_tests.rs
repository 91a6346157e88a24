use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::lstats::Lstats;

/// A workspace `w` with `src/lib.rs`, a `notes.txt` file and symlinks, next to an `outside`
/// directory holding `secret.txt`.
struct Fixture {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("w");
    let outside = base.join("outside");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("src/lib.rs"), "").unwrap();
    std::fs::write(ws.join("notes.txt"), "").unwrap();
    std::fs::write(outside.join("secret.txt"), "").unwrap();
    symlink(&outside, ws.join("escape")).unwrap();
    symlink(ws.join("src"), ws.join("inner")).unwrap();
    symlink(outside.join("new.txt"), ws.join("dangling_out")).unwrap();
    symlink(ws.join("src/made.rs"), ws.join("dangling_in")).unwrap();
    symlink("loop_b", ws.join("loop_a")).unwrap();
    symlink("loop_a", ws.join("loop_b")).unwrap();
    Fixture {
        _dir: dir,
        ws,
        outside,
    }
}

#[test]
fn resolves_paths_inside_the_workspace() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let cases: &[(&str, PathBuf)] = &[
        ("src/lib.rs", f.ws.join("src/lib.rs")),
        ("./src/../notes.txt", f.ws.join("notes.txt")),
        (".", f.ws.clone()),
        (
            "src/new/deeper/file.rs",
            f.ws.join("src/new/deeper/file.rs"),
        ),
        ("src/new/../other.rs", f.ws.join("src/other.rs")),
        ("inner/lib.rs", f.ws.join("src/lib.rs")),
        ("inner/../notes.txt", f.ws.join("notes.txt")),
        ("dangling_in", f.ws.join("src/made.rs")),
        ("notes.txt/..", f.ws.clone()),
    ];
    for (input, expected) in cases {
        assert_eq!(
            &guard.resolve_read(input).unwrap(),
            expected,
            "input {input:?}"
        );
    }
    let absolute = f.ws.join("src/lib.rs");
    assert_eq!(
        guard.resolve_read(absolute.to_str().unwrap()).unwrap(),
        absolute
    );
}

#[test]
fn refuses_paths_outside_the_workspace() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let secret = f.outside.join("secret.txt");
    let cases = [
        "..",
        "../outside/secret.txt",
        "src/../../outside",
        "missing/../../outside/x",
        "escape",
        "escape/secret.txt",
        "escape/new/file.txt",
        "dangling_out",
        "/etc/passwd",
        secret.to_str().unwrap(),
    ];
    for input in cases {
        let err = guard.resolve_read(input).unwrap_err();
        assert!(
            matches!(err, GuardError::Outside { .. }),
            "input {input:?} gave {err:?}"
        );
    }
}

#[test]
fn outside_error_names_the_path_and_the_workspace() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let err = guard.resolve_read("../x").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "path ../x is outside the workspace {}; only paths inside the workspace are allowed",
            f.ws.display()
        )
    );
}

#[test]
fn symlink_loop_and_empty_path_are_errors() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    assert!(matches!(
        guard.resolve_read("loop_a/x"),
        Err(GuardError::Resolve { .. })
    ));
    assert!(matches!(
        guard.resolve_read(""),
        Err(GuardError::EmptyPath { .. })
    ));
}

#[test]
fn root_is_canonicalized_and_must_be_a_directory() {
    let f = fixture();
    let via_symlink = f.ws.join("inner");
    let guard = WorkspaceGuard::new(&via_symlink).unwrap();
    assert_eq!(guard.root(), f.ws.join("src").as_path());
    assert!(matches!(
        WorkspaceGuard::new(&f.ws.join("notes.txt")),
        Err(GuardError::RootNotADirectory { .. })
    ));
    assert!(matches!(
        WorkspaceGuard::new(Path::new("/definitely/not/here")),
        Err(GuardError::Root { .. })
    ));
}

#[test]
fn display_is_relative_to_the_root() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    assert_eq!(guard.display(&f.ws.join("src/lib.rs")), "src/lib.rs");
    assert_eq!(guard.display(&f.ws), ".");
    assert_eq!(guard.display(Path::new("/etc")), "/etc");
}

#[test]
fn read_roots_allow_reading_but_not_writing() {
    let f = fixture();
    let saved = f.outside.join("outputs/session-1");
    let guard = WorkspaceGuard::new(&f.ws)
        .unwrap()
        .with_read_root(&saved)
        .unwrap();
    let file = saved.join("0001-bash.txt");
    let path = file.display().to_string();
    assert_eq!(guard.resolve_read(&path).unwrap(), file);
    assert!(matches!(
        guard.resolve_write(&path),
        Err(GuardError::Outside { .. })
    ));
    let sibling = f.outside.join("outputs/session-2/0001-bash.txt");
    assert!(guard.resolve_read(&sibling.display().to_string()).is_err());
}

#[test]
fn a_hard_link_to_a_secret_is_refused_and_other_hard_links_are_not() {
    let f = fixture();
    let home = f.outside.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    std::fs::hard_link(home.join(".ssh/id_ed25519"), f.ws.join("innocent.txt")).unwrap();
    std::fs::hard_link(f.ws.join("notes.txt"), f.ws.join("notes-link.txt")).unwrap();
    let sensitive = SensitivePaths::new(["~/.ssh"], Some(&home)).unwrap();
    let guard = WorkspaceGuard::new(&f.ws)
        .unwrap()
        .with_sensitive(sensitive);
    let err = guard.resolve_read("innocent.txt").unwrap_err();
    assert!(matches!(err, GuardError::Sensitive { .. }), "{err}");
    assert!(guard.resolve_read("notes-link.txt").is_ok());
}

#[test]
fn the_lexical_shortcut_finds_what_the_kernel_would_open() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    std::fs::write(f.ws.join("src/twice.rs"), "").unwrap();
    std::fs::hard_link(f.ws.join("src/twice.rs"), f.ws.join("src/again.rs")).unwrap();
    let paths = [
        "",
        "src",
        "src/lib.rs",
        "src/missing.rs",
        "missing/deeper/x",
        "src/lib.rs/below",
        "notes.txt",
        "escape",
        "escape/secret.txt",
        "inner/lib.rs",
        "inner/../notes.txt",
        "src/../escape/secret.txt",
        "dangling_out",
        "dangling_in",
        "./src//lib.rs",
        "src/again.rs",
        "loop_a/x",
    ];
    let lstats = Lstats::default();
    for path in paths {
        let joined = f.ws.join(path);
        let slow = resolve_physical(&joined).map_err(|e| e.kind());
        let fast = guard
            .locate(joined.to_str().unwrap(), &lstats)
            .map_err(|e| match e {
                GuardError::Resolve { source, .. } => source.kind(),
                other => panic!("{path}: {other}"),
            });
        assert_eq!(fast, slow, "{path}");
    }
    // Asked once more, the shared answers give the same paths.
    for path in ["src/lib.rs", "inner/lib.rs", "escape/secret.txt"] {
        let joined = f.ws.join(path);
        assert_eq!(
            guard.locate(joined.to_str().unwrap(), &lstats).unwrap(),
            resolve_physical(&joined).unwrap(),
            "{path}"
        );
    }
}

#[test]
fn a_read_root_inside_a_sensitive_folder_stays_readable_and_its_neighbours_do_not() {
    let f = fixture();
    let data = f.outside.join("data");
    let mine = data.join("outputs/mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(data.join("outputs/other")).unwrap();
    std::fs::write(mine.join("out.txt"), "").unwrap();
    std::fs::write(data.join("outputs/other/out.txt"), "").unwrap();
    std::fs::write(mine.join(".env"), "").unwrap();
    let data_text = data.display().to_string();
    let guard = WorkspaceGuard::new(&f.ws)
        .unwrap()
        .with_sensitive(SensitivePaths::new([data_text.as_str(), ".env*"], None).unwrap())
        .with_read_root(&mine)
        .unwrap();
    let mine_file = mine.join("out.txt");
    assert_eq!(
        guard.resolve_read(mine_file.to_str().unwrap()).unwrap(),
        mine_file
    );
    // Granting a read root lifts the folders around it, not the name patterns inside it.
    let env = mine.join(".env");
    assert!(matches!(
        guard.resolve_read(env.to_str().unwrap()),
        Err(GuardError::Sensitive { .. })
    ));
    // Writes are never granted.
    assert!(guard.resolve_write(mine_file.to_str().unwrap()).is_err());
    let bare = WorkspaceGuard::new(&f.ws)
        .unwrap()
        .with_sensitive(SensitivePaths::new([data_text.as_str()], None).unwrap())
        .with_read_root(&mine)
        .unwrap();
    let other = data.join("outputs/other/out.txt");
    assert!(bare.resolve_read(other.to_str().unwrap()).is_err());
    assert!(bare.sensitive(&other).is_some());
    assert!(bare.sensitive(&mine_file).is_none());
}

#[test]
fn a_name_longer_than_255_bytes_is_refused_however_long_the_path() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let long = |n: usize| "a".repeat(n);
    let cases = [
        (long(255), true),
        (long(256), false),
        (format!("src/{}", long(255)), true),
        (format!("src/{}", long(256)), false),
        (format!("{}/{}", long(200), long(200)), true),
    ];
    for (path, accepted) in cases {
        let refused = matches!(
            guard.resolve_read(&path),
            Err(GuardError::Invalid { ref reason, .. }) if reason.contains("255 bytes")
        );
        assert_eq!(refused, !accepted, "{} bytes", path.len());
    }
}

#[test]
fn an_added_folder_is_read_and_written_like_the_workspace_under_the_same_rules() {
    let f = fixture();
    std::fs::write(f.outside.join(".env"), "KEY=1").unwrap();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let secret = f.outside.join("secret.txt");
    let secret = secret.to_str().unwrap();
    assert!(
        guard.resolve_read(secret).is_err(),
        "outside before it is added"
    );
    let guard = guard.with_added_dir(&f.outside).unwrap();
    assert_eq!(guard.added_dirs(), std::slice::from_ref(&f.outside));
    assert_eq!(
        guard.resolve_read(secret).unwrap(),
        f.outside.join("secret.txt")
    );
    let new = f.outside.join("sub/new.txt");
    assert_eq!(guard.resolve_write(new.to_str().unwrap()).unwrap(), new);
    // Reached through the workspace's symlink too, and never its sensitive files.
    assert!(guard.resolve_read("escape/secret.txt").is_ok());
    let env = f.outside.join(".env");
    assert!(matches!(
        guard.resolve_read(env.to_str().unwrap()),
        Err(GuardError::Sensitive { .. })
    ));
    assert!(guard.in_workspace(&f.outside.join("x")) && !guard.contains(&f.outside.join("x")));
    let roots: Vec<&Path> = guard.roots().collect();
    assert_eq!(roots, [f.ws.as_path(), f.outside.as_path()]);
    // Files open beneath the added folder.
    let checked = guard.open_checked(&f.outside.join("secret.txt"), Access::Read);
    assert!(checked.is_ok(), "{checked:?}");
}

#[test]
fn the_root_a_sensitive_folder_or_a_missing_one_cannot_be_added() {
    let f = fixture();
    let guard = WorkspaceGuard::new(&f.ws).unwrap();
    let refused = |dir: &Path| {
        guard
            .clone()
            .with_added_dir(dir)
            .err()
            .map(|e| e.to_string())
    };
    assert!(
        refused(Path::new("/"))
            .unwrap()
            .contains("the file system root")
    );
    let ssh = f.outside.join(".env.keys");
    std::fs::create_dir_all(&ssh).unwrap();
    assert!(
        refused(&ssh).unwrap().contains("is sensitive"),
        "{:?}",
        refused(&ssh)
    );
    assert!(refused(&f.outside.join("missing")).is_some());
    assert!(refused(&f.outside.join("secret.txt")).is_some(), "a file");
    // A folder already inside the workspace adds nothing.
    let inner = guard.clone().with_added_dir(&f.ws.join("src")).unwrap();
    assert!(inner.added_dirs().is_empty());
}
