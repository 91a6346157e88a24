//! One chat's session: started at the chat's first prompt, asked one prompt at a time,
//! steered by `/new`, `/stop` and `/status`.

use std::sync::{Arc, Mutex};

use rein_chat::{ChatId, Incoming, Platform};
use tokio_util::sync::CancellationToken;

use super::Server;
use super::approve::{ChatApprover, Pending};
use super::place::Place;
use super::reply::Reply;
use crate::hosted::Hosted;
use crate::overrides::StartAt;

const HELP: &str = "Send a task and rein works on it here. /new starts a new session, /stop \
                    cancels the work under way, /status shows the session, /mode NAME changes \
                    its permission mode (plan, default, accept-edits…), /undo puts back the \
                    files the last prompt changed.";

/// A chat and its session.
pub(super) struct Chat {
    id: ChatId,
    /// Its platform.
    platform: Arc<dyn Platform>,
    /// Its workspace, allowlist and setup.
    place: Arc<Place>,
    session: tokio::sync::Mutex<Option<Arc<Hosted>>>,
    /// Cancels the prompt under way.
    cancel: Mutex<CancellationToken>,
    /// The approvals asked in the chat and not answered yet.
    pending: Arc<Pending>,
    /// Where the chat's messages wait their turn (its worker started with the first).
    queue: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<Incoming>>,
}

impl Chat {
    pub(super) fn new(id: ChatId, platform: Arc<dyn Platform>, place: Arc<Place>) -> Self {
        Self {
            id,
            platform,
            place,
            session: tokio::sync::Mutex::default(),
            cancel: Mutex::new(CancellationToken::new()),
            pending: Arc::default(),
            queue: std::sync::OnceLock::new(),
        }
    }

    /// Queues `item` behind the chat's earlier messages.
    pub(super) fn enqueue(self: &Arc<Self>, server: &Arc<Server>, item: Incoming) {
        let queue = self.queue.get_or_init(|| {
            let (queue, mut waiting) = tokio::sync::mpsc::unbounded_channel();
            let (chat, server) = (Arc::clone(self), Arc::clone(server));
            tokio::spawn(async move {
                while let Some(item) = waiting.recv().await {
                    chat.take(&server, item).await;
                }
            });
            queue
        });
        let _ = queue.send(item);
    }

    /// Handles what arrived from an allowed user.
    pub(super) async fn take(&self, server: &Server, item: Incoming) {
        match item {
            Incoming::Message { text, .. } => match text.trim() {
                "/new" => self.renew(server).await,
                "/stop" => {
                    self.lock_cancel().cancel();
                    self.say("Stopping the work under way.").await;
                }
                "/status" => self.status().await,
                "/undo" => self.undo().await,
                command if command.starts_with("/mode") => {
                    let name = command.trim_start_matches("/mode").trim();
                    self.mode(server, name).await;
                }
                "/start" | "/help" => self.say(HELP).await,
                _ => self.prompt(server, text).await,
            },
            Incoming::Pressed { press, data, .. } => {
                let said = self.pending.press(&data);
                let _ = self.platform.acknowledge(&press, said).await;
            }
        }
    }

    fn lock_cancel(&self) -> std::sync::MutexGuard<'_, CancellationToken> {
        self.cancel.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn say(&self, text: &str) {
        if let Err(e) = self.platform.post(&self.id, text, &[]).await {
            eprintln!("rein serve: {}: {e}", self.id);
        }
    }

    /// The chat's session, started now if it has none.
    async fn session(&self, server: &Server) -> Result<Arc<Hosted>, String> {
        let mut session = self.session.lock().await;
        if let Some(hosted) = session.as_ref() {
            return Ok(Arc::clone(hosted));
        }
        let approver = Arc::new(ChatApprover {
            platform: Arc::clone(&self.platform),
            chat: self.id.clone(),
            pending: Arc::clone(&self.pending),
        });
        let key = self.id.to_string();
        let kept = server.kept.session(&key);
        let start = |at| crate::overrides::SessionStart { at, fork: false };
        let at = kept.map_or(StartAt::New, StartAt::Resume);
        let resumed = at != StartAt::New;
        let setup = Arc::clone(&self.place.setup);
        let started = match Hosted::on(Arc::clone(&setup), &start(at), Some(approver.clone())) {
            Ok(hosted) => Ok(hosted),
            // The kept session is gone (pruned, moved): a new one.
            Err(_) if resumed => Hosted::on(setup, &start(StartAt::New), Some(approver)),
            Err(e) => Err(e),
        };
        let hosted = Arc::new(started.map_err(|e| e.message)?);
        server.kept.set(&key, Some(&hosted.id));
        *session = Some(Arc::clone(&hosted));
        Ok(hosted)
    }

    async fn prompt(&self, server: &Server, text: String) {
        let hosted = match self.session(server).await {
            Ok(hosted) => hosted,
            Err(why) => {
                return self.say(&format!("rein could not start: {why}")).await;
            }
        };
        let cancel = CancellationToken::new();
        *self.lock_cancel() = cancel.clone();
        let mut reply = Reply::new(Arc::clone(&self.platform), self.id.clone());
        match hosted.ask(text, &mut reply, &cancel).await {
            Ok(answer) => reply.finish(&answer).await,
            Err(crate::hosted::Busy) => {
                let busy = "Still working on the last message; /stop cancels it.";
                self.say(busy).await;
            }
        }
    }

    /// `/new`: the session ends (saved as it is); the next prompt starts another.
    async fn renew(&self, server: &Server) {
        self.lock_cancel().cancel();
        let ended = self.session.lock().await.take();
        if let Some(hosted) = ended {
            hosted.end().await;
        }
        server.kept.set(&self.id.to_string(), None);
        self.say("Started a new session.").await;
    }

    async fn status(&self) {
        let hosted = self.session.lock().await.clone();
        let Some(hosted) = hosted else {
            return self.say("No session yet: send a task to start one.").await;
        };
        let status = hosted.status().await;
        let cost = status
            .cost_usd
            .map(|c| format!(", ${c:.4}"))
            .unwrap_or_default();
        let text = format!(
            "Session {}: {} in {} mode; {} tokens in, {} out{cost}; {}.",
            status.session_id,
            status.model,
            status.mode.name(),
            status.usage.input_tokens,
            status.usage.output_tokens,
            if status.running { "working" } else { "idle" },
        );
        self.say(&text).await;
    }

    /// `/mode NAME`: a mode no broader than `[serve] permission_mode` allows (`auto` and
    /// `bypass` only when it names them).
    async fn mode(&self, server: &Server, name: &str) {
        let Some(mode) = rein_policy::PermissionMode::parse(name) else {
            let known = "plan, default, accept-edits, auto, bypass";
            return self.say(&format!("/mode takes one of: {known}.")).await;
        };
        if mode.at_most(self.place.widest) != mode {
            let said = format!(
                "{} is broader than this server allows ({}; [serve] permission_mode sets it).",
                mode.name(),
                self.place.widest.name()
            );
            return self.say(&said).await;
        }
        let said = match self.session(server).await {
            Ok(hosted) => match hosted.apply(rein_engine::Op::SetMode(mode)).await {
                Ok(_) => format!("Mode: {}.", mode.name()),
                Err(e) => format!("The mode stays: {e}"),
            },
            Err(why) => format!("rein could not start: {why}"),
        };
        self.say(&said).await;
    }

    /// `/undo`: the files the last prompt changed are put back (a file changed since rein
    /// wrote it is kept, and said).
    async fn undo(&self) {
        let hosted = self.session.lock().await.clone();
        let Some(hosted) = hosted else {
            return self.say("No session yet: nothing to undo.").await;
        };
        // The prompt before it may have sent its answer and not yet ended its job.
        hosted.idle().await;
        let op = rein_engine::Op::Rewind {
            back: 1,
            what: rein_engine::RewindWhat::Code,
            restore: rein_engine::Restore::KeepChanged,
        };
        let said = match hosted.apply(op).await {
            Ok(rein_engine::Applied::Rewound { files, .. }) if files.is_empty() => {
                "The last prompt changed no file.".to_string()
            }
            Ok(rein_engine::Applied::Rewound { files, .. }) => {
                format!("Put back:\n{}", files.join("\n"))
            }
            Ok(_) => "Nothing to undo.".to_string(),
            Err(e) => format!("Nothing undone: {e}"),
        };
        self.say(&said).await;
    }

    /// Ends the session, if any.
    pub(super) async fn close(&self) {
        self.lock_cancel().cancel();
        if let Some(hosted) = self.session.lock().await.take() {
            hosted.end().await;
        }
    }
}
