//! The agent's part of a run: `rein exec` in the run's copy, its stream-json read as it comes
//! (so a run stopped at its time limit still reports the turns, tokens and cost it used).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rein_protocol::Usage;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use super::record::EndedBy;

/// How long a run stopped at its limit gets to save its session and report (SIGTERM), before
/// it is killed.
const GRACE: Duration = Duration::from_secs(5);

/// The end of rein's error output kept for the result.
const STDERR_TAIL: usize = 2_000;

/// What one `rein exec` did.
#[derive(Debug, Default)]
pub struct AgentRun {
    /// Its session.
    pub session_id: Option<String>,
    /// Model requests.
    pub turns: u32,
    /// The model asked first.
    pub model: Option<String>,
    /// Tool calls.
    pub tool_calls: u32,
    /// Tokens.
    pub usage: Usage,
    /// Cost in USD, when known.
    pub cost_usd: Option<f64>,
    /// The result's outcome (`completed`, `max_turns`, …), absent without a result.
    outcome: Option<String>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// Stopped at its time limit.
    timed_out: bool,
}

impl AgentRun {
    /// How the run ended.
    pub fn ended_by(&self) -> EndedBy {
        if self.timed_out {
            return EndedBy::Timeout;
        }
        match self.outcome.as_deref() {
            Some("completed") => EndedBy::Done,
            Some("max_turns") => EndedBy::MaxTurns,
            Some("max_budget") => EndedBy::Budget,
            Some("cancelled") => EndedBy::Cancelled,
            _ => EndedBy::Error,
        }
    }

    /// Takes in one line of stream-json.
    fn take(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            return;
        };
        match event["type"].as_str() {
            Some("session_start") if self.session_id.is_none() => {
                self.session_id = event["session_id"].as_str().map(str::to_string);
                self.model = event["model"].as_str().map(str::to_string);
            }
            Some("turn_start") => self.turns += 1,
            Some("tool_call_start") => self.tool_calls += 1,
            Some("usage") => {
                if let Ok(usage) = serde_json::from_value::<Usage>(event["usage"].clone()) {
                    self.usage.add(&usage);
                }
                if let Some(cost) = event["cost_usd"].as_f64() {
                    *self.cost_usd.get_or_insert(0.0) += cost;
                }
            }
            Some("result") => {
                // The result's sums are the run's own (subagents' requests included).
                if let Ok(usage) = serde_json::from_value::<Usage>(event["usage"].clone()) {
                    self.usage = usage;
                }
                if let Some(turns) = event["turns"].as_u64() {
                    self.turns = u32::try_from(turns).unwrap_or(u32::MAX);
                }
                self.cost_usd = event["cost_usd"].as_f64().or(self.cost_usd);
                self.outcome = event["outcome"].as_str().map(str::to_string);
                if self.outcome.as_deref() == Some("failed") {
                    self.error = event["text"].as_str().map(str::to_string);
                }
            }
            _ => {}
        }
    }
}

/// What to run: the `rein exec` arguments after `exec` and the prompt.
pub struct Invocation {
    /// rein's own program.
    pub program: PathBuf,
    /// Flags (model, limits, mode…), without `--cwd` and the output format.
    pub flags: Vec<String>,
    /// The prompt, given on standard input.
    pub prompt: String,
}

/// Runs the agent in `dir` for at most `limit` (or until `cancel`); returns what it did.
#[allow(clippy::disallowed_methods)] // `rein eval` starts rein itself on a task's copy, with the hidden variables cleared
pub async fn run(
    invocation: &Invocation,
    dir: &Path,
    limit: Duration,
    cancel: &CancellationToken,
) -> AgentRun {
    let mut command = Command::new(&invocation.program);
    command
        .arg("exec")
        .arg("--cwd")
        .arg(dir)
        .args(["--output-format", "stream-json", "--output-dialect", "rein"])
        .args(&invocation.flags)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut agent = AgentRun::default();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            agent.error = Some(format!("cannot start rein exec: {e}"));
            return agent;
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A prompt rein refuses to read is reported by rein itself.
        let _ = stdin.write_all(invocation.prompt.as_bytes()).await;
    }
    let stderr = child.stderr.take().map(|mut err| {
        tokio::spawn(async move {
            let mut all = Vec::new();
            let _ = err.read_to_end(&mut all).await;
            tail(&String::from_utf8_lossy(&all), STDERR_TAIL)
        })
    });
    let Some(stdout) = child.stdout.take() else {
        agent.error = Some("rein exec has no output".to_string());
        return agent;
    };
    let mut lines = BufReader::new(stdout).lines();
    let (timed_out, cancelled) = tokio::select! {
        () = read(&mut lines, &mut agent) => (false, false),
        () = tokio::time::sleep(limit) => (true, false),
        () = cancel.cancelled() => (false, true),
    };
    if timed_out || cancelled {
        stop(&mut child, &mut lines, &mut agent).await;
    }
    agent.timed_out = timed_out;
    let status = child.wait().await;
    let said = match stderr {
        Some(task) => task.await.unwrap_or_default(),
        None => String::new(),
    };
    if agent.error.is_none() && agent.outcome.is_none() && !timed_out {
        let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
        agent.error = Some(format!(
            "rein exec ended ({status}) without a result: {said}"
        ));
    }
    agent
}

async fn read(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    agent: &mut AgentRun,
) {
    while let Ok(Some(line)) = lines.next_line().await {
        agent.take(&line);
    }
}

/// Asks rein to stop (it saves the session and reports what it used), then kills what is left
/// of its process group.
async fn stop(
    child: &mut Child,
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    agent: &mut AgentRun,
) {
    let group = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .map(nix::unistd::Pid::from_raw);
    if let Some(pid) = group {
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    }
    if tokio::time::timeout(GRACE, read(lines, agent))
        .await
        .is_err()
    {
        let _ = child.start_kill();
    }
    if let Some(pid) = group {
        let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
    }
}

/// The last `max` bytes of `text` (at a char boundary), trimmed.
pub fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let start = rein_tools::ceil_char_boundary(text, text.len().saturating_sub(max));
    text[start..].to_string()
}
