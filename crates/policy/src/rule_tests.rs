use std::path::Path;

use super::*;

fn rule(text: &str) -> Rule {
    Rule::parse(text, Path::new("/ws"), Some(Path::new("/home/u"))).unwrap()
}

fn cmd(text: &str) -> Vec<String> {
    vec![text.to_string()]
}

#[test]
fn command_patterns_use_wildcards_and_prefixes() {
    let cases = [
        ("Bash(cargo test *)", "cargo test", true),
        ("Bash(cargo test *)", "cargo test --lib -q", true),
        ("Bash(cargo test *)", "cargo testify", false),
        ("Bash(cargo test *)", "cargo build", false),
        ("Bash(npm run test:*)", "npm run test", true),
        ("Bash(npm run test:*)", "npm run test --watch", true),
        ("Bash(npm run test:*)", "npm run testing", false),
        ("Bash(git * main)", "git push origin main", true),
        ("Bash(git * main)", "git push origin main2", false),
        ("Bash(ls)", "ls", true),
        ("Bash(ls)", "ls -la", false),
        ("Bash(rm *)", "rm -rf build", true),
        ("Bash(*)", "anything at all", true),
        ("Bash", "anything at all", true),
    ];
    for (text, command, expected) in cases {
        let r = rule(text);
        assert!(r.covers("bash"));
        assert_eq!(
            r.matches_command(cmd(command)),
            expected,
            "{text} vs {command}"
        );
    }
}

#[test]
fn path_patterns_are_gitignore_style_and_anchored() {
    let cases = [
        ("Read(./.env)", "/ws/.env", true),
        ("Read(./.env)", "/ws/app/.env", false),
        ("Read(.env)", "/ws/app/.env", true),
        ("Edit(src/**)", "/ws/src/a/b.rs", true),
        ("Edit(src/**)", "/ws/tests/a.rs", false),
        ("Edit(src)", "/ws/src/lib.rs", true),
        ("Edit(*.lock)", "/ws/Cargo.lock", true),
        ("Edit(*.lock)", "/ws/sub/yarn.lock", true),
        ("Edit(/docs/*.md)", "/ws/docs/a.md", true),
        ("Edit(/docs/*.md)", "/ws/docs/x/a.md", false),
        ("Read(~/.aws/**)", "/home/u/.aws/credentials", true),
        ("Read(//etc/**)", "/etc/passwd", true),
        ("Read(//etc/**)", "/ws/etc/passwd", false),
        // Wildcards, classes, alternations and escapes end the literal prefix tried first.
        ("Read(./src/{a,b}.rs)", "/ws/src/b.rs", true),
        ("Read(./src/{a,b}.rs)", "/ws/src/c.rs", false),
        ("Read(./x[0-9])", "/ws/x7", true),
        ("Read(./x[0-9])", "/ws/xa", false),
        ("Read(./a\\*b)", "/ws/a*b", true),
        ("Read(./a\\*b)", "/ws/axb", false),
        ("Read(./.env)", "/ws/.env/inner", true),
        ("Read(./.env)", "/ws/.envrc", false),
        ("Read(./secrets/**)", "/ws/secret", false),
        ("Read(./secrets/**)", "/w", false),
    ];
    for (text, path, expected) in cases {
        assert_eq!(
            rule(text).matches_path(Path::new(path)),
            expected,
            "{text} vs {path}"
        );
    }
}

#[test]
fn claude_code_names_map_onto_ours() {
    let cases = [
        ("Bash", "bash", true),
        ("Read", "read_file", true),
        ("Read", "grep", true),
        ("Read", "glob", true),
        ("Read", "edit_file", false),
        ("Edit", "edit_file", true),
        ("Edit", "write_file", true),
        ("Edit", "apply_patch", true),
        ("Write", "write_file", true),
        ("Write", "edit_file", false),
        ("read_file", "read_file", true),
        ("mcp__github", "mcp__github__create_issue", true),
        ("mcp__github__*", "mcp__github__create_issue", true),
        (
            "mcp__github__create_issue",
            "mcp__github__create_issue",
            true,
        ),
        (
            "mcp__github__create_issue",
            "mcp__github__close_issue",
            false,
        ),
        ("mcp__git", "mcp__github__create_issue", false),
    ];
    for (text, tool, expected) in cases {
        assert_eq!(rule(text).covers(tool), expected, "{text} covers {tool}");
    }
}

#[test]
fn every_rule_form_claude_code_accepts_loads() {
    let forms = [
        "Skill(sentry-skills:commit)",
        "WebFetch(domain:docs.rs)",
        "WebFetch",
        "WebSearch",
        "Task(explore)",
        "Agent(claude-security:scan-inventory)",
        "mcp__sentry__search_docs",
        "mcp__sentry",
        "Bash(git diff:*)",
        "NotebookEdit(*)",
        "TodoWrite(x)",
    ];
    for text in forms {
        assert!(Rule::parse(text, Path::new("/ws"), None).is_ok(), "{text}");
    }
    let skill = rule("Skill(sentry-skills:*)");
    assert!(skill.covers("skill"));
    assert!(skill.matches_subject("sentry-skills:commit"));
    assert!(!skill.matches_subject("other:commit"));
}

#[test]
fn malformed_rules_are_errors_naming_them() {
    for text in ["Bash(ls", "(ls)", "Edit([)"] {
        let err = Rule::parse(text, Path::new("/ws"), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains(text.trim()), "{err}");
    }
}

proptest::proptest! {
    /// Fuzz target (`bench/fuzz`): any rule text parses or is refused with a message, and a
    /// parsed rule matches calls without panicking.
    #[test]
    fn fuzz_rule_parsing_never_panics(
        text in "(Bash|Read|Edit|Write|Glob|Grep|WebFetch|mcp__x__y|Agent|Skill|[A-Za-z_]{0,6})(\\([^)]{0,20}\\)?)?[ ()*:~/.a-z-]{0,6}"
    ) {
        let root = std::path::Path::new("/ws");
        match Rule::parse(&text, root, Some(std::path::Path::new("/home/u"))) {
            Ok(rule) => {
                let _ = rule.path_globs();
            }
            Err(message) => proptest::prop_assert!(!message.to_string().is_empty()),
        }
    }
}

#[test]
fn the_board_team_worktree_and_schedule_tools_answer_to_claude_codes_names() {
    for (claude, ours) in [
        ("TaskCreate", "task_create"),
        ("TaskGet", "task_get"),
        ("TaskList", "task_list"),
        ("TaskUpdate", "task_update"),
        ("SendMessage", "send_message"),
        ("EnterWorktree", "enter_worktree"),
        ("ExitWorktree", "exit_worktree"),
        ("CronCreate", "cron_create"),
        ("CronDelete", "cron_delete"),
        ("CronList", "cron_list"),
        ("ScheduleWakeup", "schedule_wakeup"),
        ("Memory", "memory"),
    ] {
        assert!(rule(claude).covers(ours), "{claude}");
        assert!(rule(ours).covers(ours), "{ours}");
    }
}

#[test]
fn a_rule_includes_only_what_it_surely_matches() {
    let cases = [
        ("Bash", "Bash(cargo test *)", true),
        ("Bash(cargo test *)", "Bash(cargo test *)", true),
        ("Bash(cargo test *)", "Bash", false),
        ("Bash(cargo test *)", "Bash(cargo *)", false),
        ("Read", "Read(./src/**)", true),
        ("Edit(src/**)", "Edit", false),
        ("Read", "Bash", false),
        ("mcp__docs", "mcp__docs__search", true),
        ("mcp__docs__search", "mcp__docs", false),
        ("Bash(*)", "Bash(rm -rf *)", true),
    ];
    for (outer, inner, want) in cases {
        assert_eq!(
            rule(outer).includes(&rule(inner)),
            want,
            "{outer} ⊇ {inner}"
        );
    }
}
