//! Replacing a file's contents atomically: readers see the old bytes or the new ones, never a
//! mix, and a crash mid-write leaves the old file in place.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` through a temp file in the same directory and a rename. An
/// existing file keeps its permissions; a new one gets the default mode for new files
/// (`0o666` minus the umask). The parent directory must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(path).ok();
    let mut temp = tempfile::Builder::new()
        .prefix(".rein-write-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    match existing {
        Some(meta) => temp.as_file().set_permissions(meta.permissions())?,
        None => temp.as_file().set_permissions(default_new_file_mode()?)?,
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `0o666` minus the process umask, as `open(O_CREAT, 0o666)` would give.
fn default_new_file_mode() -> io::Result<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    // Reading the umask means setting it; restore at once. Only rein's own threads share it and
    // none of them creates files with a mode that depends on it in between.
    let mask = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
    nix::sys::stat::umask(mask);
    Ok(std::fs::Permissions::from_mode(0o666 & !mask.bits()))
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
