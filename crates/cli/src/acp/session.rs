//! One ACP session: rein's hosted session, its workspace, the prompt under way (to cancel), and
//! the updates it streams to the editor.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ClientCapabilities, Cost,
    CurrentModeUpdate, SessionId, SessionNotification, SessionUpdate, StopReason,
    UnstructuredCommandInput, UsageUpdate,
};
use async_trait::async_trait;
use rein_engine::Approver;
use rein_policy::PermissionMode;
use rein_protocol::{Event, RunOutcome};
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::hosted::Hosted;
use crate::overrides::Overrides;

/// A session the editor drives.
pub struct AcpSession {
    pub hosted: Hosted,
    pub id: SessionId,
    pub workspace: PathBuf,
    /// Cancels the prompt under way (`session/cancel`).
    running: Mutex<Option<CancellationToken>>,
    /// Pictures saved from prompts so far.
    pictures: AtomicU32,
    /// The mode the editor was last told.
    mode: Mutex<PermissionMode>,
    /// Whether the editor shows a command's output in a terminal of its own (Zed's
    /// display-only terminal).
    terminals: bool,
}

/// How a prompt ended, for `session/prompt`'s answer.
pub enum Ended {
    Stopped(StopReason),
    /// The run failed: the error the editor shows.
    Failed(String),
}

impl AcpSession {
    /// Starts the session `args` say, asking the editor about calls through `connection`
    /// and using its buffers and terminals as far as its capabilities say.
    pub async fn start(
        args: &Overrides,
        connection: &ConnectionTo<Client>,
        client: &ClientCapabilities,
    ) -> Result<Self, Exit> {
        let files = &client.fs;
        // The approver and the editor's files need the session's id and workspace, which only
        // the started session knows.
        let slot: Arc<OnceLock<(SessionId, PathBuf)>> = Arc::default();
        let approver: Arc<dyn Approver> = Arc::new(super::permission::AskEditor {
            connection: connection.clone(),
            session: Arc::clone(&slot),
        });
        let editor = (files.read_text_file || files.write_text_file).then(|| {
            let files: Arc<dyn rein_tools::EditorFiles> = Arc::new(super::files::ClientFiles {
                connection: connection.clone(),
                session: Arc::clone(&slot),
                reads: files.read_text_file,
                writes: files.write_text_file,
            });
            files
        });
        let hosted = Hosted::start(args, Some(approver), rein_tools::Editor(editor)).await?;
        let id = SessionId::new(hosted.id.clone());
        let workspace = hosted.setup.settings.workspace.clone();
        let _ = slot.set((id.clone(), workspace.clone()));
        let mode = hosted.status().await.mode;
        Ok(Self {
            hosted,
            id,
            workspace,
            running: Mutex::default(),
            pictures: AtomicU32::new(0),
            mode: Mutex::new(mode),
            terminals: shows_terminals(client),
        })
    }

    /// Sends `update` to the editor.
    pub fn send(&self, connection: &ConnectionTo<Client>, update: SessionUpdate) {
        let _ = connection.send_notification(SessionNotification::new(self.id.clone(), update));
    }

    /// Tells the editor the session's slash commands and skills.
    pub fn send_commands(&self, connection: &ConnectionTo<Client>) {
        let catalog = self.hosted.setup.commands();
        let commands = catalog
            .for_user()
            .map(|found| {
                let mut command =
                    AvailableCommand::new(found.name.clone(), found.description.clone());
                if let Some(hint) = &found.argument_hint {
                    command = command.input(AvailableCommandInput::Unstructured(
                        UnstructuredCommandInput::new(hint),
                    ));
                }
                command
            })
            .collect();
        self.send(
            connection,
            SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands)),
        );
    }

    /// Runs `prompt` to its end, streaming its updates.
    pub async fn prompt(&self, prompt: String, connection: &ConnectionTo<Client>) -> Ended {
        let token = CancellationToken::new();
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = Some(token.clone());
        let mut sink = Updates {
            session: self,
            connection,
            live: std::collections::HashMap::new(),
        };
        let reply = self.hosted.ask(prompt, &mut sink, &token).await;
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let status = self.hosted.settled_status().await;
        self.tell_mode(connection, &status);
        self.tell_usage(connection, &status);
        let Ok(reply) = reply else {
            return Ended::Failed(
                "the session is still working on a prompt; cancel it or wait".to_string(),
            );
        };
        match reply.outcome {
            RunOutcome::Completed => Ended::Stopped(StopReason::EndTurn),
            RunOutcome::MaxTurns => Ended::Stopped(StopReason::MaxTurnRequests),
            RunOutcome::Cancelled => Ended::Stopped(StopReason::Cancelled),
            RunOutcome::MaxBudget => {
                self.send(
                    connection,
                    super::updates::message("\n\n(stopped: the session reached its budget)"),
                );
                Ended::Stopped(StopReason::EndTurn)
            }
            RunOutcome::Failed => Ended::Failed(if reply.text.is_empty() {
                "the run failed (see the messages above)".to_string()
            } else {
                reply.text
            }),
        }
    }

    /// Cancels the prompt under way, if one is.
    pub fn cancel(&self) {
        if let Some(token) = &*self.running.lock().unwrap_or_else(|p| p.into_inner()) {
            token.cancel();
        }
    }

    /// Says the current mode when it changed since the editor was told (a plan approved in
    /// another mode, a mode set by rein itself).
    fn tell_mode(&self, connection: &ConnectionTo<Client>, status: &rein_engine::SessionStatus) {
        let now = status.mode;
        let changed = {
            let mut told = self.mode.lock().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *told, now) != now
        };
        if changed {
            self.send(
                connection,
                SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(now.name())),
            );
        }
    }

    /// Tells the editor how full the context is and what the session cost.
    fn tell_usage(&self, connection: &ConnectionTo<Client>, status: &rein_engine::SessionStatus) {
        let usage = UsageUpdate::new(status.context_tokens, status.context_window)
            .cost(status.cost_usd.map(|usd| Cost::new(usd, "USD")));
        self.send(connection, SessionUpdate::UsageUpdate(usage));
    }

    /// Records a mode the editor set itself (nothing to tell it).
    pub fn mode_set(&self, mode: PermissionMode) {
        *self.mode.lock().unwrap_or_else(|p| p.into_inner()) = mode;
    }

    /// Takes the next picture number.
    pub fn next_picture(&self) -> u32 {
        self.pictures.fetch_add(1, Ordering::SeqCst)
    }
}

/// A prompt's events as updates to the editor.
struct Updates<'a> {
    session: &'a AcpSession,
    connection: &'a ConnectionTo<Client>,
    /// What each running command printed so far (its live output, cut to its end); `None`
    /// for one shown in the editor's terminal.
    live: std::collections::HashMap<String, Option<String>>,
}

#[async_trait]
impl crate::hosted::Sink for Updates<'_> {
    async fn event(&mut self, event: Event) {
        let event = &event;
        use super::updates;
        let update = match event {
            Event::ToolOutputDelta { id, text } => {
                match self
                    .live
                    .entry(id.clone())
                    .or_insert_with(|| Some(String::new()))
                {
                    Some(so_far) => updates::live_output(id, so_far, text),
                    None => updates::terminal_output(id, text),
                }
            }
            Event::ToolCallStart {
                id,
                name,
                input,
                summary,
            } if self.session.terminals && updates::in_terminal(name) => {
                self.live.insert(id.clone(), None);
                let workspace = &self.session.workspace;
                let call = updates::tool_call(id, name, input, summary, workspace);
                SessionUpdate::ToolCall(updates::with_terminal(call, workspace))
            }
            Event::ToolCallEnd { id, .. } if self.live.get(id) == Some(&None) => {
                self.live.remove(id);
                match updates::terminal_end(event) {
                    Some(update) => update,
                    None => return,
                }
            }
            other => {
                if let Event::ToolCallEnd { id, .. } = other {
                    self.live.remove(id);
                }
                match updates::update_of(other, &self.session.workspace) {
                    Some(update) => update,
                    None => return,
                }
            }
        };
        self.session.send(self.connection, update);
    }
}

/// Whether the editor offers Zed's display-only terminal (`_meta.terminal_output: true` in
/// its capabilities).
fn shows_terminals(client: &ClientCapabilities) -> bool {
    (client.meta.as_ref())
        .and_then(|meta| meta.get("terminal_output"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}
