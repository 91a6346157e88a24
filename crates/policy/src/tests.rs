use rein_tools::CallFacts;
use serde_json::{Value, json};

use super::*;

pub(super) struct Setup {
    _dir: tempfile::TempDir,
    pub(super) guard: WorkspaceGuard,
}

pub(super) fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    // A repository of its own, so `git status` reads no configuration from outside it.
    rein_testkit::git_init(dir.path()).unwrap();
    let guard = WorkspaceGuard::new(dir.path()).unwrap();
    Setup { _dir: dir, guard }
}

pub(super) fn rules(guard: &WorkspaceGuard, allow: &[&str], ask: &[&str], deny: &[&str]) -> Rules {
    let make = |list: &[&str]| {
        list.iter()
            .map(|t| SourcedRule {
                rule: Rule::parse(t, guard.root(), None).unwrap(),
                source: "test".into(),
            })
            .collect()
    };
    Rules {
        allow: make(allow),
        ask: make(ask),
        deny: make(deny),
    }
}

pub(super) fn bash(command: &str) -> (String, Value) {
    ("bash".into(), json!({"command": command}))
}

/// The facts the registry computes for the call, as dispatch does.
pub(super) fn facts(guard: &WorkspaceGuard, call: &(String, Value)) -> CallFacts {
    rein_tools::ToolRegistry::builtin().facts(&call.0, &call.1, guard)
}

pub(super) fn decide(policy: &Policy, guard: &WorkspaceGuard, call: &(String, Value)) -> Decision {
    policy.decide(&facts(guard, call), guard)
}

#[test]
fn modes_decide_when_no_rule_does() {
    let s = setup();
    let edit = (
        "write_file".to_string(),
        json!({"path": "src/a.rs", "content": ""}),
    );
    let outside = (
        "write_file".to_string(),
        json!({"path": "/tmp/x", "content": ""}),
    );
    let cases = [
        (
            PermissionMode::Default,
            bash("ls -la"),
            Verdict::Allow,
            "read-only call",
        ),
        (
            PermissionMode::Default,
            bash("cargo build"),
            Verdict::Ask,
            "mode default",
        ),
        (
            PermissionMode::Default,
            edit.clone(),
            Verdict::Ask,
            "mode default",
        ),
        (
            PermissionMode::AcceptEdits,
            edit.clone(),
            Verdict::Allow,
            "mode accept-edits",
        ),
        // A file tool cannot write there whatever the answer: refused without asking.
        (
            PermissionMode::AcceptEdits,
            outside,
            Verdict::Deny,
            "/tmp/x is outside the workspace",
        ),
        (
            PermissionMode::AcceptEdits,
            bash("cargo build"),
            Verdict::Ask,
            "mode accept-edits",
        ),
        (
            PermissionMode::Plan,
            bash("git status"),
            Verdict::Allow,
            "read-only call",
        ),
        (
            PermissionMode::Plan,
            edit.clone(),
            Verdict::Deny,
            "mode plan",
        ),
        (
            PermissionMode::Plan,
            bash("touch x"),
            Verdict::Deny,
            "mode plan",
        ),
        (
            PermissionMode::Bypass,
            bash("cargo build"),
            Verdict::Allow,
            "mode bypass",
        ),
        (PermissionMode::Bypass, edit, Verdict::Allow, "mode bypass"),
    ];
    for (mode, call, verdict, reason) in cases {
        let policy = Policy {
            mode,
            ..Policy::default()
        };
        let decision = decide(&policy, &s.guard, &call);
        assert_eq!(
            (decision.verdict, decision.reason.as_str()),
            (verdict, reason),
            "{mode:?} {call:?}"
        );
    }
}

#[test]
fn rules_take_precedence_deny_then_ask_then_allow() {
    let s = setup();
    let policy = Policy {
        mode: PermissionMode::Default,
        rules: rules(
            &s.guard,
            &[
                "Bash(cargo *)",
                "Bash(git *)",
                "Edit(src/**)",
                "Bash(rm -rf build)",
            ],
            &["Bash(git push *)"],
            &["Bash(rm *)", "Read(./secrets/**)"],
        ),
        ..Policy::default()
    };
    let cases = [
        (
            bash("cargo test"),
            Verdict::Allow,
            "allow rule Bash(cargo *) (test)",
        ),
        (
            bash("cargo fmt && cargo test"),
            Verdict::Allow,
            "allow rule Bash(cargo *) (test)",
        ),
        (bash("cargo test && make"), Verdict::Ask, "mode default"),
        (
            bash("git push origin x"),
            Verdict::Ask,
            "ask rule Bash(git push *) (test)",
        ),
        (
            bash("rm -rf build"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            bash("cargo test; rm x"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            bash("FOO=1 /bin/rm x"),
            Verdict::Deny,
            "deny rule Bash(rm *) (test)",
        ),
        (
            ("read_file".into(), json!({"path": "secrets/k.pem"})),
            Verdict::Deny,
            "deny rule Read(./secrets/**) (test)",
        ),
        (
            ("grep".into(), json!({"pattern": "x", "path": "secrets/a"})),
            Verdict::Deny,
            "deny rule Read(./secrets/**) (test)",
        ),
        (
            (
                "edit_file".into(),
                json!({"path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
            ),
            Verdict::Allow,
            "allow rule Edit(src/**) (test)",
        ),
        (
            (
                "edit_file".into(),
                json!({"path": "README.md", "old_string": "a", "new_string": "b"}),
            ),
            Verdict::Ask,
            "mode default",
        ),
    ];
    for (call, verdict, reason) in cases {
        let decision = decide(&policy, &s.guard, &call);
        assert_eq!(
            (decision.verdict, decision.reason.as_str()),
            (verdict, reason),
            "{call:?}"
        );
    }
}

#[test]
fn deny_rules_hold_in_bypass_and_plan_refuses_even_allowed_edits() {
    let s = setup();
    let mut policy = Policy {
        mode: PermissionMode::Bypass,
        rules: rules(&s.guard, &["Edit"], &["Bash(git *)"], &["Bash(rm *)"]),
        ..Policy::default()
    };
    assert_eq!(
        decide(&policy, &s.guard, &bash("rm -rf x")).verdict,
        Verdict::Deny
    );
    assert_eq!(
        decide(&policy, &s.guard, &bash("git push")).verdict,
        Verdict::Allow
    );
    policy.mode = PermissionMode::Plan;
    let edit = (
        "edit_file".to_string(),
        json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(decide(&policy, &s.guard, &edit).verdict, Verdict::Deny);
}

#[test]
fn a_hard_link_to_a_secret_is_refused_in_every_mode_bypass_included() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
    // Made before the session: a name in the workspace for the key's inode.
    std::fs::hard_link(home.join(".ssh/id_ed25519"), ws.join("innocent.txt")).unwrap();
    std::fs::write(ws.join("notes.txt"), "notes").unwrap();
    std::fs::hard_link(ws.join("notes.txt"), ws.join("notes-again.txt")).unwrap();
    let sensitive = rein_fs::SensitivePaths::new(["~/.ssh"], Some(&home)).unwrap();
    let guard = WorkspaceGuard::new(&ws)
        .unwrap()
        .with_home(&home)
        .with_sensitive(sensitive);
    let read = ("read_file".to_string(), json!({"path": "innocent.txt"}));
    for mode in [
        PermissionMode::Bypass,
        PermissionMode::Auto,
        PermissionMode::AcceptEdits,
        PermissionMode::Default,
        PermissionMode::Plan,
    ] {
        let policy = Policy {
            mode,
            rules: rules(&guard, &["Bash", "Read"], &[], &[]),
            ..Policy::default()
        };
        for call in [
            bash("cat innocent.txt"),
            bash("cp innocent.txt copy"),
            read.clone(),
        ] {
            let decision = decide(&policy, &guard, &call);
            assert_eq!(
                (decision.verdict, decision.reason.as_str()),
                (Verdict::Deny, "off-limits path (~/.ssh)"),
                "{mode:?} {call:?}"
            );
        }
        // A hard link between two files of the workspace is nobody's secret.
        let ordinary = decide(&policy, &guard, &bash("cat notes-again.txt"));
        assert!(!ordinary.reason.contains("off-limits"), "{mode:?}");
    }
}

#[test]
fn dangerous_commands_ask_unless_bypass_or_an_explicit_allow_rule() {
    let s = setup();
    let line = bash("rm -rf ~");
    for mode in [PermissionMode::Default, PermissionMode::AcceptEdits] {
        let policy = Policy {
            mode,
            ..Policy::default()
        };
        let decision = decide(&policy, &s.guard, &line);
        assert_eq!(decision.verdict, Verdict::Ask);
        assert_eq!(
            decision.reason,
            "dangerous command: a recursive delete of ~"
        );
    }
    let bypass = Policy {
        mode: PermissionMode::Bypass,
        ..Policy::default()
    };
    assert_eq!(decide(&bypass, &s.guard, &line).verdict, Verdict::Allow);
    let allowed = Policy {
        rules: rules(&s.guard, &["Bash(rm -rf ~)"], &[], &[]),
        ..Policy::default()
    };
    assert_eq!(decide(&allowed, &s.guard, &line).verdict, Verdict::Allow);
    // A read-only-looking dangerous line still asks: sudo is never read-only anyway.
    let sudo = decide(&Policy::default(), &s.guard, &bash("sudo ls"));
    assert_eq!(sudo.verdict, Verdict::Ask);
}

#[test]
fn unsplittable_lines_need_a_whole_line_rule() {
    let s = setup();
    let policy = Policy {
        rules: rules(&s.guard, &["Bash(echo *)"], &[], &["Bash(rm *)"]),
        ..Policy::default()
    };
    // `$(…)` cannot be analysed: the allow rule does not cover the hidden command, and the
    // deny rule still sees it.
    let hidden = decide(&policy, &s.guard, &bash("echo $(ls)"));
    assert_eq!(hidden.verdict, Verdict::Ask, "{hidden}");
    let denied = decide(&policy, &s.guard, &bash("echo $(rm -rf x)"));
    assert_eq!(denied.verdict, Verdict::Deny, "{denied}");
    let bash_allowed = Policy {
        rules: rules(&s.guard, &["Bash"], &[], &[]),
        ..Policy::default()
    };
    assert_eq!(
        decide(&bash_allowed, &s.guard, &bash("echo $(ls)")).verdict,
        Verdict::Allow
    );
}

#[test]
fn session_allows_are_used_after_configured_rules() {
    let s = setup();
    let mut policy = Policy::default();
    policy.session_allow.push(SourcedRule {
        rule: Rule::parse("Bash(make *)", s.guard.root(), None).unwrap(),
        source: "allowed for this session".into(),
    });
    let decision = decide(&policy, &s.guard, &bash("make all"));
    assert_eq!(decision.verdict, Verdict::Allow);
    assert_eq!(
        decision.reason,
        "allow rule Bash(make *) (allowed for this session)"
    );
}

#[test]
fn apply_patch_paths_are_all_checked() {
    let s = setup();
    let policy = Policy {
        rules: rules(&s.guard, &["Edit(src/**)"], &[], &["Edit(./Cargo.toml)"]),
        ..Policy::default()
    };
    let patch = |body: &str| ("apply_patch".to_string(), json!({"patch": body}));
    let inside = patch("*** Begin Patch\n*** Add File: src/new.rs\n+x\n*** End Patch");
    assert_eq!(decide(&policy, &s.guard, &inside).verdict, Verdict::Allow);
    let mixed = patch(
        "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch",
    );
    assert_eq!(decide(&policy, &s.guard, &mixed).verdict, Verdict::Ask);
    let denied = patch(
        "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: Cargo.toml\n@@\n-a\n+b\n*** End Patch",
    );
    assert_eq!(decide(&policy, &s.guard, &denied).verdict, Verdict::Deny);
}

#[test]
fn a_derived_mode_is_never_broader_than_its_ceiling() {
    use PermissionMode::*;
    let modes = [Plan, Default, AcceptEdits, Auto, Bypass];
    for ceiling in modes {
        for asked in modes {
            let derived = asked.at_most(ceiling);
            assert!(
                derived.breadth() <= ceiling.breadth(),
                "{asked:?} ≤ {ceiling:?}"
            );
            // Narrower asks are kept as they are; broader ones get the ceiling.
            let want = if asked.breadth() <= ceiling.breadth() {
                asked
            } else {
                ceiling
            };
            assert_eq!(derived, want, "{asked:?} under {ceiling:?}");
        }
    }
}
