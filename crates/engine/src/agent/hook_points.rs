//! The hook points of a run: the prompt's way in (`SessionStart`, `UserPromptSubmit`), the
//! `Stop` check before the agent finishes, and `SessionEnd`.

use std::sync::Arc;

use rein_protocol::{ContentBlock, Message, Role};

use super::Agent;
use crate::EventSender;
use crate::emitter::Emitter;
use crate::hooks::HookEvent;
use crate::lifecycle::EndReason;

/// Times in a row a `Stop` hook may send the agent back to work before rein stops anyway.
const MAX_STOP_CONTINUATIONS: u32 = 3;

/// A prompt a `UserPromptSubmit` hook refused, with the hook's reason.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the prompt was blocked by a UserPromptSubmit hook: {reason}")]
pub(super) struct PromptBlocked {
    /// What the hook said.
    pub(super) reason: String,
}

/// Hook context as text blocks of the user message.
fn context_blocks(event: HookEvent, context: &[String]) -> Vec<ContentBlock> {
    context
        .iter()
        .map(|text| ContentBlock::Text {
            text: format!("[{} hook context]\n{text}", event.name()),
        })
        .collect()
}

impl Agent {
    /// Adds the prompt to the transcript after the `SessionStart` (first run only) and
    /// `UserPromptSubmit` hooks, with the context they add. `Err` when a hook blocked it.
    pub(super) async fn submit(
        &mut self,
        prompt: &str,
        events: &EventSender,
    ) -> Result<(), PromptBlocked> {
        let hooks = Arc::clone(&self.gate.hooks);
        let mode = self.gate.hook_mode();
        self.close_unanswered_prompt();
        let mut blocks = vec![ContentBlock::Text {
            text: prompt.to_string(),
        }];
        if self.delegation.subagent_name.is_none() {
            blocks.extend(self.mentioned_files(prompt).await);
        }
        let mut ended = self
            .tool_ctx
            .services
            .get::<rein_tools::Jobs>()
            .take_ended();
        if let Some(spawner) = &self.delegation.spawner {
            ended.extend(spawner.take_finished());
        }
        if !ended.is_empty() {
            blocks.push(ContentBlock::Text {
                text: ended.join("\n"),
            });
        }
        if let Some(note) = self.take_restored_note() {
            blocks.push(note);
        }
        if self.delegation.subagent_name.is_some() {
            // A subagent's task comes from the model: the user's prompt hooks ran already.
            self.push_user_blocks(blocks);
            return Ok(());
        }
        if !self.opening.started {
            self.opening.started = true;
            let mut fields = serde_json::Map::new();
            let source = if self.opening.resumed {
                "resume"
            } else {
                "startup"
            };
            fields.insert("source".into(), source.into());
            let said = hooks
                .run(HookEvent::SessionStart, None, mode, fields, events)
                .await;
            blocks.extend(context_blocks(HookEvent::SessionStart, &said.context));
        }
        hooks.begin_prompt();
        let mut fields = serde_json::Map::new();
        fields.insert("prompt".into(), prompt.into());
        let said = hooks
            .run(HookEvent::UserPromptSubmit, None, mode, fields, events)
            .await;
        if let Some(reason) = said.block.or(said.stop) {
            return Err(PromptBlocked { reason });
        }
        blocks.extend(context_blocks(HookEvent::UserPromptSubmit, &said.context));
        self.push_user_blocks(blocks);
        Ok(())
    }

    /// Runs the `SessionEnd` hooks; front ends call it once when the session is over.
    pub async fn end_session(&self, reason: EndReason, events: &EventSender) {
        let mut fields = serde_json::Map::new();
        fields.insert("reason".into(), reason.name().into());
        let mode = self.gate.hook_mode();
        self.gate
            .hooks
            .run(HookEvent::SessionEnd, None, mode, fields, events)
            .await;
    }

    /// Whether a `Stop` hook wants the agent to go on; if so, tells the model why.
    pub(super) async fn stop_blocked(&mut self, continued: &mut u32, events: &EventSender) -> bool {
        let last_text = self
            .transcript
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::text)
            .unwrap_or_default();
        let mut fields = serde_json::Map::new();
        fields.insert("stop_hook_active".into(), (*continued > 0).into());
        fields.insert("last_assistant_message".into(), last_text.into());
        // rein runs no background tasks or scheduled prompts; Claude Code's hooks see lists.
        fields.insert("background_tasks".into(), serde_json::json!([]));
        fields.insert("session_crons".into(), serde_json::json!([]));
        let mode = self.gate.hook_mode();
        let said = self
            .gate
            .hooks
            .run(HookEvent::Stop, None, mode, fields, events)
            .await;
        let Some(reason) = said.block else {
            return false;
        };
        if *continued >= MAX_STOP_CONTINUATIONS {
            events.error(format!(
                "a Stop hook kept blocking; stopping after {MAX_STOP_CONTINUATIONS} \
                 continuations ({reason})"
            ));
            return false;
        }
        *continued += 1;
        self.push_user_text(&format!(
            "A Stop hook says the work is not finished yet; continue: {reason}"
        ));
        true
    }
}
