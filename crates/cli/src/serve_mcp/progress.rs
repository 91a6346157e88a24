//! Progress notifications to the MCP client while a prompt runs: each tool call, errors,
//! retries (when its call carried a progress token).

use async_trait::async_trait;
use rein_protocol::Event;
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;

/// Where progress goes: the client, when its call carried a progress token.
pub struct Progress {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    sent: u32,
}

impl Progress {
    pub fn new(peer: Peer<RoleServer>, token: Option<ProgressToken>) -> Self {
        Self {
            peer,
            token,
            sent: 0,
        }
    }

    /// Tells the client what happens now (nothing without a token).
    pub async fn say(&mut self, message: String) {
        let Some(token) = &self.token else { return };
        self.sent += 1;
        let mut param = ProgressNotificationParam::new(token.clone(), f64::from(self.sent));
        param.message = Some(message);
        let _ = self.peer.notify_progress(param).await;
    }
}

#[async_trait]
impl crate::hosted::Sink for Progress {
    async fn event(&mut self, event: Event) {
        let event = &event;
        if let Some(message) = progress_line(event) {
            self.say(message).await;
        }
    }
}

/// What a client is told of `event`, if anything.
fn progress_line(event: &Event) -> Option<String> {
    match event {
        Event::ToolCallStart { name, summary, .. } => Some(format!("{name} {summary}")),
        Event::Error { message } => Some(format!("error: {message}")),
        Event::Retry { reason, .. } => Some(format!("retrying: {reason}")),
        Event::Compaction { .. } => Some("compacting the conversation".to_string()),
        Event::PermissionRequest { name, .. } => Some(format!("asking to run {name}")),
        _ => None,
    }
}
