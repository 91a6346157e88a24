//! What each ACP request and notification does, as the connection's handlers call it: those
//! that wait answer from work spawned outside the dispatch loop, which waits for a handler
//! while a turn's approvals come back through it.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, PromptResponse, SessionId,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcResponse};

use super::{State, modes};

impl State {
    /// `initialize`: what the editor offers is kept for its sessions.
    pub(super) fn on_initialize(
        &self,
        request: &InitializeRequest,
        responder: Responder<InitializeResponse>,
    ) -> Result<(), Error> {
        *self.client.lock().unwrap_or_else(|p| p.into_inner()) =
            request.client_capabilities.clone();
        responder.respond(super::initialize())
    }

    /// `session/new`; the session's commands go once the editor knows it, after the answer.
    pub(super) fn on_new(
        self: &Arc<Self>,
        request: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        cx.clone().spawn(async move {
            let answer = state.new_session(request, &cx).await;
            let started = answer
                .as_ref()
                .ok()
                .and_then(|r| state.session(&r.session_id));
            let _ = responder.respond_with_result(answer);
            if let Some(session) = started {
                session.send_commands(&cx);
            }
            Ok(())
        })
    }

    pub(super) fn on_load(
        self: &Arc<Self>,
        request: LoadSessionRequest,
        responder: Responder<LoadSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        later(&cx.clone(), responder, async move {
            state.load_session(request, &cx).await
        })
    }

    pub(super) fn on_prompt(
        self: &Arc<Self>,
        request: PromptRequest,
        responder: Responder<PromptResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        later(&cx.clone(), responder, async move {
            state.prompt(request, &cx).await
        })
    }

    /// `session/cancel`: the prompt under way is cancelled (its answer says so).
    pub(super) fn on_cancel(&self, id: &SessionId) {
        if let Some(session) = self.session(id) {
            session.cancel();
        }
    }

    pub(super) fn on_set_mode(
        self: &Arc<Self>,
        request: SetSessionModeRequest,
        responder: Responder<SetSessionModeResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        later(&cx, responder, async move {
            let id = &request.session_id;
            state.set_mode(id, &request.mode_id.0).await?;
            Ok(SetSessionModeResponse::new())
        })
    }

    pub(super) fn on_set_option(
        self: &Arc<Self>,
        request: SetSessionConfigOptionRequest,
        responder: Responder<SetSessionConfigOptionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        later(
            &cx,
            responder,
            async move { state.set_option(request).await },
        )
    }

    pub(super) fn on_set_model(
        self: &Arc<Self>,
        request: modes::SetModelRequest,
        responder: Responder<modes::SetModelResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let state = Arc::clone(self);
        later(&cx, responder, async move {
            let id = &request.session_id;
            state.set_model(id, &request.model_id).await?;
            Ok(modes::SetModelResponse {})
        })
    }
}

/// Answers a request with `work`'s outcome, done outside the connection's dispatch loop.
fn later<T: JsonRpcResponse + Send + 'static>(
    cx: &ConnectionTo<Client>,
    responder: Responder<T>,
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<(), Error> {
    cx.spawn(async move {
        let _ = responder.respond_with_result(work.await);
        Ok(())
    })
}
