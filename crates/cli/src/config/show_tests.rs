//! `rein config show`: the value that wins, what it overrides, and the defaults a run uses.

use pretty_assertions::assert_eq;

use super::tests::toml;
use super::*;
use crate::Exit;

/// What `rein config show` prints of `config` with the environment `env`.
fn render(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> Result<String, Exit> {
    let layered = crate::resolve::layered(config, env)?;
    Ok(super::render(config, &layered))
}

fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |key| {
        vars.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    }
}

fn shown_line<'a>(shown: &'a str, key: &str) -> Vec<&'a str> {
    shown
        .lines()
        .filter(|l| l.starts_with(&format!("{key} = ")))
        .collect()
}

#[test]
fn show_gives_the_value_that_wins_then_what_it_overrides_most_specific_first() {
    let config = load(&[
        toml("user.toml", "model = \"opus\"\n"),
        toml("project.toml", "\nmodel = \"haiku\"\n"),
    ])
    .unwrap();
    assert_eq!(
        config.replaced,
        [(
            "model".to_string(),
            Sourced {
                value: "\"opus\"".into(),
                source: "user.toml:1".into()
            }
        )]
    );
    let shown = render(&config, &env_of(&[("REIN_MODEL", "gpt-5")])).unwrap();
    assert_eq!(
        shown_line(&shown, "model"),
        [
            "model = \"gpt-5\"  # env REIN_MODEL (overrides \"haiku\" at project.toml:2, \
             \"opus\" at user.toml:1)"
        ]
    );
    assert_eq!(
        shown_line(&shown, "provider"),
        ["provider = \"openai\"  # guessed from the model name"]
    );
    let files_only = render(&config, &|_| None).unwrap();
    assert_eq!(
        shown_line(&files_only, "model"),
        [
            "model = \"haiku\" (claude-haiku-4-5)  # project.toml:2 (overrides \"opus\" at user.toml:1)"
        ]
    );
}

#[test]
fn show_gives_the_defaults_a_run_would_use() {
    let shown = render(&load(&[]).unwrap(), &|_| None).unwrap();
    let lines: Vec<&str> = ["model", "provider", "base_url", "api_key_env"]
        .iter()
        .flat_map(|key| shown_line(&shown, key))
        .collect();
    assert_eq!(
        lines,
        [
            "model = \"claude-sonnet-4-5\"  # default",
            "provider = \"anthropic\"  # guessed from the model name",
            "base_url = \"https://api.anthropic.com\"  # default",
            "api_key_env = \"ANTHROPIC_API_KEY\"  # default",
        ]
    );
}

#[test]
fn show_applies_the_environment_to_the_base_url_and_the_permission_mode() {
    let config = load(&[toml(
        "user.toml",
        "base_url = \"http://a.test\"\npermission_mode = \"plan\"\n",
    )])
    .unwrap();
    let env = env_of(&[
        ("ANTHROPIC_BASE_URL", "http://b.test"),
        ("OPENAI_BASE_URL", "http://not-this-provider.test"),
        ("REIN_PERMISSION_MODE", "accept-edits"),
    ]);
    let shown = render(&config, &env).unwrap();
    assert_eq!(
        [
            shown_line(&shown, "base_url"),
            shown_line(&shown, "permission_mode")
        ]
        .concat(),
        [
            "base_url = \"http://b.test\"  # env ANTHROPIC_BASE_URL (overrides \"http://a.test\" \
             at user.toml:1)",
            "permission_mode = \"accept-edits\"  # env REIN_PERMISSION_MODE (overrides \"plan\" \
             at user.toml:2)",
        ]
    );
    let err = render(&config, &env_of(&[("REIN_PERMISSION_MODE", "yolo")])).unwrap_err();
    assert!(
        err.message.contains("REIN_PERMISSION_MODE"),
        "{}",
        err.message
    );
}

#[test]
fn show_prints_every_rule_one_line_per_file() {
    let config = load(&[
        toml(
            "user.toml",
            "[permissions]\nallow = [\"Bash(ls *)\", \"Read(src/**)\"]\n",
        ),
        toml(
            "project.toml",
            "[permissions]\nallow = [\n  \"Bash(cargo test *)\",\n  \"Bash(cargo build *)\",\n]\n",
        ),
    ])
    .unwrap();
    let shown = render(&config, &|_| None).unwrap();
    assert_eq!(
        shown_line(&shown, "permissions.allow"),
        [
            "permissions.allow = [\"Bash(ls *)\", \"Read(src/**)\"]  # user.toml:2",
            "permissions.allow = [\"Bash(cargo test *)\", \"Bash(cargo build *)\"]  # \
             project.toml:3-4",
        ]
    );
    assert_eq!(
        shown_line(&shown, "permissions.deny"),
        ["permissions.deny = []  # default"]
    );
    assert!(!shown.contains('…'), "{shown}");
}
