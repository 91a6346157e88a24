//! The platforms of `[serve.telegram]`, `[serve.slack]` and `[serve.feishu]`, their secrets
//! from the environment (never from a file), and the webhook server the webhook platforms
//! need.

use std::net::SocketAddr;
use std::sync::Arc;

use rein_chat::Platform;
use rein_chat::webhook::Hook;

use crate::Exit;
use crate::config::Config;
use crate::config::serve::{FeishuConfig, SlackConfig, TelegramConfig};
use crate::env::Env;

/// Where the webhook server listens unless `[serve] listen` says.
const LISTEN: &str = "127.0.0.1:8790";

/// The platforms `rein serve` talks to.
pub(super) struct Platforms {
    pub(super) all: Vec<Arc<dyn Platform>>,
    /// What the webhook server answers (none: no server).
    pub(super) hooks: Vec<Arc<dyn Hook>>,
    /// The variables holding their secrets (redacted from everything posted).
    pub(super) secrets: Vec<String>,
    /// A Telegram bot to register at its webhook once the server listens: the bot, the
    /// address, the secret token.
    pub(super) telegram_webhook: Option<(rein_chat::telegram::Telegram, String, String)>,
}

/// The configured platforms, or why `rein serve` cannot connect to them.
pub(super) fn configured(config: &Config, env: Env<'_>) -> Result<Platforms, Exit> {
    let serve = &config.serve;
    let mut platforms = Platforms {
        all: Vec::new(),
        hooks: Vec::new(),
        secrets: Vec::new(),
        telegram_webhook: None,
    };
    if let Some(table) = &serve.telegram {
        platforms.telegram(table, env)?;
    }
    if let Some(table) = &serve.slack {
        platforms.slack(table, env)?;
    }
    if let Some(table) = &serve.feishu {
        platforms.feishu(table, env)?;
    }
    if platforms.all.is_empty() {
        return Err(Exit::usage(
            "rein serve has no chat platform: add [serve.telegram], [serve.slack] or \
             [serve.feishu] to your config.toml",
        ));
    }
    Ok(platforms)
}

/// The webhook server's address: `[serve] listen`, or 127.0.0.1:8790.
pub(super) fn listen(config: &Config) -> Result<SocketAddr, Exit> {
    let listen = config.serve.listen.as_ref();
    let text = listen.map_or(LISTEN, |l| l.value.as_str());
    text.parse().map_err(|e| {
        let source = listen.map(|l| l.source.to_string()).unwrap_or_default();
        Exit::usage(format!(
            "[serve] listen = {text:?} ({source}): not an address and port: {e}"
        ))
    })
}

/// `table`'s `field` or `default`.
fn or<'a>(field: Option<&'a crate::config::Sourced<String>>, default: &'a str) -> &'a str {
    field.map_or(default, |v| v.value.as_str())
}

impl Platforms {
    /// The secret in the variable `var`, remembered for redaction; `what` names it when unset.
    fn secret(&mut self, env: Env<'_>, var: &str, what: &str) -> Result<String, Exit> {
        let value = env(var)
            .filter(|t| !t.trim().is_empty())
            .ok_or_else(|| Exit::usage(format!("rein serve: {var} ({what}) is not set")))?;
        self.secrets.push(var.to_string());
        Ok(value.trim().to_string())
    }

    fn telegram(&mut self, table: &TelegramConfig, env: Env<'_>) -> Result<(), Exit> {
        let var = or(table.token_env.as_ref(), "TELEGRAM_BOT_TOKEN");
        let token = self.secret(env, var, "the Telegram bot's token")?;
        let base = or(table.api_base.as_ref(), rein_chat::telegram::API_BASE);
        let mut bot = rein_chat::telegram::Telegram::new(base, &token);
        if let Some(url) = &table.webhook_url {
            let var = or(table.webhook_secret_env.as_ref(), "TELEGRAM_WEBHOOK_SECRET");
            let secret = self.secret(env, var, "the Telegram webhook's secret token")?;
            if !rein_chat::telegram::valid_secret(&secret) {
                return Err(Exit::usage(format!(
                    "rein serve: {var} must be 1 to 256 of A-Z, a-z, 0-9, _ and - (Telegram's \
                     rule for a webhook's secret token)"
                )));
            }
            bot = bot.with_webhook(&secret);
            self.hooks.extend(bot.hook());
            self.telegram_webhook = Some((bot.clone(), url.value.clone(), secret));
        }
        self.all.push(Arc::new(bot));
        Ok(())
    }

    /// Slack over Socket Mode when `app_token_env` is set, else by webhook.
    fn slack(&mut self, table: &SlackConfig, env: Env<'_>) -> Result<(), Exit> {
        let var = or(table.bot_token_env.as_ref(), "SLACK_BOT_TOKEN");
        let token = self.secret(env, var, "the Slack app's bot token")?;
        let base = or(table.api_base.as_ref(), rein_chat::slack::API_BASE);
        let app = match &table.app_token_env {
            Some(var) => {
                let app_token = self.secret(env, &var.value, "the Slack app-level token")?;
                rein_chat::slack::Slack::by_socket(base, &token, &app_token)
            }
            None => {
                let var = or(table.signing_secret_env.as_ref(), "SLACK_SIGNING_SECRET");
                let secret = self.secret(env, var, "the Slack app's signing secret")?;
                rein_chat::slack::Slack::by_webhook(base, &token, &secret)
            }
        };
        self.hooks.extend(app.hook());
        self.all.push(Arc::new(app));
        Ok(())
    }

    fn feishu(&mut self, table: &FeishuConfig, env: Env<'_>) -> Result<(), Exit> {
        let Some(app_id) = &table.app_id else {
            return Err(Exit::usage(
                "rein serve: [serve.feishu] needs app_id = \"cli_…\" (the app's App ID)",
            ));
        };
        let var = or(table.app_secret_env.as_ref(), "FEISHU_APP_SECRET");
        let app_secret = self.secret(env, var, "the Feishu app's App Secret")?;
        let var = or(
            table.verification_token_env.as_ref(),
            "FEISHU_VERIFICATION_TOKEN",
        );
        let token = self.secret(env, var, "the Feishu app's Verification Token")?;
        // The Encrypt Key is optional on Feishu's side; when it is set, every event must be
        // encrypted and signed with it.
        let var = or(table.encrypt_key_env.as_ref(), "FEISHU_ENCRYPT_KEY");
        let encrypt_key = match env(var).filter(|k| !k.trim().is_empty()) {
            Some(_) => Some(self.secret(env, var, "the Feishu app's Encrypt Key")?),
            None => None,
        };
        let app = rein_chat::feishu::Feishu::new(rein_chat::feishu::App {
            api_base: or(table.api_base.as_ref(), rein_chat::feishu::API_BASE),
            app_id: &app_id.value,
            app_secret: &app_secret,
            verification_token: &token,
            encrypt_key: encrypt_key.as_deref(),
        });
        self.hooks.push(app.hook());
        self.all.push(Arc::new(app));
        Ok(())
    }
}
