//! What each built-in tool states about a successful call as data, beside the text for the
//! model: the facts hooks receive as Claude Code's `tool_response`.

use pretty_assertions::assert_eq;
use rein_tools::{CommandRun, FileEdit, FileRead, FileWrite, Hunk, ToolDetails};
use serde_json::json;

use crate::support::Workspace;

fn hunk(old: (usize, usize), new: (usize, usize), lines: &[&str]) -> Hunk {
    Hunk {
        old_start: old.0,
        old_lines: old.1,
        new_start: new.0,
        new_lines: new.1,
        lines: lines.iter().map(ToString::to_string).collect(),
    }
}

#[tokio::test]
async fn bash_states_its_output_and_that_it_was_not_interrupted() {
    let ws = Workspace::new();
    let details = ws
        .details("bash", json!({"command": "echo out; echo err >&2"}))
        .await;
    assert_eq!(
        details,
        Some(ToolDetails::Command(CommandRun {
            stdout: "out\nerr\n".into(),
            stderr: String::new(),
            interrupted: false,
            exit_code: Some(0),
            sandbox: rein_sandbox::Policy::Off,
        }))
    );
}

#[tokio::test]
async fn bash_that_times_out_states_it_was_interrupted() {
    let ws = Workspace::new();
    let details = ws
        .details("bash", json!({"command": "sleep 5", "timeout_ms": 50}))
        .await;
    let Some(ToolDetails::Command(run)) = details else {
        panic!("no command details: {details:?}");
    };
    assert!(run.interrupted);
}

#[tokio::test]
async fn read_file_states_the_page_without_line_numbers() {
    let ws = Workspace::new();
    ws.write("notes.txt", "one\ntwo\nthree\n");
    let details = ws
        .details(
            "read_file",
            json!({"path": "notes.txt", "offset": 2, "limit": 1}),
        )
        .await;
    assert_eq!(
        details,
        Some(ToolDetails::Read(FileRead {
            path: ws.root.join("notes.txt"),
            content: "two\n".into(),
            start_line: 2,
            num_lines: 1,
            total_lines: 3,
        }))
    );
}

#[tokio::test]
async fn edit_file_states_the_original_and_the_change_as_hunks() {
    let ws = Workspace::new();
    ws.write("notes.txt", "a\nb\nc\nd\ne\nf\ng\nh\n");
    let details = ws
        .details(
            "edit_file",
            json!({"path": "notes.txt", "old_string": "e", "new_string": "E"}),
        )
        .await;
    assert_eq!(
        details,
        Some(ToolDetails::Edit(FileEdit {
            path: ws.root.join("notes.txt"),
            old_string: "e".into(),
            new_string: "E".into(),
            original: "a\nb\nc\nd\ne\nf\ng\nh\n".into(),
            patch: vec![hunk(
                (2, 7),
                (2, 7),
                &[" b", " c", " d", "-e", "+E", " f", " g", " h"]
            )],
            replace_all: false,
        }))
    );
}

#[tokio::test]
async fn edit_file_in_a_crlf_file_states_hunks_without_carriage_returns() {
    let ws = Workspace::new();
    ws.write("win.txt", "one\r\ntwo\r\n");
    let details = ws
        .details(
            "edit_file",
            json!({"path": "win.txt", "old_string": "two", "new_string": "2"}),
        )
        .await;
    let Some(ToolDetails::Edit(edit)) = details else {
        panic!("no edit details: {details:?}");
    };
    assert_eq!(edit.original, "one\r\ntwo\r\n");
    assert_eq!(edit.patch, [hunk((1, 2), (1, 2), &[" one", "-two", "+2"])]);
}

#[tokio::test]
async fn write_file_states_a_creation_without_an_original() {
    let ws = Workspace::new();
    let details = ws
        .details(
            "write_file",
            json!({"path": "src/new.py", "content": "y = 1\n"}),
        )
        .await;
    assert_eq!(
        details,
        Some(ToolDetails::Write(FileWrite {
            path: ws.root.join("src/new.py"),
            content: "y = 1\n".into(),
            original: None,
            existed: false,
            patch: vec![],
        }))
    );
}

#[tokio::test]
async fn write_file_states_a_replacement_with_the_original_and_the_change() {
    let ws = Workspace::new();
    ws.write("a.txt", "x\n");
    let details = ws
        .details("write_file", json!({"path": "a.txt", "content": "y\n"}))
        .await;
    assert_eq!(
        details,
        Some(ToolDetails::Write(FileWrite {
            path: ws.root.join("a.txt"),
            content: "y\n".into(),
            original: Some("x\n".into()),
            existed: true,
            patch: vec![hunk((1, 1), (1, 1), &["-x", "+y"])],
        }))
    );
}

#[tokio::test]
async fn failures_state_nothing_more_than_their_text() {
    let ws = Workspace::new();
    let details = ws
        .details("read_file", json!({"path": "missing.txt"}))
        .await;
    assert_eq!(details, None);
}
