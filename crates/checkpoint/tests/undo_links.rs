//! Undo through symlinked folders: after rein changed files, a folder on their path replaced by
//! a link to a folder outside (by the user, another program, or a command the model ran) makes
//! no undo write, create or delete anything outside, forced or not, whether the change was a
//! file tool's or a shell command's; the plan says why the file is left alone.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use rein_checkpoint::{Checkpoints, DEFAULT_CAP_BYTES, RestoreAction, RestoreOutcome};
use rein_testkit::git;

const OUTSIDE_BYTES: &str = "the user's config, outside the workspace\n";

struct Case {
    ws: PathBuf,
    outside: PathBuf,
    cp: Checkpoints,
    _tmp: tempfile::TempDir,
}

/// A git workspace with `rel`'s folder holding files, and a folder outside holding the same
/// names (what the link will point at).
fn case(rel_folder: &str, names: &[&str]) -> Case {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let outside = tmp.path().join("home/.config/app");
    std::fs::create_dir_all(ws.join(rel_folder)).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    git(&ws, &["init", "-q"]);
    for name in names {
        std::fs::write(ws.join(rel_folder).join(name), "workspace file\n").unwrap();
        std::fs::write(outside.join(name), OUTSIDE_BYTES).unwrap();
    }
    let cp =
        Checkpoints::open(&tmp.path().join("data/cp/key/s"), DEFAULT_CAP_BYTES).with_workspace(&ws);
    Case {
        ws,
        outside,
        cp,
        _tmp: tmp,
    }
}

/// A file tool's call of the current turn on `path`.
fn tool_call(cp: &Checkpoints, id: &str, path: &Path, change: impl FnOnce(&Path)) {
    cp.before(id, &[path.to_path_buf()]).unwrap();
    change(path);
    cp.after(id, &[path.to_path_buf()]).unwrap();
}

/// Replaces the workspace folder `rel` by a link to `outside`.
fn swap_for_link(ws: &Path, rel: &str, outside: &Path) {
    std::fs::remove_dir_all(ws.join(rel)).unwrap();
    symlink(outside, ws.join(rel)).unwrap();
}

/// The outside folder still holds exactly `names` with their bytes, and nothing else.
fn assert_outside_untouched(case: &Case, names: &[&str], what: &str) {
    let mut found: Vec<String> = std::fs::read_dir(&case.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut expected: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    expected.sort();
    assert_eq!(
        found, expected,
        "{what}: files outside were made or deleted"
    );
    for name in names {
        assert_eq!(
            std::fs::read_to_string(case.outside.join(name)).unwrap(),
            OUTSIDE_BYTES,
            "{what}: {name} outside was rewritten"
        );
    }
}

fn undo_everything(case: &Case, what: &str) {
    let plan = case.cp.plan(&[1]);
    for file in &plan.files {
        assert!(
            matches!(&file.action, RestoreAction::Unkept(why) if why.contains("symbolic link")),
            "{what}: {} would be {:?}",
            file.path.display(),
            file.action
        );
    }
    assert!(
        !plan.files.is_empty(),
        "{what}: the plan lists nothing: {:?}",
        plan.notes
    );
    for force in [false, true] {
        let outcomes = case
            .cp
            .apply(&plan, rein_checkpoint::Restore::from(force))
            .unwrap();
        // Each file says why it is left alone, not that forcing would restore it.
        assert!(
            outcomes.iter().all(
                |o| matches!(o, RestoreOutcome::Kept(_, why) if why.contains("symbolic link"))
            ),
            "{what} (force: {force}): {outcomes:?}"
        );
        assert!(
            outcomes
                .iter()
                .all(|o| !matches!(o, RestoreOutcome::Restored(_) | RestoreOutcome::Deleted(_))),
            "{what} (force: {force}): {outcomes:?}"
        );
    }
}

#[test]
fn undo_never_writes_or_deletes_through_a_folder_swapped_for_a_link() {
    if !rein_testkit::has_git("undo_never_writes_or_deletes_through_a_link") {
        return;
    }
    // A file tool edited sub/app.json, created sub/new.json and deleted sub/old.json.
    let c = case("sub", &["app.json", "old.json"]);
    c.cp.begin_turn("configure the app").unwrap();
    tool_call(&c.cp, "c1", &c.ws.join("sub/app.json"), |p| {
        std::fs::write(p, "edited\n").unwrap()
    });
    tool_call(&c.cp, "c2", &c.ws.join("sub/new.json"), |p| {
        std::fs::write(p, "created\n").unwrap()
    });
    tool_call(&c.cp, "c3", &c.ws.join("sub/old.json"), |p| {
        std::fs::remove_file(p).unwrap()
    });
    std::fs::write(c.outside.join("new.json"), OUTSIDE_BYTES).unwrap();
    swap_for_link(&c.ws, "sub", &c.outside);
    undo_everything(&c, "file tools");
    assert_outside_untouched(&c, &["app.json", "new.json", "old.json"], "file tools");
}

#[test]
fn undo_of_shell_changes_never_goes_through_a_link_either() {
    if !rein_testkit::has_git("undo_of_shell_changes_never_goes_through_a_link") {
        return;
    }
    let c = case("a/b", &["tracked.txt", "gone.txt"]);
    c.cp.begin_turn("run the script").unwrap();
    c.cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    c.cp.note_change();
    std::fs::write(c.ws.join("a/b/tracked.txt"), "changed by a command\n").unwrap();
    std::fs::remove_file(c.ws.join("a/b/gone.txt")).unwrap();
    std::fs::write(c.ws.join("a/b/made.txt"), "made by a command\n").unwrap();
    c.cp.snapshot(rein_checkpoint::TurnEdge::End).unwrap();
    std::fs::write(c.outside.join("made.txt"), OUTSIDE_BYTES).unwrap();
    std::fs::remove_file(c.outside.join("gone.txt")).unwrap();
    // Deeper than the first folder: `a` stays, `a/b` becomes the link.
    swap_for_link(&c.ws, "a/b", &c.outside);
    undo_everything(&c, "shell changes");
    assert_outside_untouched(&c, &["made.txt", "tracked.txt"], "shell changes");
}

#[test]
fn a_link_swapped_in_between_the_plan_and_the_restore_fails_the_file() {
    if !rein_testkit::has_git("a_link_swapped_in_between") {
        return;
    }
    let c = case("sub", &["app.json"]);
    c.cp.begin_turn("edit").unwrap();
    tool_call(&c.cp, "c1", &c.ws.join("sub/app.json"), |p| {
        std::fs::write(p, "edited\n").unwrap()
    });
    tool_call(&c.cp, "c2", &c.ws.join("sub/new.json"), |p| {
        std::fs::write(p, "created\n").unwrap()
    });
    let plan = c.cp.plan(&[1]);
    assert!(
        plan.files
            .iter()
            .all(|f| matches!(f.action, RestoreAction::Rewrite | RestoreAction::Delete)),
        "{plan:?}"
    );
    std::fs::write(c.outside.join("new.json"), OUTSIDE_BYTES).unwrap();
    swap_for_link(&c.ws, "sub", &c.outside);
    let outcomes = c.cp.apply(&plan, rein_checkpoint::Restore::Force).unwrap();
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    for outcome in &outcomes {
        assert!(
            matches!(outcome, RestoreOutcome::Failed(_, why) if why.contains("symlink")),
            "{outcome:?}"
        );
    }
    assert_outside_untouched(&c, &["app.json", "new.json"], "swapped after the plan");
}

#[test]
fn undo_still_restores_through_real_folders_and_recreates_missing_ones() {
    if !rein_testkit::has_git("undo_still_restores_through_real_folders") {
        return;
    }
    let c = case("deep/er", &["f.txt"]);
    c.cp.begin_turn("tidy").unwrap();
    tool_call(&c.cp, "c1", &c.ws.join("deep/er/f.txt"), |p| {
        std::fs::remove_file(p).unwrap()
    });
    std::fs::remove_dir_all(c.ws.join("deep")).unwrap();
    let plan = c.cp.plan(&[1]);
    assert_eq!(plan.files[0].action, RestoreAction::Recreate, "{plan:?}");
    let outcomes =
        c.cp.apply(&plan, rein_checkpoint::Restore::KeepChanged)
            .unwrap();
    assert!(
        matches!(outcomes[..], [RestoreOutcome::Restored(_)]),
        "{outcomes:?}"
    );
    assert_eq!(
        std::fs::read_to_string(c.ws.join("deep/er/f.txt")).unwrap(),
        "workspace file\n"
    );
}

#[test]
fn a_folder_swapped_for_a_link_before_the_call_keeps_nothing_from_outside() {
    let c = case("sub", &["f.txt"]);
    c.cp.begin_turn("edit").unwrap();
    // The guard resolved ws/sub/f.txt; then a background command swaps `sub` for a link to a
    // folder of secrets before the earlier state is kept.
    swap_for_link(&c.ws, "sub", &c.outside);
    let path = c.ws.join("sub/f.txt");
    c.cp.before("c1", std::slice::from_ref(&path)).unwrap();
    c.cp.after("c1", std::slice::from_ref(&path)).unwrap();
    // Nothing of the outside file went into the store, so no undo can write it back.
    let stored = c.cp.dir().join("objects");
    let kept: Vec<_> = walk(&stored)
        .into_iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t == OUTSIDE_BYTES))
        .collect();
    assert!(kept.is_empty(), "{kept:?}");
    let plan = c.cp.plan(&[1]);
    assert!(
        matches!(&plan.files[0].action, RestoreAction::Unkept(why) if why.contains("symbolic link")),
        "{plan:?}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            if e.path().is_dir() {
                walk(&e.path())
            } else {
                vec![e.path()]
            }
        })
        .collect()
}
