//! Replacing a file's contents atomically: readers see the old bytes or the new ones, never a
//! mix, and a crash mid-write leaves the old file in place.

use std::ffi::{OsStr, OsString};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use nix::sys::stat::SFlag;

use crate::beneath::Dir;

/// Temp names tried before giving up (each is random, so a clash is all but impossible).
const TEMP_ATTEMPTS: usize = 16;

/// Writes `bytes` to `path` through a temp file in the same directory and a rename. An
/// existing file keeps its permissions; a new one gets the default mode for new files
/// (`0o666` minus the umask). The parent directory must exist.
///
/// The path is taken as it is (symlinks in it followed): for files the workspace guard does
/// not check. The file tools write what the guard checked through descriptors instead.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mode = match std::fs::metadata(path) {
        Ok(meta) => meta.mode() & 0o7777,
        Err(_) => default_new_file_mode(),
    };
    write_new(&Dir::open_following(dir)?, name, bytes, mode)
}

/// [`write_atomic`] for rein's own data (trust records): the file ends up `0600` whatever its
/// mode was and whatever the umask.
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mode = crate::private::PRIVATE_FILE_MODE;
    write_new(&Dir::open_following(dir)?, name, bytes, mode)
}

/// [`write_atomic`] for the file `name` in the open folder `dir`: the temp file is created,
/// written and renamed through the folder's descriptor. An existing regular file's mode is
/// kept (a symlink there is replaced, never written through).
// `mode_t` is `u32` on Linux, `u16` on macOS.
#[allow(clippy::useless_conversion)]
pub fn write_atomic_in(dir: &Dir, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    let mode = match dir.entry(name)? {
        Some(stat) if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG => {
            u32::from(stat.st_mode) & 0o7777
        }
        _ => default_new_file_mode(),
    };
    write_new(dir, name, bytes, mode)
}

/// [`write_atomic_in`], running `check` after the temp file is written and before it replaces
/// `name` (a failed check writes nothing), then `after` on the new file once it is in place
/// (positioned at its end).
#[allow(clippy::useless_conversion)]
pub fn write_atomic_in_checked(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    check: impl FnOnce() -> io::Result<()>,
    after: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let mode = match dir.entry(name)? {
        Some(stat) if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG => {
            u32::from(stat.st_mode) & 0o7777
        }
        _ => default_new_file_mode(),
    };
    match write_new_checked(dir, name, bytes, mode, check)? {
        Some(mut file) => after(&mut file),
        None => Ok(()),
    }
}

/// The temp file, written, given `mode` and renamed to `name` in `dir`; removed again on
/// failure. A symlink at `name` is replaced, never written through.
pub fn write_new(dir: &Dir, name: &OsStr, bytes: &[u8], mode: u32) -> io::Result<()> {
    write_new_checked(dir, name, bytes, mode, || Ok(())).map(drop)
}

/// [`write_new`] with `check` just before the rename.
fn write_new_checked(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    mode: u32,
    check: impl FnOnce() -> io::Result<()>,
) -> io::Result<Option<std::fs::File>> {
    let (mut file, temp) = create_temp(dir)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.set_permissions(std::fs::Permissions::from_mode(mode)))
        .and_then(|()| check())
        .and_then(|()| dir.rename(&temp, name));
    match written {
        // The descriptor now names the new file.
        Ok(()) => Ok(Some(file)),
        Err(e) => {
            let _ = dir.remove_file(&temp);
            Err(e)
        }
    }
}

/// A new, empty temp file in `dir` with a random name, and that name.
fn create_temp(dir: &Dir) -> io::Result<(std::fs::File, OsString)> {
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..TEMP_ATTEMPTS {
        let random = RandomState::new().hash_one(std::time::SystemTime::now());
        let temp = OsString::from(format!(".rein-write-{random:016x}.tmp"));
        match dir.create_new(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// `0o666` minus the process umask, as `open(O_CREAT, 0o666)` would give.
#[allow(clippy::useless_conversion)]
fn default_new_file_mode() -> u32 {
    // Reading the umask means setting it; restore at once. Only rein's own threads share it and
    // none of them creates files with a mode that depends on it in between.
    let mask = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
    nix::sys::stat::umask(mask);
    0o666 & !u32::from(mask.bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_contents_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o751);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left behind");
    }

    #[test]
    fn new_files_get_the_usual_mode_not_the_temp_files_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        write_atomic(&path, b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(
            mode & 0o044,
            0,
            "readable by others unless the umask says no: {mode:o}"
        );
    }

    #[test]
    fn a_missing_parent_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(&dir.path().join("no/such/file"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
