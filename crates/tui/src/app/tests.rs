use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_engine::{Approval, ApprovalRequest};
use rein_protocol::{Event, RunOutcome, Usage};
use serde_json::json;

use super::*;
use crate::history::PromptHistory;
use crate::slash::INIT_PROMPT;

pub(super) fn app() -> App {
    App::new(
        Theme::PLAIN,
        Commands::load(&Default::default()),
        Input::new(PromptHistory::default()),
        Status::default(),
    )
}

pub(super) fn press(
    app: &mut App,
    code: KeyCode,
    modifiers: KeyModifiers,
    now: Instant,
) -> Vec<Action> {
    app.key(KeyEvent::new(code, modifiers), now)
}

pub(super) fn ctrl_c(app: &mut App, now: Instant) -> Vec<Action> {
    press(app, KeyCode::Char('c'), KeyModifiers::CONTROL, now)
}

pub(super) fn result(outcome: RunOutcome) -> Event {
    Event::Result {
        outcome,
        text: String::new(),
        turns: 1,
        usage: Usage::default(),
        cost_usd: None,
        duration_ms: 1,
        session_usage: Usage::default(),
        session_cost_usd: None,
    }
}

pub(super) fn request(id: &str, command: &str) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        tool: "bash".into(),
        input: json!({ "command": command }),
        summary: command.into(),
        reason: "mode default".into(),
        agent: None,
        diff: None,
        session_rule: Some(format!("Bash({command})")),
        edit: false,
    }
}

pub(super) fn text(lines: &[Line<'_>]) -> Vec<String> {
    lines.iter().map(ToString::to_string).collect()
}

#[test]
fn ctrl_c_cancels_a_running_turn_and_a_second_one_quits() {
    let now = Instant::now();
    let mut app = app();
    assert_eq!(app.submit("work".into(), now), [Action::Run("work".into())]);
    assert_eq!(ctrl_c(&mut app, now), [Action::Cancel]);
    assert_eq!(ctrl_c(&mut app, now), [Action::Quit]);
}

#[test]
fn when_idle_ctrl_c_clears_the_input_then_quits_on_a_quick_second_press() {
    let now = Instant::now();
    let mut app = app();
    press(&mut app, KeyCode::Char('x'), KeyModifiers::NONE, now);
    assert!(ctrl_c(&mut app, now).is_empty());
    assert!(
        ctrl_c(&mut app, now).is_empty(),
        "first press on empty input only arms"
    );
    let late = now + Duration::from_secs(5);
    assert!(ctrl_c(&mut app, late).is_empty(), "too late: arms again");
    assert_eq!(ctrl_c(&mut app, late), [Action::Quit]);
}

#[test]
fn ctrl_z_suspends_even_while_a_prompt_waits_and_keeps_it() {
    let now = Instant::now();
    let mut app = app();
    let (reply, mut answer) = oneshot::channel();
    app.ask(request("1", "touch x"), reply);
    let actions = press(&mut app, KeyCode::Char('z'), KeyModifiers::CONTROL, now);
    assert_eq!(actions, vec![Action::Suspend]);
    assert!(answer.try_recv().is_err(), "the prompt is still open");
    press(&mut app, KeyCode::Char('y'), KeyModifiers::NONE, now);
    assert_eq!(answer.blocking_recv().unwrap(), Approval::AllowOnce);
}

#[test]
fn ctrl_d_quits_on_empty_input_only() {
    let now = Instant::now();
    let mut app = app();
    press(&mut app, KeyCode::Char('x'), KeyModifiers::NONE, now);
    assert!(press(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL, now).is_empty());
    let mut app = self::app();
    assert_eq!(
        press(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL, now),
        [Action::Quit]
    );
}

#[test]
fn messages_typed_while_a_turn_runs_are_queued_and_sent_after_it() {
    let now = Instant::now();
    let mut app = app();
    app.submit("first".into(), now);
    assert!(app.submit("second".into(), now).is_empty());
    let (live, _) = app.live_lines(80, now);
    assert!(text(&live).iter().any(|l| l == "↳ queued: second"));
    assert_eq!(
        app.event(result(RunOutcome::Completed), now),
        [Action::Run("second".into())]
    );
    assert!(app.is_busy());
}

#[test]
fn a_subagents_question_says_whose_it_is_and_its_calls_show_under_the_task() {
    let now = Instant::now();
    let mut app = app();
    app.event(
        Event::ToolCallStart {
            id: "t1".into(),
            name: "task".into(),
            input: json!({"description": "look", "prompt": "p"}),
            summary: "general: look".into(),
        },
        now,
    );
    app.event(
        Event::Subagent {
            parent_tool_use_id: "t1".into(),
            agent: "general".into(),
            event: Box::new(Event::ToolCallStart {
                id: "s1".into(),
                name: "bash".into(),
                input: json!({"command": "touch x"}),
                summary: "touch x".into(),
            }),
        },
        now,
    );
    app.event(
        Event::Subagent {
            parent_tool_use_id: "t1".into(),
            agent: "general".into(),
            event: Box::new(Event::Usage {
                usage: Usage {
                    input_tokens: 100,
                    output_tokens: 20,
                    ..Usage::default()
                },
                cost_usd: None,
            }),
        },
        now,
    );
    let live = text(&app.live_lines(100, now).0).join("\n");
    assert!(live.contains("general › "), "{live}");
    assert!(live.contains("touch x · 0 tokens"), "{live}");
    let (reply, _answer) = oneshot::channel();
    let mut asked = request("s1", "touch x");
    asked.agent = Some("general".into());
    app.ask(asked, reply);
    let live = text(&app.live_lines(100, now).0).join("\n");
    assert!(
        live.contains("asked by mode default (subagent general)"),
        "{live}"
    );
}

#[test]
fn the_task_board_shows_live_and_folds_when_done() {
    use rein_protocol::{BoardTask, TaskStatus};
    let now = Instant::now();
    let mut app = app();
    let task =
        |id: &str, subject: &str, status, owner: Option<&str>, blocked_by: &[&str]| BoardTask {
            id: id.into(),
            subject: subject.into(),
            description: String::new(),
            active_form: String::new(),
            status,
            owner: owner.map(String::from),
            blocks: Vec::new(),
            blocked_by: blocked_by.iter().map(|s| s.to_string()).collect(),
            metadata: Default::default(),
        };
    app.event(
        Event::Tasks {
            tasks: vec![
                task(
                    "1",
                    "Read the code",
                    TaskStatus::Completed,
                    Some("main"),
                    &[],
                ),
                task(
                    "2",
                    "Fix the bug",
                    TaskStatus::InProgress,
                    Some("alice"),
                    &["1"],
                ),
                task("3", "Run the tests", TaskStatus::Pending, None, &["2"]),
                task("4", "Write docs", TaskStatus::Pending, None, &["1"]),
            ],
        },
        now,
    );
    let live = text(&app.live_lines(80, now).0);
    assert_eq!(
        live[..4],
        [
            "  ☒ Read the code",
            "  ▸ Fix the bug (alice)",
            "  ⧗ Run the tests",
            "  ☐ Write docs"
        ]
        .map(String::from)
    );
    assert!(app.take_committed().is_empty());
    app.show_todos();
    assert_eq!(
        text(&app.take_committed()),
        [
            "  Tasks:",
            "    ✓ #1 Read the code (main)",
            "    ▸ #2 Fix the bug (alice)",
            "    ○ #3 Run the tests · blocked by #2",
            "    ○ #4 Write docs"
        ]
    );
    // The older `todos` view of the same board changes nothing.
    app.event(Event::Todos { todos: Vec::new() }, now);
    assert_eq!(text(&app.live_lines(80, now).0).len(), live.len());
    let done = |id, subject| task(id, subject, TaskStatus::Completed, None, &[]);
    app.event(
        Event::Tasks {
            tasks: vec![done("1", "Read the code"), done("2", "Fix the bug")],
        },
        now,
    );
    let live = text(&app.live_lines(80, now).0).join("\n");
    assert!(!live.contains("Fix the bug"), "{live}");
    assert_eq!(text(&app.take_committed()), ["  ✓ tasks done (2 tasks)"]);
}

#[test]
fn mcp_servers_are_shown_with_status_and_details() {
    let mut app = app();
    app.show_mcp(&[]);
    assert!(text(&app.take_committed())[0].contains("no MCP servers"));
    app.show_mcp(&[
        crate::McpServerView {
            name: "kit".into(),
            transport: "stdio".into(),
            status: "connected · 2 tools".into(),
            details: vec![
                "tools: echo, pid".into(),
                "prompts: /mcp__kit__greet".into(),
            ],
        },
        crate::McpServerView {
            name: "web\u{1b}[2J".into(),
            transport: String::new(),
            status: "failed".into(),
            details: vec!["MCP server `web` did not start: HTTP 401".into()],
        },
    ]);
    let shown = text(&app.take_committed());
    assert_eq!(
        shown,
        [
            "  MCP servers:",
            "    kit  stdio  connected · 2 tools",
            "      tools: echo, pid",
            "      prompts: /mcp__kit__greet",
            "    web    failed",
            "      MCP server `web` did not start: HTTP 401",
        ]
    );
}

#[test]
fn tasks_are_listed_with_their_status() {
    let mut app = app();
    app.show_tasks(&[
        rein_engine::subagents::BackgroundTask {
            id: "bg_1".into(),
            label: "npm run dev\nmore".into(),
            running: true,
            status: "running".into(),
        },
        rein_engine::subagents::BackgroundTask {
            id: "agent_1".into(),
            label: "explore: find the parser".into(),
            running: false,
            status: "finished".into(),
        },
    ]);
    let shown = text(&app.take_committed());
    assert_eq!(
        shown,
        [
            "  Background work:",
            "    bg_1     npm run dev  running",
            "    agent_1  explore: find the parser  finished",
            "  /tasks stop ID stops one",
        ]
    );
}

#[test]
fn slash_commands_become_actions() {
    let now = Instant::now();
    let cases = [
        (
            "/compact the API",
            vec![Action::Compact(Some("the API".into()))],
        ),
        ("/clear", vec![Action::NewSession]),
        ("/resume", vec![Action::ListSessions]),
        ("/model gpt-5", vec![Action::SetModel("gpt-5".into())]),
        (
            "/effort high",
            vec![Action::SetEffort(Some(rein_engine::Effort::High))],
        ),
        ("/effort default", vec![Action::SetEffort(None)]),
        ("/effort max", vec![]),
        (
            "/permissions plan",
            vec![Action::SetMode(PermissionMode::Plan)],
        ),
        ("/permissions", vec![Action::ShowPermissions]),
        ("/tasks", vec![Action::ListTasks]),
        ("/mcp", vec![Action::ShowMcp]),
        ("/status", vec![Action::ShowStatus]),
        ("/context", vec![Action::ShowContext]),
        ("/tasks stop bg_2", vec![Action::StopTask("bg_2".into())]),
        ("/tasks kill", vec![]),
        ("/quit", vec![Action::Quit]),
        ("/init", vec![Action::Run(INIT_PROMPT.into())]),
    ];
    for (typed, expected) in cases {
        let mut app = app();
        assert_eq!(app.submit(typed.into(), now), expected, "{typed}");
    }
}

#[test]
fn tab_completes_a_slash_command_and_enter_runs_the_selected_one() {
    let now = Instant::now();
    let mut app = app();
    for c in "/co".chars() {
        press(&mut app, KeyCode::Char(c), KeyModifiers::NONE, now);
    }
    press(&mut app, KeyCode::Down, KeyModifiers::NONE, now);
    // "compact" then "cost": Down selects cost.
    assert_eq!(
        press(&mut app, KeyCode::Enter, KeyModifiers::NONE, now),
        Vec::<Action>::new()
    );
    // The command is echoed above what it shows.
    let committed = text(&app.take_committed());
    assert_eq!(committed[1], "› /cost", "{committed:?}");
    assert!(committed[2].starts_with("  Session cost"), "{committed:?}");
}

#[test]
fn shift_tab_cycles_the_permission_mode() {
    let now = Instant::now();
    let mut app = app();
    assert_eq!(
        press(&mut app, KeyCode::BackTab, KeyModifiers::SHIFT, now),
        [Action::SetMode(PermissionMode::AcceptEdits)]
    );
}

#[test]
fn a_cancelled_run_says_so_and_keeps_what_streamed() {
    let now = Instant::now();
    let mut app = app();
    app.submit("go".into(), now);
    app.event(
        Event::TextDelta {
            text: "half an ans".into(),
        },
        now,
    );
    ctrl_c(&mut app, now);
    app.event(result(RunOutcome::Cancelled), now);
    let committed = text(&app.take_committed());
    assert_eq!(
        committed[committed.len() - 2..],
        [
            "● half an ans".to_string(),
            "  ⎿ Interrupted. Tell the model what to do differently.".to_string()
        ]
    );
    assert!(!app.is_busy());
}

#[test]
fn teammates_show_on_the_status_line_with_what_each_spent() {
    let now = Instant::now();
    let mut app = app();
    let state = |state: &str| Event::Teammate {
        name: "alice".into(),
        agent: "general".into(),
        state: state.into(),
        reason: None,
    };
    app.event(state("working"), now);
    let usage = rein_protocol::Usage {
        input_tokens: 1000,
        output_tokens: 200,
        ..Default::default()
    };
    app.event(
        Event::Subagent {
            parent_tool_use_id: "call_1".into(),
            agent: "alice".into(),
            event: Box::new(Event::Usage {
                usage,
                cost_usd: Some(0.0125),
            }),
        },
        now,
    );
    assert!(
        app.status_numbers().ends_with(" · alice ▸ $0.0125"),
        "{}",
        app.status_numbers()
    );
    app.event(state("idle"), now);
    assert!(app.status_numbers().ends_with(" · alice ◦ $0.0125"));
    app.event(
        Event::TeamMessage {
            from: "alice".into(),
            to: "main".into(),
            kind: "message".into(),
            text: "done with #2\nmore".into(),
        },
        now,
    );
    app.event(state("stopped"), now);
    assert!(!app.status_numbers().contains("alice"));
    let lines = text(&app.take_committed());
    assert_eq!(
        lines,
        [
            "  ◆ teammate alice (general) working",
            "  ◆ teammate alice (general) idle",
            "  ✉ alice → main: done with #2",
            "  ◆ teammate alice (general) stopped"
        ]
    );
}
