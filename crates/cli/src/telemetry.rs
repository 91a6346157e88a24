//! Telemetry for every front end: started with the settings (`[telemetry]`, the `OTEL_*`
//! variables, `--trace FILE`), fed the session's events through the controller's sender,
//! flushed at exit; and `rein trace FILE`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_telemetry::Telemetry;

use crate::Exit;
use crate::settings::Settings;

/// Starts telemetry as configured, or `None` when nothing is to be recorded.
pub fn start(settings: &Settings, trace: Option<PathBuf>) -> Result<Option<Telemetry>, Exit> {
    let resolved = rein_telemetry::Settings::resolve(
        &crate::env::process,
        &settings.config.telemetry.section(),
        trace,
        crate::VERSION,
    )
    .map_err(|e| Exit::usage(e.to_string()))?;
    // The values the agent itself keeps out of transcripts and commands.
    let hidden = rein_tools::HiddenEnv::with(settings.template.hidden_env.iter().cloned());
    let redact: rein_telemetry::Redact =
        Arc::new(move |text: &str| hidden.redact(text).into_owned());
    if resolved.traces.is_some() || resolved.metrics.is_some() {
        // The OTLP/HTTP exporter's client needs the process's TLS provider.
        rein_llm::install_tls_provider();
    }
    Telemetry::start(&resolved, redact).map_err(|e| Exit::usage(e.to_string()))
}

/// Flushes what is queued (bounded in time) and says what was lost, if anything.
pub async fn finish(telemetry: Option<&Telemetry>) {
    let Some(telemetry) = telemetry else {
        return;
    };
    let finish = telemetry.finish().await;
    if finish.dropped > 0 {
        eprintln!(
            "rein: telemetry: {} spans did not reach the collector (unreachable, or the queue \
             was full)",
            finish.dropped
        );
    } else if finish.timed_out {
        eprintln!("rein: telemetry: the collector did not take everything before the exit");
    }
}

/// `rein trace FILE`: the spans of a `--trace` file as a tree with timings.
pub fn print_trace(path: &Path) -> Result<(), Exit> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Exit::usage(format!("{}: {e}", path.display())))?;
    let tree = rein_telemetry::render_trace(&text)
        .map_err(|e| Exit::usage(format!("{}: {e}", path.display())))?;
    crate::output::print_all(&tree)
}
