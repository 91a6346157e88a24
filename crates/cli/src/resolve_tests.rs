use std::collections::HashMap;

use pretty_assertions::assert_eq;

use super::policy::split_rules;
use super::*;

use crate::arg_values::ProviderArg;
use crate::args::ExecArgs;
use crate::overrides::Route;

fn args(model: Option<&str>, provider: Option<ProviderArg>, base: Option<&str>) -> Route {
    Route {
        model: model.map(String::from),
        provider: provider.map(ProviderArg::kind),
        base_url: base.map(String::from),
        ..Route::default()
    }
}

/// The policy `rein exec`'s flags `a` give.
fn policy_of(
    a: &ExecArgs,
    root: &std::path::Path,
    env: &dyn Fn(&str) -> Option<String>,
    config: &Config,
) -> Result<Policy, Exit> {
    let o = crate::exec::overrides(a)?;
    policy((o.mode, &o.rules), root, env, config)
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |key| map.get(key).cloned()
}

#[test]
fn provider_is_inferred_from_the_model_name() {
    let env = env_of(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]);
    let cases = [
        (
            "claude-opus-4-1",
            ProviderKind::Anthropic,
            "https://api.anthropic.com",
        ),
        ("gpt-5", ProviderKind::Openai, "https://api.openai.com/v1"),
        ("o3", ProviderKind::Openai, "https://api.openai.com/v1"),
        (
            "deepseek-chat",
            ProviderKind::OpenaiChat,
            "https://api.openai.com/v1",
        ),
    ];
    for (model, kind, base) in cases {
        let got = provider(&args(Some(model), None, None), &env, &Config::default()).unwrap();
        assert_eq!((got.kind, got.base_url.as_str()), (kind, base), "{model}");
    }
}

#[test]
fn base_url_comes_from_flag_then_env_then_default_without_trailing_slash() {
    let env = env_of(&[
        ("OPENAI_BASE_URL", "http://localhost:11434/v1/"),
        ("OPENAI_API_KEY", "o"),
    ]);
    let got = provider(&args(Some("qwen3"), None, None), &env, &Config::default()).unwrap();
    assert_eq!(got.base_url, "http://localhost:11434/v1");
    let got = provider(
        &args(Some("qwen3"), None, Some("http://h:1/v1")),
        &env,
        &Config::default(),
    )
    .unwrap();
    assert_eq!(got.base_url, "http://h:1/v1");
}

#[test]
fn missing_key_for_the_official_endpoint_names_the_variable() {
    let err = provider(&args(None, None, None), &env_of(&[]), &Config::default()).unwrap_err();
    assert_eq!(err.code(), 2);
    assert!(
        err.message.contains("ANTHROPIC_API_KEY is not set"),
        "{}",
        err.message
    );
}

#[test]
fn keyless_local_server_is_allowed() {
    let got = provider(
        &args(
            Some("llama3"),
            Some(ProviderArg::OpenaiChat),
            Some("http://127.0.0.1:8080/v1"),
        ),
        &env_of(&[]),
        &Config::default(),
    )
    .unwrap();
    assert_eq!(got.api_key, None);
    assert_eq!(got.key_env, "OPENAI_API_KEY");
}

#[test]
fn openai_chat_without_a_model_is_a_usage_error() {
    let err = provider(
        &args(None, Some(ProviderArg::OpenaiChat), None),
        &env_of(&[]),
        &Config::default(),
    )
    .unwrap_err();
    assert_eq!(err.code(), 2);
    assert!(err.message.contains("--model"));
}

#[test]
fn bad_base_url_is_a_usage_error() {
    let err = provider(
        &args(None, None, Some("localhost:1")),
        &env_of(&[]),
        &Config::default(),
    )
    .unwrap_err();
    assert!(err.message.contains("http://"), "{}", err.message);
}

#[test]
fn data_dir_follows_xdg_then_home() {
    let cases = [
        (
            vec![("XDG_DATA_HOME", "/x/data"), ("HOME", "/h")],
            Some("/x/data/rein"),
        ),
        (
            vec![("XDG_DATA_HOME", "relative"), ("HOME", "/h")],
            Some("/h/.local/share/rein"),
        ),
        (vec![("HOME", "/h")], Some("/h/.local/share/rein")),
        (vec![], None),
    ];
    for (pairs, expected) in cases {
        let dir = crate::env::data_dir(&env_of(&pairs));
        assert_eq!(dir, expected.map(PathBuf::from), "{pairs:?}");
    }
}

#[test]
fn rule_lists_split_on_commas_and_blanks_outside_parentheses() {
    let values = vec![
        "Read,Grep".to_string(),
        "Bash(cargo test *) Bash(git log:*)".to_string(),
        "  Edit(src/**) , mcp__github ".to_string(),
    ];
    assert_eq!(
        split_rules(&values),
        [
            "Read",
            "Grep",
            "Bash(cargo test *)",
            "Bash(git log:*)",
            "Edit(src/**)",
            "mcp__github"
        ]
    );
}

#[test]
fn policy_comes_from_the_flags_and_bad_rules_are_usage_errors() {
    let root = std::path::Path::new("/ws");
    let mut a = ExecArgs {
        permission_mode: Some("acceptEdits".into()),
        allowed_tools: vec!["Bash(cargo *)".into()],
        disallowed_tools: vec!["Bash(rm *)".into()],
        ..ExecArgs::default()
    };
    let policy = policy_of(&a, root, &|_| None, &Config::default()).unwrap();
    assert_eq!(policy.mode, rein_policy::PermissionMode::AcceptEdits);
    assert_eq!(policy.rules.allow[0].rule.text, "Bash(cargo *)");
    assert_eq!(policy.rules.allow[0].source, "--allowed-tools");
    assert_eq!(policy.rules.deny[0].source, "--disallowed-tools");
    a.allowed_tools = vec!["Bash(oops".into()];
    let err = policy_err(&a, root);
    assert!(
        err.contains("--allowed-tools") && err.contains("Bash(oops"),
        "{err}"
    );
}

fn policy_err(a: &ExecArgs, root: &std::path::Path) -> String {
    match policy_of(a, root, &|_| None, &Config::default()) {
        Err(exit) => exit.message,
        Ok(_) => panic!("expected an error"),
    }
}

#[test]
fn flags_beat_the_environment_which_beats_the_config() {
    let config = crate::config::load(&[crate::config::Source {
        path: "c.toml".into(),
        text: "model = \"gpt-5\"\nbase_url = \"http://cfg:1/v1\"\npermission_mode = \"plan\"\n"
            .into(),
        format: crate::config::Format::Toml,
        scope: crate::config::Scope::User,
    }])
    .unwrap();
    let from_config = provider(&args(None, None, None), &env_of(&[]), &config).unwrap();
    assert_eq!(
        (from_config.model.as_str(), from_config.base_url.as_str()),
        ("gpt-5", "http://cfg:1/v1")
    );
    let env = env_of(&[
        ("REIN_MODEL", "gpt-4.1"),
        ("OPENAI_BASE_URL", "http://env:2/v1"),
    ]);
    let from_env = provider(&args(None, None, None), &env, &config).unwrap();
    assert_eq!(
        (from_env.model.as_str(), from_env.base_url.as_str()),
        ("gpt-4.1", "http://env:2/v1")
    );
    let from_flags = provider(
        &args(Some("o3"), None, Some("http://flag:3/v1")),
        &env,
        &config,
    )
    .unwrap();
    assert_eq!(
        (from_flags.model.as_str(), from_flags.base_url.as_str()),
        ("o3", "http://flag:3/v1")
    );
    let root = std::path::Path::new("/ws");
    let mode = |a: &ExecArgs, env: &dyn Fn(&str) -> Option<String>| {
        policy_of(a, root, env, &config).unwrap().mode
    };
    assert_eq!(
        mode(&ExecArgs::default(), &env_of(&[])),
        rein_policy::PermissionMode::Plan
    );
    let env = env_of(&[("REIN_PERMISSION_MODE", "bypass")]);
    assert_eq!(
        mode(&ExecArgs::default(), &env),
        rein_policy::PermissionMode::Bypass
    );
    let flagged = ExecArgs {
        permission_mode: Some("accept-edits".into()),
        ..ExecArgs::default()
    };
    assert_eq!(
        mode(&flagged, &env),
        rein_policy::PermissionMode::AcceptEdits
    );
}

#[test]
fn claude_code_aliases_name_models_and_a_guess_is_said_in_errors() {
    let env = env_of(&[("ANTHROPIC_API_KEY", "a")]);
    for (alias, model) in [
        ("sonnet", "claude-sonnet-4-5"),
        ("opus", "claude-opus-4-1"),
        ("haiku", "claude-haiku-4-5"),
    ] {
        let settings = provider(&args(Some(alias), None, None), &env, &Config::default()).unwrap();
        assert_eq!(
            (settings.model.as_str(), settings.kind),
            (model, ProviderKind::Anthropic)
        );
    }
    let err = provider(
        &args(Some("qwen3-coder"), None, None),
        &env_of(&[]),
        &Config::default(),
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("`qwen3-coder` → openai-chat, guessed from the model name"),
        "{}",
        err.message
    );
    let chosen = args(Some("qwen3-coder"), Some(ProviderArg::OpenaiChat), None);
    let err = provider(&chosen, &env_of(&[]), &Config::default()).unwrap_err();
    assert!(!err.message.contains("guessed"), "{}", err.message);
}

#[test]
fn a_v1_the_protocol_adds_itself_is_not_doubled() {
    let env = env_of(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]);
    let cases = [
        ("claude-sonnet-4-5", "http://gw:4000/v1", "http://gw:4000"),
        ("claude-sonnet-4-5", "http://gw:4000", "http://gw:4000"),
        ("qwen3", "http://gw:4000/v1/v1/", "http://gw:4000/v1"),
        ("qwen3", "http://gw:4000/v1", "http://gw:4000/v1"),
        (
            "qwen3",
            "https://api.deepseek.com",
            "https://api.deepseek.com",
        ),
    ];
    for (model, base, wanted) in cases {
        let settings = provider(
            &args(Some(model), None, Some(base)),
            &env,
            &Config::default(),
        )
        .unwrap();
        assert_eq!(settings.base_url, wanted, "{model} {base}");
    }
}

#[test]
fn a_mistyped_alias_is_named_and_real_models_are_left_alone() {
    for (typed, meant) in [
        ("sonet", Some("sonnet")),
        ("Sonnett", Some("sonnet")),
        ("haiko", Some("haiku")),
        ("opuss", Some("opus")),
        ("opusplna", Some("opusplan")),
        ("sonnet", None),
        ("gpt-5", None),
        ("o3", None),
        ("qwen3-coder", None),
        ("claude-sonnet-4-5", None),
    ] {
        assert_eq!(alias_meant(typed), meant, "{typed}");
    }
}
