//! Growing the transcript: the user's side (prompts, tool results, memory) merged into
//! alternating roles and kept free of provider keys, and what the model's replies carry.

use rein_llm::{ModelRequest, PromptCache};
use rein_protocol::{ContentBlock, Message, Role, SessionRecord, StopReason};

use super::Agent;
use crate::context::Anchor;
use crate::dispatch::{self, ToolCall};

/// The conversation, and the prompt size its provider last reported (the context estimate
/// counts from there).
#[derive(Debug, Default)]
pub(super) struct Transcript {
    pub(super) messages: Vec<Message>,
    pub(super) anchor: Option<Anchor>,
    /// Estimated tokens of the last summary the model wrote, used or not: the window does
    /// not ask for a summary of a shorter history.
    pub(super) summary_tokens: u64,
}

impl Transcript {
    /// Appends user content, merging into a trailing user message so roles keep
    /// alternating.
    pub(super) fn push_user(&mut self, blocks: Vec<ContentBlock>) {
        match self.messages.last_mut() {
            Some(last) if last.role == Role::User => last.content.extend(blocks),
            _ => self.messages.push(Message {
                role: Role::User,
                content: blocks,
            }),
        }
    }
}

/// What follows a `!command` of the user's own, which asks the model nothing.
pub(crate) const SHELL_ONLY: &str = "(The user ran this command themselves; nothing to answer.)";

/// What stands in for the reply to a prompt that got none.
pub(crate) const UNANSWERED: &str =
    "(No reply: this turn was interrupted or failed before the model answered.)";

impl Agent {
    /// The transcript so far.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript.messages
    }

    /// A request for `messages` with what every request of the session shares, in the order
    /// providers cache it: the same tools, the same system prompt, the session's cache key.
    /// Nothing here may change from one turn to the next (a clock, a re-read file, a reordered
    /// tool list), or every request pays for the whole prompt again.
    pub(super) fn request(&self, messages: Vec<Message>) -> ModelRequest {
        ModelRequest {
            model: self.request_model().to_string(),
            system: self.system.as_str().to_string(),
            messages,
            tools: self.offered_specs(),
            max_tokens: self.max_output(),
            cache: PromptCache {
                key: Some(self.session_id.clone()),
                ttl: self.config.cache_ttl,
            },
            effort: self.config.effort,
            web_search: crate::web::hosted(
                self.config.web.as_ref(),
                self.provider(),
                self.request_model(),
            ),
        }
    }

    /// Keeps what a cancelled reply completed; its tool calls get "interrupted" results.
    pub(super) fn record_cut_reply(&mut self, blocks: Vec<ContentBlock>) {
        if blocks.is_empty() {
            return;
        }
        let message = Message {
            role: Role::Assistant,
            content: blocks,
        };
        let calls = tool_calls(&message);
        self.record(SessionRecord::Message {
            message: message.clone(),
        });
        self.transcript.messages.push(message);
        if !calls.is_empty() {
            self.push_user_blocks(dispatch::interrupted(calls));
        }
    }

    /// Before a new prompt: when the last prompt got no reply (the turn was interrupted or
    /// failed before the model answered), a short assistant message says so, so that each
    /// prompt keeps a user message of its own (`/rewind` lists and cuts at every one) and the
    /// model sees that the earlier one went unanswered.
    pub(super) fn close_unanswered_prompt(&mut self) {
        let Some(last) = self
            .transcript
            .messages
            .last()
            .filter(|m| m.role == Role::User)
        else {
            return;
        };
        let texts: Vec<&str> = last
            .content
            .iter()
            .rev()
            .take_while(|b| !matches!(b, ContentBlock::ToolResult { .. }))
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if texts.is_empty() {
            return;
        }
        // A `!command` of the user's own asked nothing.
        let text = if texts
            .iter()
            .any(|t| t.starts_with(super::user_shell::BASH_INPUT))
        {
            SHELL_ONLY
        } else {
            UNANSWERED
        };
        let message = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::Text {
                text: text.to_string(),
            }],
        };
        self.record(SessionRecord::Message {
            message: message.clone(),
        });
        self.transcript.messages.push(message);
    }

    pub(super) fn push_user_text(&mut self, text: &str) {
        self.push_user_blocks(vec![ContentBlock::Text {
            text: text.to_string(),
        }]);
    }

    /// Appends user content, merging into a trailing user message (e.g. tool results of a
    /// cancelled turn) so roles keep alternating.
    pub(super) fn push_user_blocks(&mut self, blocks: Vec<ContentBlock>) {
        let blocks = self.redacted(blocks);
        self.record(SessionRecord::Message {
            message: Message {
                role: Role::User,
                content: blocks.clone(),
            },
        });
        self.push_recorded_user_blocks(blocks);
    }

    /// [`Agent::push_user_blocks`] for blocks already in the session file (tool results,
    /// recorded as their calls finished).
    pub(super) fn push_recorded_user_blocks(&mut self, blocks: Vec<ContentBlock>) {
        self.transcript.push_user(blocks);
    }

    /// `blocks` without the provider keys' values.
    pub(super) fn redacted(&self, mut blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
        // A provider key pasted into a prompt or printed by a tool is neither stored nor sent.
        for block in &mut blocks {
            let (ContentBlock::Text { text } | ContentBlock::ToolResult { content: text, .. }) =
                block
            else {
                continue;
            };
            if let std::borrow::Cow::Owned(clean) = self.tool_ctx.hidden_env.redact(text) {
                *text = clean;
            }
        }
        blocks
    }
}

/// A reply with nothing to act on: no text, no tool calls, no block to send back (thinking
/// alone does not count), ended normally.
pub(super) fn is_empty_reply(message: &Message, stop: &StopReason) -> bool {
    let nothing = message.content.iter().all(|block| match block {
        ContentBlock::Text { text } => text.trim().is_empty(),
        ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => true,
        _ => false,
    });
    nothing && matches!(stop, StopReason::EndTurn | StopReason::StopSequence)
}

pub(super) fn tool_calls(message: &Message) -> Vec<ToolCall> {
    message
        .tool_uses()
        .map(|(id, name, input)| ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
        })
        .collect()
}
