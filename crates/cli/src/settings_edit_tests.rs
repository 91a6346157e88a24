use super::*;

fn doc(text: &str) -> toml_edit::DocumentMut {
    text.parse().unwrap()
}

#[test]
fn set_makes_the_tables_on_the_way_and_keeps_the_rest() {
    let mut d = doc("# mine\nmodel = \"a\" # keep\n\n[tools]\nmax_output_lines = 10\n");
    set(&mut d, "model", typed("claude-sonnet-4-5")).unwrap();
    set(&mut d, "tools.max_output_lines", typed("30")).unwrap();
    set(&mut d, "sandbox.network", typed("true")).unwrap();
    let text = d.to_string();
    assert!(
        text.starts_with("# mine\nmodel = \"claude-sonnet-4-5\""),
        "{text}"
    );
    assert!(text.contains("max_output_lines = 30"), "{text}");
    assert!(text.contains("[sandbox]\nnetwork = true"), "{text}");
    assert_eq!(doc_value(&d, "tools.max_output_lines"), "30");
    // A scalar on the way is not a table.
    assert!(set(&mut d, "model.x", typed("1")).is_err());
    assert!(set(&mut d, "a..b", typed("1")).is_err());
    assert!(unset(&mut d, "sandbox.network"));
    assert!(!unset(&mut d, "sandbox.network"));
    assert!(!unset(&mut d, "nothing.here"));
}

#[test]
fn values_are_toml_when_they_read_as_toml_and_strings_otherwise() {
    let cases = [
        ("true", "true"),
        ("30", "30"),
        ("[\"a\", \"b\"]", "[\"a\", \"b\"]"),
        ("\"quoted\"", "\"quoted\""),
        ("claude-opus-4-1", "\"claude-opus-4-1\""),
        ("echo $(date)", "\"echo $(date)\""),
    ];
    for (typed_in, shown) in cases {
        assert_eq!(typed(typed_in).to_string().trim(), shown, "{typed_in}");
    }
}

#[test]
fn rules_are_added_once_and_removed_from_the_file_that_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let add = |list, rule: &str| SettingsChange::AddRule {
        list,
        rule: rule.to_string(),
        scope: SettingsScope::Local,
    };
    let added = change(&add(RuleList::Deny, "Bash(rm *)"), ws).unwrap();
    assert!(
        added.message.starts_with("Added deny rule Bash(rm *) to "),
        "{}",
        added.message
    );
    assert!(matches!(
        added.rules,
        Some(RuleEdit::Add {
            list: RuleList::Deny,
            ..
        })
    ));
    let again = change(&add(RuleList::Deny, "Bash(rm *)"), ws).unwrap();
    assert!(again.message.contains("already has"), "{}", again.message);
    assert!(again.rules.is_none());
    change(&add(RuleList::Ask, "Read(./secrets/**)"), ws).unwrap();
    let text = std::fs::read_to_string(ws.join(".rein/config.local.toml")).unwrap();
    assert!(text.contains("deny = [\"Bash(rm *)\"]"), "{text}");
    // A bad rule changes nothing.
    let bad = change(&add(RuleList::Allow, "Bash(unclosed"), ws).unwrap_err();
    assert!(bad.message.contains("Bash(unclosed"), "{}", bad.message);
    assert_eq!(
        std::fs::read_to_string(ws.join(".rein/config.local.toml")).unwrap(),
        text
    );
    let remove = |rule: &str| SettingsChange::RemoveRule {
        rule: rule.to_string(),
        scope: Some(SettingsScope::Local),
    };
    let removed = change(&remove("Bash(rm *)"), ws).unwrap();
    assert!(matches!(removed.rules, Some(RuleEdit::Remove { .. })));
    let text = std::fs::read_to_string(ws.join(".rein/config.local.toml")).unwrap();
    assert!(!text.contains("deny"), "{text}");
    assert!(text.contains("Read(./secrets/**)"), "{text}");
    let missing = change(&remove("Bash(rm *)"), ws).unwrap_err();
    assert!(
        missing.message.contains("no rein settings file"),
        "{}",
        missing.message
    );
}

#[test]
fn a_key_rein_does_not_know_or_a_value_of_the_wrong_type_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let set = |key: &str, value: &str| SettingsChange::Set {
        key: key.to_string(),
        value: value.to_string(),
        scope: SettingsScope::Workspace,
    };
    change(&set("model", "claude-sonnet-4-5"), ws).unwrap();
    let before = std::fs::read_to_string(ws.join(".rein/config.toml")).unwrap();
    for (key, value) in [("modle", "x"), ("max_turns", "many"), ("model", "30")] {
        let refused = change(&set(key, value), ws).unwrap_err();
        assert!(
            refused.message.starts_with("nothing changed: "),
            "{}",
            refused.message
        );
    }
    assert_eq!(
        std::fs::read_to_string(ws.join(".rein/config.toml")).unwrap(),
        before
    );
}
