//! The arguments of `rein eval`: run a task file, summarise result files, compare two.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::arg_values::positive_usd;
use crate::mcp_args::ModelRoute;

/// `rein eval TASKS.jsonl [flags]`, `rein eval report FILE…`, `rein eval compare A B`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub command: Option<EvalCommand>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// The summaries of result files.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Summarise one or more result files as one (the shards of a run merge this way).
    Report {
        /// Result files (JSON lines written by `rein eval --out`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compare two result files task by task: which runs solved each, and the totals.
    Compare {
        /// The baseline's results.
        a: PathBuf,
        /// The results compared with it.
        b: PathBuf,
    },
}

/// Running a task file.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The tasks: JSON lines with `id`, `repo`, `prompt`, `check` (and optionally `commit`,
    /// `setup`, `timeout`, `max_turns`, `max_budget_usd`, `model`, `effort`).
    pub tasks: Option<PathBuf>,
    /// Where the results go, one JSON line per run; runs already there are skipped, so running
    /// again resumes (default: TASKS' name with `.results.jsonl`, in the current directory).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Runs at the same time.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Runs of each task (models are not deterministic).
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Run only the I-th of N slices of the tasks (1-based): task number t (0-based, in file
    /// order) belongs to slice t mod N + 1. The slices' result files merge.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Default limit of each step of a run (setup, agent, check) in seconds; a task's
    /// `timeout` overrides it.
    #[arg(long, value_name = "SECONDS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Folder the runs' fresh copies are made in (default: the system's temp folder).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Keep each run's copy (its path goes in the result) instead of removing it.
    #[arg(long)]
    pub keep: bool,
    /// The model (a task's `model` overrides it) and where it is asked.
    #[command(flatten)]
    pub route: ModelRoute,
    /// The model asked instead when the first is overloaded or not found.
    #[arg(long, value_name = "MODEL")]
    pub fallback_model: Option<String>,
    /// How hard the model thinks (a task's `effort` overrides it).
    #[arg(long, value_name = "LEVEL", value_parser = rein_llm::Effort::parse)]
    pub effort: Option<rein_llm::Effort>,
    /// Maximum model requests per run (a task's `max_turns` overrides it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Budget of each run in USD (a task's `max_budget_usd` overrides it).
    #[arg(long, value_name = "USD", value_parser = positive_usd)]
    pub max_budget_usd: Option<f64>,
    /// The agent's permission mode (default auto: edits and commands run, commands inside
    /// the OS sandbox).
    #[arg(long, default_value = "auto",
          value_parser = ["default", "accept-edits", "auto", "plan", "bypass", "acceptEdits", "bypassPermissions"])]
    pub permission_mode: String,
    /// OS sandbox of the agent's commands and of each task's setup and check:
    /// workspace-write (default) or off.
    #[arg(long, default_value = "workspace-write", value_parser = ["workspace-write", "off"])]
    pub sandbox: String,
    /// A folder whose repositories tasks may name as `repo` (besides the task file's own
    /// folder, the only place a local `repo` is otherwise taken from; repeatable).
    #[arg(long, value_name = "DIR")]
    pub repo_root: Vec<PathBuf>,
    /// A settings file (or JSON) applied to every run, as `rein exec --settings` (repeatable).
    #[arg(long, value_name = "FILE|JSON")]
    pub settings: Vec<String>,
}

/// One of N slices of a task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based slice number.
    pub index: u32,
    /// Number of slices.
    pub count: u32,
}

/// A `--shard` value that is not `I/N` with 1 ≤ I ≤ N.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a slice I/N with 1 <= I <= N (e.g. 2/5)")]
pub struct NotShard(String);

impl Shard {
    fn parse(text: &str) -> Result<Self, NotShard> {
        let bad = || NotShard(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = index.trim().parse().map_err(|_| bad())?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }

    /// Whether the task at `position` (0-based, in file order) is in this slice.
    pub fn holds(self, position: usize) -> bool {
        position % self.count as usize + 1 == self.index as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_one_of_n_slices_and_the_slices_cover_every_task_once() {
        let shards: Vec<Shard> = (1..=3)
            .map(|i| Shard::parse(&format!("{i}/3")).unwrap())
            .collect();
        for position in 0..10 {
            let holders = shards.iter().filter(|s| s.holds(position)).count();
            assert_eq!(holders, 1, "task {position}");
        }
        assert!(shards[0].holds(0) && shards[1].holds(1) && shards[0].holds(3));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
