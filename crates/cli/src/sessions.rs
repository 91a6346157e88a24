//! Stored sessions from the command line: choosing the one to resume, starting the file,
//! and `rein sessions`.

use std::path::{Path, PathBuf};

use rein_engine::Agent;
use rein_engine::session::{LoadedSession, SessionStore};
use rein_protocol::SessionRecord;

use crate::Exit;
use crate::overrides::{SessionStart, StartAt};

/// The session a run continues, if any, loaded; warnings (a torn last line) go to stderr.
fn to_resume(
    start: &SessionStart,
    store: Option<&SessionStore>,
) -> Result<Option<LoadedSession>, Exit> {
    if start.at == StartAt::New {
        if start.fork {
            return Err(Exit::usage(
                "--fork-session needs --resume ID or --continue",
            ));
        }
        return Ok(None);
    }
    let store = store
        .ok_or_else(|| Exit::usage("cannot find stored sessions: set HOME or XDG_DATA_HOME"))?;
    let id = match start.at.resumed() {
        Some("") => {
            let latest = store
                .latest()
                .map_or(String::new(), |id| format!(" (latest: {id})"));
            return Err(Exit::usage(format!(
                "--resume needs a session id in a headless run{latest}; `rein sessions` lists \
                 them, and `rein -r` picks one in the terminal UI"
            )));
        }
        Some(id) => id.to_string(),
        None => store
            .latest()
            .ok_or_else(|| Exit::usage("no stored session for this workspace to continue"))?,
    };
    let loaded = store.load(&id).map_err(|e| Exit::usage(e.to_string()))?;
    for warning in &loaded.warnings {
        eprintln!("rein: session {id}: {warning}");
    }
    Ok(Some(loaded))
}

/// How an agent's session starts.
#[derive(Debug)]
pub enum Start {
    /// A new, empty session in a new file.
    New,
    /// A stored session continued: its file appended to.
    Resume(LoadedSession),
    /// A stored session's conversation continued in a new file (its usage stays behind).
    Fork(LoadedSession),
}

impl Start {
    /// The stored session `start` names (`--resume`/`--continue`), forked when it says
    /// (`--fork-session`), loaded; warnings (a torn last line) go to stderr.
    pub fn of(start: &SessionStart, store: Option<&SessionStore>) -> Result<Self, Exit> {
        Ok(match to_resume(start, store)? {
            None => Self::New,
            Some(loaded) if start.fork => Self::Fork(loaded),
            Some(loaded) => Self::Resume(loaded),
        })
    }

    /// The id the agent's session keeps: the resumed one's (a new session and a fork get a new
    /// one).
    pub fn session_id(&self) -> Option<String> {
        match self {
            Self::Resume(loaded) => Some(loaded.id().to_string()),
            Self::New | Self::Fork(_) => None,
        }
    }
}

/// Starts recording as `start` says: appends to the resumed session, or creates a new file
/// (with the parent's transcript when forking). Then restores the transcript.
pub fn record(
    agent: &mut Agent,
    store: Option<&SessionStore>,
    start: Start,
    provider: &str,
    workspace: &Path,
) -> Result<(), Exit> {
    let Some(store) = store else {
        // Said as loudly as a full disk or a read-only folder: the run goes on, unsaved.
        eprintln!(
            "rein: warning: this session will not be saved: neither HOME nor XDG_DATA_HOME \
             names a folder"
        );
        match start {
            Start::New => {}
            Start::Resume(loaded) => agent.resume_from(loaded),
            Start::Fork(loaded) => agent.resume_from(as_fork(loaded)),
        }
        return Ok(());
    };
    let meta = |forked_from: Option<&LoadedSession>| SessionRecord::Meta {
        session_id: agent.session_id().to_string(),
        created_at: chrono::Utc::now().to_rfc3339(),
        cwd: workspace.display().to_string(),
        model: agent.model().to_string(),
        provider: provider.to_string(),
        forked_from: forked_from.map(|l| l.id().to_string()),
    };
    let (written, resumed) = match start {
        Start::New => (store.create(meta(None)), None),
        Start::Fork(loaded) => (
            store.create_fork(meta(Some(&loaded)), &loaded),
            Some(as_fork(loaded)),
        ),
        Start::Resume(loaded) => match store.append_to(loaded.id()) {
            Err(e @ rein_engine::session::SessionError::InUse { .. }) => {
                return Err(Exit::failed(e.to_string()));
            }
            written => (written, Some(loaded)),
        },
    };
    match written {
        Ok(writer) => agent.record_to(writer),
        Err(e) => eprintln!("rein: warning: this session will not be saved: {e}"),
    }
    if let Some(loaded) = resumed {
        agent.resume_from(loaded);
    }
    Ok(())
}

/// The session a fork continues: its conversation, without its usage and cost. The fork's file
/// starts with none of the parent's usage records, so its totals (and its runs' results) count
/// its own requests only, as a new session's do.
fn as_fork(loaded: LoadedSession) -> LoadedSession {
    LoadedSession {
        usage: rein_protocol::Usage::default(),
        cost_usd: Some(0.0),
        requests: 0,
        // The parent's teammates and worktree stay the parent's.
        roster: Vec::new(),
        worktree: None,
        ..loaded
    }
}

/// `rein sessions`: one line per session (and one naming what each teammate spent), written
/// whole so a closed pipe (`| head`) ends it quietly.
pub fn list(workspace: &Path, data_dir: Option<PathBuf>) -> Result<(), Exit> {
    let data_dir = data_dir
        .ok_or_else(|| Exit::usage("cannot find stored sessions: set HOME or XDG_DATA_HOME"))?;
    let store = SessionStore::new(&data_dir, workspace);
    let sessions = store.list();
    if sessions.is_empty() {
        return crate::output::print_all(&format!(
            "No sessions for {} yet.\n",
            workspace.display()
        ));
    }
    let mut text = format!(
        "{:<26} {:<20} {:>8} {:>9} {:>6}  first prompt\n",
        "id", "last active", "requests", "cost", "cache"
    );
    for s in sessions {
        text.push_str(&session_line(&s));
    }
    crate::output::print_all(&text)
}

/// A session's line, then its teammates' when it had any.
fn session_line(s: &rein_engine::session::SessionSummary) -> String {
    let date = s
        .last_active
        .map(|t| {
            chrono::DateTime::<chrono::Local>::from(t)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        })
        .unwrap_or_else(|| {
            s.created_at
                .chars()
                .take(19)
                .collect::<String>()
                .replace('T', " ")
        });
    let cost = |c: Option<f64>| c.map_or("?".to_string(), |c| format!("${c:.4}"));
    // Share of the session's input tokens read from the prompt cache.
    let cache = s
        .usage
        .cache_hit_rate()
        .map_or("-".to_string(), |rate| format!("{:.0}%", rate * 100.0));
    let prompt: String = s.first_prompt.chars().take(60).collect();
    let mut line = format!(
        "{:<26} {:<20} {:>8} {:>9} {:>6}  {prompt}\n",
        s.id,
        date,
        s.requests,
        cost(s.cost_usd),
        cache
    );
    if !s.teammates.is_empty() {
        let each: Vec<String> = (s.teammates.iter())
            .map(|t| {
                let tokens = t.usage.total_input() + t.usage.output_tokens;
                format!("{} {} ({tokens} tokens)", t.name, cost(t.cost_usd))
            })
            .collect();
        line.push_str(&format!("{:<26} teammates: {}\n", "", each.join(", ")));
    }
    line
}

/// The retention period: `cleanup_period_days` from the user's config, else 30 days.
pub fn retention_days(config: &crate::config::Config) -> u64 {
    config
        .cleanup_period_days
        .as_ref()
        .map_or(rein_engine::session::DEFAULT_CLEANUP_DAYS, |d| d.value)
}

/// Removes sessions idle for more than `days` in the background (start-up), never `keep`.
pub fn prune_in_background(data_dir: PathBuf, days: u64, keep: Option<String>) {
    std::thread::spawn(move || {
        let older_than = std::time::Duration::from_secs(days.saturating_mul(86_400));
        rein_engine::session::prune(
            &data_dir,
            older_than,
            keep.as_deref(),
            std::time::SystemTime::now(),
        );
    });
}

/// `rein sessions --prune`: removes every workspace's sessions idle for more than `days`.
pub fn prune(data_dir: Option<PathBuf>, days: u64) -> Result<(), Exit> {
    let data_dir = data_dir
        .ok_or_else(|| Exit::usage("cannot find stored sessions: set HOME or XDG_DATA_HOME"))?;
    let older_than = std::time::Duration::from_secs(days.saturating_mul(86_400));
    let removed =
        rein_engine::session::prune(&data_dir, older_than, None, std::time::SystemTime::now());
    if removed.is_empty() {
        println!("Nothing to remove: no session has been idle for more than {days} days.");
        return Ok(());
    }
    let mut total = 0;
    for session in &removed {
        total += session.bytes;
        println!(
            "removed {} (idle {} days, {}): {}",
            session.id,
            session.idle_days,
            size(session.bytes),
            session.file.display()
        );
    }
    println!("Removed {} sessions ({}).", removed.len(), size(total));
    Ok(())
}

/// `rein sessions --delete ID`: removes one session of `workspace` with its outputs.
pub fn delete(workspace: &Path, data_dir: Option<PathBuf>, id: &str) -> Result<(), Exit> {
    let data_dir = data_dir
        .ok_or_else(|| Exit::usage("cannot find stored sessions: set HOME or XDG_DATA_HOME"))?;
    let store = SessionStore::new(&data_dir, workspace);
    let removed = rein_engine::session::delete(&store, &data_dir, id)
        .map_err(|e| Exit::usage(e.to_string()))?;
    println!(
        "removed {} ({}): {}",
        removed.id,
        size(removed.bytes),
        removed.file.display()
    );
    Ok(())
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 * 1024 => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
        b if b >= 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}
