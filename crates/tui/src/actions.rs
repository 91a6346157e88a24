//! Carrying out the [`Action`]s the [`App`] returns: the engine's operations sent to the
//! controller and their answers shown, the UI's own (pickers, lists) done here.

use rein_engine::{Applied, ControlError, Controller, Op, Restore, RewindWhat};

use crate::app::{Action, App};
use crate::host::SessionHost;
use crate::settings::LiveChange;
use crate::slash::Commands;

/// Carries out one action; true when the UI should end.
pub(crate) async fn act(
    action: Action,
    app: &mut App,
    driver: &mut Controller,
    host: &dyn SessionHost,
) -> bool {
    if action == Action::Quit {
        return true;
    }
    let Some(op) = engine_op(action, app, driver, host).await else {
        return false;
    };
    let result = driver.apply(op.clone()).await;
    show_applied(op, result, app, driver, host).await;
    false
}

/// The operation `action` asks of the engine; `None` for what the UI does itself (opening a
/// picker, listing sessions, tasks or servers), done here.
async fn engine_op(
    action: Action,
    app: &mut App,
    driver: &mut Controller,
    host: &dyn SessionHost,
) -> Option<Op> {
    let op = match action {
        // Quitting is the loop's; only the terminal loop can suspend.
        Action::Quit | Action::Suspend | Action::EditFile(_) => return None,
        Action::PasteImage => {
            let dir = driver.status().await.outputs_dir;
            match crate::clipboard::save_image(dir.as_deref()).await {
                Ok(path) => app.paste(&path.display().to_string()),
                Err(why) => app.info(why.to_string()),
            }
            return None;
        }
        Action::Rewind {
            back,
            code,
            conversation,
            force,
        } => {
            let what = match (code, conversation) {
                (true, true) => RewindWhat::Both,
                (true, false) => RewindWhat::Code,
                (false, true) => RewindWhat::Conversation,
                (false, false) => return None,
            };
            Op::Rewind {
                back,
                what,
                restore: Restore::from(force),
            }
        }
        Action::StopTask(id) => Op::StopTask(id),
        Action::TypeInto { id, text } => {
            if let Err(error) = driver.type_into(&id, &text).await {
                app.error(error.to_string());
            }
            return None;
        }
        Action::Run(prompt) => Op::Submit(prompt),
        Action::Cancel => Op::Cancel,
        Action::Compact(focus) => Op::Compact { focus },
        Action::NewSession => Op::NewSession,
        Action::Resume(id) => Op::Resume(id),
        Action::SetModel(model) => Op::SetModel(model),
        Action::SetEffort(effort) => Op::SetEffort(effort),
        Action::SetMode(mode) => Op::SetMode(mode),
        Action::AddDir(dir) => Op::AddDir(dir),
        Action::Shell(command) => Op::Shell(command),
        shown => {
            show(shown, app, driver, host).await;
            return None;
        }
    };
    Some(op)
}

/// Carries out what the UI does itself: opening a picker, listing sessions, tasks, servers,
/// a listing, the status or the context, writing the conversation out.
async fn show(action: Action, app: &mut App, driver: &mut Controller, host: &dyn SessionHost) {
    match action {
        Action::ListSessions => {
            app.open_session_picker(&host.sessions());
        }
        Action::ShowPermissions => {
            if let Some(policy) = driver.policy().await {
                app.show_policy(&policy);
                app.open_rules_editor(&policy);
            }
        }
        Action::OfferMemory => app.open_remember_picker(&host.memory_files()),
        Action::IndexPaths => app.set_path_index(host.paths()),
        Action::Remember { file, text } => match remember(&file, &text) {
            Ok(()) => app.info(format!(
                "remembered in {}: the model gets it from the next session (/clear)",
                file.display()
            )),
            Err(e) => app.error(format!("cannot write {}: {e}", file.display())),
        },
        Action::ChangeSettings(change) => change_settings(change, app, driver, host).await,
        Action::ListTasks => {
            let tasks = driver.tasks();
            app.show_tasks(&tasks);
            app.open_task_picker(&tasks);
        }
        Action::ShowMcp => {
            app.show_mcp(&host.mcp_servers());
        }
        Action::ShowStatus => {
            app.show_status(&driver.status().await, &host.about());
        }
        Action::ShowContext => {
            app.show_context(&driver.context_report().await);
        }
        Action::ShowTaskOutput(id) => match driver.task_output(&id) {
            Ok(output) => app.show_task_output(&id, &output),
            Err(e) => app.error(e.to_string()),
        },
        Action::ShowListing(what) => {
            app.show_listing(what, &host.listing(what));
            if what == crate::Listing::Memory {
                app.open_memory_picker(&host.memory_files());
            }
        }
        Action::Export(Some(file)) if matches!(file.trim(), "--clipboard" | "-c") => {
            let transcript = driver.transcript().await;
            match crate::export::to_clipboard(&transcript) {
                Ok(bytes) => app.info(format!(
                    "conversation copied to the clipboard ({bytes} bytes, through the terminal)"
                )),
                Err(e) => app.error(format!("cannot copy to the clipboard: {e}")),
            }
        }
        Action::Export(file) => {
            let transcript = driver.transcript().await;
            let session = driver.status().await.session_id;
            match crate::export::write(&transcript, file.as_deref(), &session, host.workspace()) {
                Ok(path) => app.info(format!("conversation written to {}", path.display())),
                Err(e) => app.error(e.to_string()),
            }
        }
        Action::OpenRewind => match driver.rewind_points() {
            Ok(points) => app.open_rewind_picker(&points),
            Err(e) => app.error(e.to_string()),
        },
        Action::PlanRewind(back) => match driver.rewind_preview(back) {
            Ok(preview) => app.open_rewind_choices(back, preview.as_ref()),
            Err(e) => app.error(e.to_string()),
        },
        // The engine's operations: `engine_op` sends them.
        _ => {}
    }
}

/// Shows what the engine answered to `op`.
async fn show_applied(
    op: Op,
    result: Result<Applied, ControlError>,
    app: &mut App,
    driver: &mut Controller,
    host: &dyn SessionHost,
) {
    let shown = match &op {
        Op::Resume(id) => Some(id.clone()),
        _ => None,
    };
    match (op, result) {
        (_, Err(error)) => app.error(error.to_string()),
        (Op::NewSession, Ok(Applied::Status(status))) => {
            app.session_replaced(status, "── new session ──");
            // The new agent read the command folders again: so does the list.
            app.set_commands(Commands::load(&host.commands()));
        }
        (Op::Resume(_), Ok(Applied::Status(status))) => {
            app.session_replaced(status, "");
            app.set_commands(Commands::load(&host.commands()));
            if let Some(id) = shown {
                app.replay(&driver.transcript().await, &id);
            }
        }
        (Op::SetModel(_), Ok(Applied::Status(status))) => {
            app.info(format!("model: {}", status.model));
            let current = app.status_mut();
            current.model = status.model;
            current.context_window = status.context_window;
            current.context_tokens = status.context_tokens;
        }
        (Op::SetEffort(effort), Ok(_)) => {
            app.status_mut().effort = effort;
            app.info(format!(
                "effort: {}",
                effort.map_or("the model's own", |e| e.name())
            ));
        }
        (Op::SetMode(mode), Ok(_)) => app.set_mode(mode),
        (_, Ok(Applied::Said(said))) => app.info(said),
        (
            _,
            Ok(Applied::Rewound {
                status,
                prompt,
                files,
            }),
        ) => app.rewound(status, &prompt, &files),
        _ => {}
    }
}

/// Has the host write a settings change, says what it did, and applies what changes now.
async fn change_settings(
    change: crate::settings::SettingsChange,
    app: &mut App,
    driver: &mut Controller,
    host: &dyn SessionHost,
) {
    let changed = match host.change_settings(change) {
        Ok(changed) => changed,
        Err(refused) => return app.error(refused.to_string()),
    };
    app.info(changed.message);
    match changed.live {
        LiveChange::Nothing => {}
        LiveChange::Rules(edit) => {
            if let Err(e) = driver.apply(Op::EditRules(edit)).await {
                app.error(e.to_string());
            }
        }
        LiveChange::StatusLine(command) => app.replace_status_command(command),
    }
}

/// Reads the watched task's output again (`/tasks` → pick), before the screen is drawn.
pub(crate) fn refresh_watch(app: &mut App, driver: &Controller) {
    let Some(id) = app.watched_task().map(str::to_string) else {
        return;
    };
    let task = driver.tasks().into_iter().find(|t| t.id == id);
    app.update_watch(driver.task_output(&id), task.as_ref());
}

/// Appends `text` to the memory file `file` as a list item, on a line of its own (the
/// model's own memory privately, provider keys redacted).
fn remember(file: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    if file
        .file_name()
        .is_some_and(|n| n == rein_engine::auto_memory::INDEX)
    {
        return rein_engine::auto_memory::remember_line(file, text);
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let before = std::fs::read(file).unwrap_or_default();
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    if !before.is_empty() && !before.ends_with(b"\n") {
        out.write_all(b"\n")?;
    }
    writeln!(out, "- {}", text.trim())
}
