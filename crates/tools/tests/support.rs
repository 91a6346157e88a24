//! A temp workspace with a registry of the built-in tools.

use std::path::{Path, PathBuf};

use rein_tools::{
    SensitivePaths, ToolContext, ToolDetails, ToolOutput, ToolRegistry, WorkspaceGuard,
};
use serde_json::Value;

/// A temp directory holding the workspace `ws` (and room for things outside it).
pub struct Workspace {
    _dir: tempfile::TempDir,
    /// The canonical workspace root.
    pub root: PathBuf,
    /// A canonical directory next to the workspace, outside it.
    pub outside: PathBuf,
    /// The home folder `~` stands for (next to the workspace; never the user's own).
    pub home: PathBuf,
    pub registry: ToolRegistry,
    pub ctx: ToolContext,
}

impl Workspace {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let sensitive =
            SensitivePaths::new(rein_tools::DEFAULT_SENSITIVE.iter().copied(), Some(&home))
                .unwrap();
        let guard = WorkspaceGuard::new(&root)
            .unwrap()
            .with_home(&home)
            .with_sensitive(sensitive);
        let ctx = ToolContext::new(guard);
        Self {
            _dir: dir,
            root,
            outside,
            home,
            registry: ToolRegistry::builtin(),
            ctx,
        }
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// What the model sees of a call: its text and whether it failed (details left out; see
    /// [`Workspace::details`]).
    pub async fn call(&self, tool: &str, args: Value) -> ToolOutput {
        ToolOutput {
            details: None,
            ..self.registry.call(tool, args, &self.ctx).await
        }
    }

    /// What a call states about what it did, as data (what hooks get).
    pub async fn details(&self, tool: &str, args: Value) -> Option<ToolDetails> {
        self.registry
            .call(tool, args, &self.ctx)
            .await
            .details
            .map(|d| *d)
    }
}

/// Whether a process is gone (or a zombie nobody reaps yet, which is dead all the same).
pub fn process_is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")) {
        Err(_) => true,
        // "pid (comm) S ..." — the state follows the last ')'.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// Waits (up to 5 s) for every pid to die.
pub async fn assert_all_die(pids: &[u32]) {
    for _ in 0..100 {
        if pids.iter().all(|pid| process_is_dead(*pid)) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let alive: Vec<_> = pids.iter().filter(|p| !process_is_dead(**p)).collect();
    panic!("processes still alive: {alive:?}");
}

/// The numbers after `key=` in the text, e.g. `pids(out, "pid")` for lines `pid=123`.
pub fn pids(text: &str, key: &str) -> Vec<u32> {
    let prefix = format!("{key}=");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|n| n.trim().parse().unwrap())
        .collect()
}
