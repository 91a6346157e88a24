//! Folders added to the workspace during a session (`/add-dir`): the guard, the OS sandbox's
//! view and the system prompt take the folder from the next call on, as `--add-dir` gives it
//! at the start.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Agent;
use crate::EngineError;

impl Agent {
    /// Adds the existing folder `dir`: the file tools read and write it under the same
    /// sensitive-path rules as the workspace, `sandbox` (the OS sandbox that shows it to
    /// commands; `None` when there is none) replaces the current one, and the system prompt
    /// names it. The folder's canonical path; nothing changes when it cannot be added.
    pub fn add_dir(
        &mut self,
        dir: &Path,
        sandbox: Option<Arc<rein_sandbox::Sandbox>>,
    ) -> Result<PathBuf, EngineError> {
        let guard = self
            .tool_ctx
            .guard
            .clone()
            .with_added_dir(dir)
            .map_err(|e| EngineError::Workspace {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })?;
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if !self.config.added_dirs.contains(&canonical) {
            self.config.added_dirs.push(canonical.clone());
        }
        self.config.sandbox.clone_from(&sandbox);
        self.tool_ctx.sandbox = sandbox;
        let (system, _) = super::setup::system_prompt(&guard, &self.toolset.registry, &self.config);
        self.system = system;
        self.tool_ctx.guard = guard;
        Ok(canonical)
    }

    /// The folders added to the workspace, canonical.
    pub fn added_dirs(&self) -> &[PathBuf] {
        self.tool_ctx.guard.added_dirs()
    }
}
