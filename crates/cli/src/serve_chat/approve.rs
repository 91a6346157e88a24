//! Approvals in the chat: a call that needs one is posted with buttons (allow once, allow
//! such calls for the session, deny); the first press by an allowed user of that chat answers
//! it, and the message then says what was decided.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_chat::{Button, ChatId, Platform};
use rein_engine::{Approval, ApprovalRequest, Approver};
use tokio::sync::oneshot;

/// The longest diff shown in an approval.
const DIFF_CHARS: usize = 1500;

/// The approvals a chat waits for, by the token in their buttons' data.
#[derive(Default)]
pub(super) struct Pending {
    waiting: Mutex<HashMap<String, oneshot::Sender<Approval>>>,
    next: AtomicU64,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Approval>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Answers the approval a button's `data` names; what to tell the presser.
    pub(super) fn press(&self, data: &str) -> &'static str {
        let Some((token, choice)) = data.split_once(':') else {
            return "That button is not rein's.";
        };
        let (approval, said) = match choice {
            "once" => (Approval::AllowOnce, "Allowed."),
            "session" => (Approval::AllowForSession, "Allowed for this session."),
            "deny" => (Approval::Deny { note: None }, "Denied."),
            _ => return "That button is not rein's.",
        };
        let waiting = self.lock().remove(token);
        match waiting.map(|w| w.send(approval)) {
            Some(Ok(())) => said,
            _ => "Already answered.",
        }
    }
}

/// Asks a chat about calls.
pub(super) struct ChatApprover {
    pub(super) platform: Arc<dyn Platform>,
    pub(super) chat: ChatId,
    pub(super) pending: Arc<Pending>,
}

#[async_trait]
impl Approver for ChatApprover {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        let token = format!("a{}", self.pending.next.fetch_add(1, Ordering::Relaxed));
        let (answer, answered) = oneshot::channel();
        self.pending.lock().insert(token.clone(), answer);
        let question = question(&request);
        let always = match &request.session_rule {
            Some(rule) => format!("Allow {rule} this session"),
            None => "Allow for this session".to_string(),
        };
        let buttons = [
            Button {
                label: "Allow".into(),
                data: format!("{token}:once"),
            },
            Button {
                label: always,
                data: format!("{token}:session"),
            },
            Button {
                label: "Deny".into(),
                data: format!("{token}:deny"),
            },
        ];
        let posted = match self.platform.post(&self.chat, &question, &buttons).await {
            Ok(posted) => posted,
            Err(e) => {
                self.pending.lock().remove(&token);
                let note = format!("the approval could not be asked in the chat: {e}");
                return Approval::Deny { note: Some(note) };
            }
        };
        // A cancelled turn drops the sender: that is a denial.
        let approval = answered.await.unwrap_or(Approval::Deny { note: None });
        let decided = match approval {
            Approval::AllowOnce => "Allowed",
            Approval::AllowForSession => "Allowed for this session",
            _ => "Denied",
        };
        let text = format!("{decided}: {} {}", request.tool, request.summary);
        let _ = self.platform.edit(&posted, text.trim_end(), &[]).await;
        approval
    }
}

/// What the message asking about `request` says: the call, why it asks, the change.
fn question(request: &ApprovalRequest) -> String {
    let who = request
        .agent
        .as_deref()
        .map(|a| format!(" (subagent {a})"))
        .unwrap_or_default();
    let mut text = format!(
        "rein wants to run {} {}{who}\n{}",
        request.tool, request.summary, request.reason
    );
    if let Some(diff) = &request.diff {
        let shown: String = diff.chars().take(DIFF_CHARS).collect();
        text.push_str("\n\n");
        text.push_str(&shown);
        if shown.len() < diff.len() {
            text.push_str("\n…");
        }
    }
    text
}
