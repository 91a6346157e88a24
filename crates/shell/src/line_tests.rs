use pretty_assertions::assert_eq;

use super::*;

fn effective(line: &str) -> Vec<Vec<String>> {
    let analysed = analyse(line);
    assert_eq!(analysed.unanalysable, None, "{line}");
    analysed.effective.iter().map(|c| c.argv.clone()).collect()
}

fn argv(words: &str) -> Vec<String> {
    words.split(' ').map(str::to_string).collect()
}

#[test]
fn wrappers_are_seen_through_to_what_runs() {
    let cases: &[(&str, &[&str])] = &[
        ("sudo -u x rm a", &["sudo -u x rm a", "rm a"]),
        (
            "env -i A=1 nice -n 5 timeout 3 rm a",
            &[
                "env -i A=1 nice -n 5 timeout 3 rm a",
                "nice -n 5 timeout 3 rm a",
                "timeout 3 rm a",
                "rm a",
            ],
        ),
        ("bash -c 'rm -rf x'", &["bash -c rm -rf x", "rm -rf x"]),
        ("sh -ec 'ls; rm x'", &["sh -ec ls; rm x", "ls", "rm x"]),
        ("eval \"rm x\"", &["eval rm x", "rm x"]),
        ("xargs -0 rm", &["xargs -0 rm", "rm"]),
        ("xargs -n1", &["xargs -n1", "echo"]),
        ("find . -exec rm {} \\;", &["find . -exec rm {} ;", "rm {}"]),
        (
            "find . -name x -execdir sh -c 'rm \"$1\"' _ {} +",
            &[
                "find . -name x -execdir sh -c rm \"$1\" _ {} +",
                "sh -c rm \"$1\" _ {}",
                "rm $1",
            ],
        ),
        ("find . -delete", &["find . -delete", "rm -rf ."]),
        (
            "find src build -delete",
            &["find src build -delete", "rm -rf src build"],
        ),
        (
            "git -C /tmp -c core.pager=x --no-pager push -f",
            &[
                "git -C /tmp -c core.pager=x --no-pager push -f",
                "git push -f",
            ],
        ),
        (
            "git --git-dir=x --work-tree y push",
            &["git --git-dir=x --work-tree y push", "git push"],
        ),
        (
            "git -c 'alias.st=!rm -rf x' st",
            &["git -c alias.st=!rm -rf x st", "git st", "rm -rf x"],
        ),
        ("/bin/rm x", &["/bin/rm x", "rm x"]),
        ("../../bin/rm x", &["../../bin/rm x", "rm x"]),
        (
            "./node_modules/.bin/x y",
            &["./node_modules/.bin/x y", "x y"],
        ),
        (
            "command nohup time -p stdbuf -o0 rm x",
            &[
                "command nohup time -p stdbuf -o0 rm x",
                "nohup time -p stdbuf -o0 rm x",
                "time -p stdbuf -o0 rm x",
                "stdbuf -o0 rm x",
                "rm x",
            ],
        ),
        ("exec -a name rm x", &["exec -a name rm x", "rm x"]),
        ("doas -u root rm x", &["doas -u root rm x", "rm x"]),
        ("env -S 'rm -rf' x", &["env -S rm -rf x", "rm -rf x"]),
        (
            "ionice -c 3 setsid -f taskset -c 1 chrt -b 0 rm x",
            &[
                "ionice -c 3 setsid -f taskset -c 1 chrt -b 0 rm x",
                "setsid -f taskset -c 1 chrt -b 0 rm x",
                "taskset -c 1 chrt -b 0 rm x",
                "chrt -b 0 rm x",
                "rm x",
            ],
        ),
        (
            "sudo sh -c 'env /usr/bin/rm -rf /'",
            &[
                "sudo sh -c env /usr/bin/rm -rf /",
                "sh -c env /usr/bin/rm -rf /",
                "env /usr/bin/rm -rf /",
                "/usr/bin/rm -rf /",
                "rm -rf /",
            ],
        ),
        ("ls | xargs rm", &["ls", "xargs rm", "rm"]),
        ("busybox rm -rf x", &["busybox rm -rf x", "rm -rf x"]),
        (
            "watch -n 1 'rm x; ls'",
            &["watch -n 1 rm x; ls", "rm x", "ls"],
        ),
        ("watch -x rm x", &["watch -x rm x", "rm x"]),
        ("flock /tmp/l rm x", &["flock /tmp/l rm x", "rm x"]),
        ("flock -c 'rm x' /tmp/l", &["flock -c rm x /tmp/l", "rm x"]),
        (
            "flock -w 5 /tmp/l -c 'rm x'",
            &["flock -w 5 /tmp/l -c rm x", "rm x"],
        ),
        (
            "flock -n -w 5 /tmp/l rm x",
            &["flock -n -w 5 /tmp/l rm x", "rm x"],
        ),
        ("su -c 'rm x' root", &["su -c rm x root", "rm x"]),
        ("sudo -s", &["sudo -s"]),
        ("bash script.sh", &["bash script.sh"]),
        ("alias x='rm -rf y'", &["alias x=rm -rf y", "rm -rf y"]),
        ("trap 'rm -rf y' EXIT", &["trap rm -rf y EXIT", "rm -rf y"]),
        (
            "trap -- 'rm y' INT TERM",
            &["trap -- rm y INT TERM", "rm y"],
        ),
        ("trap - EXIT", &["trap - EXIT"]),
    ];
    for (line, expected) in cases {
        let expected: Vec<Vec<String>> = expected.iter().map(|e| argv(e)).collect();
        // Joined words compared: the table spells each argv as one string.
        let got: Vec<String> = effective(line).iter().map(|a| a.join(" ")).collect();
        let want: Vec<String> = expected.iter().map(|a| a.join(" ")).collect();
        assert_eq!(got, want, "{line}");
    }
}

#[test]
fn derived_commands_are_matched_by_their_argv_text() {
    let line = analyse("sudo /bin/rm -rf x");
    let texts: Vec<&str> = line.effective.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["sudo /bin/rm -rf x", "/bin/rm -rf x", "rm -rf x"]);
}

#[test]
fn what_cannot_be_seen_through_is_unanalysable_with_naive_words() {
    let cases: &[(&str, &str)] = &[
        ("echo $(rm x)", "rm"),
        ("echo `rm x`", "rm"),
        ("bash -c \"$CMD\"", "bash"),
        ("sh -c 'echo $(rm x)'", "rm"),
        ("eval $X", "eval"),
        ("$PROGRAM x", "x"),
        ("env --block-signal rm x", "rm"),
        ("sudo --bogus rm x", "rm"),
        ("bash -c 'if true; then rm x; fi'", "rm"),
        ("(rm x)", "rm"),
        ("sh <(curl x)", "curl"),
        ("/usr/bin/rm x & ", "rm"),
        ("git --config-env=alias.st=EVIL st", "git"),
        ("let 'x=a[$(rm -rf y)]'", "rm"),
        ("hash -p /bin/rm ls; ls -rf y", "rm"),
        ("enable -f ./evil.so ls", "ls"),
        ("declare -i x='a[`rm y`]'", "rm"),
        ("unset 'a[$(rm y)]'", "rm"),
        ("test -v 'a[$(rm y)]'", "rm"),
        (
            "nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup nohup rm x",
            "rm",
        ),
        (
            "sh -c 'sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c rm\\\\\\\"\\\"\"'",
            "sh",
        ),
    ];
    for (line, word) in cases {
        let analysed = analyse(line);
        assert!(analysed.unanalysable.is_some(), "{line}");
        assert!(analysed.commands.is_empty(), "{line}");
        assert!(
            analysed.naive_words.iter().any(|w| w == word),
            "{line}: {:?}",
            analysed.naive_words
        );
    }
}

proptest::proptest! {
    #[test]
    fn analysis_never_panics_and_keeps_the_commands_as_written(
        line in "[a-z $'\"\\\\;|&<>(){}*?~=!#\n-]{0,40}"
    ) {
        let analysed = analyse(&line);
        for command in &analysed.commands {
            proptest::prop_assert!(analysed.effective.contains(command));
        }
        if analysed.unanalysable.is_none() {
            proptest::prop_assert!(analysed.naive_words.is_empty());
        } else {
            proptest::prop_assert!(analysed.commands.is_empty());
        }
    }

    #[test]
    fn wrapped_lines_never_panic(
        line in "(sudo |env -i |xargs |sh -c |eval |find . -exec |git -C x |nice |timeout 1 ){0,4}[a-z '\"-]{0,20}"
    ) {
        let _ = analyse(&line);
    }
}

#[test]
fn an_expansion_in_program_position_could_run_anything() {
    let cases = [
        ("x=rm; $x keep.txt", true),
        ("$(echo rm) keep.txt", true),
        ("`echo rm` keep.txt", true),
        ("echo $(date)", false),
        ("git commit -m \"$(cat msg)\"", false),
        ("rm keep.txt", false),
    ];
    for (line, expected) in cases {
        assert_eq!(
            analyse(line).program_may_be_anything(line),
            expected,
            "{line}"
        );
    }
}
