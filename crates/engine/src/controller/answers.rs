//! Permission questions answered through the controller: the engine reports each question as
//! an `Event::PermissionRequest` (a subagent's comes wrapped in `Event::Subagent`) and waits;
//! the front end answers with `Op::Answer` naming the call.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use tokio::sync::oneshot;

use crate::{Approval, ApprovalRequest, Approver};

/// Questions waiting for an [`crate::Op::Answer`], by call id.
#[derive(Default)]
pub struct Answers {
    waiting: Mutex<HashMap<String, oneshot::Sender<Approval>>>,
}

impl Answers {
    /// Answers the question about call `id`; `false` when none waits under that id.
    pub fn answer(&self, id: &str, approval: Approval) -> bool {
        let sender = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        sender.is_some_and(|sender| sender.send(approval).is_ok())
    }

    /// The ids of the calls waiting for an answer.
    pub fn waiting(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect();
        ids.sort();
        ids
    }
}

#[async_trait]
impl Approver for Answers {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        let (reply, answer) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request.id, reply);
        // Dropped unanswered (the controller went away): refused.
        answer.await.unwrap_or(Approval::Deny { note: None })
    }
}
