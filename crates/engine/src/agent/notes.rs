//! Compaction from notes: the cheaper tier before a model-written summary. The session's
//! notes are what the agent wrote down as it went — the task board, memory it wrote, the last
//! summary. When they were written after everything a compaction would drop (the last note
//! came at or after the last dropped message), the summary is built from them and from the
//! dropped part's own record (the user's requests, the files changed), with no model call.

use rein_protocol::{ContentBlock, Message, Role};
use serde_json::Value;

use super::Agent;
use crate::context::SUMMARY_HEADER;

/// Most characters of one user request the notes summary quotes.
const REQUEST_CHARS: usize = 300;
/// Most user requests it quotes (the latest ones).
const MAX_REQUESTS: usize = 20;
/// Most changed files it names.
const MAX_FILES: usize = 50;

/// What the session wrote down since its last compaction.
#[derive(Debug, Default)]
pub(super) struct Notes {
    /// The transcript's length after the last batch that wrote a note (`None`: none since
    /// the last compaction).
    at: Option<usize>,
    /// The memory files written this session.
    memory: Vec<String>,
}

impl Agent {
    /// After a batch, before its `results` join the transcript: whether a successful call
    /// changed the board or wrote memory (the memory paths are kept); then
    /// [`Agent::notes_taken`] marks it once they are in.
    pub(super) fn noted_in(
        &mut self,
        calls: &[(String, String, Value)],
        results: &[ContentBlock],
    ) -> bool {
        let mut noted = false;
        for (id, name, input) in calls {
            if !super::todos::succeeded(results, id) {
                continue;
            }
            if rein_tools::BOARD_WRITERS.contains(&name.as_str()) {
                noted = true;
            }
            let command = input.get("command").and_then(Value::as_str).unwrap_or("");
            if name == crate::auto_memory::MEMORY_TOOL && command != "view" {
                noted = true;
                let path = ["path", "new_path"]
                    .iter()
                    .find_map(|k| input.get(*k).and_then(Value::as_str))
                    .unwrap_or("");
                if !path.is_empty() && !self.notes.memory.iter().any(|p| p == path) {
                    self.notes.memory.push(path.to_string());
                }
            }
        }
        noted
    }

    /// Notes were taken in the batch now in the transcript.
    pub(super) fn notes_taken(&mut self) {
        self.notes.at = Some(self.transcript.messages.len());
    }

    /// A compaction happened: the transcript's indices changed, and the notes count again
    /// from here.
    pub(super) fn notes_compacted(&mut self) {
        self.notes.at = None;
    }

    /// The summary of the first `older` messages built from the notes, when they cover them;
    /// `None` sends the compaction to the model.
    pub(super) fn summary_from_notes(&self, older: usize) -> Option<String> {
        let at = self.notes.at?;
        let board = self.tool_ctx.services.get::<rein_board::Board>().list();
        if older > at || (board.is_empty() && self.notes.memory.is_empty()) {
            return None;
        }
        let dropped = &self.transcript.messages[..older];
        let mut text = String::from(
            "The earlier part of this session was compacted from its notes (the task board, \
             memory written, the last summary), not summarised by a model.",
        );
        if let Some(earlier) = dropped.first().and_then(earlier_summary) {
            text.push_str(&format!("\n\nThe summary before it:\n{earlier}"));
        }
        let requests = requests(dropped);
        if !requests.is_empty() {
            text.push_str("\n\nWhat the user asked, in order:");
            for request in requests {
                text.push_str(&format!("\n- {request}"));
            }
        }
        let files = changed_files(dropped, &self.toolset.registry, &self.tool_ctx.guard);
        if !files.is_empty() {
            text.push_str(&format!("\n\nFiles changed: {}", files.join(", ")));
        }
        if !self.notes.memory.is_empty() {
            text.push_str(&format!(
                "\n\nMemory written this session (memory view reads it): {}",
                self.notes.memory.join(", ")
            ));
        }
        Some(text)
    }
}

/// The text of an earlier summary, when `first` is one.
fn earlier_summary(first: &Message) -> Option<String> {
    first.content.iter().find_map(|block| match block {
        ContentBlock::Text { text } => text
            .strip_prefix(SUMMARY_HEADER)
            .map(|rest| rest.trim().to_string()),
        _ => None,
    })
}

/// The user's own requests among `messages` (not tool results, not a summary), each cut to
/// [`REQUEST_CHARS`], the latest [`MAX_REQUESTS`].
fn requests(messages: &[Message]) -> Vec<String> {
    let all: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| &m.content)
        .filter_map(|block| match block {
            ContentBlock::Text { text } if !text.starts_with(SUMMARY_HEADER) => {
                let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let cut: String = one_line.chars().take(REQUEST_CHARS).collect();
                Some(match cut.len() < one_line.len() {
                    true => format!("{cut}…"),
                    false => cut,
                })
            }
            _ => None,
        })
        .filter(|text| !text.is_empty() && !text.starts_with("<system-reminder>"))
        .collect();
    let skip = all.len().saturating_sub(MAX_REQUESTS);
    all.into_iter().skip(skip).collect()
}

/// The files the calls among `messages` changed, as each tool's own facts say (what a
/// file tool writes, a shell line's redirects), relative to the workspace root, in
/// first-change order.
fn changed_files(
    messages: &[Message],
    tools: &rein_tools::ToolRegistry,
    guard: &rein_tools::WorkspaceGuard,
) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for block in messages.iter().flat_map(|m| &m.content) {
        let ContentBlock::ToolUse { name, input, .. } = block else {
            continue;
        };
        for path in tools.facts(name, input, guard).writes {
            let shown = path.strip_prefix(guard.root()).unwrap_or(&path);
            let shown = shown.display().to_string();
            if files.len() < MAX_FILES && !files.contains(&shown) {
                files.push(shown);
            }
        }
    }
    files
}
