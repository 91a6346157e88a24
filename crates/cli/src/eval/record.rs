//! A result file: one JSON line per run of a task, appended as each run ends.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Exit;

/// How the agent's part of a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndedBy {
    /// The model answered and stopped.
    Done,
    /// The turn limit.
    MaxTurns,
    /// The budget.
    Budget,
    /// The step's time limit.
    Timeout,
    /// The run was cancelled (Ctrl-C).
    Cancelled,
    /// The model API failed, or rein could not run.
    Error,
    /// The task's setup command failed; the agent did not run.
    Setup,
}

impl EndedBy {
    /// The word in results and tables.
    pub fn word(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::MaxTurns => "max_turns",
            Self::Budget => "budget",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Error => "error",
            Self::Setup => "setup",
        }
    }
}

/// How the check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// Exit 0: solved.
    Passed,
    /// Any other ending.
    Failed,
    /// Killed at the time limit.
    Timeout,
    /// Not run (the setup failed).
    NotRun,
}

/// One run of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The task's id.
    pub id: String,
    /// 1-based run number (`--repeat`).
    pub run: u32,
    /// The check passed.
    pub solved: bool,
    /// How the check ended.
    pub check: CheckOutcome,
    /// How the agent ended.
    pub ended_by: EndedBy,
    /// Model requests.
    pub turns: u32,
    /// Tool calls the agent made.
    pub tool_calls: u32,
    /// Every input token sent, cached or not.
    pub input_tokens: u64,
    /// The part of `input_tokens` read from the prompt cache.
    pub cached_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost in USD, when the model's price is known.
    pub cost_usd: Option<f64>,
    /// Wall time of the whole run (setup, agent, check) in seconds.
    pub wall_s: f64,
    /// The agent's session (`rein exec --resume ID --cwd …` to look at it).
    pub session_id: Option<String>,
    /// The model asked.
    #[serde(default)]
    pub model: Option<String>,
    /// What went wrong, when something did (the end of rein's or the check's output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The run's copy, when kept (`--keep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
}

impl RunRecord {
    /// The run's key in a result file.
    pub fn key(&self) -> (&str, u32) {
        (&self.id, self.run)
    }
}

/// The runs of result files, in order; a later line for the same run replaces an earlier
/// one. A torn last line (a run cut off while writing) is skipped with a notice.
pub fn read_all(paths: &[impl AsRef<Path>]) -> Result<Vec<RunRecord>, Exit> {
    let mut records: Vec<RunRecord> = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Exit::usage(format!("result file {}: {e}", path.display())))?;
        let lines: Vec<&str> = text.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<RunRecord>(line) {
                Ok(record) => merge(&mut records, record),
                Err(e) if number + 1 == lines.len() && !text.ends_with('\n') => {
                    eprintln!(
                        "rein: note: {} ends in an unfinished line ({e}); it is ignored",
                        path.display()
                    );
                }
                Err(e) => {
                    return Err(Exit::usage(format!(
                        "result file {} line {}: not a result: {e}",
                        path.display(),
                        number + 1
                    )));
                }
            }
        }
    }
    Ok(records)
}

fn merge(records: &mut Vec<RunRecord>, record: RunRecord) {
    match records.iter_mut().find(|r| r.key() == record.key()) {
        Some(old) => *old = record,
        None => records.push(record),
    }
}

/// Appends one run to a result file (one write of one line, flushed).
pub fn append(path: &Path, record: &RunRecord) -> std::io::Result<()> {
    let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(line.as_bytes())?;
    file.flush()
}

/// Replaces a result file with `records`, atomically.
pub fn rewrite(path: &Path, records: &[RunRecord]) -> std::io::Result<()> {
    let mut text = String::new();
    for record in records {
        text.push_str(&serde_json::to_string(record).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    rein_tools::write_atomic(path, text.as_bytes())
}
