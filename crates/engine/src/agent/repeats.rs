//! Loop detection: the same call (tool and arguments) giving the same result again and again
//! earns the model a reminder to change approach, and past a second limit ends the run.

use std::hash::{Hash, Hasher};

use rein_protocol::ContentBlock;
use serde_json::Value;

use crate::emitter::Emitter;

/// When to remind and when to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatLimits {
    /// Identical call-and-result in a row before the reminder.
    pub warn: u32,
    /// Identical call-and-result in a row that end the run.
    pub stop: u32,
}

impl Default for RepeatLimits {
    fn default() -> Self {
        Self { warn: 3, stop: 6 }
    }
}

/// Tools whose identical results are expected (reading a quiet background job).
const EXEMPT: &[&str] = &["bash_output"];

impl super::Agent {
    /// Ends the run when `verdict` says so, telling the user and the session file.
    pub(super) fn stopped_for_repeats(
        &mut self,
        verdict: Verdict,
        events: &crate::EventSender,
    ) -> bool {
        let Verdict::Stop { tool, count } = verdict else {
            return false;
        };
        let message = format!(
            "stopped: the model made the same {tool} call with the same result {count} times \
             in a row (see `repeat_stop` to change the limit)"
        );
        self.record(rein_protocol::SessionRecord::Error {
            message: message.clone(),
        });
        events.error(message);
        true
    }
}

/// The run of identical call-and-result pairs so far.
#[derive(Debug, Default)]
pub(super) struct Repeats {
    last: Option<u64>,
    count: u32,
}

/// What a batch's repeats call for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Fine,
    /// The run must end: this call was made `count` times in a row.
    Stop {
        tool: String,
        count: u32,
    },
}

impl Repeats {
    /// Counts one batch (`calls` as (id, name, input), `results` their results) against the
    /// batches before it: a repeat is the model making, after it saw the result, the very same
    /// calls again and getting the same results. Calls within one batch are made before any
    /// result is seen, so identical calls side by side are not a repeat. Adds the reminder to
    /// the batch's results when the warning limit is reached.
    pub(super) fn check(
        &mut self,
        limits: RepeatLimits,
        calls: &[(String, String, Value)],
        results: &mut [ContentBlock],
    ) -> Verdict {
        let Some(key) = batch_fingerprint(calls, results) else {
            self.last = None;
            self.count = 0;
            return Verdict::Fine;
        };
        if self.last == Some(key) {
            self.count += 1;
        } else {
            self.last = Some(key);
            self.count = 1;
        }
        let tool = calls
            .first()
            .map(|(_, name, _)| name.clone())
            .unwrap_or_default();
        if self.count >= limits.stop {
            return Verdict::Stop {
                tool,
                count: self.count,
            };
        }
        if self.count == limits.warn {
            let last_id = calls.last().map(|(id, _, _)| id.as_str());
            if let Some(ContentBlock::ToolResult { content, .. }) = results.iter_mut().find(
                |b| matches!(b, ContentBlock::ToolResult { tool_use_id, .. } if Some(tool_use_id.as_str()) == last_id),
            ) {
                content.push_str(&format!(
                    "\n\n<system-reminder>This is the {} time in a row you made this same \
                     {tool} call and got this same result. Repeating it will not change the \
                     outcome: read the result, then change your approach (other arguments, \
                     another tool, or ask the user).</system-reminder>",
                    ordinal(self.count)
                ));
            }
        }
        Verdict::Fine
    }
}

/// One hash over the batch's calls and their results, in order; `None` when the batch is
/// empty or reads a background job (whose identical answers are expected).
fn batch_fingerprint(calls: &[(String, String, Value)], results: &[ContentBlock]) -> Option<u64> {
    if calls.is_empty()
        || calls
            .iter()
            .any(|(_, name, _)| EXEMPT.contains(&name.as_str()))
    {
        return None;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for (id, name, input) in calls {
        let content = results.iter().find_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } if tool_use_id == id => Some(content.as_str()),
            _ => None,
        });
        fingerprint(name, input, content.unwrap_or("")).hash(&mut hasher);
    }
    Some(hasher.finish())
}

fn fingerprint(name: &str, input: &Value, result: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut hasher);
    input.to_string().hash(&mut hasher);
    result.hash(&mut hasher);
    hasher.finish()
}

fn ordinal(n: u32) -> String {
    match n {
        1 => "1st".into(),
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn batch(
        id: &str,
        name: &str,
        input: Value,
        result: &str,
    ) -> (Vec<(String, String, Value)>, Vec<ContentBlock>) {
        (
            vec![(id.into(), name.into(), input)],
            vec![ContentBlock::ToolResult {
                tool_use_id: id.into(),
                content: result.into(),
                is_error: true,
                media: Vec::new(),
            }],
        )
    }

    fn content(results: &[ContentBlock]) -> &str {
        match &results[0] {
            ContentBlock::ToolResult { content, .. } => content,
            _ => "",
        }
    }

    #[test]
    fn the_third_identical_call_is_reminded_and_the_sixth_stops() {
        let mut repeats = Repeats::default();
        let limits = RepeatLimits::default();
        for n in 1..=6 {
            let (calls, mut results) = batch(
                &format!("c{n}"),
                "bash",
                json!({"command": "make"}),
                "error 2",
            );
            let verdict = repeats.check(limits, &calls, &mut results);
            assert_eq!(
                content(&results).contains("<system-reminder>"),
                n == 3,
                "call {n}"
            );
            let expected = if n == 6 {
                Verdict::Stop {
                    tool: "bash".into(),
                    count: 6,
                }
            } else {
                Verdict::Fine
            };
            assert_eq!(verdict, expected, "call {n}");
        }
    }

    #[test]
    fn another_result_or_arguments_or_a_job_read_start_the_count_again() {
        let mut repeats = Repeats::default();
        let limits = RepeatLimits::default();
        let steps = [
            ("bash", json!({"command": "make"}), "error 2"),
            ("bash", json!({"command": "make"}), "error 2"),
            ("bash", json!({"command": "make"}), "error 3"),
            ("bash", json!({"command": "make"}), "error 3"),
            ("bash", json!({"command": "make -j2"}), "error 3"),
            ("bash_output", json!({"id": "bg_1"}), "(no new output)"),
            ("bash_output", json!({"id": "bg_1"}), "(no new output)"),
            ("bash_output", json!({"id": "bg_1"}), "(no new output)"),
            ("bash", json!({"command": "make -j2"}), "error 3"),
            ("bash", json!({"command": "make -j2"}), "error 3"),
        ];
        for (n, (name, input, result)) in steps.into_iter().enumerate() {
            let (calls, mut results) = batch(&format!("c{n}"), name, input, result);
            assert_eq!(repeats.check(limits, &calls, &mut results), Verdict::Fine);
            assert!(!content(&results).contains("<system-reminder>"), "step {n}");
        }
    }

    #[test]
    fn identical_calls_side_by_side_in_one_batch_are_not_a_repeat() {
        let mut repeats = Repeats::default();
        let limits = RepeatLimits::default();
        let calls: Vec<(String, String, Value)> = (0..8)
            .map(|n| {
                (
                    format!("c{n}"),
                    "bash".into(),
                    json!({"command": "sleep 0.3"}),
                )
            })
            .collect();
        let mut results: Vec<ContentBlock> = (0..8)
            .map(|n| ContentBlock::ToolResult {
                tool_use_id: format!("c{n}"),
                content: "(no output)".into(),
                is_error: false,
                media: Vec::new(),
            })
            .collect();
        assert_eq!(repeats.check(limits, &calls, &mut results), Verdict::Fine);
        assert!(results.iter().all(|b| !matches!(b, ContentBlock::ToolResult { content, .. } if content.contains("<system-reminder>"))));
    }
}
