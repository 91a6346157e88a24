//! What git will execute stays as the user left it: each attack runs as a real command under
//! `workspace-write` against a real repository, rein's after-call check runs, then the user's
//! `git status` and `git commit` run outside the sandbox (no system or global config) and no
//! planted hook or `core.fsmonitor` may have run.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rein_sandbox::{Call, Policy};

use crate::support::*;

/// One attack: how the repository is set up outside, the line run inside (`HOOK` stands for a
/// script that leaves the marker, `EVIL` for `[core] fsmonitor` config running it), and
/// where the user runs git afterwards.
struct Attack {
    name: &'static str,
    setup: fn(&Fixture),
    line: &'static str,
    victim: fn(&Fixture) -> PathBuf,
}

const ATTACKS: &[Attack] = &[
    Attack {
        name: "hooks written in place",
        setup: repo_at_ws,
        line: "mv .git/hooks .git/h; rm -rf .git/hooks; mkdir -p .git/hooks; \
               cp HOOK .git/hooks/post-commit; cp HOOK .git/hooks/pre-commit",
        victim: ws,
    },
    Attack {
        name: ".git renamed away and a copy with hooks put in its place",
        setup: repo_at_ws,
        line: "mv .git .git-old || cp -r .git .git-old; cp HOOK .git-old/hooks/pre-commit; \
               mv -T .git-old .git || { rm -rf .git; mv -T .git-old .git; }",
        victim: ws,
    },
    Attack {
        name: ".git replaced by a gitdir file pointing at a planted folder",
        setup: repo_at_ws,
        line: "cp -r .git evil; cp HOOK evil/hooks/pre-commit; rm -rf .git; \
               echo 'gitdir: evil' > .git; mv -f evil .git",
        victim: ws,
    },
    Attack {
        name: "commondir pointing at a folder with hooks",
        setup: repo_at_ws,
        line: "cp -r .git evil; rm -rf evil/hooks; mkdir evil/hooks; cp HOOK evil/hooks/pre-commit; \
               echo ../evil > .git/commondir",
        victim: ws,
    },
    Attack {
        name: "config rewritten, replaced or given an fsmonitor",
        setup: repo_at_ws,
        line: "printf EVIL >> .git/config; cp .git/config c; printf EVIL >> c; mv -f c .git/config; \
               git config core.fsmonitor 'sh HOOK'; git config extensions.worktreeConfig true; \
               printf EVIL > .git/config.worktree; git config core.worktree /",
        victim: ws,
    },
    Attack {
        name: "info/attributes choosing a filter, info replaced",
        setup: repo_at_ws,
        line: "echo '* filter=x' > .git/info/attributes; mv .git/info .git/i; \
               mkdir -p .git/info; echo '* filter=x' > .git/info/attributes",
        victim: ws,
    },
    Attack {
        name: "husky's core.hooksPath in the workspace rewritten or moved away",
        setup: husky,
        line: "cp HOOK .husky/pre-commit; cp HOOK .husky/_/pre-commit; mv .husky .husky-old; \
               mkdir -p .husky/_; \
               cp HOOK .husky/_/pre-commit; mv .husky/_ .husky/old; mkdir .husky/_; \
               cp HOOK .husky/_/pre-commit",
        victim: ws,
    },
    Attack {
        name: "a file the config includes given an fsmonitor",
        setup: include,
        line: "printf EVIL >> shared.gitconfig; mv shared.gitconfig s; printf EVIL > shared.gitconfig",
        victim: ws,
    },
    Attack {
        name: "a submodule's hooks and config",
        setup: submodule,
        line: "cp HOOK .git/modules/sub/hooks/post-checkout; printf EVIL >> .git/modules/sub/config; \
               mv .git/modules/sub .git/modules/old; cp -r .git/modules/old .git/modules/sub; \
               printf EVIL >> .git/modules/sub/config",
        victim: ws,
    },
    Attack {
        name: "a submodule checkout's .git file repointed at a planted git folder",
        setup: submodule,
        line: "git init -q planted; printf EVIL >> planted/.git/config; \
               echo \"gitdir: $PWD/planted/.git\" > sub/.git; rm -f sub/.git; \
               echo \"gitdir: $PWD/planted/.git\" > sub/.git",
        victim: ws,
    },
    Attack {
        name: "the user's relative core.hooksPath filled in the workspace",
        setup: user_hooks_path,
        line: "mkdir -p .githooks; cp HOOK .githooks/pre-commit",
        victim: ws,
    },
    Attack {
        name: "a linked worktree's folder redirected to planted hooks",
        setup: worktree_outside,
        line: "cp -r .git evil; cp HOOK evil/hooks/pre-commit; \
               mv .git/worktrees/wt .git/worktrees/old && cp -r .git/worktrees/old .git/worktrees/wt; \
               echo \"$PWD/evil\" > .git/worktrees/wt/commondir",
        victim: outside_worktree,
    },
    Attack {
        name: "a linked worktree's .git file repointed at a gitdir it made",
        setup: worktree_at_ws,
        line: "mkdir -p evil; cp -r ../outside/main/.git/. evil/ 2>/dev/null; \
               git init -q evil2; cp HOOK evil2/.git/hooks/pre-commit; \
               echo \"gitdir: $PWD/evil2/.git\" > .git; rm -f .git; \
               echo \"gitdir: $PWD/evil2/.git\" > .git",
        victim: ws,
    },
    Attack {
        name: "git init where the workspace has none",
        setup: no_repo,
        line: "git init -q .; rm -rf .git; git init -q .; mkdir -p .git/hooks; \
               cp HOOK .git/hooks/pre-commit",
        victim: ws,
    },
];

#[test]
fn attacks_on_what_git_executes_plant_nothing() {
    let test = "attacks_on_what_git_executes_plant_nothing";
    if !rein_testkit::require("git", "--version", test) {
        return;
    }
    for launch in LAUNCHES {
        for attack in ATTACKS {
            let fx = fixture();
            let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
                break;
            };
            (attack.setup)(&fx);
            let (marker, line) = armed(attack, &fx);
            let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
            // What rein does after every workspace-write call.
            let notes = sandbox.disarm_git(&fx.ws);
            let (status, commit) = victim(attack, &fx);
            assert!(
                !marker.exists(),
                "{launch:?}, {}: a planted hook ran\nattack said: {said}\nnotes: {notes:?}\n\
                 status: {}\ncommit: {}",
                attack.name,
                text(&status),
                text(&commit)
            );
            let attributes = fx.ws.join(".git/info/attributes");
            assert!(!attributes.exists(), "{launch:?}, {}: {said}", attack.name);
        }
    }
}

/// The table is worth something only if every attack works without the sandbox.
#[test]
fn every_attack_plants_its_hook_when_unconfined() {
    let test = "every_attack_plants_its_hook_when_unconfined";
    if !rein_testkit::require("git", "--version", test) {
        return;
    }
    let mut idle = Vec::new();
    for attack in ATTACKS {
        let fx = fixture();
        (attack.setup)(&fx);
        let (marker, line) = armed(attack, &fx);
        let said = text(
            &Command::new("bash")
                .args(["-c", &line])
                .current_dir(&fx.ws)
                .env("HOME", &fx.home)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap(),
        );
        let (status, commit) = victim(attack, &fx);
        if !marker.exists() && !fx.ws.join(".git/info/attributes").exists() {
            idle.push(format!(
                "{}: the attack does nothing even unconfined\nattack said: {said}\n\
                 status: {}\ncommit: {}",
                attack.name,
                text(&status),
                text(&commit)
            ));
        }
    }
    assert!(idle.is_empty(), "{}", idle.join("\n\n"));
}

/// The marker a planted hook leaves, and the attack's line with `HOOK` and `EVIL` filled in.
fn armed(attack: &Attack, fx: &Fixture) -> (PathBuf, String) {
    let marker = fx.outside.join("PLANTED-HOOK-RAN");
    let hook = fx.tmp.join("hook.sh");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    make_executable(&hook);
    let evil = format!("'\\n[core]\\n\\tfsmonitor = sh {}\\n'", hook.display());
    let line = attack
        .line
        .replace("HOOK", &hook.display().to_string())
        .replace("EVIL", &evil);
    (marker, line)
}

/// The user's `git status` and `git commit` where the attack expects them.
fn victim(attack: &Attack, fx: &Fixture) -> (Output, Output) {
    let dir = (attack.victim)(fx);
    let status = git(&dir, fx, &["status"]);
    let commit = git(&dir, fx, &["commit", "-q", "--allow-empty", "-m", "user"]);
    (status, commit)
}

#[test]
fn a_workspace_inside_a_writable_checkout_cannot_swap_the_checkouts_git() {
    let test = "a_workspace_inside_a_writable_checkout";
    if !rein_testkit::require("git", "--version", test) {
        return;
    }
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(&fx, std::slice::from_ref(&fx.outside), launch, test) else {
            continue;
        };
        let checkout = fx.outside.join("checkout");
        let workspace = checkout.join("sub");
        std::fs::create_dir_all(&workspace).unwrap();
        git_ok(&checkout, &fx, &["init", "-q", "."]);
        git_ok(
            &checkout,
            &fx,
            &["commit", "-q", "--allow-empty", "-m", "first"],
        );
        let attack = Attack {
            name: "the checkout's .git swapped from a sub-folder workspace",
            setup: no_repo,
            line: "cd ..; mv .git .git-old || cp -r .git .git-old; cp HOOK .git-old/hooks/pre-commit; \
                   mv -T .git-old .git; cp HOOK .git/hooks/pre-commit; \
                   echo '* filter=x' > .git/info/attributes; mv sub sub2; mkdir -p sub/.git/hooks",
            victim: ws,
        };
        let (marker, line) = armed(&attack, &fx);
        let call = Call {
            policy: Policy::WorkspaceWrite,
            workspace: &workspace,
            cwd: &workspace,
            tmp: &fx.tmp,
            hidden: &[],
        };
        let said = text(&run_call(&sandbox, &call, &line, Some(&fx.home)));
        let commit = git(
            &checkout,
            &fx,
            &["commit", "-q", "--allow-empty", "-m", "user"],
        );
        assert!(!marker.exists(), "{launch:?}: {said}\n{}", text(&commit));
        assert!(!checkout.join(".git/info/attributes").exists(), "{said}");
        assert!(workspace.join(".git").is_dir(), "{said}");
        assert!(!checkout.join("sub2").exists(), "{said}");
    }
}

#[test]
fn git_add_commit_and_branch_work_inside() {
    let test = "git_add_commit_and_branch_work_inside";
    if !rein_testkit::require("git", "--version", test) {
        return;
    }
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        repo_at_ws(&fx);
        let line = "set -e; G='git -c user.name=t -c user.email=t@t'; echo a > a.txt; \
                    git add a.txt; $G commit -qm inside; git checkout -qb topic; echo b > b.txt; \
                    git add b.txt; $G commit -qm on-topic; git checkout -q -; $G merge -q topic; \
                    git tag v1; git stash list; echo done";
        let output = run(&sandbox, Policy::WorkspaceWrite, &fx, line);
        let said = text(&output);
        assert!(output.status.success(), "{launch:?}: {said}");
        let log = text(&git(&fx.ws, &fx, &["log", "--format=%s", "--all"]));
        assert!(
            log.contains("inside") && log.contains("on-topic"),
            "{launch:?}: {log}\n{said}"
        );
        assert!(
            sandbox.disarm_git(&fx.ws).is_empty(),
            "{launch:?}: nothing to disarm"
        );
    }
}

#[test]
fn what_a_mount_cannot_hold_is_refused_not_pretended() {
    let test = "what_a_mount_cannot_hold_is_refused";
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        let call = Call {
            policy: Policy::WorkspaceWrite,
            workspace: &fx.ws,
            cwd: &fx.ws,
            tmp: &fx.tmp,
            hidden: &[],
        };
        // `.git` a symlink out of the workspace; `.git/hooks` a symlink inside it.
        let elsewhere = fx.outside.join("repo.git");
        std::fs::create_dir_all(elsewhere.join("hooks")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, fx.ws.join(".git")).unwrap();
        let why = sandbox.wrap(&call).unwrap_err().to_string();
        assert!(why.contains("symlink"), "{launch:?}: {why}");
        std::fs::remove_file(fx.ws.join(".git")).unwrap();
        std::fs::create_dir_all(fx.ws.join(".git")).unwrap();
        std::fs::create_dir_all(fx.ws.join("githooks")).unwrap();
        std::os::unix::fs::symlink("../githooks", fx.ws.join(".git/hooks")).unwrap();
        let why = sandbox.wrap(&call).unwrap_err().to_string();
        assert!(why.contains(".git/hooks is a symlink"), "{launch:?}: {why}");
        assert!(sandbox.git_report(&fx.ws).refusal().is_some());
        // Read-only calls write nothing, so nothing git runs needs holding.
        let read_only = Call {
            policy: Policy::ReadOnly,
            ..call
        };
        assert!(sandbox.wrap(&read_only).is_ok());
    }
}

/// Runs git as the user would, outside the sandbox, with no system or global config.
fn git(dir: &Path, fx: &Fixture, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=u", "-c", "user.email=u@u"])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .current_dir(dir)
        .env("HOME", &fx.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap()
}

fn git_ok(dir: &Path, fx: &Fixture, args: &[&str]) {
    let output = git(dir, fx, args);
    assert!(output.status.success(), "git {args:?}: {}", text(&output));
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn ws(fx: &Fixture) -> PathBuf {
    fx.ws.clone()
}

fn outside_worktree(fx: &Fixture) -> PathBuf {
    fx.outside.join("wt")
}

fn no_repo(_: &Fixture) {}

fn repo_at_ws(fx: &Fixture) {
    git_ok(&fx.ws, fx, &["init", "-q", "."]);
    std::fs::write(fx.ws.join("README"), "hi\n").unwrap();
    git_ok(&fx.ws, fx, &["add", "README"]);
    git_ok(&fx.ws, fx, &["commit", "-qm", "first"]);
}

/// husky's layout: `core.hooksPath` is `.husky/_`, whose shims run `.husky/<hook>`.
fn husky(fx: &Fixture) {
    repo_at_ws(fx);
    std::fs::create_dir_all(fx.ws.join(".husky/_")).unwrap();
    let shim = fx.ws.join(".husky/_/pre-commit");
    let run = "#!/bin/sh\nhook=\"$(dirname \"$0\")/../pre-commit\"\n\
               [ -f \"$hook\" ] && sh \"$hook\"\nexit 0\n";
    std::fs::write(&shim, run).unwrap();
    make_executable(&shim);
    git_ok(&fx.ws, fx, &["config", "core.hooksPath", ".husky/_"]);
}

/// A user whose own config points every repository at its `.githooks` folder.
fn user_hooks_path(fx: &Fixture) {
    repo_at_ws(fx);
    std::fs::write(
        fx.home.join(".gitconfig"),
        "[core]\n\thooksPath = .githooks\n",
    )
    .unwrap();
}

fn include(fx: &Fixture) {
    repo_at_ws(fx);
    std::fs::write(fx.ws.join("shared.gitconfig"), "[user]\n\tname = shared\n").unwrap();
    git_ok(
        &fx.ws,
        fx,
        &["config", "include.path", "../shared.gitconfig"],
    );
}

fn submodule(fx: &Fixture) {
    let source = fx.outside.join("sub-source");
    std::fs::create_dir_all(&source).unwrap();
    git_ok(&source, fx, &["init", "-q", "."]);
    git_ok(&source, fx, &["commit", "-q", "--allow-empty", "-m", "sub"]);
    repo_at_ws(fx);
    let url = source.display().to_string();
    git_ok(&fx.ws, fx, &["submodule", "add", "-q", &url, "sub"]);
    git_ok(&fx.ws, fx, &["commit", "-qm", "with sub"]);
}

fn worktree_outside(fx: &Fixture) {
    repo_at_ws(fx);
    let wt = fx.outside.join("wt");
    git_ok(
        &fx.ws,
        fx,
        &["worktree", "add", "-q", &wt.display().to_string()],
    );
}

/// The workspace is a linked worktree of a repository outside it.
fn worktree_at_ws(fx: &Fixture) {
    let main = fx.outside.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git_ok(&main, fx, &["init", "-q", "."]);
    git_ok(&main, fx, &["commit", "-q", "--allow-empty", "-m", "main"]);
    std::fs::remove_dir(&fx.ws).unwrap();
    let ws = fx.ws.display().to_string();
    git_ok(&main, fx, &["worktree", "add", "-q", &ws]);
}
