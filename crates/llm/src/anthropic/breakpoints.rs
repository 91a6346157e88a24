//! Where a Messages request asks Anthropic to cache: at most four `cache_control` breakpoints.
//!
//! The cache is a prefix cache over tools → system → messages, and a breakpoint both writes the
//! prefix that ends at its block and looks for an earlier entry up to about 20 blocks before it.
//! So the breakpoints go on the last tool, the system prompt, the end of the newest message (the
//! moving end, written for the next request) and the end of the user message that ended the
//! previous request (read back exactly, however many blocks the latest turn added).

use rein_protocol::Role;

use super::body::{Marker, WireMessage};
use crate::CacheTtl;

/// Marks the end of the newest message and of the user message the previous request ended
/// with: the last user message that an assistant message follows, before the newest message.
pub(super) fn mark_messages(messages: &mut [WireMessage<'_>], ttl: CacheTtl) {
    let Some(newest) = messages.len().checked_sub(1) else {
        return;
    };
    let previous_end = (0..newest).rev().find(|&i| {
        messages[i].role == Role::User
            && messages
                .get(i + 1)
                .is_some_and(|next| next.role == Role::Assistant)
    });
    for index in previous_end.into_iter().chain([newest]) {
        mark_last_block(&mut messages[index], ttl);
    }
}

/// Puts a breakpoint on the last block of `message` that may carry one (thinking blocks may
/// not: a breakpoint sits after them only through a later block).
fn mark_last_block(message: &mut WireMessage<'_>, ttl: CacheTtl) {
    let cacheable = message.content.iter_mut().rev().find(|b| !b.is_thinking());
    if let Some(block) = cacheable {
        block.cache_control = Some(Marker(ttl));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rein_protocol::{ContentBlock, Message};
    use serde_json::{Value, json};

    fn text(role: Role, text: &str) -> Message {
        Message {
            role,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// The messages as sent, with their breakpoints.
    fn sent(messages: &[Message], ttl: CacheTtl) -> Vec<Value> {
        let mut wire: Vec<WireMessage<'_>> = messages.iter().filter_map(WireMessage::new).collect();
        mark_messages(&mut wire, ttl);
        wire.iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect()
    }

    fn marked(messages: &[Value]) -> Vec<bool> {
        messages
            .iter()
            .map(|m| m.to_string().contains("cache_control"))
            .collect()
    }

    #[test]
    fn the_newest_message_and_the_previous_requests_end_are_marked() {
        let messages = [
            text(Role::User, "a"),
            text(Role::Assistant, "b"),
            text(Role::User, "c"),
            text(Role::Assistant, "d"),
            text(Role::User, "e"),
        ];
        let sent = sent(&messages, CacheTtl::FiveMinutes);
        assert_eq!(marked(&sent), [false, false, true, false, true]);
        assert_eq!(
            sent[4]["content"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
    }

    #[test]
    fn a_paused_turn_ending_with_the_assistant_marks_the_user_message_before_it() {
        let messages = [text(Role::User, "a"), text(Role::Assistant, "b")];
        let sent = sent(&messages, CacheTtl::OneHour);
        assert_eq!(marked(&sent), [true, true]);
        assert_eq!(
            sent[0]["content"][0]["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
    }

    #[test]
    fn thinking_blocks_are_never_marked() {
        let messages = [Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text { text: "x".into() },
                ContentBlock::Thinking {
                    thinking: "t".into(),
                    signature: Some("s".into()),
                },
            ],
        }];
        let sent_ = sent(&messages, CacheTtl::FiveMinutes);
        assert!(sent_[0]["content"][0].get("cache_control").is_some());
        assert!(sent_[0]["content"][1].get("cache_control").is_none());
        let only_thinking = [
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::RedactedThinking { data: "r".into() }],
            },
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::Provider {
                    protocol: "anthropic".into(),
                    block: json!({"type": "thinking", "thinking": "t", "signature": "s"}),
                }],
            },
        ];
        assert_eq!(
            marked(&sent(&only_thinking, CacheTtl::FiveMinutes)),
            [false, false]
        );
        assert_eq!(sent(&[], CacheTtl::FiveMinutes), Vec::<Value>::new());
    }
}
