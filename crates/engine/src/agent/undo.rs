//! Undo inside a session (`/rewind`): restores through the session's checkpoints, recorded in
//! the session file, shown as an event, and told to the model in its next request.

use std::sync::Arc;

use rein_checkpoint::{Checkpoints, Restore, RestoreOutcome, UndoPlan};
use rein_protocol::{ContentBlock, Event, SessionRecord};

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;

/// The undo side of a session: its checkpoint store, restores the model has not been told
/// of yet, and the turn's first git snapshot while it is taken.
#[derive(Default)]
pub(super) struct Checkpointing {
    /// The session's store; `None` when this session keeps none.
    pub(super) store: Option<Arc<Checkpoints>>,
    /// Restores not told yet: (turns, files).
    pub(super) restored: Vec<(Vec<u32>, Vec<String>)>,
    /// The turn's first git snapshot, being taken.
    pub(super) snapshotting: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Checkpointing {
    /// The note for the next prompt about files restored since the last one.
    fn take_note(&mut self) -> Option<ContentBlock> {
        let text = crate::undo::reminder(&std::mem::take(&mut self.restored))?;
        Some(ContentBlock::Text { text })
    }
}

impl Agent {
    /// The session's checkpoints; `None` when this session keeps none.
    pub fn checkpoints(&self) -> Option<&Arc<Checkpoints>> {
        self.checkpointing.store.as_ref()
    }

    /// Carries out `plan` (a file changed since rein wrote it is kept unless
    /// [`Restore::Force`]),
    /// records it and says so; the model hears of it in its next request.
    pub fn undo(
        &mut self,
        plan: &UndoPlan,
        restore: Restore,
        events: &EventSender,
    ) -> std::io::Result<Vec<RestoreOutcome>> {
        let checkpoints = self
            .checkpoints()
            .ok_or_else(|| std::io::Error::other("this session keeps no checkpoints"))?;
        let outcomes = checkpoints.apply(plan, restore)?;
        let files = crate::undo::changed_files(&outcomes, self.tool_ctx.guard.root());
        self.restored_files(plan.turns.clone(), files, events);
        Ok(outcomes)
    }

    /// Files of `turns` were put back (here or by `rein undo`): recorded, said, and queued for
    /// the model.
    pub(super) fn restored_files(
        &mut self,
        turns: Vec<u32>,
        files: Vec<String>,
        events: &EventSender,
    ) {
        if files.is_empty() {
            return;
        }
        self.record(SessionRecord::Restored {
            turns: turns.clone(),
            files: files.clone(),
        });
        events.emit(Event::FilesRestored {
            turns: turns.clone(),
            files: files.clone(),
        });
        self.checkpointing.restored.push((turns, files));
    }

    /// With `prompt`, starts the checkpoints' next turn and snapshots the git work tree as
    /// the turn finds it (in the background, while the first request goes out: tools wait for
    /// it, see [`Agent::settle_snapshot`]); without, snapshots it as the turn left it. A
    /// subagent's calls belong to its parent's turn.
    pub(super) async fn checkpoint_turn(&mut self, prompt: Option<&str>, events: &EventSender) {
        let Some(checkpoints) = self.checkpointing.store.clone() else {
            return;
        };
        if self.delegation.subagent_name.is_some() {
            return;
        }
        self.settle_snapshot(events).await;
        if let Some(prompt) = prompt {
            if let Err(e) = checkpoints.begin_turn(prompt) {
                events.error(format!(
                    "cannot keep checkpoints in {} ({e}): what this turn changes cannot be \
                     undone",
                    checkpoints.dir().display()
                ));
                return;
            }
            self.checkpointing.snapshotting = Some(tokio::task::spawn_blocking(move || {
                checkpoints.snapshot(rein_checkpoint::TurnEdge::Start)
            }));
            return;
        }
        let taken = tokio::task::spawn_blocking(move || {
            checkpoints.snapshot(rein_checkpoint::TurnEdge::End)
        })
        .await;
        snapshot_failed(taken, events);
    }

    /// Waits for the turn's first snapshot: nothing may change the work tree before it is
    /// taken.
    pub(super) async fn settle_snapshot(&mut self, events: &EventSender) {
        if let Some(pending) = self.checkpointing.snapshotting.take() {
            snapshot_failed(pending.await, events);
        }
    }

    /// The note for the next prompt about files restored since the last one.
    pub(super) fn take_restored_note(&mut self) -> Option<ContentBlock> {
        self.checkpointing.take_note()
    }
}

/// Says a snapshot failed, if it did.
fn snapshot_failed(
    taken: Result<std::io::Result<()>, tokio::task::JoinError>,
    events: &EventSender,
) {
    if let Ok(Err(e)) = taken {
        events.error(format!(
            "cannot snapshot the git work tree ({e}): what shell commands change in this \
             turn cannot be undone"
        ));
    }
}
