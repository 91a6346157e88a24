//! The board on disk: `<id>.json` per task and `index.json` (the next id and a change
//! counter), private files replaced atomically, every change under an exclusive `flock` on
//! `.lock`.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use rein_protocol::BoardTask;
use serde::{Deserialize, Serialize};

use crate::{BoardError, State, Touched};

const INDEX: &str = "index.json";
const LOCK: &str = ".lock";
/// Largest task file read (a task is at most a 64 KiB description and a little more).
const TASK_FILE_CAP: u64 = 1024 * 1024;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    next_id: u64,
    generation: u64,
}

/// The board's folder.
#[derive(Debug)]
pub(crate) struct Store {
    dir: PathBuf,
}

/// The exclusive lock of the board's folder, held while it lives.
pub(crate) struct Locked {
    _lock: Flock<File>,
}

impl Store {
    /// The board in `dir`; the folder is made (`0700`) at the first change, so a session
    /// that never plans leaves nothing behind.
    pub(crate) fn open(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    /// Whether anything was ever written here.
    pub(crate) fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Waits for the folder's lock (making the folder when it is not there yet).
    pub(crate) fn lock(&self) -> Result<Locked, BoardError> {
        rein_fs::private::create_private_dir_all(&self.dir)
            .map_err(|source| io_error(&self.dir, source))?;
        let path = self.dir.join(LOCK);
        let file = rein_fs::private::private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|source| io_error(&path, source))?;
        let lock = Flock::lock(file, FlockArg::LockExclusive)
            .map_err(|(_, errno)| io_error(&path, io::Error::from(errno)))?;
        Ok(Locked { _lock: lock })
    }

    /// The state on disk when another process changed it since `state` was read.
    pub(crate) fn refresh(&self, state: &State) -> Result<Option<State>, BoardError> {
        let index = self.index()?;
        if index.generation == state.generation {
            return Ok(None);
        }
        self.load().map(Some)
    }

    /// Every task file and the index. A file that cannot be read is skipped (and kept: its id
    /// is never given again).
    pub(crate) fn load(&self) -> Result<State, BoardError> {
        let index = self.index()?;
        let mut tasks = BTreeMap::new();
        let mut highest = 0;
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(State::default()),
            Err(e) => return Err(io_error(&self.dir, e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(key) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            highest = highest.max(key);
            if let Some(task) = read_task(&entry.path(), key) {
                tasks.insert(key, task);
            }
        }
        Ok(State {
            tasks,
            next_id: index.next_id.max(highest + 1),
            generation: index.generation,
        })
    }

    /// Writes the tasks `touched` names, removes the ones it removed, then the index.
    pub(crate) fn save(&self, state: &State, touched: &Touched) -> Result<(), BoardError> {
        for key in &touched.written {
            let Some(task) = state.tasks.get(key) else {
                continue;
            };
            let path = self.task_path(*key);
            let bytes = serde_json::to_vec_pretty(task).map_err(|e| io_error(&path, e.into()))?;
            rein_fs::write_atomic_private(&path, &bytes).map_err(|e| io_error(&path, e))?;
        }
        for key in &touched.removed {
            let path = self.task_path(*key);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error(&path, e)),
                _ => {}
            }
        }
        let index = Index {
            next_id: state.next_id,
            generation: state.generation,
        };
        let path = self.dir.join(INDEX);
        let bytes = serde_json::to_vec(&index).map_err(|e| io_error(&path, e.into()))?;
        rein_fs::write_atomic_private(&path, &bytes).map_err(|e| io_error(&path, e))
    }

    fn index(&self) -> Result<Index, BoardError> {
        let path = self.dir.join(INDEX);
        match read_small(&path, 64 * 1024) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Index::default()),
            Err(e) => Err(io_error(&path, e)),
        }
    }

    fn task_path(&self, key: u64) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }
}

/// Task `key`'s file, when it is a readable task with that id.
fn read_task(path: &Path, key: u64) -> Option<BoardTask> {
    let bytes = read_small(path, TASK_FILE_CAP).ok()?;
    let task: BoardTask = serde_json::from_slice(&bytes).ok()?;
    (task.id == key.to_string()).then_some(task)
}

/// The bytes of `path`, refused past `cap` (a planted huge file is not read whole).
fn read_small(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    File::open(path)?.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!("larger than {cap} bytes")));
    }
    Ok(bytes)
}

fn io_error(path: &Path, source: io::Error) -> BoardError {
    BoardError::Io {
        path: path.display().to_string(),
        source,
    }
}
