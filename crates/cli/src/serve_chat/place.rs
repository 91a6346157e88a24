//! Where a chat works: `[serve]`'s workspace for every chat, or the workspace of the chat's
//! own `[serve.chats."platform:id"]` entry (a channel's entry covers its threads and topics),
//! each with its own allowlist, permission mode and setup (settings, MCP servers, language
//! servers). A chat only ever reaches its own place's workspace.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use rein_chat::ChatId;
use rein_policy::PermissionMode;

use crate::Exit;
use crate::config::Config;
use crate::config::serve::ChatConfig;
use crate::config::{Sourced, serve::ServeConfig};
use crate::env::Env;
use crate::overrides::{Mode, Overrides};

/// A workspace the chats of `rein serve` work in.
pub(super) struct Place {
    /// Its `[serve.chats]` entry (`None`: `[serve]`'s, for every other chat).
    pub(super) chat: Option<String>,
    pub(super) workspace: PathBuf,
    /// Who may talk to rein there.
    pub(super) allowed: HashSet<String>,
    /// The settings, MCP servers and language servers its chats' sessions share.
    pub(super) setup: Arc<crate::setup::Setup>,
    /// The broadest mode `/mode` may choose: its own.
    pub(super) widest: PermissionMode,
}

impl Place {
    /// Where its allowlist is written, for the log.
    pub(super) fn allowlist(&self) -> String {
        match &self.chat {
            Some(chat) => format!("[serve.chats.\"{chat}\"] allowed_users"),
            None => "[serve] allowed_users".into(),
        }
    }
}

/// A place checked, not set up yet.
pub(super) struct Planned {
    chat: Option<String>,
    workspace: PathBuf,
    allowed: HashSet<String>,
    /// Its permission mode (`default` unless `[serve]` says otherwise).
    mode: PermissionMode,
}

/// The places of `[serve]`; why `rein serve` does not start when a workspace has no
/// allowlist or there is no workspace.
pub(super) fn planned(config: &Config, env: Env<'_>) -> Result<Vec<Planned>, Exit> {
    let serve = &config.serve;
    let own = ChatConfig {
        workspace: serve.workspace.clone(),
        allowed_users: serve.allowed_users.clone(),
        permission_mode: serve.permission_mode.clone(),
    };
    let mut wanted: Vec<(Option<String>, ChatConfig)> = Vec::new();
    if serve.workspace.is_some() || serve.chats.is_empty() {
        wanted.push((None, own));
    }
    for (chat, entry) in &serve.chats {
        wanted.push((Some(chat.clone()), inherited(entry, serve)));
    }
    wanted
        .into_iter()
        .map(|(chat, entry)| plan(chat, &entry, env))
        .collect()
}

/// Each of `planned` set up with `route` (settings read, MCP servers started).
pub(super) async fn set_up(
    planned: Vec<Planned>,
    route: &crate::mcp_args::ModelRoute,
) -> Result<Vec<Arc<Place>>, Exit> {
    let mut places = Vec::new();
    for plan in planned {
        // `auto` and `bypass` only when `[serve]` says so: the user's usual mode is not the
        // chat's.
        let mode = plan.mode;
        let base = Overrides {
            route: route.overrides(),
            cwd: Some(plan.workspace.clone()),
            mode: Some(Mode::Named(mode)),
            ..Overrides::default()
        };
        let mut setup = crate::setup::Setup::new(&base, crate::trust::Asking::Never)?;
        setup.start_mcp().await;
        places.push(Arc::new(Place {
            chat: plan.chat,
            workspace: plan.workspace,
            allowed: plan.allowed,
            setup: Arc::new(setup),
            widest: mode,
        }));
    }
    Ok(places)
}

/// `entry` with what it leaves out taken from `[serve]`.
fn inherited(entry: &ChatConfig, serve: &ServeConfig) -> ChatConfig {
    ChatConfig {
        workspace: entry.workspace.clone().or(serve.workspace.clone()),
        allowed_users: entry.allowed_users.clone().or(serve.allowed_users.clone()),
        permission_mode: entry
            .permission_mode
            .clone()
            .or(serve.permission_mode.clone()),
    }
}

fn plan(chat: Option<String>, entry: &ChatConfig, env: Env<'_>) -> Result<Planned, Exit> {
    let table = match &chat {
        Some(chat) => format!("[serve.chats.\"{chat}\"]"),
        None => "[serve]".into(),
    };
    let allowed: HashSet<String> = entry
        .allowed_users
        .as_ref()
        .map(|u| u.value.iter().cloned().collect())
        .unwrap_or_default();
    // Everything missing is named at once, as lines to paste.
    let mut missing = Vec::new();
    if allowed.is_empty() {
        missing.push(format!(
            "{table} allowed_users = [\"telegram:<your user id>\"]   # rein serve answers only \
             listed users"
        ));
    }
    if entry.workspace.is_none() {
        missing.push(format!(
            "{table} workspace = \"~/code/project\"   # the folder its chats work in"
        ));
    }
    let Some(workspace) = entry.workspace.as_ref().filter(|_| missing.is_empty()) else {
        return Err(Exit::usage(format!(
            "rein serve needs, in your config.toml: {}",
            missing.join("; ")
        )));
    };
    let mode = match &entry.permission_mode {
        Some(named) => PermissionMode::parse(&named.value).ok_or_else(|| {
            Exit::usage(format!(
                "{}: permission_mode: unknown permission mode {:?}",
                named.source, named.value
            ))
        })?,
        None => PermissionMode::Default,
    };
    Ok(Planned {
        chat,
        workspace: folder(workspace, env)?,
        allowed,
        mode,
    })
}

/// The workspace folder `written` names (`~/` is the home folder), as it is on disk.
fn folder(written: &Sourced<String>, env: Env<'_>) -> Result<PathBuf, Exit> {
    let path = match (written.value.strip_prefix("~/"), crate::env::home(env)) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(&written.value),
    };
    path.canonicalize().map_err(|e| {
        Exit::usage(format!(
            "[serve] workspace {} ({}): {e}",
            written.value, written.source
        ))
    })
}

/// The place of `chat`: its own entry's, its channel's (a thread's or topic's chat is
/// `channel/thread`), else `[serve]`'s; none when only other chats have one.
pub(super) fn of<'a>(places: &'a [Arc<Place>], chat: &ChatId) -> Option<&'a Arc<Place>> {
    let id = chat.to_string();
    let channel = id.split_once('/').map(|(channel, _)| channel);
    let entry = |key: &str| places.iter().find(|p| p.chat.as_deref() == Some(key));
    entry(&id)
        .or_else(|| channel.and_then(entry))
        .or_else(|| places.iter().find(|p| p.chat.is_none()))
}
