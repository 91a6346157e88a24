//! One run of one task: a fresh copy, the setup, the agent, the check, and the result line.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use tokio_util::sync::CancellationToken;

use super::agent::{self, AgentRun, Invocation};
use super::args::RunArgs;
use super::origin::Origins;
use super::record::{CheckOutcome, EndedBy, RunRecord};
use super::step::{self, Step};
use super::tasks::Task;
use super::workspace;
use crate::Exit;

/// The end of a failed setup's or check's output kept in the result.
const OUTPUT_TAIL: usize = 2_000;

/// What every run shares.
pub struct Settings {
    /// Where local repositories may come from (relative ones from the task file's folder).
    pub origins: Origins,
    /// The secrets no setup or check sees besides the one list: `--api-key-env`'s.
    hidden: Vec<String>,
    /// Where URLs are cloned once.
    pub cache: PathBuf,
    /// Where the runs' copies go.
    work_dir: PathBuf,
    /// The evaluation's flags (limits, the sandbox, the model flags for `rein exec`).
    pub args: RunArgs,
    /// rein's own program.
    program: PathBuf,
}

impl Settings {
    /// The settings of a `rein eval` invocation.
    pub fn new(args: &RunArgs, origins: Origins) -> Result<Self, Exit> {
        let program = std::env::current_exe()
            .map_err(|e| Exit::failed(format!("cannot find rein's own program: {e}")))?;
        let work_dir = match &args.work_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Exit::usage(format!("--work-dir {}: {e}", dir.display())))?;
                dir.clone()
            }
            None => std::env::temp_dir(),
        };
        let cache = crate::env::cache_dir(&crate::env::process).join("eval/repos");
        let hidden = args.route.api_key_env.iter().cloned().collect();
        Ok(Self {
            origins,
            hidden,
            cache,
            work_dir,
            args: args.clone(),
            program,
        })
    }

    /// How a task's own commands run: in the sandbox, without the secrets, within `limit`.
    fn confined(&self, limit: Duration) -> step::Confined<'_> {
        step::Confined {
            sandbox: &self.args.sandbox,
            hidden: &self.hidden,
            limit,
        }
    }

    /// `rein exec`'s flags for `task`: the run's, with the task's own settings over them.
    fn flags(&self, task: &Task) -> Vec<String> {
        let args = &self.args;
        let mut flags = vec![
            "--permission-mode".to_string(),
            args.permission_mode.clone(),
            "--sandbox".to_string(),
            args.sandbox.clone(),
        ];
        let mut add = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                flags.push(name.to_string());
                flags.push(value);
            }
        };
        add(
            "--model",
            task.model.clone().or_else(|| args.route.model.clone()),
        );
        add("--fallback-model", args.fallback_model.clone());
        add(
            "--provider",
            args.route
                .provider
                .and_then(|p| p.to_possible_value())
                .map(|v| v.get_name().to_string()),
        );
        add("--base-url", args.route.base_url.clone());
        add("--api-key-env", args.route.api_key_env.clone());
        add(
            "--effort",
            task.effort
                .clone()
                .or_else(|| args.effort.map(|e| e.name().to_string())),
        );
        add(
            "--max-turns",
            task.max_turns.or(args.max_turns).map(|n| n.to_string()),
        );
        add(
            "--max-budget-usd",
            task.max_budget_usd
                .or(args.max_budget_usd)
                .map(|usd| usd.to_string()),
        );
        for settings in &args.settings {
            add("--settings", Some(settings.clone()));
        }
        flags
    }
}

/// Runs `task` once (run number `run`); `blocked` says why its repository cannot be had.
pub async fn one(
    task: &Task,
    run: u32,
    settings: &Settings,
    blocked: Option<String>,
    cancel: &CancellationToken,
) -> RunRecord {
    let started = Instant::now();
    let limit = Duration::from_secs(task.timeout.unwrap_or(settings.args.timeout));
    let mut record = RunRecord {
        id: task.id.clone(),
        run,
        solved: false,
        check: CheckOutcome::NotRun,
        ended_by: EndedBy::Error,
        turns: 0,
        tool_calls: 0,
        input_tokens: 0,
        cached_tokens: 0,
        output_tokens: 0,
        cost_usd: None,
        wall_s: 0.0,
        session_id: None,
        model: task
            .model
            .clone()
            .or_else(|| settings.args.route.model.clone()),
        error: blocked,
        workspace: None,
    };
    if record.error.is_none() {
        match copy(task, run, settings).await {
            Ok(dir) => {
                steps(task, &dir, limit, settings, cancel, &mut record).await;
                if settings.args.keep {
                    let kept = dir.keep();
                    record.workspace = Some(kept.display().to_string());
                }
            }
            Err(why) => record.error = Some(why),
        }
    }
    record.wall_s = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    record
}

/// The task's copy for this run: `<work dir>/rein-eval-<id>-<run>-XXXX/<id>`.
async fn copy(task: &Task, run: u32, settings: &Settings) -> Result<RunDir, String> {
    let holder = tempfile::Builder::new()
        .prefix(&format!("rein-eval-{}-{run}-", task.id))
        .tempdir_in(&settings.work_dir)
        .map_err(|e| format!("a folder in {}: {e}", settings.work_dir.display()))?;
    let dir = holder.path().join(&task.id);
    let source = task.source(&settings.origins).map_err(|e| e.0)?;
    let commit = task.commit.clone();
    let (cache, into) = (settings.cache.clone(), dir.clone());
    let sensitive = settings.origins.sensitive.clone();
    tokio::task::spawn_blocking(move || {
        workspace::prepare(&source, commit.as_deref(), (&cache, &sensitive), &into)
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    Ok(RunDir { holder, dir })
}

/// A run's copy, removed when dropped unless kept.
struct RunDir {
    holder: tempfile::TempDir,
    dir: PathBuf,
}

impl RunDir {
    fn keep(self) -> PathBuf {
        let _ = self.holder.keep();
        self.dir
    }
}

impl std::ops::Deref for RunDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.dir
    }
}

/// Setup, agent, check, each bounded by `limit`; fills in `record`.
async fn steps(
    task: &Task,
    dir: &std::path::Path,
    limit: Duration,
    settings: &Settings,
    cancel: &CancellationToken,
    record: &mut RunRecord,
) {
    if let Some(setup) = &task.setup {
        let done = step::run(dir, setup, settings.confined(limit), cancel).await;
        if !done.passed {
            record.ended_by = EndedBy::Setup;
            record.error = Some(format!("setup: {}", agent::tail(&done.output, OUTPUT_TAIL)));
            return;
        }
    }
    let invocation = Invocation {
        program: settings.program.clone(),
        flags: settings.flags(task),
        prompt: task.prompt.clone(),
    };
    let agent = agent::run(&invocation, dir, limit, cancel).await;
    take_agent(record, &agent);
    let checked = step::run(dir, &task.check, settings.confined(limit), cancel).await;
    take_check(record, &checked);
}

fn take_agent(record: &mut RunRecord, agent: &AgentRun) {
    record.ended_by = agent.ended_by();
    record.turns = agent.turns;
    record.tool_calls = agent.tool_calls;
    record.input_tokens = agent.usage.total_input();
    record.cached_tokens = agent.usage.cache_read_input_tokens;
    record.output_tokens = agent.usage.output_tokens;
    record.cost_usd = agent.cost_usd.map(|c| (c * 1e6).round() / 1e6);
    record.session_id = agent.session_id.clone();
    if agent.model.is_some() {
        record.model = agent.model.clone();
    }
    record.error = agent.error.clone();
}

fn take_check(record: &mut RunRecord, checked: &Step) {
    record.solved = checked.passed;
    record.check = match (checked.passed, checked.timed_out) {
        (true, _) => CheckOutcome::Passed,
        (false, true) => CheckOutcome::Timeout,
        (false, false) => CheckOutcome::Failed,
    };
    if !checked.passed && record.error.is_none() {
        record.error = Some(format!(
            "check: {}",
            agent::tail(&checked.output, OUTPUT_TAIL)
        ));
    }
}

/// One line on stderr as a run ends.
pub fn progress_line(record: &RunRecord) -> String {
    let mark = if record.solved { "solved" } else { "failed" };
    let cost = record
        .cost_usd
        .map_or(String::new(), |c| format!(" ${c:.4}"));
    format!(
        "rein eval: {} #{} {mark} ({}, {} turns{cost}, {:.1}s)",
        record.id,
        record.run,
        record.ended_by.word(),
        record.turns,
        record.wall_s
    )
}
