use std::os::unix::fs::PermissionsExt;

use pretty_assertions::assert_eq;
use rein_protocol::{TaskStatus, TodoItem, TodoStatus};
use serde_json::json;

use super::*;

fn new(subject: &str) -> NewTask {
    NewTask {
        subject: subject.into(),
        description: format!("do {subject}"),
        ..NewTask::default()
    }
}

fn set(status: TaskStatus) -> TaskChange {
    TaskChange {
        status: Some(SetStatus::To(status)),
        ..TaskChange::default()
    }
}

fn blocked_by(ids: &[&str]) -> TaskChange {
    TaskChange {
        add_blocked_by: ids.iter().map(|s| s.to_string()).collect(),
        ..TaskChange::default()
    }
}

#[test]
fn ids_count_from_one_and_are_never_given_twice() {
    let board = Board::in_memory();
    assert_eq!(board.create(new("a")).unwrap().id, "1");
    assert_eq!(board.create(new("b")).unwrap().id, "2");
    let deleted = TaskChange {
        status: Some(SetStatus::Deleted),
        ..TaskChange::default()
    };
    board.update("2", deleted, "main").unwrap();
    assert_eq!(board.create(new("c")).unwrap().id, "3");
    assert!(matches!(board.get("2"), Err(BoardError::NoTask { .. })));
}

#[test]
fn dependencies_are_kept_on_both_ends_and_completing_unblocks() {
    let board = Board::in_memory();
    for s in ["design", "build", "test"] {
        board.create(new(s)).unwrap();
    }
    board.update("2", blocked_by(&["1"]), "main").unwrap();
    let blocks = TaskChange {
        add_blocks: vec!["3".into()],
        ..TaskChange::default()
    };
    board.update("2", blocks, "main").unwrap();
    assert_eq!(board.get("1").unwrap().blocks, vec!["2"]);
    assert_eq!(board.get("3").unwrap().blocked_by, vec!["2"]);
    let ready: Vec<String> = board.ready().into_iter().map(|t| t.id).collect();
    assert_eq!(ready, vec!["1"]);
    let refused = board.update("2", set(TaskStatus::InProgress), "main");
    assert_eq!(
        refused.unwrap_err().to_string(),
        "task 2 is blocked by 1 (pending): complete those first"
    );
    let done = board
        .update("1", set(TaskStatus::Completed), "main")
        .unwrap();
    assert_eq!(done.unblocked, vec!["2"]);
    let ready: Vec<String> = board.ready().into_iter().map(|t| t.id).collect();
    assert_eq!(ready, vec!["2"]);
}

#[test]
fn a_cycle_is_refused_with_the_chain_that_closes_it_and_nothing_changes() {
    let board = Board::in_memory();
    for s in ["a", "b", "c"] {
        board.create(new(s)).unwrap();
    }
    board.update("2", blocked_by(&["1"]), "main").unwrap();
    board.update("3", blocked_by(&["2"]), "main").unwrap();
    let error = board.update("1", blocked_by(&["3"]), "main").unwrap_err();
    assert_eq!(
        error.to_string(),
        "task 1 cannot depend on task 3: 3 already waits for 1 (3 → 2 → 1), so neither could \
         ever start"
    );
    assert!(board.get("1").unwrap().blocked_by.is_empty());
    assert!(board.get("3").unwrap().blocks.is_empty());
    let myself = board.update("1", blocked_by(&["1"]), "main").unwrap_err();
    assert_eq!(myself.to_string(), "task 1 cannot block itself");
    let missing = board.update("1", blocked_by(&["9"]), "main").unwrap_err();
    assert!(
        missing.to_string().contains("there is no task 9"),
        "{missing}"
    );
    // Both new edges in one call close a loop through an old one.
    let both = TaskChange {
        add_blocked_by: vec!["3".into()],
        add_blocks: vec!["2".into()],
        ..TaskChange::default()
    };
    assert!(matches!(
        board.update("1", both, "main"),
        Err(BoardError::Cycle { .. })
    ));
}

#[test]
fn deleting_a_task_removes_every_edge_to_it() {
    let board = Board::in_memory();
    for s in ["a", "b"] {
        board.create(new(s)).unwrap();
    }
    board.update("2", blocked_by(&["1"]), "main").unwrap();
    let gone = board
        .update(
            "1",
            TaskChange {
                status: Some(SetStatus::Deleted),
                ..TaskChange::default()
            },
            "main",
        )
        .unwrap();
    assert_eq!(gone.task, None);
    assert_eq!(gone.unblocked, vec!["2"]);
    assert!(board.get("2").unwrap().blocked_by.is_empty());
}

#[test]
fn metadata_merges_and_a_null_value_deletes_its_key() {
    let board = Board::in_memory();
    let mut task = new("a");
    task.metadata = json!({"k": 1, "gone": null}).as_object().unwrap().clone();
    assert_eq!(
        board.create(task).unwrap().metadata,
        *json!({"k": 1}).as_object().unwrap()
    );
    let change = TaskChange {
        metadata: json!({"k": null, "n": "x"}).as_object().unwrap().clone(),
        ..TaskChange::default()
    };
    let task = board.update("1", change, "main").unwrap().task.unwrap();
    assert_eq!(task.metadata, *json!({"n": "x"}).as_object().unwrap());
}

#[test]
fn an_owned_task_changes_hands_only_by_its_owner_or_the_lead() {
    let board = Board::in_memory();
    board.create(new("a")).unwrap();
    let claimed = board.claim("alice").unwrap().unwrap();
    assert_eq!(
        (claimed.owner.as_deref(), claimed.status),
        (Some("alice"), TaskStatus::InProgress)
    );
    assert_eq!(board.claim("bob").unwrap(), None);
    let to_bob = || TaskChange {
        owner: Some("bob".into()),
        ..TaskChange::default()
    };
    let refused = board.update("1", to_bob(), "bob").unwrap_err();
    assert_eq!(
        refused.to_string(),
        "task 1 is owned by alice; only alice or main can give it to someone else"
    );
    board.update("1", to_bob(), "main").unwrap();
    assert_eq!(board.get("1").unwrap().owner.as_deref(), Some("bob"));
}

#[test]
fn empty_or_oversized_text_is_refused() {
    let board = Board::in_memory();
    assert!(
        board
            .create(new("  "))
            .unwrap_err()
            .to_string()
            .contains("subject is empty")
    );
    let long = NewTask {
        subject: "x".repeat(MAX_SUBJECT + 1),
        ..NewTask::default()
    };
    assert!(matches!(board.create(long), Err(BoardError::Invalid(_))));
    assert!(board.list().is_empty());
}

#[test]
fn a_todo_list_maps_onto_the_board_by_subject() {
    let board = Board::in_memory();
    let item = |content: &str, status| TodoItem {
        content: content.into(),
        status,
        active_form: format!("{content}ing"),
    };
    let tasks = board
        .sync_todos(
            &[
                item("Read", TodoStatus::InProgress),
                item("Fix", TodoStatus::Pending),
            ],
            "main",
        )
        .unwrap();
    assert_eq!(
        tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["1", "2"]
    );
    // A teammate's task stays whatever the lead's list says.
    board.create(new("theirs")).unwrap();
    let to_alice = TaskChange {
        owner: Some("alice".into()),
        ..TaskChange::default()
    };
    board.update("3", to_alice, "main").unwrap();
    let tasks = board
        .sync_todos(
            &[
                item("Read", TodoStatus::Completed),
                item("Test", TodoStatus::Pending),
            ],
            "main",
        )
        .unwrap();
    let seen: Vec<(&str, &str, TaskStatus)> = tasks
        .iter()
        .map(|t| (t.id.as_str(), t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        seen,
        [
            ("1", "Read", TaskStatus::Completed),
            ("3", "theirs", TaskStatus::Pending),
            ("4", "Test", TaskStatus::Pending)
        ]
    );
}

#[test]
fn the_board_on_disk_is_private_and_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks");
    let board = Board::open(&path).unwrap();
    board.create(new("a")).unwrap();
    board.create(new("b")).unwrap();
    board.update("2", blocked_by(&["1"]), "main").unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o700);
    assert_eq!(mode(&path.join("1.json")), 0o600);
    assert_eq!(mode(&path.join("index.json")), 0o600);
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path.join("2.json")).unwrap()).unwrap();
    assert_eq!(file["blockedBy"], json!(["1"]));
    drop(board);
    let again = Board::open(&path).unwrap();
    assert_eq!(again.list().len(), 2);
    assert_eq!(again.create(new("c")).unwrap().id, "3");
    // A damaged file is skipped, and its id is not given again.
    std::fs::write(path.join("3.json"), "{not json").unwrap();
    let again = Board::open(&path).unwrap();
    assert_eq!(again.list().len(), 2);
    assert_eq!(again.create(new("d")).unwrap().id, "4");
}

#[test]
fn two_boards_on_one_folder_see_each_others_changes() {
    let dir = tempfile::tempdir().unwrap();
    let one = Board::open(dir.path()).unwrap();
    let two = Board::open(dir.path()).unwrap();
    one.create(new("a")).unwrap();
    assert_eq!(two.create(new("b")).unwrap().id, "2");
    assert_eq!(one.list().len(), 2);
    two.update("1", set(TaskStatus::Completed), "main").unwrap();
    assert_eq!(one.get("1").unwrap().status, TaskStatus::Completed);
}

#[test]
fn eight_agents_racing_for_a_hundred_tasks_never_claim_one_twice() {
    let dir = tempfile::tempdir().unwrap();
    let lead = Board::open(dir.path()).unwrap();
    for n in 0..100 {
        lead.create(new(&format!("task {n}"))).unwrap();
    }
    // Four agents share the lead's board, four more open the folder as another process would.
    let handles: Vec<_> = (0..8)
        .map(|n| {
            let board = if n < 4 {
                lead.clone()
            } else {
                Board::open(dir.path()).unwrap()
            };
            std::thread::spawn(move || {
                let me = format!("agent{n}");
                let mut done = Vec::new();
                while let Some(task) = board.claim(&me).unwrap() {
                    let change = TaskChange {
                        metadata: json!({"by": me}).as_object().unwrap().clone(),
                        ..set(TaskStatus::Completed)
                    };
                    board.update(&task.id, change, &me).unwrap();
                    done.push(task.id);
                }
                done
            })
        })
        .collect();
    let mut claimed: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    claimed.sort_by_key(|id| id.parse::<u32>().unwrap());
    let expected: Vec<String> = (1..=100).map(|n| n.to_string()).collect();
    assert_eq!(claimed, expected);
    let reread = Board::open(dir.path()).unwrap();
    for task in reread.list() {
        assert_eq!(task.status, TaskStatus::Completed, "task {}", task.id);
        assert_eq!(task.metadata["by"], json!(task.owner.unwrap()));
    }
}

#[test]
fn a_board_nobody_wrote_to_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks/key/session");
    let board = Board::open(&path).unwrap();
    assert!(board.list().is_empty() && board.ready().is_empty());
    assert!(!path.exists());
    board.create(new("a")).unwrap();
    assert!(path.join("1.json").exists());
}
