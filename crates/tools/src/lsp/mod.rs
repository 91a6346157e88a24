//! The session's language servers as the tools use them: a change a tool made (an edit, a
//! write, a patch, a command that changed files the servers have open) is given to them and
//! the errors it brought are added to the tool's result; a read opens the file in its server
//! so the server is ready by the first edit. The servers run confined like commands
//! ([`SessionLaunch`]). The `diagnostics`, `definition`, `references` and `hover` tools are in
//! [`tools`].

mod tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rein_code::lsp::{Launch, Launched, Servers};

use crate::bash::confine::{self, Attach, Confinement};
use crate::{ToolContext, ToolDetails, ToolOutput};

pub use tools::{
    DIAGNOSTICS, DiagnosticsArgs, DiagnosticsTool, LSP_TOOLS, PlaceArgs, PlaceTool, lsp_tools,
};

/// The session's language servers, shared by its agents (none when no server was found or
/// they are turned off).
#[derive(Debug, Clone, Default)]
pub struct Code(Option<Arc<Servers>>);

impl Code {
    /// A handle on `servers`.
    pub fn new(servers: Arc<Servers>) -> Self {
        Self(Some(servers))
    }

    /// The servers, when there are any.
    pub fn servers(&self) -> Option<&Arc<Servers>> {
        self.0.as_ref()
    }

    /// `output` of a call, with what the servers say of the files it changed added; a read
    /// opens its file in the background. Calls that touch no file the servers read cost a
    /// match, nothing more.
    pub(crate) async fn after_call(&self, output: ToolOutput, ctx: &ToolContext) -> ToolOutput {
        let Some(servers) = &self.0 else {
            return output;
        };
        // A failed edit changed nothing; a failed command may have.
        let command = matches!(output.details.as_deref(), Some(ToolDetails::Command(_)));
        if output.is_error && !command {
            return output;
        }
        let launch = || -> Arc<dyn Launch> { Arc::new(SessionLaunch::new(ctx)) };
        let reports = match output.details.as_deref() {
            Some(ToolDetails::Read(read)) => {
                if servers.reads(&read.path) {
                    servers.opened(&read.path, launch());
                }
                return output;
            }
            Some(ToolDetails::Command(_)) => servers.after_command(launch()).await,
            Some(details) => {
                let paths = changed_paths(details, ctx);
                if !paths.iter().any(|p| servers.reads(p)) {
                    return output;
                }
                servers.changed(&paths, launch()).await
            }
            None => return output,
        };
        let settings = servers.settings();
        let said = rein_code::lsp::render_changes(
            &reports,
            servers.workspace(),
            settings.shown,
            settings.max_diagnostics,
        );
        match said {
            Some(said) => {
                let mut output = output;
                output.text = format!("{}\n\n{}", output.text.trim_end(), said.trim_end());
                output
            }
            None => output,
        }
    }

    /// Shuts the servers down, each given `grace` to exit.
    pub async fn shutdown(&self, grace: std::time::Duration) {
        if let Some(servers) = &self.0 {
            servers.shutdown(grace).await;
        }
    }
}

/// The files a change made, absolute and inside the workspace.
fn changed_paths(details: &ToolDetails, ctx: &ToolContext) -> Vec<PathBuf> {
    match details {
        ToolDetails::Edit(edit) => vec![edit.path.clone()],
        ToolDetails::Write(write) => vec![write.path.clone()],
        ToolDetails::Patch(changes) => changes
            .iter()
            .map(|change| ctx.guard.root().join(&change.path))
            .collect(),
        ToolDetails::Read(_) | ToolDetails::Command(_) => Vec::new(),
    }
}

/// Starts a language server as a command of the session is started: in the OS sandbox under
/// the session's policy (the network cut), without the provider keys in its environment.
pub struct SessionLaunch {
    ctx: ToolContext,
}

impl SessionLaunch {
    /// A launcher with `ctx`'s sandbox, policy, workspace and hidden variables, and nothing
    /// else of the call's: a server starting in the background must not keep the call's
    /// progress sink (and so the session's event stream) open.
    pub fn new(ctx: &ToolContext) -> Self {
        Self {
            ctx: ToolContext {
                sandbox: ctx.sandbox.clone(),
                sandbox_policy: ctx.sandbox_policy,
                hidden_env: ctx.hidden_env.clone(),
                ..ToolContext::new(ctx.guard.clone())
            },
        }
    }
}

impl Launch for SessionLaunch {
    fn command(&self, program: &Path, args: &[String], root: &Path) -> std::io::Result<Launched> {
        let ctx = &self.ctx;
        let policy = confine::policy(Confinement::Session, ctx).map_err(std::io::Error::other)?;
        let tmp = tempfile::Builder::new().prefix("rein-lsp-").tempdir()?;
        let mut fds = Vec::new();
        let mut command = confine::confined(
            policy,
            ctx,
            (root, tmp.path()),
            (Attach::Pipes, program),
            &mut fds,
        )?;
        command_fds::CommandFdExt::fd_mappings(&mut command, fds).map_err(std::io::Error::other)?;
        command.args(args).current_dir(root);
        for var in ["TMPDIR", "TMP", "TEMP"] {
            command.env(var, tmp.path());
        }
        ctx.hidden_env.apply(&mut command);
        Ok(Launched {
            command,
            keep: Box::new(tmp),
        })
    }
}
