//! How a session's screen starts: the app with this workspace's history and commands, and
//! the one rule for when a job has ended.

use std::path::PathBuf;

use rein_engine::Controller;

use crate::app::App;
use crate::history::PromptHistory;
use crate::host::SessionHost;
use crate::input::Input;
use crate::slash::Commands;
use crate::theme::Theme;

/// An `App` for the controller's agent, with this workspace's history and commands.
pub(crate) async fn new_app(driver: &Controller, host: &dyn SessionHost, theme: Theme) -> App {
    let history = PromptHistory::load(host.history_file());
    let commands = Commands::load(&host.commands());
    let warnings: Vec<String> = history.warning().map(str::to_string).into_iter().collect();
    let status = driver.status().await;
    let mut start = format!("rein {}", env!("CARGO_PKG_VERSION"));
    if let Some(workspace) = host.workspace() {
        start.push_str(&format!(" · {}", home_relative(&workspace)));
    }
    start.push_str(&format!(
        " · {} · {} mode",
        status.model,
        status.mode.name()
    ));
    let mut app = App::new(theme, commands, Input::new(history), status);
    app.info(start);
    for warning in warnings {
        app.error(warning);
    }
    app
}

/// `path` with the home folder shown as `~`.
#[allow(clippy::disallowed_methods)] // HOME shown as `~` on the start line
fn home_relative(path: &std::path::Path) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_string(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
