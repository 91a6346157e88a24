//! Making a loaded transcript valid for the providers again: every tool call answered by one
//! result in the next user message (results first), no result without its call. A killed run
//! leaves calls without results anywhere in a transcript (later prompts were appended after
//! it), and a damaged file can leave results without calls; the APIs refuse both.

use std::collections::HashSet;

use rein_protocol::{ContentBlock, Message, Role};

/// The result given to a call whose result is not in the file: it may have run (a process
/// killed mid-batch), so nothing is claimed either way.
pub const LOST_RESULT: &str =
    "This call may have run, but its result was lost (rein was stopped before it was saved).";

/// `transcript` with unanswered calls answered by [`LOST_RESULT`], orphan and duplicate
/// results dropped, and results moved to the front of their message; what was repaired, as
/// warnings.
pub fn repair(transcript: Vec<Message>) -> (Vec<Message>, Vec<String>) {
    let mut out: Vec<Message> = Vec::with_capacity(transcript.len() + 1);
    let mut lost = 0;
    let mut orphans = 0;
    let mut pending: Vec<String> = Vec::new();
    for message in transcript {
        if message.role == Role::Assistant {
            if !pending.is_empty() {
                // Calls followed by another assistant message: answer them in between.
                lost += pending.len();
                out.push(answers(std::mem::take(&mut pending), Vec::new()));
            }
            pending = message
                .tool_uses()
                .map(|(id, _, _)| id.to_string())
                .collect();
            out.push(message);
            continue;
        }
        let open: HashSet<String> = pending.iter().cloned().collect();
        let mut seen = HashSet::new();
        let mut results = Vec::new();
        let mut rest = Vec::new();
        for block in message.content {
            match block {
                ContentBlock::ToolResult {
                    ref tool_use_id, ..
                } => {
                    if open.contains(tool_use_id) && seen.insert(tool_use_id.clone()) {
                        results.push(block);
                    } else {
                        orphans += 1;
                    }
                }
                other => rest.push(other),
            }
        }
        let missing: Vec<String> = pending.drain(..).filter(|id| !seen.contains(id)).collect();
        lost += missing.len();
        let mut repaired = answers(missing, results);
        repaired.content.extend(rest);
        if !repaired.content.is_empty() {
            out.push(repaired);
        }
    }
    if !pending.is_empty() {
        lost += pending.len();
        out.push(answers(pending, Vec::new()));
    }
    let mut warnings = Vec::new();
    if lost > 0 {
        warnings.push(format!(
            "{lost} tool call(s) had no saved result; the model is told each may have run"
        ));
    }
    if orphans > 0 {
        warnings.push(format!(
            "dropped {orphans} tool result(s) without a matching call"
        ));
    }
    (join_roles(out), warnings)
}

/// A user message: `results`, then a lost result for each of `missing`.
fn answers(missing: Vec<String>, mut results: Vec<ContentBlock>) -> Message {
    results.extend(missing.into_iter().map(|id| ContentBlock::ToolResult {
        tool_use_id: id,
        content: LOST_RESULT.to_string(),
        is_error: true,
        media: Vec::new(),
    }));
    Message {
        role: Role::User,
        content: results,
    }
}

/// Consecutive messages of one role joined (a dropped message can leave two together).
fn join_roles(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages {
        match out.last_mut() {
            Some(last) if last.role == message.role => last.content.extend(message.content),
            _ => out.push(message),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.into(),
            name: "bash".into(),
            input: json!({}),
        }
    }

    fn result(id: &str, text: &str) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: text.into(),
            is_error: false,
            media: Vec::new(),
        }
    }

    fn text(t: &str) -> ContentBlock {
        ContentBlock::Text { text: t.into() }
    }

    fn msg(role: Role, content: Vec<ContentBlock>) -> Message {
        Message { role, content }
    }

    #[test]
    fn calls_anywhere_get_results_and_orphans_go() {
        let transcript = vec![
            msg(Role::User, vec![text("go"), result("ghost", "orphan")]),
            msg(Role::Assistant, vec![call("a"), call("b")]),
            // A killed batch: only `a` finished; later the user typed again.
            msg(
                Role::User,
                vec![text("and now?"), result("a", "A ran"), result("a", "dup")],
            ),
            msg(Role::Assistant, vec![call("c")]),
            msg(Role::Assistant, vec![text("more")]),
            msg(Role::User, vec![text("last")]),
            msg(Role::Assistant, vec![call("d")]),
        ];
        let (repaired, warnings) = repair(transcript);
        let lost = |id: &str| ContentBlock::ToolResult {
            tool_use_id: id.into(),
            content: LOST_RESULT.into(),
            is_error: true,
            media: Vec::new(),
        };
        assert_eq!(
            repaired,
            vec![
                msg(Role::User, vec![text("go")]),
                msg(Role::Assistant, vec![call("a"), call("b")]),
                msg(
                    Role::User,
                    vec![result("a", "A ran"), lost("b"), text("and now?")]
                ),
                msg(Role::Assistant, vec![call("c")]),
                msg(Role::User, vec![lost("c")]),
                msg(Role::Assistant, vec![text("more")]),
                msg(Role::User, vec![text("last")]),
                msg(Role::Assistant, vec![call("d")]),
                msg(Role::User, vec![lost("d")]),
            ]
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("3 tool call(s)"), "{warnings:?}");
        assert!(warnings[1].contains("dropped 2"), "{warnings:?}");
        let (again, none) = repair(repaired.clone());
        assert_eq!((again, none), (repaired, vec![]));
    }
}
