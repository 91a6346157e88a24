//! Durable jobs on disk: Claude Code's `scheduled_tasks.json` shape (`{"tasks": [{id, cron,
//! prompt, createdAt, recurring}]}`, times in milliseconds since the epoch; a one-shot job
//! also keeps `fireAt`), replaced atomically. One rein process per workspace runs them: it
//! holds an exclusive `flock` on a lock file in rein's data folder while it lives.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use chrono::{DateTime, Local, TimeZone};
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};

use crate::CronExpr;
use crate::job::{Job, Keep, Repeat, Trigger};

/// Largest jobs file read.
const FILE_CAP: u64 = 1024 * 1024;

/// Wraps each write of the jobs file: given the write, does it (a front end records the
/// workspace's trust again after rein's own change of a file trust covers).
pub type SaveWrapper =
    Arc<dyn Fn(&mut dyn FnMut() -> io::Result<()>) -> io::Result<()> + Send + Sync>;

/// Where a workspace's durable jobs are kept.
#[derive(Clone)]
pub struct DurablePlace {
    /// The jobs file (`.rein/scheduled_tasks.json` in a trusted workspace, else a file in
    /// rein's data folder keyed by the workspace).
    pub file: PathBuf,
    /// The folder the file must stay beneath (the workspace, or the data folder's), reached
    /// following no link ([`rein_fs::own`]): a repository shipping `.rein` as a link to
    /// elsewhere makes durable jobs fail, not read or write there.
    pub root: PathBuf,
    /// The lock file the process running them holds (in rein's data folder).
    pub lock: PathBuf,
    /// What each write of the file goes through, if anything.
    pub wrap: Option<SaveWrapper>,
}

impl std::fmt::Debug for DurablePlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurablePlace")
            .field("file", &self.file)
            .field("root", &self.root)
            .field("lock", &self.lock)
            .field("wrap", &self.wrap.is_some())
            .finish()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileShape {
    #[serde(default)]
    tasks: Vec<Stored>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    id: String,
    cron: String,
    prompt: String,
    created_at: i64,
    #[serde(default = "yes")]
    recurring: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fire_at: Option<i64>,
}

fn yes() -> bool {
    true
}

/// The durable jobs' file, owned by this process.
pub(crate) struct Store {
    file: PathBuf,
    root: PathBuf,
    wrap: Option<SaveWrapper>,
    _lock: Arc<Flock<File>>,
}

/// The locks this process holds, by lock file: a session that follows another in the same
/// process (`/clear`) takes over its durable jobs rather than finding them locked.
static HELD: Mutex<Vec<(PathBuf, Weak<Flock<File>>)>> = Mutex::new(Vec::new());

/// The root (`None` when it does not exist yet) and `file` relative to it.
fn beneath(root: &Path, file: &Path) -> io::Result<(Option<rein_fs::own::OwnRoot>, PathBuf)> {
    let rel = file
        .strip_prefix(root)
        .map_err(|_| {
            io::Error::other(format!(
                "{} is not beneath {}",
                file.display(),
                root.display()
            ))
        })?
        .to_path_buf();
    if !root.exists() {
        return Ok((None, rel));
    }
    let own = rein_fs::own::OwnRoot::new(root).map_err(io::Error::other)?;
    Ok((Some(own), rel))
}

/// The lock at `path`, held by this process already or taken now.
fn take_lock(path: &Path) -> Result<Arc<Flock<File>>, StoreError> {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.retain(|(_, lock)| lock.strong_count() > 0);
    if let Some(lock) = held
        .iter()
        .find(|(held, _)| held == path)
        .and_then(|(_, lock)| lock.upgrade())
    {
        return Ok(lock);
    }
    let io_error = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        rein_fs::private::create_private_dir_all(dir).map_err(io_error)?;
    }
    let file = rein_fs::private::private_options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_error)?;
    let lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Arc::new(lock),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => return Err(StoreError::Elsewhere),
        Err((_, errno)) => return Err(io_error(io::Error::from(errno))),
    };
    held.push((path.to_path_buf(), Arc::downgrade(&lock)));
    Ok(lock)
}

/// Why the durable jobs are not run by this process.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another rein process in the workspace holds the lock.
    #[error("durable jobs of this workspace are run by another rein session in it")]
    Elsewhere,
    /// The file or the lock could not be used.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The file is not a jobs file (it is left as it is).
    #[error("{path} is not a jobs file ({why}); it is left as it is")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

impl Store {
    /// Takes the lock and reads the jobs: those that still fire, and a note for each left
    /// out (expired, missed while rein was not running, unreadable).
    pub(crate) fn open(
        place: &DurablePlace,
        now: DateTime<Local>,
    ) -> Result<(Self, Vec<Job>, Vec<String>), StoreError> {
        let lock = take_lock(&place.lock)?;
        let invalid = |why: String| StoreError::Invalid {
            path: place.file.clone(),
            why,
        };
        let (own, rel) = beneath(&place.root, &place.file).map_err(|e| invalid(e.to_string()))?;
        let text = match &own {
            Some(own) => own
                .read(&rel, FILE_CAP)
                .map_err(|e| invalid(e.to_string()))?,
            // The root is not there yet: nothing was saved beneath it.
            None => None,
        };
        let shape: FileShape = match text {
            None => FileShape::default(),
            Some(text) => serde_json::from_str(&text).map_err(|e| StoreError::Invalid {
                path: place.file.clone(),
                why: e.to_string(),
            })?,
        };
        let mut notes = Vec::new();
        let jobs = shape
            .tasks
            .into_iter()
            .filter_map(|stored| restore(stored, now).map_err(|note| notes.push(note)).ok())
            .collect();
        let store = Self {
            file: place.file.clone(),
            root: place.root.clone(),
            wrap: place.wrap.clone(),
            _lock: lock,
        };
        Ok((store, jobs, notes))
    }

    /// Replaces the file with the durable ones of `jobs`.
    pub(crate) fn save<'a>(&self, jobs: impl Iterator<Item = &'a Job>) -> io::Result<()> {
        let tasks = jobs
            .filter(|job| job.keep == Keep::Durable)
            .filter_map(|job| {
                let Trigger::Cron(expr, repeat) = &job.trigger else {
                    return None;
                };
                Some(Stored {
                    id: job.id.clone(),
                    cron: expr.as_str().to_string(),
                    prompt: job.prompt.clone(),
                    created_at: job.created.timestamp_millis(),
                    recurring: *repeat == Repeat::Recurring,
                    fire_at: (*repeat == Repeat::Once).then(|| job.next.timestamp_millis()),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&FileShape { tasks }).map_err(io::Error::other)?;
        let mut write = || {
            std::fs::create_dir_all(&self.root)?;
            let (own, rel) = beneath(&self.root, &self.file)?;
            let own = own.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            if let Some(folder) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                own.create_dir(folder).map_err(io::Error::other)?;
            }
            let file = own.check(&rel).map_err(io::Error::other)?;
            rein_fs::write_atomic_private(&file, format!("{text}\n").as_bytes())
        };
        match &self.wrap {
            Some(wrap) => wrap(&mut write),
            None => write(),
        }
    }
}

/// A stored job as it fires from `now` on, or why it is left out.
fn restore(stored: Stored, now: DateTime<Local>) -> Result<Job, String> {
    let id = stored.id.clone();
    let expr = CronExpr::parse(&stored.cron).map_err(|e| format!("job {id} left out: {e}"))?;
    let created = Local
        .timestamp_millis_opt(stored.created_at)
        .single()
        .ok_or_else(|| format!("job {id} left out: createdAt is not a time"))?;
    let repeat = match stored.recurring {
        true => Repeat::Recurring,
        false => Repeat::Once,
    };
    let next = match (repeat, stored.fire_at) {
        (Repeat::Once, Some(ms)) => Local.timestamp_millis_opt(ms).single(),
        (Repeat::Once, None) => expr.next_after(created),
        (Repeat::Recurring, _) => expr.next_after(now),
    }
    .ok_or_else(|| format!("job {id} left out: it matches no time"))?;
    let job = Job {
        id: id.clone(),
        trigger: Trigger::Cron(expr, repeat),
        prompt: stored.prompt,
        keep: Keep::Durable,
        created,
        next,
        reason: None,
    };
    if repeat == Repeat::Once && next < now {
        return Err(format!(
            "job {id} was due at {} while rein was not running; it is dropped (missed \
             firings are not made up)",
            crate::job::stamp(next)
        ));
    }
    if job.expires().is_some_and(|expires| now >= expires) {
        return Err(format!(
            "job {id} expired (recurring jobs end 7 days after they are made); it is dropped"
        ));
    }
    Ok(job)
}
