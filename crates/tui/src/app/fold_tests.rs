use std::time::Instant;

use crossterm::event::{KeyCode, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_protocol::Event;
use serde_json::json;

use super::tests::{app, press, text};

fn finished(app: &mut super::App, command: &str, output: &str, is_error: bool) {
    let now = Instant::now();
    app.event(
        Event::ToolCallStart {
            id: "c1".into(),
            name: "bash".into(),
            input: json!({ "command": command }),
            summary: command.into(),
        },
        now,
    );
    app.event(
        Event::ToolCallEnd {
            id: "c1".into(),
            name: "bash".into(),
            output: output.into(),
            is_error,
            duration_ms: 5,
            diff: None,
            tool_response: None,
            exit_code: None,
            sandbox: None,
        },
        now,
    );
}

#[test]
fn a_failed_command_shows_how_it_ended_on_its_line() {
    let mut app = app();
    app.submit("go".into(), Instant::now());
    finished(&mut app, "make test", "error: boom\n[exit code 2]", true);
    finished(
        &mut app,
        "sleep 9",
        "[timed out after 1 s; nothing left running]",
        true,
    );
    finished(&mut app, "true", "(no output)", false);
    let lines = text(&app.take_committed());
    assert!(
        lines.contains(&"● bash make test · exit 2".to_string()),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"● bash sleep 9 · timed out after 1 s".to_string()),
        "{lines:#?}"
    );
    assert!(lines.contains(&"● bash true".to_string()), "{lines:#?}");
}

#[test]
fn ctrl_o_writes_out_the_latest_folded_result_whole() {
    let now = Instant::now();
    let mut app = app();
    app.submit("go".into(), now);
    let output: String = (1..=30).map(|n| format!("row {n}\n")).collect();
    finished(&mut app, "seq 30", &output, false);
    let folded = text(&app.take_committed());
    assert!(
        folded.contains(&"    … +26 lines (Ctrl-O shows all)".to_string()),
        "{folded:#?}"
    );
    assert!(!folded.iter().any(|l| l.contains("row 30")));

    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL, now);
    let whole = text(&app.take_committed());
    assert_eq!(whole[1], "⎿ bash seq 30 in full (30 lines):");
    assert_eq!(whole.len(), 32, "{whole:#?}");
    assert_eq!(whole[31], "  row 30");

    // Written once: a second press has nothing left to unfold.
    press(&mut app, KeyCode::Char('o'), KeyModifiers::CONTROL, now);
    assert!(app.take_committed().is_empty());
    let (live, _) = app.live_lines(100, now);
    assert!(
        text(&live)
            .iter()
            .any(|l| l.contains("nothing folded to show"))
    );
}

#[test]
fn ctrl_t_turning_thinking_on_writes_out_the_last_folded_thinking() {
    let now = Instant::now();
    let mut app = app();
    app.submit("go".into(), now);
    app.event(
        Event::ThinkingDelta {
            text: "first idea\nsecond idea\n".into(),
        },
        now,
    );
    app.event(
        Event::TextDelta {
            text: "Answer.\n".into(),
        },
        now,
    );
    app.flush_stream();
    let folded = text(&app.take_committed());
    assert!(
        folded
            .iter()
            .any(|l| l.starts_with("✻ Thought for 2 lines")),
        "{folded:#?}"
    );
    assert!(!folded.iter().any(|l| l.contains("second idea")));

    press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL, now);
    let shown = text(&app.take_committed());
    assert_eq!(
        shown[1..],
        [
            "⎿ thinking in full (2 lines):",
            "  first idea",
            "  second idea"
        ]
    );
    // Turning it off shows nothing more.
    press(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL, now);
    assert!(app.take_committed().is_empty());
}

#[test]
fn parallel_calls_are_committed_in_call_order_whatever_ends_first() {
    let mut app = app();
    let now = Instant::now();
    app.submit("go".into(), now);
    for (id, command) in [("a", "echo first"), ("b", "echo second")] {
        app.event(
            Event::ToolCallStart {
                id: id.into(),
                name: "bash".into(),
                input: json!({ "command": command }),
                summary: command.into(),
            },
            now,
        );
    }
    app.take_committed();
    let end = |id: &str, output: &str| Event::ToolCallEnd {
        id: id.into(),
        name: "bash".into(),
        output: output.into(),
        is_error: false,
        duration_ms: 5,
        diff: None,
        tool_response: None,
        exit_code: None,
        sandbox: None,
    };
    app.event(end("b", "out of second"), now);
    // Held while the first still runs; the first is still shown running.
    assert!(text(&app.take_committed()).is_empty());
    let live = text(&app.live_lines(80, now).0).join("\n");
    assert!(
        live.contains("echo first") && !live.contains("echo second"),
        "{live}"
    );
    app.event(end("a", "out of first"), now);
    let committed = text(&app.take_committed()).join("\n");
    let (first, second) = (
        committed.find("echo first").unwrap(),
        committed.find("echo second").unwrap(),
    );
    assert!(first < second, "{committed}");
}
