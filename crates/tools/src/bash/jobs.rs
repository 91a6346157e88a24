//! Background shells: `bash` with `run_in_background` starts a job and returns its id at once;
//! `bash_output` reads what it printed since the last read, `kill_shell` ends it. A job's
//! output goes to a private log file (capped like saved outputs); its process group is killed
//! when the job is killed or when the session's job table goes away.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::process::{self, Ending, OutputFile};
use crate::HiddenEnv;

/// A job runs until it ends, is killed, or this long passes.
const JOB_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// How a job stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobStatus {
    /// Still running.
    Running,
    /// The shell exited with this code.
    Exited(i32),
    /// A signal rein did not send ended it.
    Signalled(i32),
    /// `kill_shell` or the end of the session ended it.
    Killed,
    /// It could not start, or ran past its lifetime.
    Failed(String),
}

impl std::fmt::Display for JobStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Running => f.write_str("running"),
            Self::Exited(code) => write!(f, "exited with code {code}"),
            Self::Signalled(signal) => write!(f, "killed by signal {signal}"),
            Self::Killed => f.write_str("killed"),
            Self::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// One background job as the table keeps it.
struct Job {
    id: String,
    command: String,
    log: PathBuf,
    /// Bytes of the log the model has read.
    read: u64,
    status: Arc<Mutex<JobStatus>>,
    cancel: CancellationToken,
    /// Whether the model has seen it end (a read after the end, or a notice).
    told_end: bool,
}

/// What a read of a job gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRead {
    /// The output since the last read (filtered when asked), hidden values redacted.
    pub text: String,
    /// How the job stands.
    pub status: JobStatus,
    /// Bytes of new output not returned by this read (past its size limit): the next read
    /// continues there.
    pub more: u64,
}

/// A job as `/tasks` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSummary {
    /// Its id (`bg_1`).
    pub id: String,
    /// The command line.
    pub command: String,
    /// How it stands.
    pub status: JobStatus,
}

/// The session's background jobs; clones share one table. When the last clone goes, every
/// job still running is killed.
#[derive(Clone, Default)]
pub struct Jobs(Arc<Table>);

#[derive(Default)]
struct Table {
    next: AtomicU32,
    jobs: Mutex<Vec<Job>>,
    /// Where the logs are; removed with the table.
    dir: Mutex<Option<tempfile::TempDir>>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs")
            .field("jobs", &self.list().len())
            .finish()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        let jobs = self.jobs.get_mut().unwrap_or_else(|p| p.into_inner());
        for job in jobs.iter() {
            job.cancel.cancel();
        }
    }
}

impl Jobs {
    /// Starts `command` (built as a `bash` call would run it) as a job; returns its id.
    /// `held` (its temp folder, the read end of its exit-trap pipe) lives until the job ends.
    pub(crate) fn start(
        &self,
        command: Command,
        held: Box<dyn Send>,
        line: &str,
        hidden: HiddenEnv,
    ) -> Result<String, JobError> {
        let n = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("bg_{n}");
        let log = self.log_dir()?.join(format!("{id}.log"));
        let file = OutputFile::log(log.clone(), hidden).map_err(JobError::Log)?;
        let status = Arc::new(Mutex::new(JobStatus::Running));
        let cancel = CancellationToken::new();
        let (ended, token) = (Arc::clone(&status), cancel.clone());
        tokio::spawn(async move {
            let finished =
                process::run_in_group(command, JOB_LIFETIME, &token, 1024, Some(file), None).await;
            drop(held);
            let end = match finished {
                Ok(finished) => match finished.ending {
                    Ending::Exited(code) => JobStatus::Exited(code),
                    Ending::Signalled(signal) => JobStatus::Signalled(signal),
                    Ending::Cancelled => JobStatus::Killed,
                    Ending::TimedOut => JobStatus::Failed("ran for 24 hours and was killed".into()),
                },
                Err(e) => JobStatus::Failed(format!("cannot start bash: {e}")),
            };
            *ended.lock().unwrap_or_else(|p| p.into_inner()) = end;
        });
        self.table().push(Job {
            id: id.clone(),
            command: line.to_string(),
            log,
            read: 0,
            status,
            cancel,
            told_end: false,
        });
        Ok(id)
    }

    /// The output of job `id` since the last read, at most `limit` bytes of it, keeping only
    /// lines `filter` matches (the others are read and dropped).
    pub fn read(
        &self,
        id: &str,
        filter: Option<&regex::Regex>,
        limit: usize,
        hidden: &HiddenEnv,
    ) -> Result<JobRead, JobError> {
        let mut table = self.table();
        let job = find(&mut table, id)?;
        // The status first: output written before the end is then all in the log.
        let status = job.status.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let unreadable = |source| JobError::Output {
            id: id.to_string(),
            source,
        };
        let mut file = std::fs::File::open(&job.log).map_err(unreadable)?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let available = size.saturating_sub(job.read);
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(job.read))
            .and_then(|_| (&mut file).take(limit as u64).read_to_end(&mut bytes))
            .map_err(unreadable)?;
        // Whole lines only, unless a single line is longer than the limit.
        if (bytes.len() as u64) < available
            && let Some(end) = bytes.iter().rposition(|&b| b == b'\n')
        {
            bytes.truncate(end + 1);
        }
        job.read += bytes.len() as u64;
        if status != JobStatus::Running && job.read >= size {
            job.told_end = true;
        }
        let text = String::from_utf8_lossy(&bytes);
        let text = match filter {
            Some(filter) => text
                .lines()
                .filter(|line| filter.is_match(line))
                .map(|line| format!("{line}\n"))
                .collect(),
            None => text.into_owned(),
        };
        Ok(JobRead {
            text: hidden.redact(&text).into_owned(),
            status,
            more: size.saturating_sub(job.read),
        })
    }

    /// How job `id` stands, and whether it has output not read yet.
    pub fn poll(&self, id: &str) -> Result<(JobStatus, bool), JobError> {
        let mut table = self.table();
        let job = find(&mut table, id)?;
        let status = job.status.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let size = std::fs::metadata(&job.log).map(|m| m.len()).unwrap_or(0);
        Ok((status, size > job.read))
    }

    /// Kills job `id`'s process group; waits (briefly) for it to be gone.
    pub async fn kill(&self, id: &str) -> Result<JobStatus, JobError> {
        let (cancel, status) = {
            let mut table = self.table();
            let job = find(&mut table, id)?;
            (job.cancel.clone(), Arc::clone(&job.status))
        };
        cancel.cancel();
        for _ in 0..100 {
            let now = status.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if now != JobStatus::Running {
                return Ok(now);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(JobStatus::Running)
    }

    /// The last `limit` bytes job `id` printed, from a whole line on, without moving what
    /// the model reads next (for the user's view; provider keys redacted as for the model).
    pub fn tail(&self, id: &str, limit: u64, hidden: &HiddenEnv) -> Result<String, JobError> {
        let mut table = self.table();
        let job = find(&mut table, id)?;
        let unreadable = |source| JobError::Output {
            id: id.to_string(),
            source,
        };
        let mut file = std::fs::File::open(&job.log).map_err(unreadable)?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let start = size.saturating_sub(limit);
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(unreadable)?;
        if start > 0
            && let Some(first) = bytes.iter().position(|&b| b == b'\n')
        {
            bytes.drain(..=first);
        }
        let text = String::from_utf8_lossy(&bytes);
        Ok(hidden.redact(&text).into_owned())
    }

    /// Every job, oldest first.
    pub fn list(&self) -> Vec<JobSummary> {
        self.table()
            .iter()
            .map(|job| JobSummary {
                id: job.id.clone(),
                command: job.command.clone(),
                status: job.status.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            })
            .collect()
    }

    /// One line per job that ended since the model last heard of it (each told once).
    pub fn take_ended(&self) -> Vec<String> {
        let mut table = self.table();
        let mut notices = Vec::new();
        for job in table.iter_mut().filter(|job| !job.told_end) {
            let status = job.status.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if status == JobStatus::Running {
                continue;
            }
            job.told_end = true;
            notices.push(format!(
                "[background job {} (`{}`) {status}; bash_output {{\"id\": \"{}\"}} reads what \
                 it printed]",
                job.id,
                clip(&job.command),
                job.id
            ));
        }
        notices
    }

    /// Kills every job still running.
    pub fn kill_all(&self) {
        for job in self.table().iter() {
            job.cancel.cancel();
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Vec<Job>> {
        self.0.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn log_dir(&self) -> Result<PathBuf, JobError> {
        let mut dir = self.0.dir.lock().unwrap_or_else(|p| p.into_inner());
        if dir.is_none() {
            let made = tempfile::Builder::new()
                .prefix("rein-jobs-")
                .tempdir()
                .map_err(JobError::LogFolder)?;
            *dir = Some(made);
        }
        Ok(dir
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .unwrap_or_default())
    }
}

fn find<'a>(table: &'a mut [Job], id: &str) -> Result<&'a mut Job, JobError> {
    let known: Vec<String> = table.iter().map(|j| j.id.clone()).collect();
    table
        .iter_mut()
        .find(|job| job.id == id)
        .ok_or_else(|| JobError::Unknown {
            id: id.to_string(),
            known: known.join(", "),
        })
}

/// Why a background job could not be started, read or stopped (shown to the model as is).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// No job has this id; `known` lists the session's jobs (empty: none was started).
    #[error("there is no background job {id}{}", unknown_tail(known))]
    Unknown {
        /// The id asked for.
        id: String,
        /// The session's job ids, comma-separated.
        known: String,
    },
    /// The folder for the session's job logs could not be made.
    #[error("cannot make a folder for job logs: {0}")]
    LogFolder(#[source] std::io::Error),
    /// The job's log file could not be created.
    #[error("cannot create the job's log: {0}")]
    Log(#[source] std::io::Error),
    /// The job's output could not be read.
    #[error("cannot read {id}'s output: {source}")]
    Output {
        /// The job.
        id: String,
        /// What reading its log said.
        source: std::io::Error,
    },
}

fn unknown_tail(known: &str) -> String {
    if known.is_empty() {
        ": none was started in this session".to_string()
    } else {
        format!("; the jobs are: {known}")
    }
}

fn clip(line: &str) -> String {
    let first = line.lines().next().unwrap_or("");
    match first.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &first[..at]),
        None if line.lines().nth(1).is_some() => format!("{first} …"),
        None => first.to_string(),
    }
}
