use std::time::Duration;

use pretty_assertions::assert_eq;
use rein_engine::hooks::DEFAULT_HOOK_TIMEOUT;

use super::*;

/// What `rein config show` prints of `config` with the environment `env`.
fn render(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> Result<String, crate::Exit> {
    let layered = crate::resolve::layered(config, env)?;
    Ok(super::render(config, &layered))
}

pub(super) fn toml(path: &str, text: &str) -> Source {
    Source {
        path: path.into(),
        text: text.into(),
        format: Format::Toml,
        scope: Scope::User,
    }
}

pub(super) fn claude(path: &str, text: &str) -> Source {
    Source {
        path: path.into(),
        text: text.into(),
        format: Format::ClaudeSettings,
        scope: Scope::User,
    }
}

#[test]
fn scalars_take_the_most_specific_value_and_lists_merge() {
    let user = toml(
        "user.toml",
        "model = \"claude-opus-4-1\"\nmax_turns = 10\n[permissions]\nallow = [\"Read\"]\n",
    );
    let project = toml(
        "project.toml",
        "\nmodel = \"claude-sonnet-4-5\"\npermission_mode = \"accept-edits\"\n\n[permissions]\nallow = [\"Bash(cargo test *)\"]\ndeny = [\"Bash(rm *)\"]\n",
    );
    let config = load(&[user, project]).unwrap();
    assert_eq!(
        config.model,
        Some(Sourced {
            value: "claude-sonnet-4-5".into(),
            source: "project.toml:2".into()
        })
    );
    assert_eq!(
        config.max_turns.map(|s| (s.value, s.source)),
        Some((10, "user.toml:2".into()))
    );
    assert_eq!(
        config.permission_mode.map(|s| s.value),
        Some(PermissionMode::AcceptEdits)
    );
    let allow: Vec<(String, String)> = config
        .allow
        .into_iter()
        .map(|s| (s.value, s.source))
        .collect();
    assert_eq!(
        allow,
        [
            ("Read".to_string(), "user.toml:4".to_string()),
            (
                "Bash(cargo test *)".to_string(),
                "project.toml:6".to_string()
            ),
        ]
    );
    assert_eq!(config.deny[0].source, "project.toml:7");
}

#[test]
fn errors_name_the_file_line_and_key() {
    let cases = [
        ("model = 3\n", "x.toml:1", "invalid type"),
        (
            "\n\npermision_mode = \"plan\"\n",
            "x.toml:3",
            "unknown field `permision_mode`",
        ),
        (
            "permission_mode = \"yolo\"\n",
            "x.toml:1: permission_mode",
            "unknown permission mode \"yolo\"",
        ),
        (
            "[permissions]\n\ndeny = [\"Bash(rm *\"]\n",
            "x.toml:3: permissions.deny",
            "missing the closing parenthesis",
        ),
        (
            "provider = \"gemini\"\n",
            "x.toml:1: provider",
            "unknown provider",
        ),
        (
            "[[hooks.PreToolUze]]\ncommand = \"x\"\n",
            "x.toml:1: hooks",
            "unknown hook event \"PreToolUze\"",
        ),
        (
            "[[hooks.Stop]]\ncommand = \"  \"\n",
            "x.toml:2: hooks",
            "the hook command is empty",
        ),
        ("model = \"unterminated\n", "x.toml:1", ""),
        (
            "[context_windows]\n\"my-model\" = 0\n",
            "x.toml:2: context_windows.my-model",
            "above 0 tokens",
        ),
        (
            "[context_windows]\n\"gpt\" = \"big\"\n",
            "x.toml:2",
            "invalid type",
        ),
        (
            "[max_output_tokens]\n\"my-model\" = 0\n",
            "x.toml:2: max_output_tokens.my-model",
            "above 0 tokens",
        ),
        ("max_tokens = 0\n", "x.toml:1: max_tokens", "above 0 tokens"),
        (
            "cache_ttl = \"2h\"\n",
            "x.toml:1: cache_ttl",
            "expected \"5m\" or \"1h\"",
        ),
        (
            "tools_profile = \"small\"\n",
            "x.toml:1: tools_profile",
            "expected \"full\" or \"lean\"",
        ),
    ];
    for (text, at, message) in cases {
        let err = load(&[toml("x.toml", text)]).unwrap_err().to_string();
        assert!(err.starts_with(at), "{text:?}: {err}");
        assert!(err.contains(message), "{text:?}: {err}");
    }
}

#[test]
fn hooks_accept_claude_codes_shape_and_a_shorthand() {
    let text = r#"
[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{ type = "command", command = "./check.sh", timeout = 5 }]

[[hooks.Stop]]
command = "notify-send done"
"#;
    let config = load(&[toml("h.toml", text)]).unwrap();
    assert_eq!(
        config.hooks,
        [
            HookSpec {
                event: HookEvent::PreToolUse,
                matcher: Some("Bash".into()),
                command: "./check.sh".into(),
                timeout: Duration::from_secs(5),
                source: "h.toml:4".into(),
            },
            HookSpec {
                event: HookEvent::Stop,
                matcher: None,
                command: "notify-send done".into(),
                timeout: DEFAULT_HOOK_TIMEOUT,
                source: "h.toml:7".into(),
            },
        ]
    );
}

#[test]
fn claude_code_settings_contribute_permissions_and_hooks() {
    let settings = r#"{
      "permissions": {"allow": ["Bash(npm run test:*)", "WebFetch"], "deny": ["Read(./.env.production)"], "defaultMode": "acceptEdits"},
      "hooks": {
        "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --check"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "say hi"}]}]
      },
      "model": "ignored", "env": {"X": "1"}
    }"#;
    let project = toml("p.toml", "permission_mode = \"plan\"\n");
    let config = load(&[claude(".claude/settings.json", settings), project]).unwrap();
    assert_eq!(config.allow.len(), 2);
    assert_eq!(
        config.allow[0].source,
        ".claude/settings.json (Claude Code settings)"
    );
    assert_eq!(config.deny[0].value, "Read(./.env.production)");
    assert_eq!(
        config.permission_mode.map(|m| m.value),
        Some(PermissionMode::Plan)
    );
    assert_eq!(config.hooks.len(), 1, "Notification is not a rein event");
    assert_eq!(config.hooks[0].matcher.as_deref(), Some("Edit|Write"));
}

#[test]
fn show_says_where_each_value_came_from() {
    let config = load(&[toml(
        "p.toml",
        "model = \"gpt-5\"\n[tools]\noutput_limit = 5000\n",
    )])
    .unwrap();
    let shown = render(&config, &|_| None).unwrap();
    assert!(shown.contains("model = \"gpt-5\"  # p.toml:1\n"), "{shown}");
    assert!(
        shown.contains("tools.output_limit = 5000  # p.toml:3\n"),
        "{shown}"
    );
    assert!(
        shown.contains("permission_mode = \"default\"  # default\n"),
        "{shown}"
    );
}

#[test]
fn context_windows_are_a_table_by_model_prefix_that_later_files_update() {
    let user = toml(
        "user.toml",
        "[context_windows]\n\"claude\" = 1000000\n\"Local-Coder\" = 16384\n",
    );
    let project = toml(
        "project.toml",
        "[context_windows]\n\"local-coder\" = 32768\n",
    );
    let config = load(&[user, project]).unwrap();
    let windows: Vec<(&str, u64, &str)> = config
        .context_windows
        .iter()
        .map(|(prefix, s)| (prefix.as_str(), s.value, s.source.as_str()))
        .collect();
    assert_eq!(
        windows,
        [
            ("claude", 1_000_000, "user.toml:2"),
            ("local-coder", 32_768, "project.toml:2"),
        ]
    );
    let shown = render(&config, &|_| None).unwrap();
    assert!(
        shown.contains(
            "context_windows.\"local-coder\" = 32768  # project.toml:2 (overrides 16384 at \
             user.toml:3)\n"
        ),
        "{shown}"
    );
}

#[test]
fn tools_profile_is_read_and_shown_with_its_source() {
    let config = load(&[toml("user.toml", "tools_profile = \"lean\"\n")]).unwrap();
    assert_eq!(
        config
            .tools_profile
            .as_ref()
            .map(|s| (s.value, s.source.as_str())),
        Some((rein_tools::ToolsProfile::Lean, "user.toml:1"))
    );
    assert!(
        render(&config, &|_| None)
            .unwrap()
            .contains("tools_profile = \"lean\"  # user.toml:1\n")
    );
}

#[test]
fn cache_ttl_is_read_and_shown_with_its_source() {
    let config = load(&[toml("user.toml", "cache_ttl = \"1h\"\n")]).unwrap();
    assert_eq!(
        config
            .cache_ttl
            .as_ref()
            .map(|s| (s.value, s.source.as_str())),
        Some((rein_llm::CacheTtl::OneHour, "user.toml:1"))
    );
    assert!(
        render(&config, &|_| None)
            .unwrap()
            .contains("cache_ttl = \"1h\"  # user.toml:1\n")
    );
    let defaults = render(&load(&[]).unwrap(), &|_| None).unwrap();
    assert!(
        defaults.contains("cache_ttl = \"5m\"  # default\n"),
        "{defaults}"
    );
}

#[test]
fn effort_is_read_and_shown_with_its_source_and_a_bad_one_is_named() {
    let config = load(&[toml("user.toml", "effort = \"high\"\n")]).unwrap();
    assert_eq!(
        config.effort.as_ref().map(|s| (s.value, s.source.as_str())),
        Some((rein_llm::Effort::High, "user.toml:1"))
    );
    assert!(
        render(&config, &|_| None)
            .unwrap()
            .contains("effort = \"high\"  # user.toml:1\n")
    );
    let defaults = render(&load(&[]).unwrap(), &|_| None).unwrap();
    assert!(
        defaults.contains("effort = (the model's own)  # default\n"),
        "{defaults}"
    );
    let err = load(&[toml("user.toml", "effort = \"max\"\n")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("minimal, low, medium or high"), "{err}");
}

#[test]
fn output_limits_are_a_scalar_and_a_table_by_model_prefix() {
    let user = toml(
        "user.toml",
        "max_tokens = 16000\n[max_output_tokens]\n\"Local-Coder\" = 4096\n",
    );
    let config = load(&[user]).unwrap();
    assert_eq!(config.max_tokens.as_ref().map(|s| s.value), Some(16_000));
    let limits: Vec<(&str, u32)> = config
        .max_output_tokens
        .iter()
        .map(|(prefix, s)| (prefix.as_str(), s.value))
        .collect();
    assert_eq!(limits, [("local-coder", 4_096)]);
    let shown = render(&config, &|_| None).unwrap();
    assert!(
        shown.contains("max_tokens = 16000  # user.toml:1\n"),
        "{shown}"
    );
    assert!(
        shown.contains("max_output_tokens.\"local-coder\" = 4096  # user.toml:3\n"),
        "{shown}"
    );
}

#[test]
fn sandbox_keys_come_from_the_user_or_a_trusted_workspace_only() {
    let user = toml(
        "user.toml",
        "sandbox = \"workspace-write\"\n[sandbox_settings]\nnetwork = true\nwritable_roots = [\"~/.npm\"]\nread_roots = [\"/opt/data\"]\n",
    );
    let hostile = Source {
        scope: Scope::UntrustedWorkspace,
        ..toml(
            "ws.toml",
            "sandbox = \"off\"\n[sandbox_settings]\nwritable_roots = [\"/etc\"]\n",
        )
    };
    let config = load(&[user, hostile]).unwrap();
    let sandbox = &config.sandbox;
    assert_eq!(
        sandbox
            .policy
            .as_ref()
            .map(|p| (p.value, p.source.as_str())),
        Some((rein_sandbox::Policy::WorkspaceWrite, "user.toml:1"))
    );
    assert_eq!(sandbox.network.as_ref().map(|n| n.value), Some(true));
    let writable: Vec<&str> = sandbox
        .writable_roots
        .iter()
        .map(|r| r.value.as_str())
        .collect();
    assert_eq!(writable, ["~/.npm"]);
    assert_eq!(sandbox.read_roots[0].value, "/opt/data");
    let ignored: Vec<&str> = config.ignored.iter().map(|i| i.what.as_str()).collect();
    assert_eq!(ignored, ["sandbox = \"off\"", "sandbox root \"/etc\""]);

    let bad = load(&[toml("user.toml", "sandbox = \"strict\"\n")]).unwrap_err();
    assert_eq!((bad.line, bad.key.as_deref()), (Some(1), Some("sandbox")));
    assert!(
        bad.message.contains("read-only, workspace-write or off"),
        "{bad}"
    );
    let relative = toml(
        "user.toml",
        "[sandbox_settings]\nwritable_roots = [\"target\"]\n",
    );
    let bad = load(&[relative]).unwrap_err();
    assert_eq!(bad.key.as_deref(), Some("sandbox_settings.writable_roots"));
}

#[test]
fn stream_timeouts_are_read_and_zero_is_refused() {
    let config = load(&[toml(
        "user.toml",
        "idle_timeout_secs = 30\nno_progress_timeout_secs = 90\n",
    )])
    .unwrap();
    assert_eq!(config.idle_timeout_secs.map(|s| s.value), Some(30));
    assert_eq!(config.no_progress_timeout_secs.map(|s| s.value), Some(90));
    let bad = load(&[toml("user.toml", "idle_timeout_secs = 0\n")]).unwrap_err();
    assert_eq!(bad.key.as_deref(), Some("idle_timeout_secs"));
}

#[test]
fn the_longest_retry_wait_is_read_and_may_be_zero() {
    let config = load(&[
        toml("user.toml", "max_retry_wait_secs = 600\n"),
        toml("project.toml", "max_retry_wait_secs = 0\n"),
    ])
    .unwrap();
    assert_eq!(config.max_retry_wait_secs.map(|s| s.value), Some(0));
    let shown = super::scalars::scalars(&load(&[]).unwrap());
    let row = shown.iter().find(|s| s.key == "max_retry_wait_secs");
    assert_eq!(row.map(|s| s.default), Some("300"));
}

proptest::proptest! {
    /// Fuzz target (`bench/fuzz`): any rein TOML or Claude settings text loads or is refused
    /// with an error naming the file; never a panic.
    #[test]
    fn fuzz_config_loading_never_panics(
        toml_text in "((model|provider|base_url|sandbox|effort|cache_ttl|permission_mode|max_turns|idle_timeout_secs) = (\"[a-z:/.-]{0,10}\"|[0-9]{1,3})\n|\\[(permissions|tools|hooks|sandbox_settings|context_windows)\\]\n|(allow|deny|writable_roots) = \\[\"[^\"]{0,12}\"\\]\n|[^\\n]{0,10}\n){0,8}",
        json_text in "\\{(\"(permissions|hooks|allow|deny|defaultMode)\": ?(\\{|\\[|\"[a-zA-Z()* ]{0,10}\"|[0-9]+|null)[,}\\] ]{0,3}){0,5}\\}?",
    ) {
        for source in [toml("fuzz.toml", &toml_text), claude("fuzz.json", &json_text)] {
            if let Err(e) = load(&[source]) {
                proptest::prop_assert!(e.to_string().contains("fuzz."), "{e}");
            }
        }
    }
}

#[test]
fn only_the_users_own_file_allows_variables_to_mcp_configuration() {
    let user = toml("user.toml", "mcp_env_allow = [\"GITHUB_TOKEN\"]\n");
    let workspace = Source {
        scope: Scope::TrustedWorkspace,
        ..toml(".rein/config.toml", "mcp_env_allow = [\"HOME\"]\n")
    };
    let config = load(&[user, workspace]).unwrap();
    let allowed: Vec<&str> = config
        .mcp_env_allow
        .iter()
        .map(|v| v.value.as_str())
        .collect();
    assert_eq!(allowed, ["GITHUB_TOKEN"]);
    assert_eq!(
        config.ignored,
        [Ignored {
            what: "mcp_env_allow entry \"HOME\"".into(),
            source: ".rein/config.toml:1".into(),
            why: Why::UserOnly,
        }]
    );
}

#[test]
fn telemetry_comes_from_the_users_own_file_only_and_a_bad_protocol_is_named() {
    let user = toml(
        "user.toml",
        "[telemetry]\nendpoint = \"http://localhost:4318\"\nlog_content = true\n",
    );
    let workspace = Source {
        scope: Scope::TrustedWorkspace,
        ..toml(
            ".rein/config.toml",
            "[telemetry]\nendpoint = \"http://evil.example:4318\"\n",
        )
    };
    let config = load(&[user, workspace]).unwrap();
    let section = config.telemetry.section();
    assert_eq!(section.endpoint.as_deref(), Some("http://localhost:4318"));
    assert_eq!(section.log_content, Some(true));
    assert_eq!(
        config.ignored,
        [Ignored {
            what: "telemetry.endpoint".into(),
            source: ".rein/config.toml:2".into(),
            why: Why::UserOnly,
        }]
    );
    let err = load(&[toml("user.toml", "[telemetry]\nprotocol = \"http/json\"\n")]).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("telemetry.protocol"));
    assert!(
        err.message.contains("grpc or http/protobuf"),
        "{}",
        err.message
    );
}
