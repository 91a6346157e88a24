//! `rein config show`: the merged configuration, one setting per line with where it was set.

use super::{Config, Sourced};

/// The merged configuration as TOML-like lines, each followed by `# source`.
pub fn render(config: &Config) -> String {
    let mut out = String::new();
    let mut line = |key: &str, value: String, source: &str| {
        out.push_str(&format!("{key} = {value}  # {source}\n"));
    };
    let quoted = |s: &str| format!("{s:?}");
    let scalar = |slot: &Option<Sourced<String>>| {
        slot.as_ref().map(|s| (quoted(&s.value), s.source.clone()))
    };
    let defaults = "default";
    for (key, value) in [
        ("model", scalar(&config.model)),
        ("explore_model", scalar(&config.explore_model)),
        ("fallback_model", scalar(&config.fallback_model)),
        ("provider", scalar(&config.provider)),
        ("base_url", scalar(&config.base_url)),
        ("api_key_env", scalar(&config.api_key_env)),
    ] {
        match value {
            Some((value, source)) => line(key, value, &source),
            None => line(key, "(not set)".into(), defaults),
        }
    }
    match &config.max_turns {
        Some(s) => line("max_turns", s.value.to_string(), &s.source),
        None => line("max_turns", "50".into(), defaults),
    }
    match &config.context_window {
        Some(s) => line("context_window", s.value.to_string(), &s.source),
        None => line("context_window", "(from the model)".into(), defaults),
    }
    for (prefix, window) in &config.context_windows {
        line(
            &format!("context_windows.{}", quoted(prefix)),
            window.value.to_string(),
            &window.source,
        );
    }
    match &config.max_tokens {
        Some(s) => line("max_tokens", s.value.to_string(), &s.source),
        None => line("max_tokens", "(from the model)".into(), defaults),
    }
    for (prefix, limit) in &config.max_output_tokens {
        line(
            &format!("max_output_tokens.{}", quoted(prefix)),
            limit.value.to_string(),
            &limit.source,
        );
    }
    match &config.cache_ttl {
        Some(s) => line("cache_ttl", quoted(s.value.name()), &s.source),
        None => line("cache_ttl", quoted("5m"), defaults),
    }
    match &config.effort {
        Some(s) => line("effort", quoted(s.value.name()), &s.source),
        None => line("effort", "(the model's own)".to_string(), defaults),
    }
    match &config.permission_mode {
        Some(s) => line("permission_mode", quoted(s.value.name()), &s.source),
        None => line("permission_mode", quoted("default"), defaults),
    }
    for (key, rules) in [
        ("permissions.allow", &config.allow),
        ("permissions.ask", &config.ask),
        ("permissions.deny", &config.deny),
    ] {
        if rules.is_empty() {
            line(key, "[]".into(), defaults);
        }
        for rule in rules {
            line(key, format!("[{}, …]", quoted(&rule.value)), &rule.source);
        }
    }
    let number = |slot: Option<(String, String)>,
                  key: &str,
                  default: &str,
                  line: &mut dyn FnMut(&str, String, &str)| {
        match slot {
            Some((value, source)) => line(key, value, &source),
            None => line(key, default.to_string(), defaults),
        }
    };
    number(
        config
            .output_limit
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "tools.output_limit",
        "30000",
        &mut line,
    );
    number(
        config
            .checkpoint_cap_mb
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "tools.checkpoint_cap_mb",
        "512",
        &mut line,
    );
    number(
        config
            .call_timeout_secs
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "tools.call_timeout_secs",
        "600",
        &mut line,
    );
    number(
        config
            .max_parallel
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "tools.max_parallel",
        "8",
        &mut line,
    );
    for (key, slot, default) in [
        ("tools.repeat_warn", &config.repeat_warn, "3"),
        ("tools.repeat_stop", &config.repeat_stop, "6"),
    ] {
        number(
            slot.as_ref()
                .map(|s| (s.value.to_string(), s.source.clone())),
            key,
            default,
            &mut line,
        );
    }
    number(
        config
            .compact_tool
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "tools.compact",
        "false",
        &mut line,
    );
    line(
        "tools.sensitive_paths",
        format!("{:?}", rein_tools::DEFAULT_SENSITIVE),
        defaults,
    );
    for path in &config.sensitive_paths {
        line(
            "tools.sensitive_paths",
            format!("{:?}", path.value),
            &path.source,
        );
    }
    for (key, value, default) in [
        ("idle_timeout_secs", &config.idle_timeout_secs, "120"),
        (
            "no_progress_timeout_secs",
            &config.no_progress_timeout_secs,
            "300",
        ),
    ] {
        number(
            value
                .as_ref()
                .map(|s| (s.value.to_string(), s.source.clone())),
            key,
            default,
            &mut line,
        );
    }
    number(
        config
            .cleanup_period_days
            .as_ref()
            .map(|s| (s.value.to_string(), s.source.clone())),
        "cleanup_period_days",
        "30",
        &mut line,
    );
    let sandbox = &config.sandbox;
    match &sandbox.policy {
        Some(policy) => line(
            "sandbox",
            format!("{:?}", policy.value.name()),
            &policy.source,
        ),
        None => line("sandbox", "\"off\"".to_string(), defaults),
    }
    match &sandbox.network {
        Some(network) => line(
            "sandbox_settings.network",
            network.value.to_string(),
            &network.source,
        ),
        None => line("sandbox_settings.network", "false".to_string(), defaults),
    }
    line(
        "sandbox_settings.read_roots",
        format!("{:?}", rein_sandbox::DEFAULT_READ_ROOTS),
        defaults,
    );
    for (key, roots) in [
        ("sandbox_settings.read_roots", &sandbox.read_roots),
        ("sandbox_settings.writable_roots", &sandbox.writable_roots),
    ] {
        for root in roots {
            line(key, format!("{:?}", root.value), &root.source);
        }
    }
    for hook in &config.hooks {
        let matcher = hook
            .matcher
            .as_deref()
            .map(|m| format!(" matcher={m:?}"))
            .unwrap_or_default();
        line(
            &format!("hooks.{}", hook.event.name()),
            format!(
                "{:?}{matcher} timeout={}s",
                hook.command,
                hook.timeout.as_secs()
            ),
            &hook.source,
        );
    }
    for ignored in &config.ignored {
        let why = match ignored.why {
            super::Why::Untrusted => "ignored: the workspace is not trusted (`rein trust`)",
            super::Why::Credentials => "ignored: a workspace file never routes credentials",
            super::Why::UserOnly => "ignored: only your own config (~/.config/rein) sets this",
        };
        out.push_str(&format!(
            "# {} ({}) — {why}\n",
            ignored.what, ignored.source
        ));
    }
    for unread in &config.unread {
        out.push_str(&format!("# {unread}\n"));
    }
    out
}
