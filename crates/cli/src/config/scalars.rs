//! The settings that take one value, as shown: one table both [`super::load`] (to record what a
//! later source replaced) and `rein config show` (to print them) read.

use std::fmt::Display;

use super::{Config, Sourced};

/// One single-valued setting as `rein config show` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// As in the file: `model`, `tools.max_parallel`, `context_windows."claude"`.
    pub key: String,
    /// The value as TOML-like text and where it was set; `None` when no file sets it.
    pub set: Option<Sourced<String>>,
    /// What applies when no file sets it, as text; empty for the provider settings, whose
    /// defaults depend on each other (`resolve::routing` gives them).
    pub default: &'static str,
}

/// Every single-valued setting of `config`, in the order `rein config show` prints them.
pub fn scalars(config: &Config) -> Vec<Scalar> {
    let mut table = Table::default();
    table.models(config);
    table.limits(config);
    table.request_options(config);
    table.tools(config);
    table.web(config);
    table.telemetry(config);
    table.timeouts_and_sandbox(config);
    table.0
}

/// The scalars gathered so far, in order.
#[derive(Default)]
struct Table(Vec<Scalar>);

impl Table {
    fn push(&mut self, key: &str, set: Option<Sourced<String>>, default: &'static str) {
        self.0.push(Scalar {
            key: key.to_string(),
            set,
            default,
        });
    }

    /// Which models, and where requests go.
    fn models(&mut self, config: &Config) {
        self.push("model", quoted(&config.model), "");
        self.push(
            "explore_model",
            quoted(&config.explore_model),
            "(the session's model)",
        );
        self.push("fallback_model", quoted(&config.fallback_model), "(none)");
        self.push("provider", quoted(&config.provider), "");
        self.push("base_url", quoted(&config.base_url), "");
        self.push("api_key_env", quoted(&config.api_key_env), "");
    }

    /// Turns, context windows and output tokens, with one line per model-prefix entry.
    fn limits(&mut self, config: &Config) {
        self.push("max_turns", plain(&config.max_turns), "50");
        self.push(
            "context_window",
            plain(&config.context_window),
            "(from the model)",
        );
        for (prefix, window) in &config.context_windows {
            self.push(
                &format!("context_windows.{prefix:?}"),
                plain(&Some(window.clone())),
                "",
            );
        }
        self.push("max_tokens", plain(&config.max_tokens), "(from the model)");
        for (prefix, limit) in &config.max_output_tokens {
            self.push(
                &format!("max_output_tokens.{prefix:?}"),
                plain(&Some(limit.clone())),
                "",
            );
        }
    }

    /// How each request asks the model, and the permission mode.
    fn request_options(&mut self, config: &Config) {
        self.push(
            "cache_ttl",
            named(&config.cache_ttl, |t| t.name()),
            "\"5m\"",
        );
        self.push(
            "effort",
            named(&config.effort, |e| e.name()),
            "(the model's own)",
        );
        self.push(
            "output_dialect",
            named(&config.output_dialect, |d| d.name()),
            "\"rein\"",
        );
        self.push(
            "tools_profile",
            named(&config.tools_profile, |p| p.name()),
            "(\"lean\" for windows up to 16384 tokens, else \"full\")",
        );
        self.push(
            "permission_mode",
            named(&config.permission_mode, |m| m.name()),
            "\"default\"",
        );
    }

    /// `[tools]`.
    fn tools(&mut self, config: &Config) {
        self.push("tools.output_limit", plain(&config.output_limit), "30000");
        self.push(
            "tools.checkpoint_cap_mb",
            plain(&config.checkpoint_cap_mb),
            "512",
        );
        self.push(
            "tools.call_timeout_secs",
            plain(&config.call_timeout_secs),
            "600",
        );
        self.push("tools.max_parallel", plain(&config.max_parallel), "8");
        self.push("tools.repeat_warn", plain(&config.repeat_warn), "3");
        self.push("tools.repeat_stop", plain(&config.repeat_stop), "6");
        self.push("tools.compact", plain(&config.compact_tool), "false");
        self.push("tools.max_teammates", plain(&config.max_teammates), "8");
        self.push("tools.max_terminals", plain(&config.max_terminals), "4");
        self.push(
            "tools.repo_map_tokens",
            plain(&config.repo_map_tokens),
            "1000",
        );
        self.push(
            "tools.repo_map_at_start",
            plain(&config.repo_map_at_start),
            "false",
        );
        self.push(
            "tools.worktree_base",
            quoted(&config.worktree_base),
            "\"head\"",
        );
    }

    /// `[web]` and `[vision]`.
    fn web(&mut self, config: &Config) {
        self.push("web.enabled", plain(&config.web.enabled), "true");
        self.push(
            "web.fetch_model",
            quoted(&config.web.fetch_model),
            "(explore_model, else none: the page itself)",
        );
        self.push(
            "web.fetch_timeout_secs",
            plain(&config.web.fetch_timeout_secs),
            "30",
        );
        for (prefix, sees) in &config.vision {
            self.push(
                &format!("vision.{prefix:?}"),
                plain(&Some(sees.clone())),
                "",
            );
        }
    }

    /// `[telemetry]`.
    fn telemetry(&mut self, config: &Config) {
        let t = &config.telemetry;
        self.push(
            "telemetry.endpoint",
            quoted(&t.endpoint),
            "(none: OTEL_EXPORTER_OTLP_ENDPOINT, else no export)",
        );
        self.push(
            "telemetry.protocol",
            quoted(&t.protocol),
            "\"http/protobuf\"",
        );
        self.push("telemetry.log_content", plain(&t.log_content), "false");
    }

    /// The model stream's timeouts, the session store's retention and the sandbox.
    fn timeouts_and_sandbox(&mut self, config: &Config) {
        self.push("idle_timeout_secs", plain(&config.idle_timeout_secs), "120");
        self.push(
            "no_progress_timeout_secs",
            plain(&config.no_progress_timeout_secs),
            "300",
        );
        self.push(
            "max_retry_wait_secs",
            plain(&config.max_retry_wait_secs),
            "300",
        );
        self.push(
            "cleanup_period_days",
            plain(&config.cleanup_period_days),
            "30",
        );
        self.push(
            "status_line",
            named(&config.status_line, String::as_str),
            "(the built-in line)",
        );
        self.push(
            "sandbox",
            named(&config.sandbox.policy, |p| p.name()),
            "\"off\"",
        );
        self.push(
            "sandbox_settings.network",
            plain(&config.sandbox.network),
            "false",
        );
    }
}

/// What `after` replaced of `before` (two [`scalars`] of one load, before and after one source
/// was merged): each earlier value a later source set again, with its key.
pub fn replaced(before: Vec<Scalar>, after: &[Scalar]) -> Vec<(String, Sourced<String>)> {
    before
        .into_iter()
        .filter_map(|old| {
            let set = old.set?;
            let now = after.iter().find(|s| s.key == old.key)?.set.as_ref();
            (now != Some(&set)).then_some((old.key, set))
        })
        .collect()
}

fn quoted(slot: &Option<Sourced<String>>) -> Option<Sourced<String>> {
    named(slot, String::as_str)
}

fn named<T>(slot: &Option<Sourced<T>>, name: impl Fn(&T) -> &str) -> Option<Sourced<String>> {
    slot.as_ref().map(|s| Sourced {
        value: format!("{:?}", name(&s.value)),
        source: s.source.clone(),
    })
}

fn plain<T: Display>(slot: &Option<Sourced<T>>) -> Option<Sourced<String>> {
    slot.as_ref().map(|s| Sourced {
        value: s.value.to_string(),
        source: s.source.clone(),
    })
}
