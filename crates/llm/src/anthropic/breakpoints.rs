//! Where a Messages request asks Anthropic to cache: at most four `cache_control` breakpoints.
//!
//! The cache is a prefix cache over tools → system → messages, and a breakpoint both writes the
//! prefix that ends at its block and looks for an earlier entry up to about 20 blocks before it.
//! So the breakpoints go on the last tool, the system prompt, the end of the newest message (the
//! moving end, written for the next request) and the end of the user message that ended the
//! previous request (read back exactly, however many blocks the latest turn added).

use serde_json::{Value, json};

use crate::CacheTtl;

/// The `cache_control` value for `ttl`.
pub(super) fn marker(ttl: CacheTtl) -> Value {
    match ttl {
        CacheTtl::FiveMinutes => json!({"type": "ephemeral"}),
        CacheTtl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    }
}

/// Marks the last tool of a `tools` array.
pub(super) fn mark_tools(tools: &mut [Value], ttl: CacheTtl) {
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = marker(ttl);
    }
}

/// Marks the end of the newest message and of the user message the previous request ended
/// with: the last user message that an assistant message follows, before the newest message.
pub(super) fn mark_messages(messages: &mut [Value], ttl: CacheTtl) {
    let Some(newest) = messages.len().checked_sub(1) else {
        return;
    };
    let previous_end = (0..newest).rev().find(|&i| {
        messages[i]["role"] == "user"
            && messages
                .get(i + 1)
                .is_some_and(|next| next["role"] == "assistant")
    });
    for index in previous_end.into_iter().chain([newest]) {
        mark_last_block(&mut messages[index], ttl);
    }
}

/// Puts a breakpoint on the last block of `message` that may carry one (thinking blocks may
/// not: a breakpoint sits after them only through a later block).
fn mark_last_block(message: &mut Value, ttl: CacheTtl) {
    let Some(blocks) = message["content"].as_array_mut() else {
        return;
    };
    let cacheable = blocks
        .iter_mut()
        .rev()
        .find(|b| !matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")));
    if let Some(block) = cacheable {
        block["cache_control"] = marker(ttl);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn text(role: &str, text: &str) -> Value {
        json!({"role": role, "content": [{"type": "text", "text": text}]})
    }

    fn marked(messages: &[Value]) -> Vec<bool> {
        messages
            .iter()
            .map(|m| m.to_string().contains("cache_control"))
            .collect()
    }

    #[test]
    fn the_newest_message_and_the_previous_requests_end_are_marked() {
        let mut messages = vec![
            text("user", "a"),
            text("assistant", "b"),
            text("user", "c"),
            text("assistant", "d"),
            text("user", "e"),
        ];
        mark_messages(&mut messages, CacheTtl::FiveMinutes);
        assert_eq!(marked(&messages), [false, false, true, false, true]);
        assert_eq!(
            messages[4]["content"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
    }

    #[test]
    fn a_paused_turn_ending_with_the_assistant_marks_the_user_message_before_it() {
        let mut messages = vec![text("user", "a"), text("assistant", "b")];
        mark_messages(&mut messages, CacheTtl::OneHour);
        assert_eq!(marked(&messages), [true, true]);
        assert_eq!(
            messages[0]["content"][0]["cache_control"],
            json!({"type": "ephemeral", "ttl": "1h"})
        );
    }

    #[test]
    fn thinking_blocks_are_never_marked() {
        let mut messages = vec![json!({"role": "assistant", "content": [
            {"type": "text", "text": "x"},
            {"type": "thinking", "thinking": "t", "signature": "s"},
        ]})];
        mark_messages(&mut messages, CacheTtl::FiveMinutes);
        assert!(messages[0]["content"][0].get("cache_control").is_some());
        assert!(messages[0]["content"][1].get("cache_control").is_none());
        let mut only_thinking = vec![
            json!({"role": "assistant", "content": [{"type": "redacted_thinking", "data": "r"}]}),
        ];
        mark_messages(&mut only_thinking, CacheTtl::FiveMinutes);
        assert_eq!(marked(&only_thinking), [false]);
        mark_messages(&mut [], CacheTtl::FiveMinutes);
    }
}
