use pretty_assertions::assert_eq;
use rein_engine::{ContextReport, SessionStatus};

use super::tests::{app, text};

#[test]
fn status_lists_the_session_and_what_the_host_adds() {
    let mut app = app();
    let status = SessionStatus {
        session_id: "s1".into(),
        model: "claude-sonnet-4-5".into(),
        ..SessionStatus::default()
    };
    let about = [(
        "base URL".to_string(),
        "http://127.0.0.1:1\u{1b}[2J".to_string(),
    )];
    app.show_status(&status, &about);
    assert_eq!(
        text(&app.take_committed()),
        [
            "  Status:".to_string(),
            format!("    version     {}", env!("CARGO_PKG_VERSION")),
            "    session     s1".to_string(),
            "    model       claude-sonnet-4-5".to_string(),
            "    effort      the model's own".to_string(),
            "    mode        default".to_string(),
            "    base URL    http://127.0.0.1:1".to_string(),
        ]
    );
}

#[test]
fn context_shows_a_bar_and_what_fills_the_window() {
    let mut app = app();
    app.show_context(&ContextReport {
        window: 200_000,
        system: 2_500,
        tools: 5_000,
        conversation: 42_500,
    });
    assert_eq!(
        text(&app.take_committed()),
        [
            "  Context: ~50.0k of 200.0k tokens (25%)",
            "    █▓▒▒▒▒▒▒▒▒▒░░░░░░░░░░░░░░░░░░░░░░░░░░░░░",
            "    █ system prompt        2.5k    1%",
            "    ▓ tool definitions     5.0k    2%",
            "    ▒ conversation        42.5k   21%",
            "    ░ free               150.0k   75%",
        ]
    );
}

#[test]
fn model_without_a_name_picks_one() {
    use crossterm::event::{KeyCode, KeyModifiers};
    let now = std::time::Instant::now();
    let mut app = app();
    app.status.model = "claude-opus-4-5".into();
    assert!(app.submit("/model".into(), now).is_empty());
    let key = |app: &mut super::App, code| super::tests::press(app, code, KeyModifiers::NONE, now);
    // The current model first, then the others without it.
    key(&mut app, KeyCode::Down);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![super::Action::SetModel("claude-sonnet-4-5".into())]
    );
    app.submit("/model".into(), now);
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![super::Action::SetModel("claude-opus-4-5".into())]
    );
}

#[test]
fn a_shells_output_is_shown_by_its_id() {
    let now = std::time::Instant::now();
    let mut app = app();
    assert_eq!(
        app.submit("/tasks bg_1".into(), now),
        vec![super::Action::ShowTaskOutput("bg_1".into())]
    );
    app.take_committed();
    let output: String = (1..=45).map(|n| format!("line {n}\n")).collect();
    app.show_task_output("bg_1", &output);
    let shown = text(&app.take_committed());
    assert_eq!(shown[0], "  Output of bg_1 (last 40 lines):");
    assert_eq!(shown[1], "    line 6");
    assert_eq!(shown.last().map(String::as_str), Some("    line 45"));
    app.show_task_output("bg_2", "");
    assert_eq!(
        text(&app.take_committed()),
        ["  Output of bg_2:", "    (nothing yet)"]
    );
}

#[test]
fn a_watched_task_shows_its_last_lines_until_esc_and_a_subagent_cannot_be_watched() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use rein_engine::subagents::{BackgroundTask, StopError};
    let mut app = app();
    let task = BackgroundTask {
        id: "bg_1".into(),
        label: "make".into(),
        running: true,
        status: "running".into(),
    };
    app.open_task_picker(std::slice::from_ref(&task));
    let now = std::time::Instant::now();
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), now);
    assert_eq!(app.watched_task(), Some("bg_1"));
    let output: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    app.update_watch(Ok(output), Some(&task));
    let shown = text(&app.live_lines(80, now).0).join("\n");
    assert!(
        shown.contains("Output of bg_1 (running; live, Esc closes)"),
        "{shown}"
    );
    assert!(
        shown.contains("  line 20") && shown.contains("  line 9"),
        "{shown}"
    );
    assert!(!shown.contains("  line 8\n"), "{shown}");
    app.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), now);
    assert_eq!(app.watched_task(), None);
    assert!(!app.animating());
    app.open_task_picker(&[BackgroundTask {
        id: "agent_1".into(),
        ..task
    }]);
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), now);
    app.update_watch(
        Err(StopError::NotAShell {
            id: "agent_1".into(),
        }),
        None,
    );
    assert_eq!(app.watched_task(), None);
    assert!(!text(&app.take_committed()).is_empty());
}

#[test]
fn a_line_entered_while_a_session_is_watched_is_typed_into_it_until_esc() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use rein_engine::subagents::BackgroundTask;
    let mut app = app();
    let session = BackgroundTask {
        id: "tty_1".into(),
        label: "python3".into(),
        running: true,
        status: "running (interactive)".into(),
    };
    app.open_task_picker(std::slice::from_ref(&session));
    let now = std::time::Instant::now();
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), now);
    app.update_watch(Ok(">>> ".into()), Some(&session));
    let shown = text(&app.live_lines(80, now).0).join("\n");
    assert!(
        shown.contains("a line you enter is typed into it"),
        "{shown}"
    );
    assert_eq!(
        app.submit("print(1)".into(), now),
        vec![super::Action::TypeInto {
            id: "tty_1".into(),
            text: "print(1)\n".into()
        }]
    );
    app.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), now);
    assert_eq!(
        app.submit("print(1)".into(), now),
        vec![super::Action::Run("print(1)".into())]
    );
}
