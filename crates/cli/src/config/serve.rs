//! `[serve]`: what `rein serve` connects to and who may talk to it — the workspace its chats
//! work in, the users allowed (`telegram:123`), the permission mode of its sessions — and one
//! table per platform (`[serve.telegram] token_env`, `api_base`). From the user's own file
//! only: a workspace must not open itself to a chat.

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
    /// Telegram's bot.
    pub telegram: Option<TelegramFile>,
}

/// `[serve.telegram]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelegramFile {
    /// The variable holding the bot's token (`TELEGRAM_BOT_TOKEN`).
    pub token_env: Option<Spanned<String>>,
    /// Another Bot API server (self-hosted, a test's).
    pub api_base: Option<Spanned<String>>,
}

/// `[serve]` merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServeConfig {
    pub workspace: Option<Sourced<String>>,
    pub allowed_users: Option<Sourced<Vec<String>>>,
    pub permission_mode: Option<Sourced<String>>,
    /// Whether `[serve.telegram]` is there.
    pub telegram: bool,
    pub telegram_token_env: Option<Sourced<String>>,
    pub telegram_api_base: Option<Sourced<String>>,
}

/// The platforms an allowlist entry may name.
pub const PLATFORMS: [&str; 1] = ["telegram"];

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
    if let Some(users) = &section.allowed_users {
        for user in users.get_ref() {
            let known = user
                .split_once(':')
                .is_some_and(|(platform, id)| PLATFORMS.contains(&platform) && !id.is_empty());
            if !known {
                let message = format!(
                    "{user:?} is not `platform:id` (platforms: {})",
                    PLATFORMS.join(", ")
                );
                return Err(reader.error(users, "serve.allowed_users", message));
            }
        }
    }
    if let Some(mode) = &section.permission_mode
        && rein_engine::permissions::PermissionMode::parse(mode.get_ref()).is_none()
    {
        return Err(reader.error(mode, "serve.permission_mode", "not a permission mode"));
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
    if let Some(telegram) = &section.telegram {
        config.serve.telegram = true;
        set(
            &mut config.serve.telegram_token_env,
            telegram.token_env.as_ref(),
            reader,
        );
        set(
            &mut config.serve.telegram_api_base,
            telegram.api_base.as_ref(),
            reader,
        );
    }
    Ok(())
}
