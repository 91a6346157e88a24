use super::*;

#[test]
fn observers_are_read_only() {
    let read_only = [
        "ls -la src",
        "cat README.md | head -20",
        "grep -rn 'fn main' src && wc -l src/*.rs",
        "rg TODO --type rust",
        "git status",
        "git diff HEAD~1 -- src/lib.rs",
        "git log --oneline -20",
        "git branch -a",
        "find . -name '*.rs' -type f",
        "sed -n '1,20p' src/main.rs",
        "sort names.txt | uniq -c",
        "cargo tree",
        "sleep 1; echo done",
        "ls missing 2>/dev/null || echo none",
        "make_target=1 ls",
        "cat a.txt 2>&1",
        "jq .name package.json",
    ];
    for line in read_only {
        assert!(is_read_only(line), "{line}");
    }
}

#[test]
fn anything_that_writes_or_might_is_not_read_only() {
    let mutating = [
        "rm -rf build",
        "echo hi > file.txt",
        "cat a >> b",
        "ls && touch x",
        "git commit -m wip",
        "git push",
        "git branch new-feature",
        "git -C /tmp status",
        "git diff --output=patch.diff",
        "find . -delete",
        "find . -name x -exec rm {} \\;",
        "fd -x rm",
        "sed -i s/a/b/ f",
        "sed 's/a/b/w out' f",
        "sort -o out.txt in.txt",
        "uniq in.txt out.txt",
        "date -s 2020-01-01",
        "env rm x",
        "rg --pre ./evil pattern",
        "tree -o out.txt",
        "cargo build",
        "npm test",
        "python3 -c 'print(1)'",
        "awk '{print > \"x\"}' f",
        "xargs rm",
        "tee out.txt",
        "echo $(rm x)",
        "./script.sh",
        "$EDITOR file",
        "ls &",
        "",
        "# only a comment",
    ];
    for line in mutating {
        assert!(!is_read_only(line), "{line}");
    }
}
