//! `rein eval`: runs a set of tasks, each in a fresh copy of its repository, with `rein exec`
//! and then the task's check; writes one result line per run, resumes where a run stopped,
//! slices the tasks for several machines, and summarises and compares result files.

mod agent;
mod args;
mod origin;
mod record;
mod report;
mod run;
mod step;
mod tasks;
mod workspace;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

pub use args::{EvalArgs, EvalCommand, RunArgs};

use crate::Exit;
use record::RunRecord;
use tasks::{Source, Task};

/// Runs `rein eval`.
pub async fn run(args: EvalArgs) -> Result<(), Exit> {
    match args.command {
        Some(EvalCommand::Report { files }) => {
            let records = record::read_all(&files)?;
            crate::output::print_all(&report::summary(&records))
        }
        Some(EvalCommand::Compare { a, b }) => {
            let (left, right) = (record::read_all(&[&a])?, record::read_all(&[&b])?);
            let names = (a.display().to_string(), b.display().to_string());
            crate::output::print_all(&report::compare(&left, &right, (&names.0, &names.1)))
        }
        None => run_tasks(args.run).await,
    }
}

/// Where the tasks' local repositories may come from: the task file's folder `base`, the
/// `--repo-root` folders, never the home folder or a sensitive one.
fn origins(args: &RunArgs, base: PathBuf) -> Result<origin::Origins, Exit> {
    let mut roots = Vec::new();
    for root in &args.repo_root {
        roots.push(
            root.canonicalize()
                .map_err(|e| Exit::usage(format!("--repo-root {}: {e}", root.display())))?,
        );
    }
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let home = crate::env::home(&crate::env::process).map(|h| canonical(&h));
    let sensitive = rein_tools::SensitivePaths::default()
        .named_paths()
        .map(canonical)
        .collect();
    Ok(origin::Origins {
        base,
        roots,
        home,
        sensitive,
    })
}

/// One run to do: a task and its run number.
struct Pending {
    task: Arc<Task>,
    run: u32,
}

async fn run_tasks(args: RunArgs) -> Result<(), Exit> {
    let Some(path) = args.tasks.clone() else {
        return Err(Exit::usage(
            "name a task file: rein eval TASKS.jsonl (or `rein eval report FILE…`, \
             `rein eval compare A B`)",
        ));
    };
    let tasks = tasks::read(&path)?;
    sandbox_ready(&args)?;
    let base = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let origins = origins(&args, base)?;
    for task in &tasks {
        task.source(&origins).map_err(|why| {
            Exit::usage(format!(
                "task file {}: task {:?}: {why}",
                path.display(),
                task.id
            ))
        })?;
    }
    let out = args.out.clone().unwrap_or_else(|| default_out(&path));
    let mut done = Vec::new();
    if out.exists() {
        done = record::read_all(&[&out])?;
        // A file cut off mid-line is written back whole before anything is appended.
        record::rewrite(&out, &done).map_err(|e| out_error(&out, &e))?;
    }
    let selected: Vec<&Task> = tasks
        .iter()
        .enumerate()
        .filter(|(position, _)| args.shard.is_none_or(|s| s.holds(*position)))
        .map(|(_, task)| task)
        .collect();
    let pending = pending(&selected, args.repeat, &done);
    let already = done
        .iter()
        .filter(|r| selected.iter().any(|t| t.id == r.id))
        .count();
    eprintln!(
        "rein eval: {} runs of {} tasks to do ({already} already in {}), {} at a time",
        pending.len(),
        selected.len(),
        out.display(),
        args.jobs
    );
    let settings = Arc::new(run::Settings::new(&args, origins)?);
    let cancel = CancellationToken::new();
    let interrupt = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let unreachable = mirrors(&pending, &settings).await;
    let finished = run_all(pending, &settings, unreachable, &cancel, &out).await;
    interrupt.abort();
    let finished = finished?;
    done.extend(finished);
    let order = |id: &str| tasks.iter().position(|t| t.id == id).unwrap_or(usize::MAX);
    done.sort_by_key(|r| (order(&r.id), r.run));
    record::rewrite(&out, &done).map_err(|e| out_error(&out, &e))?;
    let shown: Vec<RunRecord> = done
        .into_iter()
        .filter(|r| selected.iter().any(|t| t.id == r.id))
        .collect();
    crate::output::print_all(&report::summary(&shown))?;
    if cancel.is_cancelled() {
        return Err(Exit::signalled(
            2,
            "interrupted; the runs that ended are saved, run again to go on",
        ));
    }
    Ok(())
}

/// Fails at once, rather than in every run, when the runs need the OS sandbox and this
/// machine has none.
fn sandbox_ready(args: &RunArgs) -> Result<(), Exit> {
    let needed = args.sandbox != "off" || args.permission_mode == "auto";
    if !needed {
        return Ok(());
    }
    let helper = crate::sandbox::helper();
    match rein_sandbox::Sandbox::find(rein_sandbox::Settings::default(), helper.as_deref()) {
        Ok(_) => Ok(()),
        Err(why) => Err(Exit::usage(format!(
            "rein eval runs the agent (mode {}) and each task's setup and check in the OS \
             sandbox, which is unavailable here: {why}. In a container or VM made for it, pass \
             --sandbox off --permission-mode bypass.",
            args.permission_mode
        ))),
    }
}

/// The runs of the selected tasks that the result file does not have yet.
fn pending(selected: &[&Task], repeat: u32, done: &[RunRecord]) -> Vec<Pending> {
    let have: HashSet<(&str, u32)> = done.iter().map(RunRecord::key).collect();
    let mut pending = Vec::new();
    for task in selected {
        let task = Arc::new((*task).clone());
        for run in (1..=repeat).filter(|run| !have.contains(&(task.id.as_str(), *run))) {
            pending.push(Pending {
                task: task.clone(),
                run,
            });
        }
    }
    pending
}

/// Clones each repository URL once into rein's cache; returns why a clone failed, by URL.
async fn mirrors(pending: &[Pending], settings: &run::Settings) -> HashMap<String, String> {
    let mut failed = HashMap::new();
    let mut seen: Vec<String> = Vec::new();
    for item in pending {
        let Ok(Source::Url(url)) = item.task.source(&settings.origins) else {
            continue;
        };
        if seen.contains(&url) {
            continue;
        }
        seen.push(url.clone());
        eprintln!("rein eval: cloning {url}");
        let cache = settings.cache.clone();
        let target = url.clone();
        let cloned = tokio::task::spawn_blocking(move || workspace::mirror(&cache, &target)).await;
        match cloned {
            Ok(Ok(())) => {}
            Ok(Err(why)) => {
                failed.insert(url, why.to_string());
            }
            Err(e) => {
                failed.insert(url, e.to_string());
            }
        }
    }
    failed
}

/// Runs everything pending, `jobs` at a time and in file order, appending each result as it
/// ends; stops starting runs on Ctrl-C (the runs it cut short are not recorded, so the next
/// evaluation does them).
async fn run_all(
    pending: Vec<Pending>,
    settings: &Arc<run::Settings>,
    unreachable: HashMap<String, String>,
    cancel: &CancellationToken,
    out: &Path,
) -> Result<Vec<RunRecord>, Exit> {
    let (sender, mut ended) = tokio::sync::mpsc::unbounded_channel();
    let dispatcher = tokio::spawn(dispatch(
        pending,
        settings.clone(),
        unreachable,
        cancel.clone(),
        sender,
    ));
    let mut finished = Vec::new();
    while let Some(record) = ended.recv().await {
        eprintln!("{}", run::progress_line(&record));
        record::append(out, &record).map_err(|e| out_error(out, &e))?;
        finished.push(record);
    }
    let _ = dispatcher.await;
    Ok(finished)
}

/// Starts each pending run once a slot is free (so with one slot they run in file order) and
/// sends what each ends with.
async fn dispatch(
    pending: Vec<Pending>,
    settings: Arc<run::Settings>,
    unreachable: HashMap<String, String>,
    cancel: CancellationToken,
    ended: tokio::sync::mpsc::UnboundedSender<RunRecord>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(settings.args.jobs as usize));
    let mut running = JoinSet::new();
    for item in pending {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = cancel.cancelled() => break,
        };
        let Ok(slot) = slot else { break };
        let blocked = match item.task.source(&settings.origins) {
            Ok(Source::Url(url)) => unreachable.get(&url).cloned(),
            Ok(Source::Folder(_)) => None,
            Err(why) => Some(why.0),
        };
        let (settings, cancel, ended) = (settings.clone(), cancel.clone(), ended.clone());
        running.spawn(async move {
            let record = run::one(&item.task, item.run, &settings, blocked, &cancel).await;
            drop(slot);
            if !cancel.is_cancelled() {
                let _ = ended.send(record);
            }
        });
    }
    while running.join_next().await.is_some() {}
}

/// `TASKS.jsonl` → `TASKS.results.jsonl` in the current directory.
fn default_out(tasks: &Path) -> PathBuf {
    let stem = tasks
        .file_stem()
        .map_or("eval".into(), |s| s.to_string_lossy().into_owned());
    PathBuf::from(format!("{stem}.results.jsonl"))
}

fn out_error(out: &Path, e: &std::io::Error) -> Exit {
    Exit::failed(format!("result file {}: {e}", out.display()))
}
