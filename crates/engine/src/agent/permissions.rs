//! The agent's gate as a front end sets and reads it: who answers the policy's questions,
//! the live policy, whether commands run in the OS sandbox, and the workspace it guards.

use std::sync::{Arc, Mutex};

use super::Agent;
use crate::gate::Approver;
use rein_policy::Policy;

impl Agent {
    /// The workspace's root (canonical).
    pub fn workspace(&self) -> &std::path::Path {
        self.tool_ctx.guard.root()
    }

    /// Lets `approver` answer the calls the policy asks about; without one, such calls are
    /// refused with a message saying how to allow them.
    pub fn set_approver(&mut self, approver: Arc<dyn Approver>) {
        self.gate.approver = Some(approver);
    }

    /// Lets `answerer` answer the model's questions (`ask_user_question`); without one the
    /// model is told nobody is there to answer.
    pub fn set_answerer(&mut self, answerer: Arc<dyn crate::questions::Answerer>) {
        *self.answerer.lock().unwrap_or_else(|p| p.into_inner()) = Some(answerer);
    }

    /// The live permission policy (a front end may switch the mode mid-session).
    pub fn policy(&self) -> Arc<Mutex<Policy>> {
        Arc::clone(&self.gate.policy)
    }

    /// Whether shell commands can run in the OS sandbox (`auto` mode needs it).
    pub fn sandboxed(&self) -> bool {
        self.tool_ctx.sandbox.is_some()
    }
}
