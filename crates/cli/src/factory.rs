//! The command line's agents for the session controller: new sessions, stored ones, and
//! model switches, from the invocation's configuration.

use rein_engine::{Agent, AgentFactory, ControlError};

use crate::sessions::Start;
use crate::setup::Setup;

impl AgentFactory for Setup {
    fn new_session(&self) -> Result<Agent, ControlError> {
        self.agent(Start::New)
            .map_err(|e| ControlError::Session(e.message.into()))
    }

    fn resume(&self, id: &str) -> Result<Agent, ControlError> {
        let store = self.settings.store.as_ref().ok_or_else(|| {
            ControlError::Session("cannot find stored sessions: set HOME or XDG_DATA_HOME".into())
        })?;
        let loaded = store
            .load(id)
            .map_err(|e| ControlError::Session(Box::new(e)))?;
        self.agent(Start::Resume(loaded))
            .map_err(|e| ControlError::Session(e.message.into()))
    }

    fn switch_model(&self, agent: &mut Agent, model: &str) -> Result<(), ControlError> {
        Setup::switch_model(self, agent, model).map_err(|e| ControlError::Model(e.message.into()))
    }

    fn fork(
        &self,
        from: &str,
        transcript: Vec<rein_protocol::Message>,
    ) -> Result<Agent, ControlError> {
        let store = self.settings.store.as_ref().ok_or_else(|| {
            ControlError::Session("cannot find stored sessions: set HOME or XDG_DATA_HOME".into())
        })?;
        let mut loaded = store
            .load(from)
            .map_err(|e| ControlError::Session(Box::new(e)))?;
        loaded.transcript = transcript;
        // What the earlier session was told stays with it.
        loaded.restored.clear();
        self.agent(Start::Fork(loaded))
            .map_err(|e| ControlError::Session(e.message.into()))
    }
}
