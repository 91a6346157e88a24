//! Headless printers: turn the engine's events into text, one JSON result, or JSON lines.

use std::io::Write;

use rein_protocol::{Event, EventEnvelope};
use serde_json::Value;

use crate::arg_values::OutputFormat;

/// A retry wait past this (the backoff's usual cap) is a server's request to wait, worth
/// saying how to stop.
const LONG_WAIT_MS: u64 = 30_000;

/// Longest one-line summary of a tool call's arguments in text mode.
const SUMMARY_CHARS: usize = 120;
/// Longest `name summary` a result line names its call by.
const CALL_CHARS: usize = 40;

/// Prints events to `out` (the answer or JSON) and `err` (progress) in one output format.
pub struct Printer<O: Write, E: Write> {
    format: OutputFormat,
    out: O,
    err: E,
    session_id: String,
    /// Claude Code's shapes instead of rein's (`--output-dialect claude`).
    claude: Option<crate::claude_output::ClaudeDialect>,
    /// Each running call's `name summary`, so its result line says whose it is.
    calls: std::collections::HashMap<String, String>,
}

impl<O: Write, E: Write> Printer<O, E> {
    pub fn new(format: OutputFormat, out: O, err: E) -> Self {
        Self {
            format,
            out,
            err,
            session_id: String::new(),
            claude: None,
            calls: std::collections::HashMap::new(),
        }
    }

    /// Prints the JSON formats in Claude Code's shapes.
    pub fn in_claude_dialect(mut self, dialect: crate::claude_output::ClaudeDialect) -> Self {
        self.claude = Some(dialect);
        self
    }

    /// Handles one event. Write errors (a closed pipe) are ignored: printing must never stop
    /// the run.
    pub fn handle(&mut self, event: Event) {
        if let Event::SessionStart { session_id, .. } = &event {
            self.session_id.clone_from(session_id);
        }
        if self.format != OutputFormat::Text && self.claude.is_some() {
            return self.handle_in_claude_dialect(&event);
        }
        match self.format {
            OutputFormat::StreamJson => {
                // Errors also go to stderr, so a person running a script sees why it failed.
                if matches!(event, Event::Error { .. }) {
                    self.progress(&event);
                }
                if matches!(event, Event::Result { .. }) {
                    let value = self.result_value(event);
                    self.json_line(&value);
                } else {
                    self.json_line(&EventEnvelope::from(event));
                }
            }
            OutputFormat::Json => {
                if matches!(event, Event::Result { .. }) {
                    let value = self.result_value(event);
                    self.json_line(&value);
                } else {
                    self.progress(&event);
                }
            }
            OutputFormat::Text => match event {
                Event::Result {
                    outcome,
                    text,
                    turns,
                    usage,
                    cost_usd,
                    ..
                } => {
                    if !text.is_empty() {
                        // What the model wrote must not drive the user's terminal.
                        let safe = rein_tui::terminal_safe(text.trim_end());
                        let _ = writeln!(self.out, "{safe}");
                    }
                    let _ = self.out.flush();
                    // After a run that reached the model: how to continue it, and what it cost.
                    let reached =
                        outcome != rein_protocol::RunOutcome::Failed || usage.output_tokens > 0;
                    if !self.session_id.is_empty() && reached {
                        let cost = cost_usd.map_or(String::new(), |c| format!(", ${c:.4}"));
                        let _ = writeln!(
                            self.err,
                            "rein: session {id}: {turns} turn{}, {} tokens in, {} out{cost}; \
                             continue it with: rein exec --resume {id} \"…\"",
                            if turns == 1 { "" } else { "s" },
                            usage.total_input(),
                            usage.output_tokens,
                            id = self.session_id,
                        );
                    }
                }
                Event::AssistantMessage { message } if message.tool_uses().next().is_some() => {
                    // The model's words between its tool calls; its last words go to stdout.
                    let text = message.text();
                    if !text.trim().is_empty() {
                        let _ = writeln!(self.err, "{}", rein_tui::terminal_safe(text.trim()));
                    }
                }
                other => self.progress(&other),
            },
        }
    }

    /// Prints `event` in Claude Code's shapes: every line in stream-json, the result alone in
    /// json; errors also on stderr.
    fn handle_in_claude_dialect(&mut self, event: &Event) {
        let Some(claude) = &mut self.claude else {
            return;
        };
        let lines = claude.lines(event);
        if matches!(event, Event::Error { .. }) {
            self.progress(event);
        }
        let is_result = matches!(event, Event::Result { .. });
        for line in lines {
            if self.format == OutputFormat::StreamJson || is_result {
                self.json_line(&line);
            }
        }
    }

    /// The `result` event as JSON, with the session id (which `--resume` takes).
    fn result_value(&self, event: Event) -> Value {
        let mut value = serde_json::to_value(EventEnvelope::from(event)).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            map.insert("session_id".into(), Value::String(self.session_id.clone()));
        }
        value
    }

    fn json_line(&mut self, value: &impl serde::Serialize) {
        if let Ok(line) = serde_json::to_string(value) {
            let _ = writeln!(self.out, "{line}");
            let _ = self.out.flush();
        }
    }

    /// One-line progress on stderr for the events a person watching wants to see.
    fn progress(&mut self, event: &Event) {
        let line = match event {
            Event::ToolCallStart {
                id, name, summary, ..
            } => {
                self.calls
                    .insert(id.clone(), clip(&format!("{name} {summary}"), CALL_CHARS));
                progress_line(event)
            }
            Event::ToolCallEnd { id, .. } => {
                let call = self.calls.remove(id);
                result_line(event, call.as_deref())
            }
            _ => progress_line(event),
        };
        let Some(line) = line else {
            return;
        };
        // Tool output, model text and server messages may carry escape sequences.
        let _ = writeln!(self.err, "{}", rein_tui::terminal_safe(&line));
    }
}

/// The progress line of `event`, if a person watching wants to see it.
fn progress_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::ToolCallStart { .. } | Event::ToolCallEnd { .. } => return tool_line(event),
        Event::Retry {
            attempt,
            delay_ms,
            reason,
        } if *delay_ms > LONG_WAIT_MS => format!(
            "rein: attempt {attempt} failed, waiting {} as asked before retrying (Ctrl-C \
             cancels): {reason}",
            rein_protocol::wait_text(*delay_ms)
        ),
        Event::Retry {
            attempt,
            delay_ms,
            reason,
        } => format!(
            "rein: {}",
            rein_protocol::retry_notice(*attempt, *delay_ms, reason)
        ),
        Event::ToolsChanged { added, removed } => {
            format!("rein: {}", rein_protocol::tools_changed(added, removed))
        }
        Event::FilesRestored { turns, files } => {
            format!("rein: {}", rein_protocol::files_restored(turns, files))
        }
        Event::ModelFallback { from, to, reason } => {
            format!("rein: {from} failed ({reason}); asking the fallback model {to} from now on")
        }
        Event::Error { message } => format!("rein: {message}"),
        Event::Citation { title, url } => format!("  cited: {title} <{url}>"),
        Event::Compaction {
            trigger,
            tokens_before,
            tokens_after,
            kept_messages,
            source,
            ..
        } => format!(
            "  compacted the transcript ({trigger}{}): ~{tokens_before} → ~{tokens_after} tokens, \
                 {kept_messages} recent messages kept",
            match source.as_deref() {
                Some("notes") => ", from the session's notes",
                _ => "",
            }
        ),
        Event::HookRun {
            event,
            message: Some(message),
            blocked,
            ..
        } => {
            let verb = if *blocked { "blocked" } else { "said" };
            format!("  {event} hook {verb}: {}", first_line(message))
        }
        Event::Tasks { tasks } => tasks_line(tasks),
        Event::ScheduledPrompt { id, prompt } => {
            format!("rein: scheduled job {id} fired: {}", first_line(prompt))
        }
        Event::Teammate { .. } | Event::TeamMessage { .. } => return team_line(event),
        // A subagent's calls and errors, indented under its `task` call.
        Event::Subagent { agent, event, .. } => match event.as_ref() {
            Event::ToolCallStart { .. } | Event::ToolCallEnd { is_error: true, .. } => {
                format!("  [{agent}] {}", progress_line(event)?.trim_start())
            }
            Event::Error { message } => format!("  [{agent}] {message}"),
            _ => return None,
        },
        _ => return None,
    };
    Some(line)
}

/// The progress line of a tool call's start or end.
fn tool_line(event: &Event) -> Option<String> {
    let line = match event {
        Event::ToolCallStart {
            name,
            input,
            summary,
            ..
        } => {
            let summary = if summary.is_empty() {
                clip(&input.to_string(), SUMMARY_CHARS)
            } else {
                clip(summary, SUMMARY_CHARS)
            };
            format!("> {name} {summary}")
        }
        Event::ToolCallEnd { .. } => return result_line(event, None),
        _ => return None,
    };
    Some(line)
}

/// The line of a call's result, naming the call (`call`: its `name summary`) when known, so
/// results of calls run side by side are told apart.
fn result_line(event: &Event, call: Option<&str>) -> Option<String> {
    let Event::ToolCallEnd {
        output, is_error, ..
    } = event
    else {
        return None;
    };
    let whose = call.map_or(String::new(), |call| format!("{call} → "));
    if *is_error {
        return Some(format!("  {whose}error: {}", first_line(output)));
    }
    let lines = output.lines().count();
    let more = if lines > 1 {
        format!(" (+{} lines)", lines - 1)
    } else {
        String::new()
    };
    Some(format!(
        "  {whose}{}{more}",
        clip(first_line(output), SUMMARY_CHARS)
    ))
}

/// A teammate's new state, or a message between the team's agents, in one line.
fn team_line(event: &Event) -> Option<String> {
    match event {
        Event::Teammate {
            name,
            agent,
            state,
            reason,
        } => Some(match reason {
            Some(reason) => format!("  ◆ teammate {name} ({agent}) {state} ({reason})"),
            None => format!("  ◆ teammate {name} ({agent}) {state}"),
        }),
        Event::TeamMessage {
            from,
            to,
            kind,
            text,
        } => {
            let kind = match kind.as_str() {
                "message" => String::new(),
                other => format!("[{other}] "),
            };
            let text = clip(first_line(text), SUMMARY_CHARS);
            Some(format!("  ✉ {from} → {to}: {kind}{text}"))
        }
        _ => None,
    }
}

/// The task board in one line: how many are done, and what is in progress.
fn tasks_line(tasks: &[rein_protocol::BoardTask]) -> String {
    use rein_protocol::TaskStatus;
    let done = (tasks.iter())
        .filter(|t| t.status == TaskStatus::Completed)
        .count();
    let now = (tasks.iter())
        .find(|t| t.status == TaskStatus::InProgress)
        .map(|t| match t.active_form.is_empty() {
            true => &t.subject,
            false => &t.active_form,
        })
        .map(|now| format!(" · {}", clip(now, SUMMARY_CHARS)))
        .unwrap_or_default();
    format!("  tasks: {done}/{} done{now}", tasks.len())
}

/// The argument a person recognises a call by: the command for bash, the path for file tools.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Writes `text` to standard output whole (a listing); a reader that went away (`| head`)
/// ends it quietly, as it does other Unix tools.
pub fn print_all(text: &str) -> Result<(), crate::Exit> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(crate::Exit::failed(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rein_protocol::{RunOutcome, Usage};
    use serde_json::json;

    fn result(text: &str) -> Event {
        Event::Result {
            outcome: RunOutcome::Completed,
            text: text.into(),
            turns: 1,
            usage: Usage::default(),
            cost_usd: None,
            duration_ms: 1,
            session_usage: Usage::default(),
            session_cost_usd: None,
        }
    }

    fn printed(format: OutputFormat, events: Vec<Event>) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut printer = Printer::new(format, &mut out, &mut err);
        for event in events {
            printer.handle(event);
        }
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn text_mode_prints_progress_to_stderr_and_the_answer_to_stdout() {
        let (out, err) = printed(
            OutputFormat::Text,
            vec![
                Event::TextDelta {
                    text: "Done".into(),
                },
                Event::ToolCallStart {
                    id: "1".into(),
                    name: "bash".into(),
                    input: json!({"command": "cargo test\nsecond line"}),
                    summary: "cargo test …".into(),
                },
                Event::ToolCallEnd {
                    id: "1".into(),
                    name: "bash".into(),
                    output: "exit code 101\nmore".into(),
                    is_error: true,
                    duration_ms: 3,
                    diff: None,
                    tool_response: None,
                    exit_code: None,
                    sandbox: None,
                },
                result("Done.\n"),
            ],
        );
        assert_eq!(out, "Done.\n");
        assert_eq!(
            err,
            "> bash cargo test …\n  bash cargo test … → error: exit code 101\n"
        );
    }

    #[test]
    fn text_mode_says_how_long_a_retry_waits_and_that_ctrl_c_cancels_a_long_one() {
        let retry = |delay_ms| Event::Retry {
            attempt: 1,
            delay_ms,
            reason: "openai-chat: rate limited: slow down (HTTP 429)".into(),
        };
        let (out, err) = printed(OutputFormat::Text, vec![retry(1500), retry(60_000)]);
        assert_eq!(out, "");
        assert_eq!(
            err,
            "rein: attempt 1 failed, retrying in 1.5 s: openai-chat: rate limited: slow down \
             (HTTP 429)\n\
             rein: attempt 1 failed, waiting 60 s as asked before retrying (Ctrl-C cancels): \
             openai-chat: rate limited: slow down (HTTP 429)\n"
        );
    }

    #[test]
    fn stream_json_prints_one_versioned_event_per_line() {
        let (out, err) = printed(
            OutputFormat::StreamJson,
            vec![Event::TurnStart { turn: 1 }, result("hi")],
        );
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], json!({"v": 1, "type": "turn_start", "turn": 1}));
        assert_eq!(lines[1]["type"], "result");
        assert_eq!(err, "");
    }

    #[test]
    fn json_mode_prints_only_the_result_with_the_session_id() {
        let (out, _) = printed(
            OutputFormat::Json,
            vec![
                Event::SessionStart {
                    session_id: "s1".into(),
                    provider: "anthropic".into(),
                    model: "m".into(),
                    cwd: "/w".into(),
                    tools: vec![],
                    prompt: None,
                },
                Event::TextDelta { text: "hi".into() },
                result("hi"),
            ],
        );
        let value: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(value["session_id"], "s1");
        assert_eq!(value["text"], "hi");
        assert_eq!(out.lines().count(), 1);
    }

    #[test]
    fn text_mode_tells_the_story_on_stderr_and_ends_with_how_to_continue() {
        let session = Event::SessionStart {
            session_id: "s9".into(),
            provider: "anthropic".into(),
            model: "m".into(),
            cwd: "/w".into(),
            tools: vec![],
            prompt: None,
        };
        let message = rein_protocol::Message {
            role: rein_protocol::Role::Assistant,
            content: vec![
                rein_protocol::ContentBlock::Text {
                    text: "Let me run the tests.".into(),
                },
                rein_protocol::ContentBlock::ToolUse {
                    id: "1".into(),
                    name: "bash".into(),
                    input: json!({"command": "cargo test"}),
                },
            ],
        };
        let end = Event::ToolCallEnd {
            id: "1".into(),
            name: "bash".into(),
            output: "test result: ok\nline 2\nline 3".into(),
            is_error: false,
            duration_ms: 3,
            diff: None,
            tool_response: None,
            exit_code: None,
            sandbox: None,
        };
        let mut done = result("All green.");
        if let Event::Result {
            usage, cost_usd, ..
        } = &mut done
        {
            usage.input_tokens = 120;
            usage.output_tokens = 30;
            *cost_usd = Some(0.0123);
        }
        let (out, err) = printed(
            OutputFormat::Text,
            vec![session, Event::AssistantMessage { message }, end, done],
        );
        assert_eq!(out, "All green.\n");
        assert_eq!(
            err,
            "Let me run the tests.\n  test result: ok (+2 lines)\nrein: session s9: 1 turn, 120 \
             tokens in, 30 out, $0.0123; continue it with: rein exec --resume s9 \"…\"\n"
        );
    }

    #[test]
    fn the_stream_json_result_carries_the_session_id() {
        let session = Event::SessionStart {
            session_id: "s7".into(),
            provider: "anthropic".into(),
            model: "m".into(),
            cwd: "/w".into(),
            tools: vec![],
            prompt: None,
        };
        let (out, _) = printed(OutputFormat::StreamJson, vec![session, result("hi")]);
        let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        assert_eq!(
            (last["type"].as_str(), last["session_id"].as_str()),
            (Some("result"), Some("s7"))
        );
    }

    #[test]
    fn long_arguments_are_clipped_on_a_char_boundary() {
        let summary = clip(&"é".repeat(300), SUMMARY_CHARS);
        assert_eq!(summary.chars().count(), SUMMARY_CHARS + 1);
        assert!(summary.ends_with('…'));
    }
}
