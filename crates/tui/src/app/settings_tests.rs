use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use rein_policy::{PermissionMode, Policy, Rule, RuleList, SourcedRule};

use super::super::tests::{app, text};
use super::*;

fn change(c: SettingsChange) -> Vec<Action> {
    vec![Action::ChangeSettings(c)]
}

#[test]
fn permissions_arguments_switch_the_mode_or_edit_a_rule() {
    let mut app = app();
    let now = Instant::now();
    let cases = [
        (
            "/permissions plan",
            vec![Action::SetMode(PermissionMode::Plan)],
        ),
        (
            "/permissions allow Bash(cargo test *)",
            change(SettingsChange::AddRule {
                list: RuleList::Allow,
                rule: "Bash(cargo test *)".into(),
                scope: SettingsScope::Local,
            }),
        ),
        (
            "/permissions deny Read(./secrets/**) --scope user",
            change(SettingsChange::AddRule {
                list: RuleList::Deny,
                rule: "Read(./secrets/**)".into(),
                scope: SettingsScope::User,
            }),
        ),
        (
            "/permissions ask Bash(git push --scope x)",
            change(SettingsChange::AddRule {
                list: RuleList::Ask,
                rule: "Bash(git push --scope x)".into(),
                scope: SettingsScope::Local,
            }),
        ),
        (
            "/permissions remove Bash(rm *)",
            change(SettingsChange::RemoveRule {
                rule: "Bash(rm *)".into(),
                scope: None,
            }),
        ),
    ];
    for (typed, expected) in cases {
        assert_eq!(app.submit(typed.into(), now), expected, "{typed}");
    }
    for typed in [
        "/permissions sideways",
        "/permissions allow",
        "/permissions allow Bash --scope team",
    ] {
        assert_eq!(app.submit(typed.into(), now), Vec::new(), "{typed}");
    }
    let said = text(&app.take_committed()).join("\n");
    assert!(
        said.contains("unknown mode or rule command: /permissions [MODE"),
        "{said}"
    );
    assert!(said.contains("unknown scope \"team\""), "{said}");
}

#[test]
fn config_sets_and_unsets_a_key_and_statusline_sets_a_string() {
    let mut app = app();
    let now = Instant::now();
    assert_eq!(
        app.submit("/config set tools.max_parallel 300".into(), now),
        change(SettingsChange::Set {
            key: "tools.max_parallel".into(),
            value: "300".into(),
            scope: SettingsScope::User,
        })
    );
    assert_eq!(
        app.submit("/config unset model --scope workspace".into(), now),
        change(SettingsChange::Unset {
            key: "model".into(),
            scope: SettingsScope::Workspace,
        })
    );
    assert_eq!(app.submit("/config set model".into(), now), Vec::new());
    assert_eq!(
        app.submit("/statusline echo \"on $(hostname)\"".into(), now),
        change(SettingsChange::Set {
            key: "status_line".into(),
            value: r#""echo \"on $(hostname)\"""#.into(),
            scope: SettingsScope::User,
        })
    );
    assert_eq!(
        app.submit("/statusline off".into(), now),
        change(SettingsChange::Unset {
            key: "status_line".into(),
            scope: SettingsScope::User,
        })
    );
}

#[test]
fn the_rules_editor_adds_by_prefilling_and_removes_rules_of_reins_files() {
    let mut app = app();
    let sourced = |text: &str, source: &str| SourcedRule {
        rule: Rule::parse(text, std::path::Path::new("/w"), None).unwrap(),
        source: source.into(),
    };
    let mut policy = Policy::default();
    policy.rules.allow = vec![
        sourced("Bash(ls *)", "/w/.rein/config.local.toml:3"),
        sourced("Read", "--allowed-tools"),
    ];
    policy.rules.deny = vec![sourced("Bash(rm *)", "/home/u/.config/rein/config.toml:9")];
    app.open_rules_editor(&policy);
    let shown = text(&app.live_lines(120, Instant::now()).0).join("\n");
    assert!(shown.contains("+ add an allow rule…"), "{shown}");
    assert!(
        shown.contains("− remove allow Bash(ls *)  (/w/.rein/config.local.toml:3)"),
        "{shown}"
    );
    assert!(!shown.contains("remove allow Read"), "{shown}");
    let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    let now = Instant::now();
    // The fifth item: remove the user's deny rule, from the user's file.
    for _ in 0..4 {
        app.key(down, now);
    }
    assert_eq!(
        app.key(enter, now),
        change(SettingsChange::RemoveRule {
            rule: "Bash(rm *)".into(),
            scope: Some(SettingsScope::User),
        })
    );
    // The first: the input is filled in for the rule to be typed.
    app.open_rules_editor(&policy);
    assert_eq!(app.key(enter, now), Vec::new());
    assert_eq!(app.input.text(), "/permissions allow ");
}
