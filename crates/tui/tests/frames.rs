//! Snapshots of rendered frames, at 80×24 and 120×40, for each element of the UI, driven by
//! scripted event sequences on an in-memory terminal (scrollback above, screen below).

use crossterm::event::{KeyCode, KeyModifiers};
use rein_engine::ApprovalRequest;
use rein_engine::session::SessionSummary;
use rein_protocol::{Event, RunOutcome, Usage};
use serde_json::json;

use crate::support::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// Runs `script` on a fresh harness at each size and snapshots the terminal.
fn snapshot(name: &str, script: impl Fn(&mut Harness)) {
    for (width, height) in SIZES {
        let mut h = Harness::new(width, height);
        script(&mut h);
        insta::assert_snapshot!(format!("{name}_{width}x{height}"), h.dump());
    }
}

/// Runs `script` on an 80×24 harness in colour and snapshots the screen with its styles: for
/// the frames where style carries meaning (diffs, errors, the status line, permission prompts).
fn styled(name: &str, script: impl Fn(&mut Harness)) {
    let mut h = Harness::with_theme(80, 24, rein_tui::theme::Theme::COLOR);
    script(&mut h);
    insta::assert_snapshot!(format!("{name}_styled"), h.dump_styled());
}

const ANSWER: &str = "# Plan\n\nThe parser needs **two** fixes in `parse.rs`:\n\n\
- handle *empty* input\n- reject `\\0` bytes\n  - nested item\n\n\
1. first step\n2. second step\n\n> a quoted note\n\n\
```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nDone.\n";

#[test]
fn streaming_markdown_mid_answer() {
    snapshot("markdown_streaming", |h| {
        h.submit("explain the plan");
        h.advance(1300);
        let cut = ANSWER.find("fn main").unwrap() + 4;
        for chunk in ANSWER.as_bytes()[..cut].chunks(7) {
            h.event(text_delta(std::str::from_utf8(chunk).unwrap()));
        }
    });
}

#[test]
fn finished_markdown_answer() {
    snapshot("markdown_finished", |h| {
        h.submit("explain the plan");
        h.event(text_delta(ANSWER));
        h.event(assistant(ANSWER));
        h.event(usage(12_400, 830));
        h.event(result(RunOutcome::Completed, 12_400, 830));
    });
}

#[test]
fn thinking_streams_dimmed_then_folds() {
    snapshot("thinking_live", |h| {
        h.submit("why does it fail?");
        h.advance(2100);
        h.event(Event::ThinkingDelta {
            text: "The test fails on CI only.\nMaybe the locale.\nCheck LANG in the workflow."
                .into(),
        });
    });
    snapshot("thinking_shown", |h| {
        h.key(KeyCode::Char('t'), KeyModifiers::CONTROL);
        h.submit("why does it fail?");
        h.event(Event::ThinkingDelta {
            text: "The test fails on CI only.\nMaybe the locale.".into(),
        });
        h.event(text_delta("It is the locale.\n"));
    });
    snapshot("thinking_folded", |h| {
        h.submit("why does it fail?");
        h.event(Event::ThinkingDelta {
            text: "The test fails on CI only.\nMaybe the locale.".into(),
        });
        h.event(text_delta("It is the locale.\n"));
    });
}

#[test]
fn a_running_bash_call_shows_elapsed_time_and_its_last_output_lines() {
    snapshot("tool_running", |h| {
        h.submit("run the tests");
        h.event(tool_start("c1", "bash", bash("cargo test")));
        for n in 1..=6 {
            h.event(Event::ToolOutputDelta {
                id: "c1".into(),
                text: format!("test case_{n} ... ok\n"),
            });
        }
        h.advance(12_300);
        h.draw();
    });
}

#[test]
fn finished_calls_fold_their_results() {
    snapshot("tool_results", tool_results);
    styled("tool_results", tool_results);
}

fn tool_results(h: &mut Harness) {
    {
        h.submit("look around");
        h.event(tool_start(
            "c1",
            "read_file",
            json!({"path": "src/main.rs", "offset": 1, "limit": 200}),
        ));
        h.event(tool_end(
            "c1",
            "read_file",
            "1\tfn main() {}\n2\t\n",
            false,
            4,
        ));
        h.event(tool_start("c2", "bash", bash("cargo test")));
        let output: String = (1..=9).map(|n| format!("test t{n} ... ok\n")).collect();
        h.event(tool_end("c2", "bash", &output, false, 4200));
        h.event(tool_start(
            "c3",
            "grep",
            json!({"pattern": "TODO", "path": "src"}),
        ));
        h.event(tool_end("c3", "grep", "error: no such path: srcx", true, 2));
    }
}

#[test]
fn edits_show_a_coloured_unified_diff() {
    snapshot("edit_diff", edit_diff);
    styled("edit_diff", edit_diff);
}

fn edit_diff(h: &mut Harness) {
    {
        h.submit("rename the greeting");
        let input = json!({
            "path": "src/hello.rs",
            "old_string": "fn main() {\n    println!(\"hello world\");\n}\n",
            "new_string": "fn main() {\n    println!(\"hello rein\");\n    println!(\"bye\");\n}\n",
        });
        let file = "// greeting\nuse std::io;\n\nfn main() {\n    println!(\"hello world\");\n}\n\n\
                    fn other() {}\n";
        let diff = real_diff("edit_file", &input, &[("src/hello.rs", file)]);
        h.event(tool_start("c1", "edit_file", input));
        h.event(edit_end("c1", "edit_file", diff));
    }
}

#[test]
fn status_line_shows_tokens_context_cost_and_a_spinner() {
    snapshot("status_busy", status_busy);
    styled("status_busy", status_busy);
}

fn status_busy(h: &mut Harness) {
    {
        h.submit("go");
        h.event(Event::Usage {
            usage: Usage {
                input_tokens: 1_500,
                output_tokens: 2_300,
                cache_read_input_tokens: 60_000,
                cache_creation_input_tokens: 3_000,
                web_search_requests: 0,
            },
            cost_usd: Some(0.0421),
        });
        h.advance(7_250);
        h.draw();
    }
}

#[test]
fn multi_line_input_and_queued_messages() {
    snapshot("input_multiline_queued", |h| {
        h.submit("first task");
        h.submit("then this");
        h.type_text("line one");
        h.key(KeyCode::Enter, KeyModifiers::SHIFT);
        h.type_text("line two");
        h.key(KeyCode::Enter, KeyModifiers::ALT);
        h.type_text("line three");
    });
}

fn ask(h: &mut Harness, tool: &str, input: serde_json::Value, reason: &str) {
    ask_with(h, tool, input, reason, None);
}

fn ask_with(
    h: &mut Harness,
    tool: &str,
    input: serde_json::Value,
    reason: &str,
    diff: Option<String>,
) {
    let (reply, answer) = tokio::sync::oneshot::channel();
    std::mem::forget(answer);
    h.event(tool_start("c1", tool, input.clone()));
    // What the engine sends before it asks.
    h.event(Event::Permission {
        id: "c1".into(),
        name: tool.into(),
        decision: rein_protocol::PermissionVerdict::Ask,
        reason: reason.into(),
    });
    // The rule the engine names for "this session": the command, or the file.
    let rule = match input.get("command") {
        Some(command) => format!("Bash({})", command.as_str().unwrap_or_default()),
        None => format!("Edit({})", input["path"].as_str().unwrap_or_default()),
    };
    h.app.ask(
        ApprovalRequest {
            id: "c1".into(),
            tool: tool.into(),
            summary: summary_of(tool, &input),
            input,
            reason: reason.into(),
            agent: None,
            session_rule: Some(rule),
            edit: diff.is_some(),
            diff,
        },
        reply,
    );
    h.draw();
}

#[test]
fn permission_prompts_show_the_call_the_rule_and_the_choices() {
    let bash_prompt = |h: &mut Harness| {
        h.submit("clean up");
        ask(
            h,
            "bash",
            bash("rm -rf build && cargo build"),
            "dangerous command: a recursive delete",
        );
    };
    snapshot("permission_bash", bash_prompt);
    styled("permission_bash", bash_prompt);
    snapshot("permission_edit", |h| {
        h.submit("fix it");
        let input = json!({"path": "src/lib.rs", "old_string": "let x = 1;\n", "new_string": "let x = 2;\n"});
        let file = "fn f() {\n    let w = 0;\n    let x = 1;\n    let y = 3;\n}\n";
        let diff = real_diff("edit_file", &input, &[("src/lib.rs", file)]);
        ask_with(h, "edit_file", input, "mode default", diff);
    });
    snapshot("permission_write", |h| {
        h.submit("write the notes");
        let content: String = (1..=200).map(|n| format!("note {n}\n")).collect();
        let input = json!({"path": "notes.txt", "content": content});
        let diff = real_diff("write_file", &input, &[]);
        ask_with(h, "write_file", input, "mode default", diff);
    });
    snapshot("permission_note", |h| {
        h.submit("clean up");
        ask(
            h,
            "bash",
            bash("git push --force"),
            "ask rule Bash(git push *) (.rein/config.toml:4)",
        );
        h.type_text("tnot yet");
    });
}

#[test]
fn slash_commands_complete_and_help_lists_them() {
    snapshot("slash_completion", |h| h.type_text("/c"));
    let mut h = Harness::new(80, 24);
    h.submit("/compact the parser");
    assert_eq!(
        h.take_actions(),
        [rein_tui::Action::Compact(Some("the parser".into()))]
    );
    snapshot("slash_help", |h| h.submit("/help"));
}

#[test]
fn resume_lists_stored_sessions() {
    snapshot("resume_picker", |h| {
        let sessions: Vec<SessionSummary> = (1..=3)
            .map(|n| SessionSummary {
                id: format!("20261123T10{n}000-abcd000{n}"),
                created_at: format!("2026-11-23T10:{n}0:00Z"),
                last_active: None,
                first_prompt: format!("task number {n}"),
                requests: n * 4,
                cost_usd: Some(0.01 * f64::from(n)),
                usage: Usage::default(),
                teammates: Vec::new(),
            })
            .collect();
        h.app.open_session_picker(&sessions);
        h.key(KeyCode::Down, KeyModifiers::NONE);
    });
}

#[test]
fn errors_retries_compactions_and_cancellation() {
    snapshot("notices", |h| {
        h.submit("go");
        h.event(Event::Retry {
            attempt: 1,
            delay_ms: 2000,
            reason: "HTTP 529 overloaded".into(),
        });
        h.event(Event::Compaction {
            trigger: "auto".into(),
            tokens_before: 171_000,
            tokens_after: 23_500,
            kept_messages: 6,
            source: None,
            duration_ms: None,
        });
        h.event(text_delta("Working on"));
        h.key(KeyCode::Char('c'), KeyModifiers::CONTROL);
        h.event(Event::Error {
            message: "anthropic: rate limited (HTTP 429)".into(),
        });
        h.event(result(RunOutcome::Cancelled, 0, 0));
    });
}

#[test]
fn long_transcripts_go_to_the_scrollback_and_the_live_area_stays_small() {
    let mut h = Harness::new(80, 24);
    for n in 0..50 {
        h.submit(&format!("prompt {n}"));
        h.event(text_delta(&format!("answer {n}\n")));
        h.event(result(RunOutcome::Completed, 0, 0));
    }
    let dump = h.dump();
    let screen = dump
        .split("──── (scrollback above, screen below) ────\n")
        .nth(1)
        .unwrap();
    assert!(screen.contains("answer 49"), "{screen}");
    assert!(dump.contains("answer 10"));
    // Input box (3 rows) and status line: the live area is 4 rows.
    let live: Vec<&str> = screen.lines().rev().take(4).collect();
    assert!(live[0].starts_with("/help for commands"), "{live:?}");
}

#[test]
fn no_color_draws_without_colours() {
    use ratatui::style::Color;
    let mut h = Harness::with_theme(80, 24, rein_tui::theme::Theme::PLAIN);
    h.submit("go");
    h.event(text_delta(
        "Some `code` and **bold**\n```rust\nfn x() {}\n```\n",
    ));
    let input = json!({"path": "a", "old_string": "a\n", "new_string": "b\n"});
    h.event(tool_start("c1", "edit_file", input.clone()));
    h.event(edit_end(
        "c1",
        "edit_file",
        real_diff("edit_file", &input, &[("a", "a\n")]),
    ));
    let backend = h.screen.backend();
    for buffer in [backend.buffer(), backend.scrollback()] {
        for cell in &buffer.content {
            assert!(
                matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
                "coloured cell {cell:?}"
            );
        }
    }
    let mut h = Harness::with_theme(80, 24, rein_tui::theme::Theme::COLOR);
    h.submit("go");
    let input = json!({"path": "a", "old_string": "a\n", "new_string": "b\n"});
    h.event(tool_start("c1", "edit_file", input.clone()));
    h.event(edit_end(
        "c1",
        "edit_file",
        real_diff("edit_file", &input, &[("a", "a\n")]),
    ));
    let colours: std::collections::HashSet<Color> = h
        .screen
        .backend()
        .buffer()
        .content
        .iter()
        .map(|c| c.fg)
        .collect();
    assert!(
        colours.contains(&Color::Red) && colours.contains(&Color::Green),
        "{colours:?}"
    );
}

#[test]
fn thinking_is_dimmed() {
    use ratatui::style::Modifier;
    let mut h = Harness::with_theme(80, 24, rein_tui::theme::Theme::COLOR);
    h.submit("go");
    h.event(Event::ThinkingDelta {
        text: "pondering".into(),
    });
    let buffer = h.screen.backend().buffer();
    let cell = buffer
        .content
        .iter()
        .find(|c| c.symbol() == "p")
        .expect("thinking on screen");
    assert!(cell.modifier.contains(Modifier::DIM), "{cell:?}");
}

#[test]
fn escape_sequences_never_reach_the_terminal() {
    let mut h = Harness::new(80, 24);
    h.submit("go");
    h.event(tool_start("c1", "bash", bash("printf stuff")));
    h.event(Event::ToolOutputDelta {
        id: "c1".into(),
        text: "\u{1b}]0;pwned\u{7}live \u{1b}[31mred\u{1b}[0m\n".into(),
    });
    let live = h.dump();
    assert!(live.contains("│ live red"), "{live}");
    h.event(tool_end(
        "c1",
        "bash",
        "\u{1b}]52;c;aGk=\u{7}copied \u{1b}[2Jcleared\n 10%\r100%\n",
        false,
        5,
    ));
    h.event(Event::Error {
        message: "provider said \u{1b}]0;title\u{7}no \u{9b}31mway".into(),
    });
    h.event(result(RunOutcome::Completed, 0, 0));
    let dump = h.dump();
    assert!(dump.contains("⎿ copied cleared"), "{dump}");
    assert!(dump.contains("    100%"), "{dump}");
    assert!(dump.contains("provider said no way"), "{dump}");
    let cells = [h.screen.backend().buffer(), h.screen.backend().scrollback()];
    for buffer in cells {
        for cell in &buffer.content {
            assert!(!cell.symbol().chars().any(char::is_control), "{cell:?}");
        }
    }
    for junk in ["]52;", "]0;", "[31m", "[2J", "31m"] {
        assert!(!dump.contains(junk), "{junk} in\n{dump}");
    }
}

#[test]
fn a_call_waiting_for_an_answer_is_not_running_and_its_time_starts_when_allowed() {
    let mut h = Harness::new(80, 24);
    h.submit("clean up");
    ask(&mut h, "bash", bash("make clean"), "mode default");
    h.advance(5_000);
    h.draw();
    let waiting = h.dump();
    // The call is shown once, in the question; no running line with a clock.
    assert_eq!(waiting.matches("$ make clean").count(), 1, "{waiting}");
    assert!(!waiting.contains("bash make clean"), "{waiting}");
    assert!(
        waiting.contains("a yes, and allow Bash(make clean) until rein exits"),
        "{waiting}"
    );
    let status = waiting.lines().rfind(|l| !l.trim().is_empty()).unwrap();
    assert!(
        status.starts_with("? waiting for your answer "),
        "{waiting}"
    );
    assert!(
        !status.contains("5s"),
        "no clock runs while the user decides: {status}"
    );
    h.key(KeyCode::Char('y'), KeyModifiers::NONE);
    h.event(Event::Permission {
        id: "c1".into(),
        name: "bash".into(),
        decision: rein_protocol::PermissionVerdict::Allow,
        reason: "the user (once)".into(),
    });
    h.advance(2_000);
    h.draw();
    let running = h.dump();
    assert!(running.contains("bash make clean (2s)"), "{running}");
    assert!(running.contains("running bash"), "{running}");
}
