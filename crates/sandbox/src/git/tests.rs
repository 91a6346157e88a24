use super::*;

use std::fs;

/// A workspace `ws` in a temp folder, canonical.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap().join("ws");
    fs::create_dir_all(&ws).unwrap();
    (dir, ws)
}

/// Settings with `root` writable.
fn roots(root: &Path) -> Settings {
    Settings {
        writable_roots: vec![root.to_path_buf()],
        ..Settings::default()
    }
}

fn repo(ws: &Path) {
    gitdir(&ws.join(".git"));
}

fn gitdir(dir: &Path) {
    for sub in ["hooks", "info", "objects", "refs"] {
        fs::create_dir_all(dir.join(sub)).unwrap();
    }
    fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(dir.join("config"), "[core]\n").unwrap();
}

fn read_only(steps: &[Step]) -> Vec<PathBuf> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::ReadOnly(p) => Some(p.clone()),
            Step::Pin(_) => None,
        })
        .collect()
}

fn pinned(steps: &[Step]) -> Vec<PathBuf> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Pin(p) => Some(p.clone()),
            Step::ReadOnly(_) => None,
        })
        .collect()
}

#[test]
fn a_repository_has_its_git_folder_pinned_and_what_git_runs_read_only() {
    let (_dir, ws) = workspace();
    repo(&ws);
    let steps = plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    assert_eq!(pinned(&steps), vec![ws.join(".git")]);
    assert_eq!(
        read_only(&steps),
        ["config", "hooks", "info"].map(|n| ws.join(".git").join(n))
    );
}

#[test]
fn missing_trusted_folders_are_made_empty_so_they_can_be_bound() {
    let (_dir, ws) = workspace();
    repo(&ws);
    fs::remove_dir(ws.join(".git/hooks")).unwrap();
    let steps = plan(&ws, &Settings::default(), Placeholders::Skip).unwrap();
    assert!(read_only(&steps).contains(&ws.join(".git/hooks")));
    assert!(!ws.join(".git/hooks").exists(), "a check creates nothing");
    plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    assert!(ws.join(".git/hooks").is_dir());
}

#[test]
fn a_workspace_without_git_gets_an_empty_read_only_git_folder() {
    let (_dir, ws) = workspace();
    let steps = plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    assert_eq!(steps, vec![Step::ReadOnly(ws.join(".git"))]);
    assert_eq!(fs::read_dir(ws.join(".git")).unwrap().count(), 0);
}

#[test]
fn hooks_path_in_the_workspace_is_read_only_with_its_parents_pinned() {
    let (_dir, ws) = workspace();
    repo(&ws);
    fs::write(
        ws.join(".git/config"),
        "[core]\n\thooksPath = tools/githooks\n",
    )
    .unwrap();
    let steps = plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    assert!(read_only(&steps).contains(&ws.join("tools/githooks")));
    assert!(pinned(&steps).contains(&ws.join("tools")));
    assert!(ws.join("tools/githooks").is_dir());
    // Parents are bound before what is bound in them.
    let at = |p: &Path| steps.iter().position(|s| s.path() == p).unwrap();
    assert!(at(&ws.join("tools")) < at(&ws.join("tools/githooks")));
}

#[test]
fn huskys_hook_scripts_beside_its_shims_are_read_only_too() {
    let (_dir, ws) = workspace();
    repo(&ws);
    fs::write(ws.join(".git/config"), "[core]\n\thooksPath = .husky/_\n").unwrap();
    let steps = plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    let ro = read_only(&steps);
    assert!(ro.contains(&ws.join(".husky")) && ro.contains(&ws.join(".husky/_")));
}

#[test]
fn a_relative_hooks_path_of_the_users_config_is_held_in_every_repository() {
    let (dir, ws) = workspace();
    repo(&ws);
    let user = dir.path().join("gitconfig");
    fs::write(&user, "[core]\n\thooksPath = .githooks\n").unwrap();
    let settings = Settings {
        git_configs: vec![user, dir.path().join("missing")],
        ..Settings::default()
    };
    let steps = plan(&ws, &settings, Placeholders::Create).unwrap();
    assert!(read_only(&steps).contains(&ws.join(".githooks")));
}

#[test]
fn submodule_checkouts_named_in_gitmodules_have_their_git_entry_held() {
    let (_dir, ws) = workspace();
    repo(&ws);
    fs::write(
        ws.join(".gitmodules"),
        "[submodule \"lib\"]\n\tpath = vendor/lib\n",
    )
    .unwrap();
    let module = ws.join(".git/modules/lib");
    gitdir(&module);
    fs::remove_dir(module.join("hooks")).unwrap();
    fs::create_dir_all(ws.join("vendor/lib")).unwrap();
    fs::write(
        ws.join("vendor/lib/.git"),
        "gitdir: ../../.git/modules/lib\n",
    )
    .unwrap();
    let steps = plan(&ws, &Settings::default(), Placeholders::Create).unwrap();
    let ro = read_only(&steps);
    assert!(ro.contains(&ws.join("vendor/lib/.git")), "{steps:?}");
    assert!(ro.contains(&module.join("hooks")), "{steps:?}");
    assert!(pinned(&steps).contains(&ws.join("vendor/lib")));
}

#[test]
fn symlinks_and_a_planted_commondir_are_refused() {
    let (_dir, ws) = workspace();
    repo(&ws);
    fs::remove_dir(ws.join(".git/hooks")).unwrap();
    std::os::unix::fs::symlink("../githooks", ws.join(".git/hooks")).unwrap();
    assert_eq!(
        plan(&ws, &Settings::default(), Placeholders::Create),
        Err(Unprotected::Symlink(ws.join(".git/hooks")))
    );
    fs::remove_file(ws.join(".git/hooks")).unwrap();
    fs::write(ws.join(".git/commondir"), "../evil\n").unwrap();
    assert_eq!(
        plan(&ws, &Settings::default(), Placeholders::Create),
        Err(Unprotected::Redirected(ws.join(".git/commondir")))
    );
    let notes = disarm(&ws, &[]);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(!ws.join(".git/commondir").exists());
    assert!(plan(&ws, &Settings::default(), Placeholders::Create).is_ok());
}

#[test]
fn a_linked_worktree_protects_its_own_folder_and_the_common_one() {
    let (_dir, ws) = workspace();
    let main = ws.join("main");
    repo(&main);
    let own = main.join(".git/worktrees/feature");
    fs::create_dir_all(&own).unwrap();
    fs::write(own.join("commondir"), "../..\n").unwrap();
    fs::write(own.join("gitdir"), format!("{}/wt/.git\n", ws.display())).unwrap();
    fs::create_dir_all(ws.join("wt")).unwrap();
    fs::write(ws.join("wt/.git"), format!("gitdir: {}\n", own.display())).unwrap();
    let wt = ws.join("wt");
    let steps = plan(&wt, &roots(&ws), Placeholders::Create).unwrap();
    let ro = read_only(&steps);
    for path in [
        wt.join(".git"),
        own.join("commondir"),
        own.join("gitdir"),
        main.join(".git/hooks"),
        main.join(".git/config"),
    ] {
        assert!(
            ro.contains(&path),
            "{} not read-only: {steps:?}",
            path.display()
        );
    }
    assert!(pinned(&steps).contains(&own));
    assert!(pinned(&steps).contains(&main.join(".git")));
}

#[test]
fn only_a_workspace_in_no_checkout_gets_an_empty_git_folder() {
    let (dir, ws) = workspace();
    plan(&ws, &roots(dir.path()), Placeholders::Create).unwrap();
    assert!(ws.join(".git").is_dir(), "a plain folder gets one");
    // A sub-folder of a checkout: an empty `.git` there would end the checkout's
    // `.gitignore` files for the `ignore` crate; the checkout's own `.git` is held instead.
    let (dir, top) = workspace();
    repo(&top);
    let sub = top.join("pkg");
    fs::create_dir_all(&sub).unwrap();
    let steps = plan(&sub, &roots(dir.path()), Placeholders::Create).unwrap();
    assert!(!sub.join(".git").exists());
    assert!(pinned(&steps).contains(&top.join(".git")), "{steps:?}");
}
