//! `/rewind` through the controller: the prompts to choose from, what a code restore would
//! do, and the rewind itself (files restored, conversation forked).

use rein_checkpoint::Restore;

use super::{Applied, Controller, EndReason, RewindWhat};
use crate::undo::RewindPreview;
use crate::{ControlError, RewindPoint};

impl Controller {
    /// The session's prompts that can be rewound to, the latest first (the agent must be
    /// idle).
    pub fn rewind_points(&self) -> Result<Vec<RewindPoint>, ControlError> {
        let agent = self.agent.try_lock().map_err(|_| ControlError::Busy)?;
        Ok(agent.rewind_points())
    }

    /// What restoring the code to before the `back`-th last prompt would do; `None` when the
    /// session keeps no checkpoints.
    pub fn rewind_preview(&self, back: usize) -> Result<Option<RewindPreview>, ControlError> {
        let agent = self.agent.try_lock().map_err(|_| ControlError::Busy)?;
        let (Some(plan), Some(checkpoints)) = (agent.rewind_plan(back), agent.checkpoints()) else {
            return Ok(None);
        };
        Ok(Some(RewindPreview::of(
            checkpoints,
            &plan,
            agent.workspace(),
        )))
    }

    /// Carries out [`crate::Op::Rewind`]: the fork is made first, so a failure changes
    /// nothing; then the files are restored (recorded in the session they belong to), then
    /// the fork replaces the session.
    pub(super) async fn rewind(
        &mut self,
        back: usize,
        what: RewindWhat,
        restore: Restore,
    ) -> Result<Applied, ControlError> {
        if what.code() {
            self.no_background_writers()?;
        }
        let (files, prompt, fork) = {
            // A job that said it ended may still be dropping the agent: wait for that moment
            // rather than call the session busy; a job under way is.
            let mut agent = match self.status.running() {
                true => self.agent.try_lock().map_err(|_| ControlError::Busy)?,
                false => self.agent.lock().await,
            };
            let (transcript, prompt) = agent
                .transcript_before(back)
                .ok_or(ControlError::NoPrompt { back })?;
            let fork = match what.conversation() {
                true => Some(self.factory.fork(agent.session_id(), transcript)?),
                false => None,
            };
            let mut files = Vec::new();
            if what.code() {
                let outcomes = agent
                    .rewind_code(back, restore, &self.events)
                    .map_err(ControlError::Restore)?;
                files = crate::undo::outcome_lines(&outcomes, agent.workspace());
            }
            (files, prompt, fork)
        };
        let status = match fork {
            Some(forked) => Some(self.replace(forked, EndReason::Resume).await),
            None => None,
        };
        Ok(Applied::Rewound {
            status,
            prompt,
            files,
        })
    }

    /// Files cannot be put back while background work may still write them: it is refused,
    /// naming the work and how to stop it.
    fn no_background_writers(&self) -> Result<(), ControlError> {
        let running: Vec<String> = self
            .background
            .list()
            .into_iter()
            .filter(|t| t.running)
            .map(|t| format!("{} ({})", t.id, t.label.lines().next().unwrap_or("")))
            .collect();
        if running.is_empty() {
            return Ok(());
        }
        Err(ControlError::BackgroundWriters { running })
    }
}
