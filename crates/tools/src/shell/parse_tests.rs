use pretty_assertions::assert_eq;

use super::*;

fn argvs(line: &str) -> Vec<Vec<String>> {
    split_commands(line)
        .unwrap()
        .into_iter()
        .map(|c| c.argv)
        .collect()
}

#[test]
fn splits_on_list_and_pipe_operators() {
    let cases: &[(&str, &[&[&str]])] = &[
        ("ls -la", &[&["ls", "-la"]]),
        (
            "cargo build && cargo test",
            &[&["cargo", "build"], &["cargo", "test"]],
        ),
        (
            "a || b; c | d |& e",
            &[&["a"], &["b"], &["c"], &["d"], &["e"]],
        ),
        ("a\nb", &[&["a"], &["b"]]),
        (
            "echo 'a b' \"c d\" e\\ f",
            &[&["echo", "a b", "c d", "e f"]],
        ),
        ("echo \"x && y\" 'p; q'", &[&["echo", "x && y", "p; q"]]),
        ("FOO=1 BAR=2 make", &[&["make"]]),
        ("ls # a comment; rm -rf /", &[&["ls"]]),
        ("echo $HOME ${PATH}", &[&["echo", "$HOME", "${PATH}"]]),
        ("a;;", &[]),
    ];
    for (line, expected) in cases {
        if line.contains(";;") {
            assert!(split_commands(line).is_err());
            continue;
        }
        let expected: Vec<Vec<String>> = expected
            .iter()
            .map(|c| c.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(argvs(line), expected, "{line}");
    }
}

#[test]
fn commands_keep_their_source_text() {
    let commands = split_commands("cargo test --lib  &&  git commit -m \"a b\" > log.txt").unwrap();
    let texts: Vec<&str> = commands.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        ["cargo test --lib", "git commit -m \"a b\" > log.txt"]
    );
}

#[test]
fn redirections_are_parsed_with_their_targets() {
    let commands = split_commands("make 2>&1 >out.txt < in.txt &>> all.log 2> /dev/null").unwrap();
    let redirects: Vec<(String, String, bool)> = commands[0]
        .redirects
        .iter()
        .map(|r| (r.op.clone(), r.target.clone(), r.writes_file()))
        .collect();
    let expect =
        |op: &str, target: &str, writes: bool| (op.to_string(), target.to_string(), writes);
    assert_eq!(
        redirects,
        [
            expect(">&", "1", false),
            expect(">", "out.txt", true),
            expect("<", "in.txt", false),
            expect("&>>", "all.log", true),
            expect(">", "/dev/null", false),
        ]
    );
    assert_eq!(commands[0].argv, ["make"]);
}

#[test]
fn constructs_it_cannot_judge_are_refused() {
    let refused = [
        "echo $(rm -rf /)",
        "echo \"$(whoami)\"",
        "echo `id`",
        "(cd /; rm x)",
        "{ rm x; }",
        "sleep 10 &",
        "cat <<EOF\nhi\nEOF",
        "diff <(ls a) <(ls b)",
        "if true; then rm x; fi",
        "for f in *; do rm $f; done",
        "echo 'unterminated",
        "ls >",
        "! rm x",
    ];
    for line in refused {
        assert!(split_commands(line).is_err(), "{line}");
    }
}
