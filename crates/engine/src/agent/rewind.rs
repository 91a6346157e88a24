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
    /// The checkpoint turn it started; `None` when the session keeps no checkpoints or it
    /// has none here (a prompt from before a fork).
    pub turn: Option<u32>,
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
                turn: None,
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
    /// The session's prompts still in the transcript, the latest first, each with the
    /// checkpoint turn it started: matched by its text, from the latest turn back, so a
    /// prompt that got no reply, a slash command, a compaction or a resume in between
    /// changes nothing.
    pub fn rewind_points(&self) -> Vec<RewindPoint> {
        let mut points = self.transcript.rewind_points();
        let Some(checkpoints) = self.checkpoints() else {
            for point in &mut points {
                point.prompt = crate::session::shell_as_typed(&point.prompt);
            }
            return points;
        };
        let turns = checkpoints.prompts();
        let mut below = u32::MAX;
        for point in &mut points {
            let line = rein_checkpoint::prompt_line(&point.prompt);
            point.prompt = crate::session::shell_as_typed(&point.prompt);
            point.turn = turns
                .range(..below)
                .rev()
                .find(|(_, prompt)| **prompt == line)
                .map(|(turn, _)| *turn);
            if let Some(turn) = point.turn {
                below = turn;
            }
        }
        points
    }

    /// What restoring the code to before the `back`-th last prompt would do: the turns from
    /// the one that prompt started on; `None` when the session keeps no checkpoints or that
    /// prompt started none.
    pub fn rewind_plan(&self, back: usize) -> Option<UndoPlan> {
        let checkpoints = self.checkpoints()?;
        let point = self.rewind_points().into_iter().find(|p| p.back == back)?;
        let from = point.turn?;
        let turns: Vec<u32> = checkpoints
            .turns()
            .into_iter()
            .filter(|t| t.turn >= from && !t.undone)
            .map(|t| t.turn)
            .collect();
        Some(checkpoints.plan(&turns))
    }

    /// Restores the code to before the `back`-th last prompt (a file changed since rein wrote
    /// it is kept unless [`Restore::Force`]).
    pub fn rewind_code(
        &mut self,
        back: usize,
        restore: Restore,
        events: &EventSender,
    ) -> std::io::Result<Vec<RestoreOutcome>> {
        let plan = self.rewind_plan(back).ok_or_else(|| {
            std::io::Error::other(
                "no checkpoint for that prompt (this session keeps none, or the prompt \
                     is from before a fork)",
            )
        })?;
        self.undo(&plan, restore, events)
    }

    /// The transcript as it was before the `back`-th last prompt, and that prompt's text.
    pub fn transcript_before(&self, back: usize) -> Option<(Vec<Message>, String)> {
        self.transcript
            .before(back)
            .map(|(kept, prompt)| (kept, crate::session::shell_as_typed(&prompt)))
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
