//! Removing stored sessions: those not touched for longer than the retention period (at
//! start-up, and `rein sessions --prune`), or one by id (`rein sessions --delete`), each with
//! everything that belongs to it (its saved outputs under `<data>/outputs/<key>/<id>/`, its
//! checkpoints under `<data>/checkpoints/<key>/<id>/`).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{SessionError, SessionStore};

/// Default retention: sessions untouched for 30 days go (Claude Code's
/// `cleanupPeriodDays` default too).
pub const DEFAULT_CLEANUP_DAYS: u64 = 30;

/// A way to remove one session's folder; the bytes freed.
type Remover = fn(&Path) -> u64;

/// The folders of the data directory holding, per workspace key and session id, what belongs
/// to one session, and how each is removed (checkpoints also drop the refs of their git
/// snapshots).
const SESSION_FOLDERS: [(&str, Remover); 3] = [
    ("outputs", remove_tree),
    (super::TASKS_FOLDER, remove_tree),
    (super::CHECKPOINTS_FOLDER, rein_checkpoint::remove),
];

/// One session removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The session id.
    pub id: String,
    /// Its session file (gone now).
    pub file: PathBuf,
    /// Bytes freed (the session file and its outputs).
    pub bytes: u64,
    /// Days since it was last written.
    pub idle_days: u64,
}

/// Removes every session under `data_dir` (every workspace's) last written more than
/// `older_than` before `now`, with its outputs; never the session `keep` (the one being
/// resumed). Outputs folders whose session is gone and that are as old go too. What cannot
/// be removed is skipped.
pub fn prune(
    data_dir: &Path,
    older_than: Duration,
    keep: Option<&str>,
    now: SystemTime,
) -> Vec<Removed> {
    let mut removed = Vec::new();
    let idle = |path: &Path| -> Option<Duration> {
        let modified = std::fs::symlink_metadata(path).ok()?.modified().ok()?;
        Some(now.duration_since(modified).unwrap_or_default())
    };
    for workspace in entries(&data_dir.join("sessions")) {
        let key = workspace.file_name().map(|n| n.to_os_string());
        for file in entries(&workspace) {
            let Some(id) = session_id(&file) else {
                continue;
            };
            if keep == Some(id.as_str()) {
                continue;
            }
            let Some(age) = idle(&file).filter(|age| *age > older_than) else {
                continue;
            };
            let folders = key
                .as_ref()
                .map(|key| session_folders(data_dir, key, &id))
                .unwrap_or_default();
            if let Some(bytes) = remove_session(&file, &folders) {
                removed.push(Removed {
                    id,
                    file,
                    bytes,
                    idle_days: age.as_secs() / 86_400,
                });
            }
        }
    }
    // Outputs and checkpoints of sessions already gone (removed by hand, or by an older rein).
    for (folder, remover) in SESSION_FOLDERS {
        for workspace in entries(&data_dir.join(folder)) {
            prune_orphans(&workspace, data_dir, older_than, keep, &idle, remover);
        }
    }
    removed
}

/// Removes the folders under `workspace` (one workspace's, of one kind) whose session is gone
/// and that are idle for longer than `older_than`.
fn prune_orphans(
    workspace: &Path,
    data_dir: &Path,
    older_than: Duration,
    keep: Option<&str>,
    idle: &dyn Fn(&Path) -> Option<Duration>,
    remover: Remover,
) {
    for folder in entries(workspace) {
        let name = folder.file_name().map(|n| n.to_string_lossy().into_owned());
        // Not a session's: a workspace's shared folder (its snapshots), which goes with the
        // last session that keeps something in it.
        if name.as_deref().is_some_and(|n| n.starts_with('.')) {
            continue;
        }
        let session_file = workspace.file_name().zip(name.as_ref()).map(|(key, id)| {
            data_dir
                .join("sessions")
                .join(key)
                .join(format!("{id}.jsonl"))
        });
        let orphan = session_file.is_some_and(|f| f.symlink_metadata().is_err());
        if orphan && keep != name.as_deref() && idle(&folder).is_some_and(|age| age > older_than) {
            remover(&folder);
        }
    }
}

/// Removes session `id` of `store`'s workspace with its outputs.
pub fn delete(store: &SessionStore, data_dir: &Path, id: &str) -> Result<Removed, SessionError> {
    let file = store.path(id)?;
    if std::fs::symlink_metadata(&file).is_err() {
        return Err(SessionError::NotFound { id: id.to_string() });
    }
    let folders = store
        .dir()
        .file_name()
        .map(|key| session_folders(data_dir, key, id))
        .unwrap_or_default();
    let bytes = remove_session(&file, &folders).ok_or_else(|| SessionError::Io {
        path: file.display().to_string(),
        source: std::io::Error::other("could not remove it"),
    })?;
    Ok(Removed {
        id: id.to_string(),
        file,
        bytes,
        idle_days: 0,
    })
}

/// The folders of session `id` of the workspace with `key`.
fn session_folders(data_dir: &Path, key: &std::ffi::OsStr, id: &str) -> Vec<(PathBuf, Remover)> {
    SESSION_FOLDERS
        .iter()
        .map(|(folder, remover)| (data_dir.join(folder).join(key).join(id), *remover))
        .collect()
}

/// Removes the session file and its folders; the bytes freed, `None` when the file stays.
fn remove_session(file: &Path, folders: &[(PathBuf, Remover)]) -> Option<u64> {
    let mut bytes = std::fs::symlink_metadata(file).ok()?.len();
    std::fs::remove_file(file).ok()?;
    for (folder, remover) in folders {
        bytes += remover(folder);
    }
    Some(bytes)
}

/// Removes a folder; the bytes it held.
fn remove_tree(folder: &Path) -> u64 {
    let bytes = rein_tools::private::tree_size(folder);
    let _ = std::fs::remove_dir_all(folder);
    bytes
}

/// The entries of `dir` (none when it cannot be read), sorted.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    list.sort();
    list
}

/// The id of a session file (`<id>.jsonl`).
fn session_id(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_str()?;
    name.strip_suffix(".jsonl").map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    /// A session file of `workspace_key` last written `days` ago, with one saved output.
    fn session(data: &Path, key: &str, id: &str, days: u64, now: SystemTime) {
        let dir = data.join("sessions").join(key);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{id}.jsonl"));
        std::fs::write(&file, "{}\n").unwrap();
        let outputs = data.join("outputs").join(key).join(id);
        std::fs::create_dir_all(&outputs).unwrap();
        std::fs::write(outputs.join("0001-bash.txt"), "output").unwrap();
        let when = now - DAY * days as u32;
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    #[test]
    fn prune_removes_exactly_the_sessions_idle_too_long_with_their_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path();
        let now = SystemTime::now();
        for (key, id, days) in [
            ("ws-a", "fresh", 1),
            ("ws-a", "month", 29),
            ("ws-a", "old", 31),
            ("ws-b", "ancient", 400),
            ("ws-b", "resumed", 90),
        ] {
            session(data, key, id, days, now);
        }
        // Outputs whose session file is long gone.
        let orphan = data.join("outputs/ws-b/gone");
        std::fs::create_dir_all(&orphan).unwrap();
        std::fs::File::open(&orphan)
            .unwrap()
            .set_modified(now - DAY * 60)
            .unwrap();

        let removed = prune(data, DAY * 30, Some("resumed"), now);
        let mut ids: Vec<(&str, u64)> = removed
            .iter()
            .map(|r| (r.id.as_str(), r.idle_days))
            .collect();
        ids.sort();
        assert_eq!(ids, [("ancient", 400), ("old", 31)]);
        for (key, id, kept) in [
            ("ws-a", "fresh", true),
            ("ws-a", "month", true),
            ("ws-a", "old", false),
            ("ws-b", "ancient", false),
            ("ws-b", "resumed", true),
        ] {
            let file = data.join("sessions").join(key).join(format!("{id}.jsonl"));
            assert_eq!(file.exists(), kept, "{id}");
            assert_eq!(
                data.join("outputs").join(key).join(id).exists(),
                kept,
                "{id} outputs"
            );
        }
        assert!(!orphan.exists());
        assert!(removed.iter().all(|r| r.bytes > 0));
    }

    #[test]
    fn delete_removes_one_session_and_its_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("project");
        std::fs::create_dir(&workspace).unwrap();
        let data = dir.path().join("data");
        let store = SessionStore::new(&data, &workspace);
        let key = store
            .dir()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let now = SystemTime::now();
        session(&data, &key, "one", 0, now);
        session(&data, &key, "two", 0, now);
        let removed = delete(&store, &data, "one").unwrap();
        assert_eq!(removed.id, "one");
        assert!(!store.path("one").unwrap().exists());
        assert!(!data.join("outputs").join(&key).join("one").exists());
        assert!(store.path("two").unwrap().exists());
        assert!(matches!(
            delete(&store, &data, "one"),
            Err(SessionError::NotFound { .. })
        ));
        assert!(matches!(
            delete(&store, &data, "../x"),
            Err(SessionError::InvalidId { .. })
        ));
    }
}
