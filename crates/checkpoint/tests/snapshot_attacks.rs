//! rein's git snapshots and undo in hostile repositories: whatever a workspace's repository
//! carries (its config, files that config includes, a gitdir a `.git` file names, a parent
//! checkout's config, a nested checkout's, hooks, attributes), a snapshot and an undo run none
//! of it, still work, and put back exactly the bytes that were there.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rein_checkpoint::{Checkpoints, DEFAULT_CAP_BYTES, RestoreOutcome};
use rein_testkit::git;

/// A command that leaves a marker named `name` in `markers` when git runs it.
fn planted(markers: &Path, name: &str) -> String {
    format!("touch {}/{name}; cat", markers.display())
}

/// An executable script in `dir` that leaves a marker when run.
fn script(dir: &Path, file: &str, markers: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(file);
    std::fs::write(
        &path,
        format!("#!/bin/sh\ntouch {}/{file}\n", markers.display()),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Config that would run code at a snapshot: a filter for every file, an fsmonitor, a diff
/// driver, hooks.
fn hostile_config(markers: &Path, scripts: &Path) -> String {
    let fsmonitor = script(scripts, "fsmonitor", markers);
    for hook in [
        "post-index-change",
        "reference-transaction",
        "pre-commit",
        "post-checkout",
    ] {
        script(&scripts.join("hooks"), hook, markers);
    }
    format!(
        "[filter \"x\"]\n\tclean = {}\n\tsmudge = {}\n\tprocess = {}\n\trequired = true\n\
         [core]\n\tfsmonitor = {}\n\thooksPath = {}\n\
         [diff \"x\"]\n\ttextconv = {}\n\tcommand = {}\n[diff]\n\texternal = {}\n",
        planted(markers, "clean"),
        planted(markers, "smudge"),
        planted(markers, "process"),
        fsmonitor.display(),
        scripts.join("hooks").display(),
        planted(markers, "textconv"),
        planted(markers, "diffcommand"),
        planted(markers, "external"),
    )
}

const ATTRIBUTES: &str = "* filter=x diff=x\n";

/// A committed repository at `dir` with `a.txt` and `.gitattributes` naming the filter.
fn repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join("a.txt"), "as committed\n").unwrap();
    std::fs::write(dir.join(".gitattributes"), ATTRIBUTES).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "first"]);
}

fn append(path: &Path, text: &str) {
    let mut old = std::fs::read_to_string(path).unwrap_or_default();
    old.push_str(text);
    std::fs::write(path, old).unwrap();
}

/// One hostile layout: given the test's folder and where markers go, makes the repository and
/// returns the workspace.
type Layout = fn(&Path, &Path) -> PathBuf;

fn config_in_dot_git(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    append(
        &ws.join(".git/config"),
        &hostile_config(markers, &base.join("s")),
    );
    ws
}

fn config_in_an_included_file(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    std::fs::write(
        base.join("evil.cfg"),
        hostile_config(markers, &base.join("s")),
    )
    .unwrap();
    append(
        &ws.join(".git/config"),
        &format!(
            "[include]\n\tpath = {}\n[includeIf \"gitdir:/\"]\n\tpath = {}\n",
            base.join("evil.cfg").display(),
            base.join("evil.cfg").display()
        ),
    );
    ws
}

fn dot_git_file_naming_a_hostile_gitdir(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    std::fs::rename(ws.join(".git"), base.join("elsewhere")).unwrap();
    append(
        &base.join("elsewhere/config"),
        &hostile_config(markers, &base.join("s")),
    );
    std::fs::write(ws.join(".git"), "gitdir: ../elsewhere\n").unwrap();
    ws
}

fn parent_checkout_config(base: &Path, markers: &Path) -> PathBuf {
    let outer = base.join("outer");
    repo(&outer);
    std::fs::create_dir_all(outer.join("sub")).unwrap();
    std::fs::write(outer.join("sub/a.txt"), "as committed\n").unwrap();
    std::fs::write(outer.join("sub/.gitattributes"), ATTRIBUTES).unwrap();
    append(
        &outer.join(".git/config"),
        &hostile_config(markers, &base.join("s")),
    );
    outer.join("sub")
}

fn commondir_to_a_hostile_folder(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    let common = base.join("common");
    std::fs::create_dir_all(common.join("refs")).unwrap();
    std::fs::create_dir_all(common.join("objects")).unwrap();
    std::fs::write(
        common.join("config"),
        hostile_config(markers, &base.join("s")),
    )
    .unwrap();
    std::fs::write(ws.join(".git/commondir"), format!("{}\n", common.display())).unwrap();
    ws
}

fn attributes_in_info_and_a_worktree_elsewhere(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    std::fs::remove_file(ws.join(".gitattributes")).unwrap();
    std::fs::create_dir_all(ws.join(".git/info")).unwrap();
    std::fs::write(ws.join(".git/info/attributes"), ATTRIBUTES).unwrap();
    std::fs::create_dir_all(base.join("other")).unwrap();
    append(
        &ws.join(".git/config"),
        &format!(
            "{}[core]\n\tworktree = {}\n",
            hostile_config(markers, &base.join("s")),
            base.join("other").display()
        ),
    );
    ws
}

fn nested_checkout_with_hostile_and_broken_config(base: &Path, markers: &Path) -> PathBuf {
    let ws = base.join("ws");
    repo(&ws);
    let nested = ws.join("vendor/lib");
    repo(&nested);
    append(
        &nested.join(".git/config"),
        &format!(
            "{}[include]\n\tpath = /etc/passwd\n",
            hostile_config(markers, &base.join("s"))
        ),
    );
    ws
}

/// Runs one prompt's snapshots around a "shell command" that changes `a.txt`, adds a file and
/// changes one in a nested folder, then undoes the turn; returns what the undo did.
fn turn_and_undo(base: &Path, ws: &Path) -> Vec<RestoreOutcome> {
    let store = base.join("data/checkpoints/key/session");
    let cp = Checkpoints::open(&store, DEFAULT_CAP_BYTES).with_workspace(ws);
    cp.begin_turn("run the build").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    cp.note_change();
    std::fs::write(ws.join("a.txt"), "changed by a command\n").unwrap();
    std::fs::write(ws.join("made.txt"), "new\n").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::End).unwrap();
    let plan = cp.plan(&cp.last_turns(1));
    assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    cp.apply(&plan, rein_checkpoint::Restore::KeepChanged)
        .unwrap()
}

#[test]
fn snapshots_and_undo_run_nothing_a_hostile_repository_carries() {
    if !rein_testkit::has_git("snapshots_and_undo_run_nothing") {
        return;
    }
    let layouts: &[(&str, Layout)] = &[
        ("config in .git", config_in_dot_git),
        ("config in an included file", config_in_an_included_file),
        (
            ".git file naming a hostile gitdir",
            dot_git_file_naming_a_hostile_gitdir,
        ),
        ("parent checkout's config", parent_checkout_config),
        (
            "commondir to a hostile folder",
            commondir_to_a_hostile_folder,
        ),
        (
            "attributes in .git/info, core.worktree elsewhere",
            attributes_in_info_and_a_worktree_elsewhere,
        ),
        (
            "nested checkout with hostile, broken config",
            nested_checkout_with_hostile_and_broken_config,
        ),
    ];
    for (case, layout) in layouts {
        let tmp = tempfile::tempdir().unwrap();
        let markers = tmp.path().join("markers");
        std::fs::create_dir_all(&markers).unwrap();
        let ws = layout(tmp.path(), &markers);
        let outcomes = turn_and_undo(tmp.path(), &ws);
        let ran: Vec<String> = std::fs::read_dir(&markers)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(ran.is_empty(), "{case}: the repository ran {ran:?}");
        assert_eq!(
            std::fs::read_to_string(ws.join("a.txt")).unwrap(),
            "as committed\n",
            "{case}: {outcomes:?}"
        );
        assert!(!ws.join("made.txt").exists(), "{case}: {outcomes:?}");
    }
}

#[test]
fn a_nested_checkouts_files_are_snapshotted_like_any_other() {
    if !rein_testkit::has_git("a_nested_checkouts_files_are_snapshotted") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let markers = tmp.path().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    let ws = nested_checkout_with_hostile_and_broken_config(tmp.path(), &markers);
    let cp =
        Checkpoints::open(&tmp.path().join("data/cp/key/s"), DEFAULT_CAP_BYTES).with_workspace(&ws);
    cp.begin_turn("bump the vendored lib").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    cp.note_change();
    std::fs::write(ws.join("vendor/lib/a.txt"), "patched\n").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::End).unwrap();
    let plan = cp.plan(&[1]);
    assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    cp.apply(&plan, rein_checkpoint::Restore::KeepChanged)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.join("vendor/lib/a.txt")).unwrap(),
        "as committed\n"
    );
    // The nested checkout's own git folder is not the snapshot's.
    let git_dir_entries = plan
        .files
        .iter()
        .filter(|f| f.path.components().any(|c| c.as_os_str() == ".git"))
        .count();
    assert_eq!(git_dir_entries, 0, "{plan:?}");
}

#[test]
fn undo_puts_back_the_exact_bytes_whatever_the_attributes_say() {
    if !rein_testkit::has_git("undo_puts_back_the_exact_bytes") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    git(&ws, &["init", "-q"]);
    // Attributes that would make git store other bytes than the file's.
    std::fs::write(
        ws.join(".gitattributes"),
        "* text eol=lf ident working-tree-encoding=UTF-16\n",
    )
    .unwrap();
    let original = b"$Id$\r\nline two\r\n\xef\xbb\xbfutf8 with a BOM\r\n".to_vec();
    std::fs::write(ws.join("crlf.txt"), &original).unwrap();
    let cp =
        Checkpoints::open(&tmp.path().join("data/cp/key/s"), DEFAULT_CAP_BYTES).with_workspace(&ws);
    cp.begin_turn("normalise line endings").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    cp.note_change();
    std::fs::write(ws.join("crlf.txt"), "rewritten\n").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::End).unwrap();
    let plan = cp.plan(&[1]);
    cp.apply(&plan, rein_checkpoint::Restore::KeepChanged)
        .unwrap();
    assert_eq!(std::fs::read(ws.join("crlf.txt")).unwrap(), original);
}

#[test]
fn a_doctored_object_in_the_repository_is_not_written_back() {
    if !rein_testkit::has_git("a_doctored_object_in_the_repository") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repo(&ws);
    let cp =
        Checkpoints::open(&tmp.path().join("data/cp/key/s"), DEFAULT_CAP_BYTES).with_workspace(&ws);
    cp.begin_turn("p").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::Start).unwrap();
    cp.note_change();
    std::fs::write(ws.join("a.txt"), "changed\n").unwrap();
    cp.snapshot(rein_checkpoint::TurnEdge::End).unwrap();
    // The committed blob lives in the repository (the snapshot did not copy it): swap its
    // bytes for others under the same id.
    let id = git(&ws, &["rev-parse", "HEAD:a.txt"]).trim().to_string();
    let loose = |id: &str| ws.join(".git/objects").join(&id[..2]).join(&id[2..]);
    let forged = std::process::Command::new("sh")
        .arg("-c")
        .arg("printf 'EVIL CONTENT\\n' | git hash-object -w --no-filters --stdin")
        .current_dir(&ws)
        .output()
        .unwrap();
    let forged = String::from_utf8(forged.stdout).unwrap().trim().to_string();
    std::fs::set_permissions(loose(&id), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::copy(loose(&forged), loose(&id)).unwrap();

    let plan = cp.plan(&[1]);
    let outcomes = cp.apply(&plan, rein_checkpoint::Restore::Force).unwrap();
    assert_ne!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "EVIL CONTENT\n",
        "{outcomes:?}"
    );
    let said: Vec<String> = plan
        .files
        .iter()
        .map(|f| format!("{:?}", f.action))
        .collect();
    assert!(said.iter().any(|s| s.contains("doctored")), "{said:?}");
}
