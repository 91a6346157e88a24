//! Settings that run code or widen what the tools reach: the status line command and the
//! added folders, read from the user's files and a trusted workspace's, never an untrusted one.

use pretty_assertions::assert_eq;

use super::tests::{claude, toml};
use super::*;

#[test]
fn a_status_line_command_comes_from_claude_settings_or_toml_and_never_untrusted() {
    let settings =
        r#"{"statusLine": {"type": "command", "command": "~/.claude/line.sh", "padding": 0}}"#;
    let config = load(&[claude("settings.json", settings)]).unwrap();
    assert_eq!(
        config.status_line,
        Some(Sourced {
            value: "~/.claude/line.sh".into(),
            source: "settings.json (Claude Code settings)".into(),
        })
    );
    let config = load(&[toml("user.toml", "status_line = \"echo hi\"\n")]).unwrap();
    assert_eq!(
        config.status_line.map(|s| s.value).as_deref(),
        Some("echo hi")
    );
    let hostile = Source {
        scope: Scope::UntrustedWorkspace,
        ..claude(".claude/settings.json", settings)
    };
    let config = load(&[hostile]).unwrap();
    assert_eq!(config.status_line, None);
    assert_eq!(config.ignored.len(), 1);
    assert_eq!(config.ignored[0].why, Why::Untrusted);
    assert!(config.ignored[0].what.contains("status line command"));
}

#[test]
fn added_folders_come_from_settings_and_toml_but_never_an_untrusted_workspace() {
    let settings = r#"{"permissions": {"additionalDirectories": ["../shared"]}}"#;
    let toml_file = toml("user.toml", "additional_directories = [\"~/notes\"]\n");
    let config = load(&[claude("settings.json", settings), toml_file]).unwrap();
    let dirs: Vec<(&str, &str)> = config
        .additional_directories
        .iter()
        .map(|d| (d.value.as_str(), d.source.as_str()))
        .collect();
    assert_eq!(
        dirs,
        [
            ("../shared", "settings.json (Claude Code settings)"),
            ("~/notes", "user.toml:1"),
        ]
    );
    let hostile = Source {
        scope: Scope::UntrustedWorkspace,
        ..claude(
            ".claude/settings.json",
            r#"{"permissions": {"additionalDirectories": ["/"]}}"#,
        )
    };
    let config = load(&[hostile]).unwrap();
    assert!(config.additional_directories.is_empty());
    assert_eq!(config.ignored[0].what, "additional directory /");
}
