//! The keys that route requests: `provider`, `base_url` and `api_key_env`. Only the user's own
//! file routes credentials (`base_url`, `api_key_env`); a workspace's, trusted or not, is held
//! back, lest a repository send the user's key to a server of its choosing.

use super::file::TomlFile;
use super::{Config, ConfigError, Reader, Scope, Why, ignore};

/// Adds the routing keys of `file` to `config`; an unknown provider or a `base_url` that is not
/// HTTP is an error.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
) -> Result<(), ConfigError> {
    let scope = reader.source.scope;
    if let Some(provider) = &file.provider {
        if !matches!(
            provider.get_ref().as_str(),
            "anthropic" | "openai" | "openai-chat"
        ) {
            return Err(reader.error(
                provider,
                "provider",
                format!(
                    "unknown provider {:?}; expected anthropic, openai or openai-chat",
                    provider.get_ref()
                ),
            ));
        }
        config.provider = Some(reader.sourced(provider));
    }
    if let Some(url) = &file.base_url {
        if !(url.get_ref().starts_with("http://") || url.get_ref().starts_with("https://")) {
            return Err(reader.error(url, "base_url", "must start with http:// or https://"));
        }
        if scope == Scope::User {
            config.base_url = Some(reader.sourced(url));
        } else {
            let what = format!("base_url = {:?}", url.get_ref());
            ignore(config, what, reader.at(url), Why::Credentials);
        }
    }
    if let Some(key_env) = &file.api_key_env {
        if scope == Scope::User {
            config.api_key_env = Some(reader.sourced(key_env));
        } else {
            let what = format!("api_key_env = {:?}", key_env.get_ref());
            ignore(config, what, reader.at(key_env), Why::Credentials);
        }
    }
    Ok(())
}
