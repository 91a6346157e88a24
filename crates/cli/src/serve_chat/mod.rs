//! `rein serve`: rein in the team chat. One process listens to the configured platforms
//! (Telegram by long polling, Slack and Feishu by webhook) and gives each chat its own session in `[serve] workspace`, answering only
//! the users of `[serve] allowed_users`; everyone else is ignored (and said on stderr). A
//! chat's reply streams into one message, edited at the platform's pace, with the tool calls
//! listed; `/new`, `/stop` and `/status` steer the chat's session.

mod approve;
mod chat;
mod kept;
mod place;
mod platforms;
mod redact;
mod reply;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rein_chat::{ChatId, Incoming, Platform};

use crate::Exit;
use chat::Chat;
use place::Place;

/// The longest wait before asking an unreachable platform again.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// `rein serve`'s flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeChatArgs {
    #[command(flatten)]
    pub route: crate::mcp_args::ModelRoute,
}

/// What every chat shares.
struct Server {
    /// The platforms, each redacting what it posts.
    platforms: Vec<Arc<dyn Platform>>,
    /// The workspaces the chats work in (`[serve]`'s, `[serve.chats]`'s).
    places: Vec<Arc<Place>>,
    chats: Mutex<HashMap<ChatId, Arc<Chat>>>,
    /// Each chat's session, for a restart.
    kept: kept::Kept,
}

/// Runs `rein serve` until interrupted.
pub async fn run(args: ServeChatArgs) -> Result<(), Exit> {
    let here = crate::resolve::workspace(None)?;
    let config = crate::trust::load_for_reading(&here)?;
    let env = crate::env::process;
    // What is missing of the places and of the platforms is said in one run.
    let (planned, platforms) = match (
        place::planned(&config, &env),
        platforms::configured(&config, &env),
    ) {
        (Ok(planned), Ok(platforms)) => (planned, platforms),
        (Err(a), Err(b)) => return Err(Exit::usage(format!("{}; {}", a.message, b.message))),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let platforms::Platforms {
        all,
        hooks,
        mut secrets,
        telegram_webhook,
    } = platforms;
    let listen = match hooks.is_empty() {
        true => None,
        false => Some(platforms::listen(&config)?),
    };
    let places = place::set_up(planned, &args.route).await?;
    // Nothing posted carries a provider key, a platform's secret or any other secret of a
    // place's settings (`--api-key-env` and each workspace's own key variable among them).
    for place in &places {
        secrets.extend(place.setup.settings.secrets.names().iter().cloned());
    }
    let hidden = rein_tools::HiddenEnv::with(secrets);
    let platforms = all
        .into_iter()
        .map(|inner| {
            Arc::new(redact::Redacting {
                inner,
                hidden: hidden.clone(),
            }) as Arc<dyn Platform>
        })
        .collect();
    let server = Arc::new(Server {
        platforms,
        places,
        chats: Mutex::default(),
        kept: kept::Kept::load(crate::resolve::Folders::of(&env).data),
    });
    // The webhook server runs as long as `rein serve` does.
    let _webhooks = match listen {
        Some(addr) => Some(webhooks(addr, hooks).await?),
        None => None,
    };
    if let Some((bot, url, secret)) = telegram_webhook {
        bot.set_webhook(&url, &secret)
            .await
            .map_err(|e| Exit::usage(format!("rein serve: Telegram's webhook is not set: {e}")))?;
        eprintln!("rein serve: Telegram sends its updates to {url}");
    }
    let names: Vec<&str> = server.platforms.iter().map(|p| p.name()).collect();
    for place in &server.places {
        let chats = place.chat.as_deref().unwrap_or("every other chat");
        eprintln!(
            "rein serve: listening on {} for {} user(s); sessions of {chats} in {}",
            names.join(", "),
            place.allowed.len(),
            place.workspace.display()
        );
    }
    tokio::select! {
        () = server.clone().listen() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    server.close().await;
    Ok(())
}

/// Starts the webhook server on `addr` for `hooks` and says where it listens.
async fn webhooks(
    addr: std::net::SocketAddr,
    hooks: Vec<Arc<dyn rein_chat::webhook::Hook>>,
) -> Result<tokio::task::JoinHandle<()>, Exit> {
    let paths: Vec<&str> = hooks.iter().flat_map(|h| h.paths()).collect();
    let (local, task) = rein_chat::webhook::serve(addr, hooks)
        .await
        .map_err(|e| Exit::usage(format!("rein serve: cannot listen on {addr}: {e}")))?;
    eprintln!(
        "rein serve: webhooks at http://{local} ({})",
        paths.join(", ")
    );
    Ok(task)
}

impl Server {
    /// Takes what arrives, forever; an unreachable platform is asked again after 1, 2, 4…
    /// seconds, up to 30.
    async fn listen(self: Arc<Self>) {
        let mut listening = tokio::task::JoinSet::new();
        for platform in &self.platforms {
            listening.spawn(Arc::clone(&self).listen_to(Arc::clone(platform)));
        }
        while listening.join_next().await.is_some() {}
    }

    /// Takes what arrives from `platform`, forever.
    async fn listen_to(self: Arc<Self>, platform: Arc<dyn Platform>) {
        let mut failures = 0u32;
        loop {
            match platform.next().await {
                Ok(items) => {
                    failures = 0;
                    for item in items {
                        self.take(&platform, item);
                    }
                }
                Err(e) => {
                    failures += 1;
                    let wait = Duration::from_secs(1 << (failures - 1).min(5)).min(MAX_BACKOFF);
                    eprintln!("rein serve: {e}; asking again in {}s", wait.as_secs());
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    /// Routes one arrival to its chat; one from a user not on the list goes nowhere.
    fn take(self: &Arc<Self>, platform: &Arc<dyn Platform>, item: Incoming) {
        let Some(place) = place::of(&self.places, item.chat()) else {
            eprintln!(
                "rein serve: ignored a message from {} in {} (no [serve.chats] entry for it)",
                item.user(),
                item.chat()
            );
            return;
        };
        if !place.allowed.contains(item.user()) {
            eprintln!(
                "rein serve: ignored a message from {} in {} (not in {})",
                item.user(),
                item.chat(),
                place.allowlist()
            );
            return;
        }
        let chat = {
            let mut chats = self.chats.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(chats.entry(item.chat().clone()).or_insert_with(|| {
                let (id, platform) = (item.chat().clone(), Arc::clone(platform));
                Arc::new(Chat::new(id, platform, Arc::clone(place)))
            }))
        };
        // A press answers an approval the prompt under way waits for, and `/stop` cancels
        // it: both at once. Everything else in the chat's order, one after the other.
        let now = match &item {
            Incoming::Pressed { .. } => true,
            Incoming::Message { text, .. } => text.trim() == "/stop",
        };
        if now {
            let server = Arc::clone(self);
            tokio::spawn(async move { chat.take(&server, item).await });
        } else {
            chat.enqueue(self, item);
        }
    }

    /// Ends every chat's session (saved as it is).
    async fn close(&self) {
        let chats: Vec<Arc<Chat>> = self
            .chats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        for chat in chats {
            chat.close().await;
        }
        for place in &self.places {
            place.setup.close().await;
        }
    }
}
