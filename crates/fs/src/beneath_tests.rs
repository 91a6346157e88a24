use super::*;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;

/// A temp tree: `root/a/b/file.txt` and, next to `root`, `outside/secret.txt`; `root/out` is a
/// symlink to `outside` and `root/inner` one to `a`.
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/file.txt"), "inside").unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.txt"), "secret").unwrap();
    symlink(base.join("outside"), root.join("out")).unwrap();
    symlink("a", root.join("inner")).unwrap();
    symlink(base.join("outside/secret.txt"), root.join("a/secret-link")).unwrap();
    (dir, root)
}

fn read(dir: &Dir, name: &str) -> io::Result<String> {
    let mut text = String::new();
    dir.open_read(OsStr::new(name))?.read_to_string(&mut text)?;
    Ok(text)
}

#[test]
fn both_walks_open_plain_paths_and_refuse_every_symlink_on_the_way() {
    let (_dir, root) = tree();
    let base = Dir::open_canonical(&root).unwrap();
    for walk in [Walk::Kernel, Walk::Components] {
        let b = base.dir_by(Path::new("a/b"), walk).unwrap();
        assert_eq!(read(&b, "file.txt").unwrap(), "inside", "{walk:?}");
        for rel in ["out", "inner/b", "a/secret-link"] {
            let err = base.dir_by(Path::new(rel), walk).unwrap_err();
            assert!(
                err.to_string()
                    .contains("the path changed while it was being opened"),
                "{walk:?} {rel}: {err}"
            );
        }
        let missing = base.dir_by(Path::new("a/nope"), walk).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound, "{walk:?}");
        let file = base.dir_by(Path::new("a/b/file.txt"), walk).unwrap_err();
        assert_eq!(file.kind(), io::ErrorKind::NotADirectory, "{walk:?}");
        for climbing in ["..", "a/../..", "/etc"] {
            let err = base.dir_by(Path::new(climbing), walk).unwrap_err();
            assert_eq!(
                err.kind(),
                io::ErrorKind::InvalidInput,
                "{walk:?} {climbing}"
            );
        }
    }
}

#[test]
fn a_symlinked_file_is_not_opened_and_a_folder_opens_as_itself() {
    let (_dir, root) = tree();
    let a = Dir::open_canonical(&root.join("a")).unwrap();
    let err = read(&a, "secret-link").unwrap_err();
    assert!(err.to_string().contains("the path changed"), "{err}");
    let itself = a.open_read(OsStr::new(".")).unwrap();
    assert!(itself.metadata().unwrap().is_dir());
}

#[test]
fn the_canonical_root_itself_must_not_cross_a_symlink() {
    let (_dir, root) = tree();
    assert!(Dir::open_canonical(&root.join("inner/b")).is_err());
    assert!(Dir::open_canonical(Path::new("relative")).is_err());
    assert!(Dir::open_canonical(Path::new("/")).is_ok());
}

#[test]
fn missing_folders_are_created_but_not_through_a_symlink() {
    let (_dir, root) = tree();
    let base = Dir::open_canonical(&root).unwrap();
    let made = base.create_dirs(Path::new("a/new/deeper")).unwrap();
    made.create_new(OsStr::new("x.txt"))
        .unwrap()
        .write_all(b"x")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("a/new/deeper/x.txt")).unwrap(),
        "x"
    );
    let err = base.create_dirs(Path::new("out/planted")).unwrap_err();
    assert!(err.to_string().contains("the path changed"), "{err}");
    assert!(!root.parent().unwrap().join("outside/planted").exists());
}

#[test]
fn entries_renames_and_removals_stay_in_the_folder() {
    let (_dir, root) = tree();
    let a = Dir::open_canonical(&root.join("a")).unwrap();
    let link = a.entry(OsStr::new("secret-link")).unwrap().unwrap();
    assert_eq!(
        SFlag::from_bits_truncate(link.st_mode) & SFlag::S_IFMT,
        SFlag::S_IFLNK
    );
    assert!(a.entry(OsStr::new("nope")).unwrap().is_none());
    a.create_new(OsStr::new("new")).unwrap();
    // Renaming over the symlink replaces the link; the outside file is untouched.
    a.rename(OsStr::new("new"), OsStr::new("secret-link"))
        .unwrap();
    let outside = root.parent().unwrap().join("outside/secret.txt");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
    assert!(
        std::fs::symlink_metadata(root.join("a/secret-link"))
            .unwrap()
            .is_file()
    );
    a.remove_file(OsStr::new("secret-link")).unwrap();
    assert!(a.entry(OsStr::new("secret-link")).unwrap().is_none());
}

#[test]
fn split_names_the_folder_itself_dot() {
    assert_eq!(
        split(Path::new("a/b.txt")),
        (Path::new("a"), OsString::from("b.txt"))
    );
    assert_eq!(
        split(Path::new("b.txt")),
        (Path::new(""), OsString::from("b.txt"))
    );
    assert_eq!(split(Path::new("")), (Path::new(""), OsString::from(".")));
}

#[test]
fn the_component_walk_never_reads_through_a_folder_swapped_for_a_symlink() {
    use nix::fcntl::{RenameFlags, renameat2};
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_dir, root) = tree();
    std::fs::write(root.parent().unwrap().join("outside/file.txt"), "secret").unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = std::thread::spawn({
        let (stop, a, b) = (stop.clone(), root.join("a/b"), root.join("out"));
        move || {
            while !stop.load(Ordering::Relaxed) {
                renameat2(AT_FDCWD, &a, AT_FDCWD, &b, RenameFlags::RENAME_EXCHANGE).unwrap();
            }
        }
    });
    let base = Dir::open_canonical(&root).unwrap();
    let (mut read_inside, mut refused) = (0, 0);
    // At least 3,000 opens, and on until both outcomes were seen (a loaded machine may start
    // the swapper late).
    for i in 0..200_000 {
        if i >= 3_000 && read_inside > 0 && refused > 0 {
            break;
        }
        match base
            .dir_by(Path::new("a/b"), Walk::Components)
            .and_then(|b| read(&b, "file.txt"))
        {
            Ok(text) => {
                assert_eq!(text, "inside");
                read_inside += 1;
            }
            Err(_) => refused += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        read_inside > 0 && refused > 0,
        "{read_inside} read, {refused} refused"
    );
}
