//! The one list of an invocation's secrets: the provider keys (rein-tools' built-in list), the
//! key variable configured (`api_key_env`) or given (`--api-key-env`, a gateway's key), the web
//! search API's key, and every platform secret `[serve.*]` names (or would read by default).
//!
//! [`Secrets::of`] builds it once per settings ([`crate::settings::Settings::secrets`]); every
//! way out uses it: the environment of every child rein starts
//! (commands, hooks, MCP and language servers, an evaluation's setup and check), the variables
//! a workspace's `.mcp.json` may expand, and the redaction of what rein stores or sends (chat
//! messages and their buttons, memory, telemetry). Five lists that differed were the cause of
//! leaks: a feature never builds its own.

use rein_tools::HiddenEnv;

use crate::config::{Config, Sourced};

/// The names of every secret `config` and the `--api-key-env` flag (`key_env_flag`) point at,
/// besides the built-in provider keys.
pub fn names(config: &Config, key_env_flag: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let name = name.trim();
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    key_env_flag.into_iter().for_each(&mut add);
    config.api_key_env.iter().for_each(|k| add(&k.value));
    if let Some(search) = crate::resolve::web::search_key_env(config) {
        add(&search);
    }
    for name in platform_secrets(config) {
        add(&name);
    }
    names
}

/// [`names`] as the hidden variables every child environment and redaction uses.
pub fn hidden(config: &Config, key_env_flag: Option<&str>) -> HiddenEnv {
    HiddenEnv::with(names(config, key_env_flag))
}

/// An invocation's secrets, built once per settings: the variables no child sees and the
/// values nothing rein stores or sends may carry.
#[derive(Debug, Clone)]
pub struct Secrets {
    /// The names beyond the built-in provider keys.
    names: Vec<String>,
    hidden: HiddenEnv,
}

impl Secrets {
    /// The secrets of `config`, the `--api-key-env` flag (`key_env_flag`) and the run's own
    /// key variable (`provider_key`), besides the built-in provider keys.
    pub fn of(config: &Config, key_env_flag: Option<&str>, provider_key: &str) -> Self {
        let mut names = names(config, key_env_flag);
        if !provider_key.trim().is_empty() && !names.iter().any(|n| n == provider_key) {
            names.insert(0, provider_key.to_string());
        }
        Self {
            hidden: HiddenEnv::with(names.iter().cloned()),
            names,
        }
    }

    /// The names beyond the built-in provider keys (an agent's template keeps these).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// As the hidden variables of a child's environment and of redaction.
    pub fn hidden(&self) -> &HiddenEnv {
        &self.hidden
    }
}

/// The variables `[serve.telegram|slack|feishu]` read their secrets from: the ones named,
/// else the defaults the platform reads.
fn platform_secrets(config: &Config) -> Vec<String> {
    let or = |set: &Option<Sourced<String>>, default: &str| {
        set.as_ref()
            .map_or_else(|| default.to_string(), |s| s.value.clone())
    };
    let mut found = Vec::new();
    let serve = &config.serve;
    if let Some(t) = &serve.telegram {
        found.push(or(&t.token_env, "TELEGRAM_BOT_TOKEN"));
        found.push(or(&t.webhook_secret_env, "TELEGRAM_WEBHOOK_SECRET"));
    }
    if let Some(s) = &serve.slack {
        found.push(or(&s.bot_token_env, "SLACK_BOT_TOKEN"));
        found.push(or(&s.signing_secret_env, "SLACK_SIGNING_SECRET"));
        found.extend(s.app_token_env.as_ref().map(|a| a.value.clone()));
    }
    if let Some(f) = &serve.feishu {
        found.push(or(&f.app_secret_env, "FEISHU_APP_SECRET"));
        found.push(or(&f.verification_token_env, "FEISHU_VERIFICATION_TOKEN"));
        found.push(or(&f.encrypt_key_env, "FEISHU_ENCRYPT_KEY"));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::serve::{SlackConfig, TelegramConfig};

    fn sourced(value: &str) -> Option<Sourced<String>> {
        Some(Sourced {
            value: value.to_string(),
            source: "test".into(),
        })
    }

    #[test]
    fn every_secret_the_config_names_is_on_the_one_list() {
        let mut config = Config::default();
        assert_eq!(names(&config, None), Vec::<String>::new());
        config.api_key_env = sourced("MY_KEY");
        config.web.search = sourced("brave");
        config.serve.telegram = Some(TelegramConfig::default());
        config.serve.slack = Some(SlackConfig {
            bot_token_env: sourced("OUR_SLACK_BOT"),
            app_token_env: sourced("OUR_SLACK_APP"),
            ..SlackConfig::default()
        });
        assert_eq!(
            names(&config, Some("GATEWAY_KEY")),
            [
                "GATEWAY_KEY",
                "MY_KEY",
                "BRAVE_API_KEY",
                "TELEGRAM_BOT_TOKEN",
                "TELEGRAM_WEBHOOK_SECRET",
                "OUR_SLACK_BOT",
                "SLACK_SIGNING_SECRET",
                "OUR_SLACK_APP"
            ]
        );
        // The built-in provider keys come with every list.
        let hidden = hidden(&config, None);
        assert!(hidden.names().iter().any(|n| n == "ANTHROPIC_API_KEY"));
        assert!(hidden.names().iter().any(|n| n == "BRAVE_API_KEY"));
    }

    #[test]
    fn a_settings_secrets_hold_the_runs_own_key_once() {
        let config = Config {
            api_key_env: sourced("MY_KEY"),
            ..Config::default()
        };
        let secrets = Secrets::of(&config, None, "MY_KEY");
        assert_eq!(secrets.names(), ["MY_KEY"]);
        let gateway = Secrets::of(&config, Some("GATEWAY_KEY"), "GATEWAY_KEY");
        assert_eq!(gateway.names(), ["GATEWAY_KEY", "MY_KEY"]);
        let local = Secrets::of(&Config::default(), None, "LOCAL_MODEL_KEY");
        assert_eq!(local.names(), ["LOCAL_MODEL_KEY"]);
        let hidden = local.hidden().names();
        for name in ["LOCAL_MODEL_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"] {
            assert!(hidden.iter().any(|n| n == name), "{name} in {hidden:?}");
        }
    }
}
