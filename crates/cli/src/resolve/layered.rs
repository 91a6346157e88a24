//! What `rein config show` prints beside the files: the values the environment and the
//! defaults that depend on other settings give, resolved as a run resolves them.

use super::DEFAULT;
use crate::Exit;
use crate::config::{Config, Sourced};

/// The values a run takes from beyond the files (the environment, built-in defaults that
/// depend on other settings), by key, with where they came from, for `rein config show`; an
/// environment variable that names no permission mode is an error, as for a run.
pub fn layered(
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(&'static str, Sourced<String>)>, Exit> {
    let routing = super::routing(&crate::overrides::Route::default(), env, config);
    let quoted = |s: &Sourced<String>| Sourced {
        value: format!("{:?}", s.value),
        source: s.source.clone(),
    };
    let model = match (&routing.model, routing.model_name()) {
        (Some(model), Some(name)) if name != model.value => Sourced {
            value: format!("{:?} ({name})", model.value),
            source: model.source.clone(),
        },
        (Some(model), _) => quoted(model),
        (None, _) => Sourced {
            value: "(none: openai-chat needs a model named)".into(),
            source: DEFAULT.into(),
        },
    };
    let provider = Sourced {
        value: format!("{:?}", routing.kind.value.name()),
        source: routing.kind.source.clone(),
    };
    let mut layered = vec![
        ("model", model),
        ("provider", provider),
        ("base_url", quoted(&routing.base_url)),
        ("api_key_env", quoted(&routing.key_env)),
    ];
    if let Some(mode) = super::permission_mode(None, env, config)? {
        let mode = Sourced {
            value: format!("{:?}", mode.value.name()),
            source: mode.source,
        };
        layered.push(("permission_mode", mode));
    }
    Ok(layered)
}
