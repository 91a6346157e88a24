//! `[serve]`: what `rein serve` connects to and who may talk to it — the workspace its chats
//! work in, the users allowed (`telegram:123`), the permission mode of its sessions — and one
//! table per platform (`[serve.telegram]`, `[serve.slack]`, `[serve.feishu]`: the variables
//! holding their secrets, `api_base`), and `listen`, the webhook server's address. From the
//! user's own file only: a workspace must not open itself to a chat.

use serde::Deserialize;
use toml::Spanned;

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, Scope, Sourced, Why, ignore, set};

/// `[serve]` as a file writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeFile {
    /// The folder every chat's session works in.
    pub workspace: Option<Spanned<String>>,
    /// Who may talk to rein: `platform:id`.
    pub allowed_users: Option<Spanned<Vec<String>>>,
    /// The chats' permission mode (`default`; `auto` and `bypass` only when written here).
    pub permission_mode: Option<Spanned<String>>,
    /// Where the webhook server listens (`127.0.0.1:8790`), for Slack and Feishu.
    pub listen: Option<Spanned<String>>,
    /// Telegram's bot.
    pub telegram: Option<TelegramFile>,
    /// Slack's app.
    pub slack: Option<SlackFile>,
    /// Feishu's (or Lark's) app.
    pub feishu: Option<FeishuFile>,
    /// Chats (or channels, with their threads) working in a workspace of their own, each
    /// with its own allowlist: `[serve.chats."slack:C0123ABCD"]`.
    pub chats: Option<std::collections::BTreeMap<String, ChatFile>>,
}

/// `[serve.chats."platform:id"]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatFile {
    /// The folder the chat's sessions work in.
    pub workspace: Option<Spanned<String>>,
    /// Who may talk to rein there.
    pub allowed_users: Option<Spanned<Vec<String>>>,
    /// Its permission mode (else `[serve]`'s).
    pub permission_mode: Option<Spanned<String>>,
}

/// `[serve.telegram]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelegramFile {
    /// The variable holding the bot's token (`TELEGRAM_BOT_TOKEN`).
    pub token_env: Option<Spanned<String>>,
    /// Another Bot API server (self-hosted, a test's).
    pub api_base: Option<Spanned<String>>,
    /// The public address Telegram sends updates to (a webhook instead of long polling).
    pub webhook_url: Option<Spanned<String>>,
    /// The variable holding the webhook's secret token (`TELEGRAM_WEBHOOK_SECRET`).
    pub webhook_secret_env: Option<Spanned<String>>,
}

/// `[serve.slack]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlackFile {
    /// The variable holding the bot's token (`SLACK_BOT_TOKEN`, `xoxb-…`).
    pub bot_token_env: Option<Spanned<String>>,
    /// The variable holding the app's signing secret (`SLACK_SIGNING_SECRET`).
    pub signing_secret_env: Option<Spanned<String>>,
    /// The variable holding the app-level token (`xapp-…`): Socket Mode instead of webhooks.
    pub app_token_env: Option<Spanned<String>>,
    /// Another Web API server (a test's).
    pub api_base: Option<Spanned<String>>,
}

/// `[serve.feishu]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeishuFile {
    /// The app's App ID (`cli_…`).
    pub app_id: Option<Spanned<String>>,
    /// The variable holding its App Secret (`FEISHU_APP_SECRET`).
    pub app_secret_env: Option<Spanned<String>>,
    /// The variable holding its Verification Token (`FEISHU_VERIFICATION_TOKEN`).
    pub verification_token_env: Option<Spanned<String>>,
    /// The variable holding its Encrypt Key (`FEISHU_ENCRYPT_KEY`).
    pub encrypt_key_env: Option<Spanned<String>>,
    /// Lark's `https://open.larksuite.com`, or a test server.
    pub api_base: Option<Spanned<String>>,
}

/// `[serve]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServeConfig {
    pub workspace: Option<Sourced<String>>,
    pub allowed_users: Option<Sourced<Vec<String>>>,
    pub permission_mode: Option<Sourced<String>>,
    pub listen: Option<Sourced<String>>,
    /// `[serve.telegram]`, when there.
    pub telegram: Option<TelegramConfig>,
    /// `[serve.slack]`, when there.
    pub slack: Option<SlackConfig>,
    /// `[serve.feishu]`, when there.
    pub feishu: Option<FeishuConfig>,
    /// `[serve.chats.*]`, by chat.
    pub chats: std::collections::BTreeMap<String, ChatConfig>,
}

/// `[serve.chats."platform:id"]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatConfig {
    pub workspace: Option<Sourced<String>>,
    pub allowed_users: Option<Sourced<Vec<String>>>,
    pub permission_mode: Option<Sourced<String>>,
}

/// `[serve.telegram]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TelegramConfig {
    pub token_env: Option<Sourced<String>>,
    pub api_base: Option<Sourced<String>>,
    pub webhook_url: Option<Sourced<String>>,
    pub webhook_secret_env: Option<Sourced<String>>,
}

/// `[serve.slack]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlackConfig {
    pub bot_token_env: Option<Sourced<String>>,
    pub signing_secret_env: Option<Sourced<String>>,
    pub app_token_env: Option<Sourced<String>>,
    pub api_base: Option<Sourced<String>>,
}

/// `[serve.feishu]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeishuConfig {
    pub app_id: Option<Sourced<String>>,
    pub app_secret_env: Option<Sourced<String>>,
    pub verification_token_env: Option<Sourced<String>>,
    pub encrypt_key_env: Option<Sourced<String>>,
    pub api_base: Option<Sourced<String>>,
}

/// The platforms an allowlist entry may name.
pub const PLATFORMS: [&str; 3] = ["telegram", "slack", "feishu"];

/// Adds `[serve]` of `file` to `config` (from the user's own file only).
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let Some(section) = &file.serve else {
        return Ok(());
    };
    if reader.source.scope != Scope::User {
        ignore(
            config,
            "[serve]".to_string(),
            reader.source.path.clone(),
            Why::UserOnly,
        );
        return Ok(());
    }
    check_users(
        section.allowed_users.as_ref(),
        "serve.allowed_users",
        reader,
    )?;
    check_mode(
        section.permission_mode.as_ref(),
        "serve.permission_mode",
        reader,
    )?;
    for (chat, file) in section.chats.iter().flatten() {
        merge_chat(config, chat, file, reader)?;
    }
    set(
        &mut config.serve.workspace,
        section.workspace.as_ref(),
        reader,
    );
    set(
        &mut config.serve.allowed_users,
        section.allowed_users.as_ref(),
        reader,
    );
    set(
        &mut config.serve.permission_mode,
        section.permission_mode.as_ref(),
        reader,
    );
    set(&mut config.serve.listen, section.listen.as_ref(), reader);
    if let Some(file) = &section.telegram {
        merge_telegram(config.serve.telegram.get_or_insert_default(), file, reader);
    }
    if let Some(file) = &section.slack {
        merge_slack(config.serve.slack.get_or_insert_default(), file, reader);
    }
    if let Some(file) = &section.feishu {
        merge_feishu(config.serve.feishu.get_or_insert_default(), file, reader);
    }
    Ok(())
}

fn merge_telegram(table: &mut TelegramConfig, file: &TelegramFile, reader: &Reader<'_>) {
    set(&mut table.token_env, file.token_env.as_ref(), reader);
    set(&mut table.api_base, file.api_base.as_ref(), reader);
    set(&mut table.webhook_url, file.webhook_url.as_ref(), reader);
    let secret = file.webhook_secret_env.as_ref();
    set(&mut table.webhook_secret_env, secret, reader);
}

fn merge_slack(table: &mut SlackConfig, file: &SlackFile, reader: &Reader<'_>) {
    set(
        &mut table.bot_token_env,
        file.bot_token_env.as_ref(),
        reader,
    );
    let secret = file.signing_secret_env.as_ref();
    set(&mut table.signing_secret_env, secret, reader);
    set(
        &mut table.app_token_env,
        file.app_token_env.as_ref(),
        reader,
    );
    set(&mut table.api_base, file.api_base.as_ref(), reader);
}

fn merge_feishu(table: &mut FeishuConfig, file: &FeishuFile, reader: &Reader<'_>) {
    set(&mut table.app_id, file.app_id.as_ref(), reader);
    set(
        &mut table.app_secret_env,
        file.app_secret_env.as_ref(),
        reader,
    );
    let token = file.verification_token_env.as_ref();
    set(&mut table.verification_token_env, token, reader);
    set(
        &mut table.encrypt_key_env,
        file.encrypt_key_env.as_ref(),
        reader,
    );
    set(&mut table.api_base, file.api_base.as_ref(), reader);
}

/// Whether `text` is `platform:id` of a known platform.
fn is_platform_id(text: &str) -> bool {
    text.split_once(':')
        .is_some_and(|(platform, id)| PLATFORMS.contains(&platform) && !id.is_empty())
}

/// Every user of an allowlist is `platform:id`.
fn check_users(
    users: Option<&Spanned<Vec<String>>>,
    key: &str,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let Some(users) = users else { return Ok(()) };
    match users.get_ref().iter().find(|user| !is_platform_id(user)) {
        None => Ok(()),
        Some(user) => {
            let message = format!(
                "{user:?} is not `platform:id` (platforms: {})",
                PLATFORMS.join(", ")
            );
            Err(reader.error(users, key, message))
        }
    }
}

/// A permission mode is one rein knows.
fn check_mode(
    mode: Option<&Spanned<String>>,
    key: &str,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    match mode {
        Some(mode) if rein_policy::PermissionMode::parse(mode.get_ref()).is_none() => {
            Err(reader.error(mode, key, "not a permission mode"))
        }
        _ => Ok(()),
    }
}

/// `[serve.chats."platform:id"]`: a chat's own workspace, allowlist and mode.
fn merge_chat(
    config: &mut Config,
    chat: &str,
    file: &ChatFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let key = format!("serve.chats.{chat:?}");
    if !is_platform_id(chat) {
        let message = format!(
            "{chat:?} is not `platform:id` (platforms: {})",
            PLATFORMS.join(", ")
        );
        return Err(ConfigError {
            path: reader.source.path.clone(),
            line: None,
            key: Some(key),
            message,
        });
    }
    check_users(
        file.allowed_users.as_ref(),
        &format!("{key}.allowed_users"),
        reader,
    )?;
    check_mode(
        file.permission_mode.as_ref(),
        &format!("{key}.permission_mode"),
        reader,
    )?;
    let table = config.serve.chats.entry(chat.to_string()).or_default();
    set(&mut table.workspace, file.workspace.as_ref(), reader);
    set(
        &mut table.allowed_users,
        file.allowed_users.as_ref(),
        reader,
    );
    set(
        &mut table.permission_mode,
        file.permission_mode.as_ref(),
        reader,
    );
    Ok(())
}
