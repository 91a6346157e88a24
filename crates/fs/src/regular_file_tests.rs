use std::io::Read;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

/// The special files a cloned repository can hold where rein expects a small text file.
pub(crate) fn plant_special_files(dir: &Path) {
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
    nix::unistd::mkfifo(&dir.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    // Sparse: ten megabytes that take no disk.
    std::fs::File::create(dir.join("huge"))
        .unwrap()
        .set_len(10 * 1024 * 1024)
        .unwrap();
}

#[test]
fn special_files_are_refused_promptly_and_named() {
    let dir = tempfile::tempdir().unwrap();
    plant_special_files(dir.path());
    let folder = dir.path().to_path_buf();
    let refusals: Vec<String> = rein_testkit::without_hanging("reading special files", move || {
        ["zero", "fifo", "folder", "huge"]
            .iter()
            .map(|name| {
                read_regular(&folder.join(name), 1024)
                    .unwrap_err()
                    .to_string()
            })
            .collect()
    });
    let d = dir.path().display();
    assert_eq!(
        refusals,
        vec![
            format!("{d}/zero is a character device, not a regular file"),
            format!("{d}/fifo is a FIFO, not a regular file"),
            format!("{d}/folder is a directory, not a regular file"),
            format!("{d}/huge is larger than 1 KiB (the most rein reads of it)"),
        ]
    );
}

#[test]
fn a_regular_file_within_the_cap_is_read_and_a_symlink_to_one_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "be brief\n").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", dir.path().join("CLAUDE.md")).unwrap();
    for name in ["AGENTS.md", "CLAUDE.md"] {
        assert_eq!(
            read_regular(&dir.path().join(name), 9).unwrap(),
            Some("be brief\n".to_string())
        );
    }
    assert!(matches!(
        read_regular(&dir.path().join("AGENTS.md"), 8),
        Err(ReadRefusal::TooLarge { cap: 8, .. })
    ));
}

#[test]
fn nothing_there_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    assert_eq!(read_regular(&dir.path().join("missing"), 10).unwrap(), None);
    // A file where a folder was expected (`.claude` a file, `.claude/settings.json` asked).
    assert_eq!(
        read_regular(&dir.path().join("file/inner"), 10).unwrap(),
        None
    );
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    assert_eq!(
        read_regular(&dir.path().join("dangling"), 10).unwrap(),
        None
    );
}

#[test]
fn a_read_stops_one_byte_past_the_cap_however_long_the_source() {
    // An endless source (what /dev/zero is), read through the cap: no endless read.
    let mut counted = 0u64;
    let endless = std::io::repeat(b'a')
        .take(u64::MAX)
        .inspect_bytes(&mut counted);
    let refused = read_capped(endless, 4096, Path::new("endless")).unwrap_err();
    assert!(matches!(refused, ReadRefusal::TooLarge { cap: 4096, .. }));
    assert!(counted <= 4097 + 8192, "read {counted} bytes");
}

#[test]
fn text_that_is_not_utf8_is_refused_but_its_bytes_can_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1");
    std::fs::write(&path, [0xe9, b'\n']).unwrap();
    assert!(matches!(
        read_regular(&path, 10),
        Err(ReadRefusal::NotText { .. })
    ));
    assert_eq!(
        read_regular_bytes(&path, 10).unwrap(),
        Some(vec![0xe9, b'\n'])
    );
}

/// Counts the bytes a reader hands out.
trait InspectBytes: Read + Sized {
    fn inspect_bytes(self, counted: &mut u64) -> Counting<'_, Self> {
        Counting {
            inner: self,
            counted,
        }
    }
}

impl<R: Read> InspectBytes for R {}

struct Counting<'a, R> {
    inner: R,
    counted: &'a mut u64,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        *self.counted += n as u64;
        Ok(n)
    }
}
