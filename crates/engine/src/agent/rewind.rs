//! Rewinding to before one of the session's prompts (`/rewind`): the prompts to choose from,
//! the code restore of the turns from that prompt on, and the transcript as it was before it
//! (which a front end continues as a fork).

use rein_checkpoint::{Restore, RestoreOutcome, UndoPlan};
use rein_protocol::{ContentBlock, Message, Role};

use super::Agent;
use super::transcript::Transcript;
use crate::EventSender;
use crate::context::SUMMARY_HEADER;

/// A prompt of the session that can be rewound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindPoint {
    /// Its place counted from the end (1: the latest prompt).
    pub back: usize,
    /// Its text.
    pub prompt: String,
}

/// Where a prompt sits in the transcript: its message and the block it starts at.
#[derive(Debug, Clone, Copy)]
struct PromptAt {
    message: usize,
    block: usize,
}

impl Transcript {
    /// The prompts still in the transcript, the latest first.
    fn rewind_points(&self) -> Vec<RewindPoint> {
        let at = prompts(&self.messages);
        at.iter()
            .rev()
            .enumerate()
            .map(|(n, p)| RewindPoint {
                back: n + 1,
                prompt: prompt_text(&self.messages, *p),
            })
            .collect()
    }

    /// The messages before the `back`-th last prompt, and that prompt's text.
    fn before(&self, back: usize) -> Option<(Vec<Message>, String)> {
        let at = prompts(&self.messages);
        let point = *at.get(at.len().checked_sub(back)?)?;
        let mut kept = self.messages[..point.message].to_vec();
        if point.block > 0 {
            // Tool results the prompt was sent with (an interrupted turn's) stay.
            kept.push(Message {
                role: Role::User,
                content: self.messages[point.message].content[..point.block].to_vec(),
            });
        }
        Some((kept, prompt_text(&self.messages, point)))
    }
}

impl Agent {
    /// The session's prompts still in the transcript, the latest first.
    pub fn rewind_points(&self) -> Vec<RewindPoint> {
        self.transcript.rewind_points()
    }

    /// What restoring the code to before the `back`-th last prompt would do; `None` when the
    /// session keeps no checkpoints.
    pub fn rewind_plan(&self, back: usize) -> Option<UndoPlan> {
        let checkpoints = self.checkpoints()?;
        Some(checkpoints.plan(&self.rewind_turns(back)))
    }

    /// Restores the code to before the `back`-th last prompt (a file changed since rein wrote
    /// it is kept unless [`Restore::Force`]).
    pub fn rewind_code(
        &mut self,
        back: usize,
        restore: Restore,
        events: &EventSender,
    ) -> std::io::Result<Vec<RestoreOutcome>> {
        let plan = self
            .rewind_plan(back)
            .ok_or_else(|| std::io::Error::other("this session keeps no checkpoints"))?;
        self.undo(&plan, restore, events)
    }

    /// The transcript as it was before the `back`-th last prompt, and that prompt's text.
    pub fn transcript_before(&self, back: usize) -> Option<(Vec<Message>, String)> {
        self.transcript.before(back)
    }

    /// The checkpoint turns of the `back` last prompts that are not undone yet: every prompt
    /// that reached the transcript started one, so they are the latest turns.
    fn rewind_turns(&self, back: usize) -> Vec<u32> {
        let Some(checkpoints) = self.checkpoints() else {
            return Vec::new();
        };
        let first = (checkpoints.turn() + 1).saturating_sub(u32::try_from(back).unwrap_or(0));
        checkpoints
            .turns()
            .into_iter()
            .filter(|t| t.turn >= first.max(1) && !t.undone)
            .map(|t| t.turn)
            .collect()
    }
}

/// Where each prompt of `transcript` starts: the first text block after any tool results of
/// a user message (not a compaction's summary).
fn prompts(transcript: &[Message]) -> Vec<PromptAt> {
    transcript
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
        .filter_map(|(message, m)| {
            let block = m
                .content
                .iter()
                .rposition(|b| matches!(b, ContentBlock::ToolResult { .. }))
                .map_or(0, |last| last + 1);
            // A compaction's summary may open the message the next prompt joined.
            let block = match m.content.get(block) {
                Some(ContentBlock::Text { text }) if text.starts_with(SUMMARY_HEADER) => block + 1,
                _ => block,
            };
            match m.content.get(block) {
                Some(ContentBlock::Text { .. }) => Some(PromptAt { message, block }),
                _ => None,
            }
        })
        .collect()
}

fn prompt_text(transcript: &[Message], at: PromptAt) -> String {
    match transcript[at.message].content.get(at.block) {
        Some(ContentBlock::Text { text }) => text.clone(),
        _ => String::new(),
    }
}
