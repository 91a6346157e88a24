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

#[test]
fn words_know_whether_bash_could_expand_them() {
    let cases: &[(&str, &[bool])] = &[
        ("cat 'a b' \"c\" d\\*", &[true, true, true, true]),
        ("cat '$HOME' \"\\$HOME\" '*' \"{a,b}\" '~'", &[true; 6]),
        (
            "cat $HOME \"$HOME\" ${X} $'x' $\"x\"",
            &[true, false, false, false, false, false],
        ),
        (
            "cat * ? [a] {a,b} {1..3}",
            &[true, false, false, false, false, false],
        ),
        (
            "cat ~ ~/x --x=~/y a:~/b HEAD~1",
            &[true, false, false, false, false, true],
        ),
        ("cat !x @x", &[true, false, true]),
        ("[ -f x ]", &[true, true, true, true]),
    ];
    for (line, expected) in cases {
        let commands = split_commands(line).unwrap();
        let literal = commands[0].literal.to_vec();
        assert_eq!(&literal, expected, "{line}");
    }
}

#[test]
fn only_unquoted_name_equals_prefixes_are_assignments() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("A=1 B+=2 ls x=1", &["A=1", "B+=2"], &["ls", "x=1"]),
        ("'A=1' ls", &[], &["A=1", "ls"]),
        ("\"A\"=1 ls", &[], &["A=1", "ls"]),
        ("1A=1 ls", &[], &["1A=1", "ls"]),
    ];
    for (line, assignments, argv) in cases {
        let command = &split_commands(line).unwrap()[0];
        assert_eq!(&command.assignments, assignments, "{line}");
        assert_eq!(&command.argv, argv, "{line}");
    }
}

#[test]
fn redirect_targets_know_whether_they_are_literal() {
    let command = &split_commands("cat < 'in' > $OUT 2> ~/log").unwrap()[0];
    let literal: Vec<bool> = command.redirects.iter().map(|r| r.literal).collect();
    assert_eq!(literal, [true, false, false]);
}

/// A command's words and their `literal` flags.
type Words<'a> = (&'a [&'a str], &'a [bool]);

#[test]
fn plain_words_and_words_with_quotes_or_expansions_read_alike() {
    let cases: &[(&str, &[Words<'_>])] = &[
        (
            "ls src;cat a|wc -l&&echo x>y",
            &[
                (&["ls", "src"], &[true, true]),
                (&["cat", "a"], &[true, true]),
                (&["wc", "-l"], &[true, true]),
                (&["echo", "x"], &[true, true]),
            ],
        ),
        (
            "cat ab'c'd ab\\ c ab$x a~ ~b é/ü a#b [",
            &[(
                &["cat", "abcd", "ab c", "ab$x", "a~", "~b", "é/ü", "a#b", "["],
                &[true, true, true, false, true, false, true, true, true],
            )],
        ),
    ];
    for (line, expected) in cases {
        let commands = split_commands(line).unwrap();
        let got: Vec<(Vec<String>, Vec<bool>)> = commands
            .iter()
            .map(|c| (c.argv.clone(), c.literal.to_vec()))
            .collect();
        let expected: Vec<(Vec<String>, Vec<bool>)> = expected
            .iter()
            .map(|(argv, literal)| {
                (
                    argv.iter().map(|a| a.to_string()).collect(),
                    literal.to_vec(),
                )
            })
            .collect();
        assert_eq!(got, expected, "{line}");
    }
}
