//! rein's permission modes as ACP session modes, its model as a session config option (and
//! `session/set_model`, which clients written before config options still send).

use agent_client_protocol::JsonRpcRequest;
use agent_client_protocol::JsonRpcResponse;
use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption, SessionId,
    SessionMode, SessionModeState,
};
use rein_policy::PermissionMode;
use serde::{Deserialize, Serialize};

/// The config option that picks the model.
pub const MODEL: &str = "model";

/// Each mode, as an editor lists it.
const MODES: [(PermissionMode, &str, &str); 5] = [
    (
        PermissionMode::Default,
        "Default",
        "Read-only tools run; edits and commands ask first",
    ),
    (
        PermissionMode::AcceptEdits,
        "Accept edits",
        "File edits in the workspace run too; other commands ask",
    ),
    (
        PermissionMode::Plan,
        "Plan",
        "Read-only: rein explores and proposes a plan, changing nothing",
    ),
    (
        PermissionMode::Auto,
        "Auto",
        "Edits and commands run, the commands in the OS sandbox (no network)",
    ),
    (
        PermissionMode::Bypass,
        "Bypass permissions",
        "Everything runs without asking (deny rules still hold)",
    ),
];

/// The modes and the current one.
pub fn state(current: PermissionMode) -> SessionModeState {
    SessionModeState::new(
        current.name(),
        MODES
            .iter()
            .map(|(mode, name, description)| {
                SessionMode::new(mode.name(), *name).description(description.to_string())
            })
            .collect(),
    )
}

/// The config option that picks the permission mode (the modes again, for editors that
/// show config options rather than modes).
pub const MODE: &str = "mode";

/// The session's config options: its mode and its model.
pub fn options(status: &rein_engine::SessionStatus) -> Vec<SessionConfigOption> {
    vec![mode_option(status.mode), model_option(&status.model)]
}

/// The mode option: rein's permission modes.
pub fn mode_option(current: PermissionMode) -> SessionConfigOption {
    let choices: Vec<SessionConfigSelectOption> = MODES
        .iter()
        .map(|(mode, name, description)| {
            SessionConfigSelectOption::new(mode.name(), *name).description(description.to_string())
        })
        .collect();
    SessionConfigOption::select(MODE, "Mode", current.name(), choices)
        .category(SessionConfigOptionCategory::Mode)
}

/// The model option: the current model and the common ones.
pub fn model_option(current: &str) -> SessionConfigOption {
    let mut choices = vec![SessionConfigSelectOption::new(
        current.to_string(),
        current.to_string(),
    )];
    choices.extend(
        rein_llm::models::COMMON
            .iter()
            .filter(|model| **model != current)
            .map(|model| SessionConfigSelectOption::new(*model, *model)),
    );
    SessionConfigOption::select(MODEL, "Model", current.to_string(), choices)
        .category(SessionConfigOptionCategory::Model)
}

/// `session/set_model` (the protocol's unstable model selection, before config options).
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/set_model", response = SetModelResponse)]
#[serde(rename_all = "camelCase")]
pub struct SetModelRequest {
    pub session_id: SessionId,
    pub model_id: String,
}

/// Its answer: nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonRpcResponse)]
pub struct SetModelResponse {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_modes_are_reins_by_their_command_line_names() {
        let wire = serde_json::to_value(state(PermissionMode::Plan)).unwrap_or_default();
        assert_eq!(wire["currentModeId"], "plan");
        let ids: Vec<&str> = (wire["availableModes"].as_array().into_iter().flatten())
            .filter_map(|mode| mode["id"].as_str())
            .collect();
        assert_eq!(ids, ["default", "accept-edits", "plan", "auto", "bypass"]);
    }

    #[test]
    fn the_mode_option_lists_the_modes_with_the_current_one() {
        let wire =
            serde_json::to_value(mode_option(PermissionMode::AcceptEdits)).unwrap_or_default();
        assert_eq!(wire["id"], "mode");
        assert_eq!(wire["category"], "mode");
        assert_eq!(wire["currentValue"], "accept-edits");
        assert_eq!(wire["options"][4]["value"], "bypass");
    }

    #[test]
    fn the_model_option_offers_the_current_model_first() {
        let wire = serde_json::to_value(model_option("my-local-model")).unwrap_or_default();
        assert_eq!(wire["id"], "model");
        assert_eq!(wire["category"], "model");
        assert_eq!(wire["currentValue"], "my-local-model");
        assert_eq!(
            wire["options"][0],
            json!({"value": "my-local-model", "name": "my-local-model"})
        );
        assert_eq!(wire["options"][1]["value"], "claude-sonnet-4-5");
    }
}
