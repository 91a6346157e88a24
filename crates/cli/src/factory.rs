//! The command line's agents for the session controller: new sessions, stored ones, and
//! model switches, from the invocation's configuration. What is set on an agent (its session
//! file, a resumed transcript, another model and what to say about it) is set here, where
//! agents are made; the front ends only pass them to the controller.

use std::path::PathBuf;
use std::sync::Arc;

use rein_engine::{Agent, AgentFactory, ControlError};
use rein_llm::ProviderKind;

use crate::resolve;
use crate::sessions::Start;
use crate::setup::Setup;

impl AgentFactory for Setup {
    fn events(&self, events: rein_engine::EventSender) -> rein_engine::EventSender {
        match &self.telemetry {
            Some(telemetry) => telemetry.tee(events),
            None => events,
        }
    }

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

    /// A client for `model` with the provider it implies (or the configured one).
    fn switch_model(&self, agent: &mut Agent, model: &str) -> Result<(), ControlError> {
        let router = &self.settings.router;
        let settings = router
            .settings(Some(model))
            .map_err(|e| ControlError::Model(e.message.into()))?;
        // The base URL was given for the run's own provider, whatever the agent uses now.
        if let Some(notice) = switch_notice(&settings, self.settings.provider.kind) {
            agent.add_notice(notice);
        }
        let model = settings.model.clone();
        agent.set_model(model, router.client(settings));
        Ok(())
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

    fn add_dir(&self, agent: &mut Agent, dir: &str) -> Result<PathBuf, ControlError> {
        Setup::add_dir(self, agent, dir)
    }
}

/// What to say when `/model` picks `settings`, guessed from the model's name, while the base
/// URL given for the run's provider `given_for` is kept: a server may not speak both protocols.
impl Setup {
    /// `/add-dir DIR`: `~/` is the home folder, a relative path starts at the workspace.
    pub fn add_dir(&self, agent: &mut Agent, dir: &str) -> Result<PathBuf, ControlError> {
        let settings = &self.settings;
        let home = crate::env::home(&crate::env::process);
        let path = match dir.trim().strip_prefix("~/") {
            Some(rest) => home
                .map(|h| h.join(rest))
                .ok_or_else(|| ControlError::Session("HOME is not set".into()))?,
            None => settings.workspace.join(dir.trim()),
        };
        let canonical = std::fs::canonicalize(&path)
            .map_err(|e| ControlError::Session(format!("cannot add {dir}: {e}").into()))?;
        let mut added = self.added.lock().unwrap_or_else(|p| p.into_inner());
        let current = added
            .sandbox
            .clone()
            .unwrap_or_else(|| settings.template.sandbox.clone());
        // Sandboxed commands see the folder read-only, as with `--add-dir`.
        let sandbox = match current {
            Some(sandbox) => {
                let mut view = sandbox.settings().clone();
                view.read_roots.push(canonical.clone());
                let found = rein_sandbox::Sandbox::find(view, crate::sandbox::helper().as_deref())
                    .map_err(|e| ControlError::Session(format!("cannot add {dir}: {e}").into()))?;
                Some(Arc::new(found))
            }
            None => None,
        };
        let canonical = agent
            .add_dir(&canonical, sandbox.clone())
            .map_err(|e| ControlError::Session(Box::new(e)))?;
        if !added.dirs.contains(&canonical) {
            added.dirs.push(canonical.clone());
        }
        added.sandbox = Some(sandbox);
        Ok(canonical)
    }
}

fn switch_notice(settings: &resolve::ProviderSettings, given_for: ProviderKind) -> Option<String> {
    let kind = settings.kind;
    if kind == given_for || settings.base_url == rein_llm::default_base_url(kind) {
        return None;
    }
    Some(format!(
        "`{}` → {}, guessed from the name, but the base URL {} was given for {} and is kept: \
         if that server does not speak {} the next request fails; restart with --provider and \
         --base-url for this model",
        settings.model,
        kind.name(),
        settings.base_url,
        given_for.name(),
        kind.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(kind: ProviderKind, model: &str, base_url: &str) -> resolve::ProviderSettings {
        resolve::ProviderSettings {
            kind,
            model: model.into(),
            base_url: base_url.into(),
            api_key: None,
            key_env: "KEY".into(),
        }
    }

    #[test]
    fn the_switch_notice_is_one_sentence_naming_the_provider_the_url_was_given_for() {
        let to_gpt = settings(ProviderKind::Openai, "gpt-5", "http://local:1");
        assert_eq!(
            switch_notice(&to_gpt, ProviderKind::Anthropic).as_deref(),
            Some(
                "`gpt-5` → openai, guessed from the name, but the base URL http://local:1 was \
                 given for anthropic and is kept: if that server does not speak openai the next \
                 request fails; restart with --provider and --base-url for this model"
            )
        );
        let back = settings(ProviderKind::Anthropic, "claude-opus-4-5", "http://local:1");
        assert_eq!(switch_notice(&back, ProviderKind::Anthropic), None);
        let default_url = rein_llm::default_base_url(ProviderKind::Openai);
        let own_url = settings(ProviderKind::Openai, "gpt-5", default_url);
        assert_eq!(switch_notice(&own_url, ProviderKind::Anthropic), None);
    }
}
