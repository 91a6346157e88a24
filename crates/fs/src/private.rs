//! rein's own stored data (sessions, saved outputs, prompt history, trust records): folders
//! `0700` and files `0600` whatever the umask, so other users of a shared machine cannot read
//! a transcript. Workspace files never go through here: they keep the user's modes.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of every folder rein creates for its data.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Mode of every file rein creates for its data.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Creates `dir` and any missing parents as `0700` (existing ones are left as they are; see
/// [`narrow_tree`]).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = DirBuilder::new();
    builder.recursive(true).mode(PRIVATE_DIR_MODE);
    builder.create(dir)?;
    Ok(())
}

/// Options that create a file as `0600` (with the umask only able to narrow it further).
pub fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(PRIVATE_FILE_MODE);
    options
}

/// Creates `path` (which must not exist) as `0600` with `bytes`.
pub fn write_private_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file: File = private_options().write(true).create_new(true).open(path)?;
    file.write_all(bytes)
}

/// Bytes of the files under `path` (or of `path` itself when it is a file); symlinks count as
/// themselves and are not followed; what cannot be read counts 0.
pub fn tree_size(path: &Path) -> u64 {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| tree_size(&entry.path()))
            .sum(),
        Ok(meta) => meta.len(),
        Err(_) => 0,
    }
}

/// Narrows `root` and everything under it to `0700` folders and `0600` files when `root` is
/// readable, writable or searchable by others; returns how many entries changed (0 when the
/// root was already private, without looking further). Symlinks are neither followed nor
/// changed.
pub fn narrow_tree(root: &Path) -> io::Result<usize> {
    let meta = match std::fs::symlink_metadata(root) {
        Ok(meta) if meta.is_dir() => meta,
        Ok(_) => return Ok(0),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    if meta.permissions().mode() & 0o077 == 0 {
        return Ok(0);
    }
    let mut changed = 0;
    narrow(root, true, &mut changed)?;
    Ok(changed)
}

fn narrow(path: &Path, is_dir: bool, changed: &mut usize) -> io::Result<()> {
    let wanted = if is_dir {
        PRIVATE_DIR_MODE
    } else {
        PRIVATE_FILE_MODE
    };
    let mode = std::fs::symlink_metadata(path)?.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & wanted))?;
        *changed += 1;
    }
    if is_dir {
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() || kind.is_file() {
                narrow(&entry.path(), kind.is_dir(), changed)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn created_data_is_private_and_wide_trees_are_narrowed_once() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data/rein/sessions");
        create_private_dir_all(&data).unwrap();
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&dir.path().join("data/rein")), 0o700);
        let file = data.join("s.jsonl");
        write_private_new(&file, b"x").unwrap();
        assert_eq!(mode(&file), 0o600);

        // An older rein left the tree readable by everyone.
        let root = dir.path().join("data/rein");
        for (path, wide) in [(&root, 0o755), (&data, 0o755), (&file, 0o644)] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(wide)).unwrap();
        }
        assert_eq!(narrow_tree(&root).unwrap(), 3);
        assert_eq!(
            (mode(&root), mode(&data), mode(&file)),
            (0o700, 0o700, 0o600)
        );
        assert_eq!(narrow_tree(&root).unwrap(), 0);
        assert_eq!(narrow_tree(&dir.path().join("missing")).unwrap(), 0);
    }
}
