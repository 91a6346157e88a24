//! The read-only classifier against real git repositories: a hostile `.git/config` makes
//! `git` unproven, and the environment a proven line runs with stops git from running the
//! programs its configuration names.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rein_tools::WorkspaceGuard;
use rein_tools::shell::{analyse, is_read_only, read_only_env};

/// A temp dir holding a real repository `repo/` (one commit), with git isolated from the
/// machine's configuration.
struct Repo {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Self {
        assert!(
            rein_testkit::require("git", "--version", "shell tests"),
            "these tests need git (scripts/test-deps installs it)"
        );
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        let repo = Self { dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        std::fs::write(repo.root.join("a.txt"), "one\n").unwrap();
        repo.git(&["add", "a.txt"]);
        repo.git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ]);
        std::fs::write(repo.root.join("a.txt"), "two\n").unwrap();
        repo
    }

    fn base(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    /// `git` in the repository with only `global` as configuration.
    fn command(&self, args: &[&str], global: &Path) -> Command {
        let mut command = Command::new("git");
        command
            .args(args)
            .current_dir(&self.root)
            .env("HOME", self.base())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", global)
            .env_remove("GIT_CONFIG_COUNT")
            .env_remove("GIT_DIR");
        command
    }

    fn git(&self, args: &[&str]) {
        let status = self.command(args, Path::new("/dev/null")).status().unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn append_config(&self, text: &str) {
        let path = self.root.join(".git/config");
        let mut config = std::fs::read_to_string(&path).unwrap();
        config.push_str(text);
        std::fs::write(path, config).unwrap();
    }

    fn proven(&self, line: &str) -> bool {
        let guard = WorkspaceGuard::new(&self.root).unwrap();
        is_read_only(&analyse(line), &guard, &self.root)
    }

    /// An executable script that creates `PWNED` next to the repository.
    fn hook(&self) -> (PathBuf, PathBuf) {
        let pwned = self.base().join("PWNED");
        let hook = self.base().join("hook.sh");
        std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", pwned.display())).unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        (hook, pwned)
    }
}

#[test]
fn git_in_a_plain_repository_is_proven() {
    let repo = Repo::new();
    for line in [
        "git status",
        "git diff",
        "git log --oneline -5",
        "git diff HEAD -- a.txt",
    ] {
        assert!(repo.proven(line), "{line}");
    }
}

#[test]
fn git_in_a_repository_whose_config_runs_programs_is_not_proven() {
    let hostile = [
        "[core]\n\tfsmonitor = touch PWNED\n",
        "[core]\n\tpager = touch PWNED\n",
        "[core]\n\thooksPath = hooks\n",
        "[core]\n\tsshCommand = touch PWNED\n",
        "[diff \"x\"]\n\ttextconv = touch PWNED\n",
        "[diff]\n\texternal = touch PWNED\n",
        "[filter \"x\"]\n\tclean = touch PWNED\n",
        "[alias]\n\tst = !touch PWNED\n",
        "[pager]\n\tstatus = touch PWNED\n",
        "[include]\n\tpath = ../evil.config\n",
        "[includeIf \"gitdir:/\"]\n\tpath = ../evil.config\n",
        "[credential]\n\thelper = !touch PWNED\n",
        "[gpg]\n\tprogram = touch PWNED\n",
        "[remote \"origin\"]\n\tuploadpack = touch PWNED\n",
        "[core]fsmonitor = touch PWNED\n",
        "[CORE]\n\tFSMONITOR = touch PWNED\n",
        "[core.x]\n\tfsmonitor = touch PWNED\n",
        "[remote \"o\"]\n\turl = x \\\nfsmonitor = y\n",
    ];
    for config in hostile {
        let repo = Repo::new();
        repo.append_config(config);
        for line in ["git status", "git diff", "git log -p"] {
            assert!(!repo.proven(line), "{line} with {config:?}");
        }
    }
}

#[test]
fn git_in_a_linked_worktree_or_a_planted_bare_repository_is_not_proven() {
    let repo = Repo::new();
    // A directory that is itself a repository, as git's discovery would take it.
    let planted = repo.root.join("planted");
    std::fs::create_dir_all(planted.join("objects")).unwrap();
    std::fs::create_dir_all(planted.join("refs")).unwrap();
    std::fs::write(planted.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(planted.join("config"), "[core]\n\tfsmonitor = x\n").unwrap();
    let guard = WorkspaceGuard::new(&repo.root).unwrap();
    assert!(!is_read_only(&analyse("git status"), &guard, &planted));
    // `.git` as a file pointing elsewhere.
    let linked = repo.root.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join(".git"), "gitdir: /tmp/elsewhere\n").unwrap();
    assert!(!is_read_only(&analyse("git status"), &guard, &linked));
}

#[test]
fn the_read_only_environment_stops_a_configured_fsmonitor() {
    let repo = Repo::new();
    let (hook, pwned) = repo.hook();
    let global = repo.base().join("global.config");
    std::fs::write(
        &global,
        format!("[core]\n\tfsmonitor = {}\n", hook.display()),
    )
    .unwrap();

    // Without the overrides the hook runs: the test can see an attack succeed.
    let status = repo.command(&["status"], &global).output().unwrap();
    assert!(status.status.success());
    assert!(
        pwned.exists(),
        "the fsmonitor hook should run without the overrides"
    );
    std::fs::remove_file(&pwned).unwrap();

    let env = read_only_env();
    let mut command = repo.command(&["status"], &global);
    for (name, value) in &env.set {
        command.env(name, value);
    }
    for name in &env.remove {
        command.env_remove(name);
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("a.txt"));
    assert!(
        !pwned.exists(),
        "the fsmonitor hook ran despite the overrides"
    );
}

#[test]
fn the_read_only_environment_keeps_git_diff_and_log_working() {
    let repo = Repo::new();
    let env = read_only_env();
    for args in [
        &["diff"][..],
        &["log", "-p", "--oneline"],
        &["show", "--stat"],
    ] {
        let mut command = repo.command(args, Path::new("/dev/null"));
        for (name, value) in &env.set {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
        assert!(!output.stdout.is_empty(), "git {args:?}");
    }
}

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                out.push((entry.path(), bytes, meta.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn proven_lines_run_with_the_read_only_environment_change_nothing() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.root.join("src")).unwrap();
    std::fs::write(repo.root.join("src/main.rs"), "fn main() {}\n").unwrap();
    // Make the index stale, so a `git status` that may write would refresh it.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(repo.root.join("a.txt"), "three\n").unwrap();
    let lines = [
        "git status",
        "git status --short -b",
        "git diff",
        "git diff --stat",
        "git log --oneline -5",
        "git log -p",
        "git show --stat",
        "git branch -a",
        "git ls-files",
        "git rev-parse --show-toplevel",
        "git grep -n three",
        "ls -la src && cat a.txt | head -1",
        "grep -rn fn src",
        "find . -name '*.rs' -type f",
        "sed -n '1p' src/main.rs",
        "sort a.txt | uniq -c",
        "wc -l a.txt src/main.rs",
    ];
    let env = read_only_env();
    let before = snapshot(&repo.root);
    for line in lines {
        assert!(repo.proven(line), "{line} should be proven");
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg(line)
            .current_dir(&repo.root)
            .env("HOME", repo.base())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null");
        for (name, value) in &env.set {
            command.env(name, value);
        }
        for name in &env.remove {
            command.env_remove(name);
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{line}: {output:?}");
    }
    assert!(
        snapshot(&repo.root) == before,
        "a proven line changed the repository"
    );
}

/// Words the parser calls literal must be what bash passes: a differential test against
/// bash itself, in a directory with files that globs, braces and tildes would expand to.
mod literal_words_match_bash {
    use proptest::prelude::*;
    use rein_tools::shell::split_commands;

    /// Runs `printf '%s\0' WORDS` with bash in `dir`; the words bash passed.
    fn bash_words(dir: &std::path::Path, words: &str) -> Option<Vec<String>> {
        let output = std::process::Command::new("bash")
            .arg("--norc")
            .arg("--noprofile")
            .arg("-c")
            .arg(format!("printf '%s\\0' {words}"))
            .current_dir(dir)
            .env("HOME", "/home/rein-test")
            .env("X", "expanded")
            .env_remove("BASH_ENV")
            .output()
            .ok()?;
        if !output.status.success() || !output.stderr.is_empty() {
            return None;
        }
        let text = String::from_utf8(output.stdout).ok()?;
        Some(
            text.split_terminator('\0')
                .map(str::to_string)
                .collect::<Vec<_>>(),
        )
    }

    fn check(dir: &std::path::Path, words: &str) -> Result<(), TestCaseError> {
        let line = format!("printf '%s\\0' {words}");
        let Ok(commands) = split_commands(&line) else {
            return Ok(());
        };
        let [command] = commands.as_slice() else {
            return Ok(());
        };
        if command.argv.len() < 3
            || !command.assignments.is_empty()
            || !command.redirects.is_empty()
            || !command.all_literal()
        {
            return Ok(());
        }
        if let Some(got) = bash_words(dir, words) {
            prop_assert_eq!(&got, &command.argv[2..].to_vec(), "words: {}", words);
        }
        Ok(())
    }

    fn fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b", "ab", "[a]", "a,b", "x=1", "~", "-n", "{a,b}"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        dir
    }

    #[test]
    fn hand_picked_words_agree_with_bash() {
        let dir = fixture();
        for words in [
            "a b 'c d' \"e f\" g\\ h",
            "'*' \"*\" \\* '$X' \"\\$X\" '~' \"~\" \\~",
            "HEAD~1 a:b a=b --opt=value x,y",
            "'{a,b}' \"{a,b}\" \\{a,b\\}",
            "a# 'a'b\"c\"d \\'",
            "%s ^a a^ @ +x -- -",
            "a\\",
        ] {
            check(dir.path(), words).unwrap();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn generated_words_agree_with_bash(
            words in r#"[ab ~*?,={}\[\]$X'"\\:!@+#-]{1,12}"#
        ) {
            let dir = fixture();
            check(dir.path(), &words)?;
        }

        #[test]
        fn generated_words_with_operators_agree_with_bash(
            words in r#"[ab ~*?{},$'"\()<>|&;`%	^é=:!-]{1,10}"#
        ) {
            let dir = fixture();
            check(dir.path(), &words)?;
        }
    }
}

/// Fuzz target (`bench/fuzz` runs it long): a line the classifier proves read-only is always
/// one the analyser could take apart. Cases: `PROPTEST_CASES` (default 256).
mod fuzz {
    use proptest::prelude::*;
    use rein_tools::WorkspaceGuard;
    use rein_tools::shell::{analyse, is_read_only};

    proptest! {
        #[test]
        fn fuzz_shell_read_only_lines_are_always_analysable(
            line in "((ls|cat|grep -rn|git status|git log|head -n 3|sed -n 1p|find \\.|sort|wc -l|echo) ){0,2}[a-z .$'\"\\\\;|&<>(){}*?~=!#`\n/-]{0,40}"
        ) {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("a"), "x").unwrap();
            let guard = WorkspaceGuard::new(dir.path()).unwrap();
            let analysis = analyse(&line);
            if is_read_only(&analysis, &guard, guard.root()) {
                prop_assert!(analysis.unanalysable.is_none(), "{line:?} is read-only but unanalysable");
            }
        }
    }
}
