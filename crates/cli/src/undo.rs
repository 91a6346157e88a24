//! `rein undo`: puts back the files rein's file tools changed in a session's last turns,
//! recording the restore in the session so a resumed session tells the model.

use std::path::Path;

use rein_checkpoint::{Checkpoints, RestoreOutcome, UndoPlan};
use rein_engine::session::{SessionStore, SessionWriter};
use rein_engine::undo;
use rein_protocol::SessionRecord;

use crate::args::UndoArgs;
use crate::{Exit, resolve};

/// Runs `rein undo`.
pub fn run(args: &UndoArgs) -> Result<(), Exit> {
    let workspace = resolve::workspace(args.cwd.as_deref())?;
    let data_dir = crate::env::data_dir(&crate::env::process)
        .ok_or_else(|| Exit::usage("cannot find stored sessions: set HOME or XDG_DATA_HOME"))?;
    let store = SessionStore::new(&data_dir, &workspace);
    let checkpoints_of = |id: &str| {
        let dir = undo::checkpoints_dir(&data_dir.join(undo::CHECKPOINTS_FOLDER), &workspace, id);
        // Nothing is written to the store but the undo's own entry: the cap does not matter.
        Checkpoints::open(&dir, u64::MAX).with_workspace(&workspace)
    };
    let id = session(&store, args, &workspace, &checkpoints_of)?;
    let writer = open_session(&store, &id)?;
    let checkpoints = checkpoints_of(&id);
    let dir = checkpoints.dir().to_path_buf();
    let turns = checkpoints.last_turns(args.turns as usize);
    if turns.is_empty() {
        nothing_to_undo(&checkpoints, &id);
        return Ok(());
    }
    let prompts = checkpoints.prompts();
    for turn in &turns {
        let prompt = prompts.get(turn).map_or("", String::as_str);
        println!("Session {id}, turn {turn}: {prompt}");
        // Each file under the turn that changed it.
        for file in checkpoints.files_changed(*turn) {
            let shown = file.strip_prefix(&workspace).unwrap_or(&file);
            println!("  changed {}", shown.display());
        }
    }
    let plan = checkpoints.plan(&turns);
    for note in &plan.notes {
        println!("Note: {note}.");
    }
    if args.dry_run {
        for line in undo::plan_lines(&checkpoints, &plan, &workspace, args.force.into()) {
            println!("  {line}");
        }
        println!("(dry run: nothing was changed)");
        return Ok(());
    }
    let outcomes = checkpoints
        .apply(&plan, args.force.into())
        .map_err(|e| Exit::failed(format!("cannot record the undo in {}: {e}", dir.display())))?;
    report(&outcomes, &plan, writer, &workspace)
}

/// The session to undo in: the one named, else the workspace's latest that changed files
/// and has a turn not undone yet (said when it is not the latest session), else the latest.
fn session(
    store: &SessionStore,
    args: &UndoArgs,
    workspace: &Path,
    checkpoints_of: &dyn Fn(&str) -> Checkpoints,
) -> Result<String, Exit> {
    let id = match &args.session {
        Some(id) => id.clone(),
        None => {
            let ids = store.ids_newest_first();
            let latest = ids.first().cloned().ok_or_else(|| {
                Exit::usage(format!(
                    "no stored session for {} to undo",
                    workspace.display()
                ))
            })?;
            match ids
                .iter()
                .find(|id| !checkpoints_of(id).last_turns(1).is_empty())
            {
                Some(id) if *id != latest => {
                    println!(
                        "The latest session ({latest}) changed no file; undoing in the latest \
                         one that did: {id}"
                    );
                    id.clone()
                }
                Some(id) => id.clone(),
                None => latest,
            }
        }
    };
    let file = store.path(&id).map_err(|e| Exit::usage(e.to_string()))?;
    if !file.exists() {
        return Err(Exit::usage(format!(
            "no session {id} for {} (see `rein sessions`)",
            workspace.display()
        )));
    }
    Ok(id)
}

/// The session's file opened to record the undo (`None`, said, when it cannot be). A session
/// open in another rein may still be changing files: undo from there.
fn open_session(store: &SessionStore, id: &str) -> Result<Option<SessionWriter>, Exit> {
    match store.append_to(id) {
        Ok(writer) => Ok(Some(writer)),
        Err(rein_engine::session::SessionError::InUse { .. }) => Err(Exit::usage(format!(
            "session {id} is open in another rein process, which may still be changing \
             files: use /rewind there, or end it first"
        ))),
        Err(e) => {
            eprintln!("rein: warning: the session will not know of this undo: {e}");
            Ok(None)
        }
    }
}

/// Says why there is nothing to undo.
fn nothing_to_undo(checkpoints: &Checkpoints, id: &str) {
    let shell = if checkpoints.git().is_some() {
        "nothing changed"
    } else {
        "no file tool changed a file"
    };
    println!("Nothing to undo in session {id}: {shell} in a turn that is not undone already.");
    if checkpoints.git().is_none() {
        println!(
            "Changes made by shell commands are not kept: the workspace is not in a git work \
             tree."
        );
    }
}

/// Says what the restore of `plan` did and records it in the session; a file that could not
/// be restored fails the command.
fn report(
    outcomes: &[RestoreOutcome],
    plan: &UndoPlan,
    mut writer: Option<SessionWriter>,
    workspace: &Path,
) -> Result<(), Exit> {
    for line in undo::outcome_lines(outcomes, workspace) {
        println!("  {line}");
    }
    if outcomes.is_empty() {
        println!("  every file is already as it was");
    }
    let files = undo::changed_files(outcomes, workspace);
    if let Some(writer) = writer.as_mut().filter(|_| !files.is_empty()) {
        let recorded = writer.append(&SessionRecord::Restored {
            turns: plan.turns.clone(),
            files,
        });
        if let Err(e) = recorded {
            eprintln!("rein: warning: the session will not know of this undo: {e}");
        }
    }
    let kept = outcomes
        .iter()
        .any(|o| matches!(o, RestoreOutcome::ChangedSince(_)));
    if kept {
        println!(
            "Files changed since rein wrote them were kept, and the turn is not marked undone: \
             `rein undo --force` restores them too."
        );
    }
    if outcomes
        .iter()
        .any(|o| matches!(o, RestoreOutcome::Failed(..)))
    {
        return Err(Exit::silent_failure());
    }
    Ok(())
}
