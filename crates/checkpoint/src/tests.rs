use std::os::unix::fs::PermissionsExt;

use rein_testkit::git;

use super::*;

fn store(dir: &Path) -> Checkpoints {
    Checkpoints::open(&dir.join("store"), DEFAULT_CAP_BYTES)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Runs one "call" of the current turn: keeps the states, changes the files, notes the result.
fn call(cp: &Checkpoints, id: &str, paths: &[PathBuf], change: impl FnOnce()) {
    cp.before(id, paths).unwrap();
    change();
    cp.after(id, paths).unwrap();
}

#[test]
fn undo_brings_back_bytes_and_mode_recreates_deleted_and_removes_created() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let (edited, deleted, created) = (ws.join("a.sh"), ws.join("b.txt"), ws.join("new/c.txt"));
    std::fs::write(&edited, b"#!/bin/sh\necho one\n").unwrap();
    std::fs::set_permissions(&edited, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::write(&deleted, b"keep me\n").unwrap();
    let cp = store(tmp.path());
    assert_eq!(cp.begin_turn("a prompt").unwrap(), 1);
    call(&cp, "c1", std::slice::from_ref(&edited), || {
        std::fs::write(&edited, b"echo two\n").unwrap();
        std::fs::set_permissions(&edited, std::fs::Permissions::from_mode(0o644)).unwrap();
    });
    call(&cp, "c2", std::slice::from_ref(&deleted), || {
        std::fs::remove_file(&deleted).unwrap()
    });
    call(&cp, "c3", std::slice::from_ref(&created), || {
        std::fs::create_dir_all(created.parent().unwrap()).unwrap();
        std::fs::write(&created, b"made\n").unwrap();
    });

    let plan = cp.plan(&cp.last_turns(1));
    assert_eq!(plan.turns, vec![1]);
    let actions: Vec<(&Path, &RestoreAction)> = plan
        .files
        .iter()
        .map(|f| (f.path.as_path(), &f.action))
        .collect();
    assert_eq!(
        actions,
        vec![
            (edited.as_path(), &RestoreAction::Rewrite),
            (deleted.as_path(), &RestoreAction::Recreate),
            (created.as_path(), &RestoreAction::Delete),
        ]
    );
    assert!(plan.files.iter().all(|f| !f.changed_since));
    let outcomes = cp.apply(&plan, crate::Restore::KeepChanged).unwrap();
    assert_eq!(
        outcomes,
        vec![
            RestoreOutcome::Restored(edited.clone()),
            RestoreOutcome::Restored(deleted.clone()),
            RestoreOutcome::Deleted(created.clone()),
        ]
    );
    assert_eq!(std::fs::read(&edited).unwrap(), b"#!/bin/sh\necho one\n");
    assert_eq!(mode(&edited), 0o750);
    assert_eq!(std::fs::read(&deleted).unwrap(), b"keep me\n");
    assert!(!created.exists());
    // Undone turns are not offered again.
    assert!(cp.last_turns(1).is_empty());
    assert!(cp.turns()[0].undone);
}

#[test]
fn a_file_changed_since_is_kept_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    std::fs::write(&file, b"v1").unwrap();
    let cp = store(tmp.path());
    cp.begin_turn("a prompt").unwrap();
    call(&cp, "c1", std::slice::from_ref(&file), || {
        std::fs::write(&file, b"v2").unwrap()
    });
    std::fs::write(&file, b"the user's v3").unwrap();
    let plan = cp.plan(&[1]);
    assert!(plan.files[0].changed_since);
    assert_eq!(
        cp.apply(&plan, crate::Restore::KeepChanged).unwrap(),
        vec![RestoreOutcome::ChangedSince(file.clone())]
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"the user's v3");
    // The turn is not undone yet: a forced undo of it follows, and puts the file back.
    assert_eq!(cp.last_turns(1), vec![1]);
    cp.apply(&cp.plan(&[1]), crate::Restore::Force).unwrap();
    assert!(cp.last_turns(1).is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), b"v1");
}

#[test]
fn several_turns_go_back_to_before_the_earliest_and_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    std::fs::write(&file, b"v0").unwrap();
    let cp = store(tmp.path());
    for (turn, text) in [(1, "v1"), (2, "v2"), (3, "v3")] {
        assert_eq!(cp.begin_turn("a prompt").unwrap(), turn);
        call(
            &cp,
            &format!("c{turn}"),
            std::slice::from_ref(&file),
            || std::fs::write(&file, text).unwrap(),
        );
    }
    // A turn with no file changes is not a turn to undo.
    cp.begin_turn("a prompt").unwrap();
    assert_eq!(cp.last_turns(1), vec![3]);
    cp.apply(&cp.plan(&[3]), crate::Restore::KeepChanged)
        .unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"v2");
    // The next undo takes the two before, not the undone one; the file is as rein's turn 2 left
    // it (restored), so it is not "changed since".
    let turns = cp.last_turns(2);
    assert_eq!(turns, vec![1, 2]);
    let plan = cp.plan(&turns);
    assert!(!plan.files[0].changed_since);
    cp.apply(&plan, crate::Restore::KeepChanged).unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"v0");
}

#[test]
fn identical_contents_are_stored_once_and_the_cap_is_held() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    let cp = Checkpoints::open(&tmp.path().join("store"), 100);
    cp.begin_turn("a prompt").unwrap();
    for i in 0..10 {
        // Contents alternate between two values: two objects.
        std::fs::write(&file, if i % 2 == 0 { "even" } else { "odd" }).unwrap();
        cp.before(&format!("c{i}"), std::slice::from_ref(&file))
            .unwrap();
    }
    assert_eq!(rein_fs::private::tree_size(&cp.dir().join("objects")), 7);
    // Over the cap, the state is noted as not kept, and the undo says so.
    std::fs::write(&file, vec![b'x'; 200]).unwrap();
    cp.begin_turn("a prompt").unwrap();
    cp.before("big", std::slice::from_ref(&file)).unwrap();
    std::fs::write(&file, b"after").unwrap();
    cp.after("big", std::slice::from_ref(&file)).unwrap();
    let plan = cp.plan(&[2]);
    assert!(
        matches!(&plan.files[0].action, RestoreAction::Unkept(why) if why.contains("full")),
        "{plan:?}"
    );
    let outcomes = cp.apply(&plan, crate::Restore::KeepChanged).unwrap();
    assert!(matches!(&outcomes[0], RestoreOutcome::Kept(_, why) if why.contains("full")));
    assert_eq!(std::fs::read(&file).unwrap(), b"after");
}

#[test]
fn a_reopened_store_continues_its_turns_and_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    std::fs::write(&file, b"v0").unwrap();
    {
        let cp = store(tmp.path());
        cp.begin_turn("a prompt").unwrap();
        call(&cp, "c1", std::slice::from_ref(&file), || {
            std::fs::write(&file, b"v1").unwrap()
        });
    }
    let cp = store(tmp.path());
    assert_eq!(cp.turn(), 1);
    assert_eq!(cp.begin_turn("a prompt").unwrap(), 2);
    // A torn last line (a crash mid-append) is skipped, the rest read.
    let index = cp.dir().join("index.jsonl");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str("{\"kind\":\"bef");
    std::fs::write(&index, text).unwrap();
    assert_eq!(cp.last_turns(5), vec![1]);
    cp.apply(&cp.plan(&[1]), crate::Restore::KeepChanged)
        .unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"v0");
    // The 2 bytes stored before count against the cap: 2 more would pass a 3-byte cap.
    let capped = Checkpoints::open(cp.dir(), 3);
    let other = tmp.path().join("g.txt");
    std::fs::write(&other, b"xy").unwrap();
    capped.before("c2", std::slice::from_ref(&other)).unwrap();
    assert!(
        matches!(
            capped.entries().last(),
            Some(Entry::Before {
                state: FileState::Unkept { .. },
                ..
            })
        ),
        "{:?}",
        capped.entries().last()
    );
}

#[test]
fn the_store_is_private() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    std::fs::write(&file, b"secret").unwrap();
    let cp = store(tmp.path());
    cp.begin_turn("a prompt").unwrap();
    cp.before("c1", std::slice::from_ref(&file)).unwrap();
    assert_eq!(mode(cp.dir()), 0o700);
    assert_eq!(mode(&cp.dir().join("index.jsonl")), 0o600);
    let FileState::File { hash, .. } = observe(&file).unwrap() else {
        panic!()
    };
    assert_eq!(mode(&cp.object(&hash)), 0o600);
}

#[test]
fn folders_and_links_are_not_kept_but_said() {
    let tmp = tempfile::tempdir().unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink("target", &link).unwrap();
    let cp = store(tmp.path());
    cp.begin_turn("a prompt").unwrap();
    cp.before("c1", &[link.clone(), tmp.path().to_path_buf()])
        .unwrap();
    let plan = cp.plan(&[1]);
    let reasons: Vec<String> = plan
        .files
        .iter()
        .map(|f| match &f.action {
            RestoreAction::Unkept(why) => why.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(reasons, vec!["a folder", "a symbolic link"]);
}

#[test]
fn every_turn_is_written_with_the_start_of_its_prompt() {
    let tmp = tempfile::tempdir().unwrap();
    let cp = store(tmp.path());
    assert!(!cp.dir().exists(), "made before anything was kept");
    cp.begin_turn("only a question").unwrap();
    let long = format!("\n  fix {}\nsecond line", "x".repeat(300));
    assert_eq!(cp.begin_turn(&long).unwrap(), 2);
    let prompts = cp.prompts();
    assert_eq!(prompts[&1], "only a question");
    let kept = &prompts[&2];
    assert!(kept.starts_with("fix xxx") && kept.ends_with('…'), "{kept}");
    assert_eq!(kept.chars().count(), PROMPT_CHARS + 1);
    // A turn that changed nothing is not one to undo.
    assert!(cp.last_turns(2).is_empty());
}

/// What the user's git state is: status, stash, HEAD's ref and commit, the index file.
fn user_state(dir: &Path) -> (String, String, String, String, Vec<u8>) {
    (
        git(dir, &["status", "--porcelain", "--untracked-files=all"]),
        git(dir, &["stash", "list"]),
        git(dir, &["symbolic-ref", "HEAD"]),
        git(dir, &["rev-parse", "HEAD"]),
        std::fs::read(dir.join(".git/index")).unwrap(),
    )
}

#[test]
fn in_git_shell_changes_are_taken_back_and_the_users_git_state_is_untouched() {
    if !rein_testkit::has_git("in_git_shell_changes_are_taken_back") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    git(&ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join(".gitignore"), "build/\n").unwrap();
    std::fs::write(ws.join("tracked.txt"), "v1\n").unwrap();
    std::fs::write(ws.join("gone.txt"), "to be deleted\n").unwrap();
    std::fs::write(ws.join("run.sh"), "echo\n").unwrap();
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "first"]);
    // The user's own state: a stash, a staged change, an unstaged one, an untracked file.
    std::fs::write(ws.join("tracked.txt"), "stashed\n").unwrap();
    git(&ws, &["stash", "-q"]);
    std::fs::write(ws.join("staged.txt"), "staged\n").unwrap();
    git(&ws, &["add", "staged.txt"]);
    std::fs::write(ws.join("tracked.txt"), "v2 unstaged\n").unwrap();
    std::fs::write(ws.join("notes.txt"), "untracked\n").unwrap();
    let before = user_state(&ws);
    let objects_before = git(&ws, &["count-objects"]);

    let cp = store(tmp.path()).with_workspace(&ws);
    cp.begin_turn("run the build").unwrap();
    cp.snapshot(crate::TurnEdge::Start).unwrap();
    // What "shell commands" did during the turn (dispatch notes each call that may write).
    cp.note_change();
    std::fs::write(ws.join("tracked.txt"), "changed by a command\n").unwrap();
    std::fs::remove_file(ws.join("gone.txt")).unwrap();
    std::fs::write(ws.join("made.txt"), "new\n").unwrap();
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::create_dir(ws.join("build")).unwrap();
    std::fs::write(ws.join("build/out.o"), "ignored\n").unwrap();
    cp.snapshot(crate::TurnEdge::End).unwrap();
    // The user edits an untracked file after the turn.
    std::fs::write(ws.join("notes.txt"), "the user's later words\n").unwrap();

    let turns = cp.last_turns(1);
    assert_eq!(turns, vec![1]);
    let plan = cp.plan(&turns);
    assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    let shown: Vec<(String, RestoreAction)> = plan
        .files
        .iter()
        .map(|f| {
            (
                f.path.strip_prefix(&ws).unwrap().display().to_string(),
                f.action.clone(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("gone.txt".to_string(), RestoreAction::Recreate),
            ("made.txt".to_string(), RestoreAction::Delete),
            ("run.sh".to_string(), RestoreAction::Rewrite),
            ("tracked.txt".to_string(), RestoreAction::Rewrite),
        ]
    );
    cp.apply(&plan, crate::Restore::KeepChanged).unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.join("tracked.txt")).unwrap(),
        "v2 unstaged\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("gone.txt")).unwrap(),
        "to be deleted\n"
    );
    assert_eq!(mode(&ws.join("run.sh")), 0o755);
    assert!(!ws.join("made.txt").exists());
    // Ignored files are not the snapshot's, and the user's later edit stays.
    assert_eq!(
        std::fs::read_to_string(ws.join("build/out.o")).unwrap(),
        "ignored\n"
    );
    std::fs::remove_dir_all(ws.join("build")).unwrap();
    std::fs::write(ws.join("notes.txt"), "untracked\n").unwrap();
    assert_eq!(user_state(&ws), before);
    // The snapshots are kept by rein's private repository: the user's gets no ref, no object.
    let refs = git(&ws, &["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("refs/rein/"), "{refs}");
    assert_eq!(git(&ws, &["count-objects"]), objects_before);
    let private = tmp.path().join(SNAPSHOTS).join("refs/rein/store");
    assert_eq!(std::fs::read_dir(&private).unwrap().count(), 2);
    cp.git().unwrap().forget("store/").unwrap();
    assert!(!tmp.path().join(SNAPSHOTS).exists());
}

#[test]
fn outside_git_the_plan_says_shell_changes_are_not_covered() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    let cp = store(tmp.path()).with_workspace(tmp.path());
    cp.begin_turn("p").unwrap();
    cp.snapshot(crate::TurnEdge::Start).unwrap();
    call(&cp, "c1", std::slice::from_ref(&file), || {
        std::fs::write(&file, b"x").unwrap()
    });
    cp.snapshot(crate::TurnEdge::End).unwrap();
    let plan = cp.plan(&[1]);
    assert_eq!(plan.files.len(), 1);
    assert!(
        plan.notes[0].contains("not in a git work tree"),
        "{:?}",
        plan.notes
    );
}

#[test]
fn a_turn_that_ran_nothing_that_writes_reuses_its_first_snapshot() {
    if !rein_testkit::has_git("a_turn_that_ran_nothing_that_writes") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    git(&ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    let cp = store(tmp.path()).with_workspace(&ws);
    cp.begin_turn("a question").unwrap();
    cp.snapshot(crate::TurnEdge::Start).unwrap();
    // Even a change (the user's, say) is not looked for: no call of the turn could write.
    std::fs::write(ws.join("a.txt"), "b\n").unwrap();
    cp.snapshot(crate::TurnEdge::End).unwrap();
    let trees: Vec<String> = cp
        .entries()
        .into_iter()
        .filter_map(|e| match e {
            Entry::Snapshot { tree, .. } => Some(tree),
            _ => None,
        })
        .collect();
    assert_eq!(trees.len(), 2);
    assert_eq!(trees[0], trees[1]);
    assert!(cp.last_turns(1).is_empty());
    let refs = tmp.path().join(SNAPSHOTS).join("refs/rein/store");
    let names: Vec<_> = std::fs::read_dir(&refs)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["1-start"]);
}

#[test]
fn a_file_a_command_changed_after_a_file_tool_in_the_same_turn_is_still_reins() {
    if !rein_testkit::has_git("a_file_a_command_changed_after_a_file_tool") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    git(&ws, &["init", "-q"]);
    let script = ws.join("run.sh");
    std::fs::write(&script, "echo one\n").unwrap();
    let cp = store(tmp.path()).with_workspace(&ws);
    cp.begin_turn("make it run").unwrap();
    cp.snapshot(crate::TurnEdge::Start).unwrap();
    cp.note_change();
    call(&cp, "c1", std::slice::from_ref(&script), || {
        std::fs::write(&script, "echo two\n").unwrap()
    });
    // Then `chmod +x run.sh` through bash, in the same turn.
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    cp.snapshot(crate::TurnEdge::End).unwrap();
    let plan = cp.plan(&[1]);
    assert!(!plan.files[0].changed_since, "{plan:?}");
    cp.apply(&plan, crate::Restore::KeepChanged).unwrap();
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo one\n");
    assert_eq!(mode(&script) & 0o111, 0);
    // A change after the turn still counts as the user's.
    cp.begin_turn("again").unwrap();
    cp.snapshot(crate::TurnEdge::Start).unwrap();
    cp.note_change();
    call(&cp, "c2", std::slice::from_ref(&script), || {
        std::fs::write(&script, "echo three\n").unwrap()
    });
    cp.snapshot(crate::TurnEdge::End).unwrap();
    std::fs::write(&script, "echo the user's\n").unwrap();
    assert!(cp.plan(&[2]).files[0].changed_since);
}

#[test]
fn a_turn_whose_calls_left_every_file_as_it_was_changed_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let (kept, missing, edited) = (ws.join("a.txt"), ws.join("new.txt"), ws.join("b.txt"));
    std::fs::write(&kept, b"a\n").unwrap();
    std::fs::write(&edited, b"b\n").unwrap();
    let cp = store(tmp.path());
    cp.begin_turn("refused writes").unwrap();
    // A call that failed (an edit whose text was not found, a write the guard refused).
    call(&cp, "c1", std::slice::from_ref(&kept), || {});
    call(&cp, "c2", std::slice::from_ref(&missing), || {});
    cp.begin_turn("a real edit").unwrap();
    call(&cp, "c3", std::slice::from_ref(&edited), || {
        std::fs::write(&edited, b"bee\n").unwrap()
    });
    cp.begin_turn("a crash mid-call").unwrap();
    cp.before("c4", std::slice::from_ref(&kept)).unwrap();
    let turns: Vec<u32> = cp.turns().iter().map(|t| t.turn).collect();
    assert_eq!(turns, [2, 3]);
    assert!(cp.files_changed(1).is_empty());
    assert_eq!(cp.files_changed(2), [edited]);
    assert_eq!(cp.files_changed(3), [kept]);
}
