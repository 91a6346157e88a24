//! Workspace trust. A workspace's own files (`.rein/`, `.claude/`, `.mcp.json`) come with the
//! repository, so whoever wrote the repository wrote them: until the user trusts the workspace
//! they can only make rein stricter (see [`super::Scope`]). Trust is stored per workspace in the
//! user's data directory and tied to a digest of those files (and of the hook scripts kept
//! beside them), so a `git pull` or a write by the model that changes them asks again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A trusted workspace's durable scheduled jobs, relative to its root (covered by trust).
pub const JOBS_IN_WORKSPACE: &str = ".rein/scheduled_tasks.json";

/// The workspace files trust covers, relative to the root.
pub const TRUSTED_FILES: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".rein/config.toml",
    ".rein/config.local.toml",
    ".mcp.json",
    JOBS_IN_WORKSPACE,
];

/// Folders whose files (hook scripts, agent definitions, commands, skills) are covered too,
/// relative to the root.
const TRUSTED_DIRS: &[&str] = &[
    ".claude/hooks",
    ".rein/hooks",
    ".claude/agents",
    ".rein/agents",
    ".claude/commands",
    ".rein/commands",
    ".claude/skills",
    ".rein/skills",
];

/// Folders of files that only a trusted workspace may add — agent definitions (subagents'
/// prompts, tools and models), custom commands and skills (prompts, `!` commands, allow
/// rules) — as (what one file is, folder relative to the root).
pub const PROMPT_DIRS: &[(&str, &str)] = &[
    ("agent definition", ".claude/agents"),
    ("agent definition", ".rein/agents"),
    ("command", ".claude/commands"),
    ("command", ".rein/commands"),
    ("skill", ".claude/skills"),
    ("skill", ".rein/skills"),
];

/// Most files of [`TRUSTED_DIRS`] hashed; past it the digest notes the overflow.
const MAX_DIR_FILES: usize = 500;

/// Most of one covered file hashed (config files and hook scripts are far smaller); a larger
/// one, or one that is not a regular file, is hashed as what it is, unread.
const MAX_COVERED_FILE_BYTES: u64 = 1024 * 1024;

/// Most of `trust.json` read; a larger one is damaged and trusts nothing.
const MAX_STORE_BYTES: u64 = 4 * 1024 * 1024;

/// A covered file's bytes, or a marker of why it was not read (so making it a FIFO or a link
/// to a device changes the digest too); `None` when absent.
fn covered(path: &Path) -> Option<Vec<u8>> {
    match rein_tools::read_regular_bytes(path, MAX_COVERED_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(refused) => Some(format!("unread: {refused}").into_bytes()),
    }
}

/// The digest of what trust covers in `workspace`: each covered file's path and contents
/// (absent files count as absent, so creating one changes the digest).
pub fn digest(workspace: &Path) -> String {
    let mut hasher = Sha256::new();
    let mut add = |name: &str, contents: Option<Vec<u8>>| {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        match contents {
            Some(bytes) => {
                hasher.update((bytes.len() as u64).to_le_bytes());
                hasher.update(&bytes);
            }
            None => hasher.update(b"absent"),
        }
    };
    for name in TRUSTED_FILES {
        add(name, covered(&workspace.join(name)));
    }
    for dir in TRUSTED_DIRS {
        let mut files = Vec::new();
        collect_files(&workspace.join(dir), &mut files);
        files.sort();
        if files.len() > MAX_DIR_FILES {
            add(&format!("{dir}: {} files", files.len()), None);
            files.truncate(MAX_DIR_FILES);
        }
        for file in files {
            let name = file.strip_prefix(workspace).unwrap_or(&file);
            add(&name.display().to_string(), covered(&file));
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether any file trust covers exists (a workspace without them has nothing to trust).
pub fn has_workspace_config(workspace: &Path) -> bool {
    TRUSTED_FILES
        .iter()
        .chain(TRUSTED_DIRS)
        .any(|name| workspace.join(name).exists())
}

fn collect_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if into.len() > MAX_DIR_FILES {
            return;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_files(&path, into),
            Ok(_) => into.push(path),
            Err(_) => {}
        }
    }
}

/// The user's trust decisions: `<data dir>/trust.json`, workspace path → digest trusted.
#[derive(Debug, Clone)]
pub struct TrustStore {
    file: PathBuf,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    #[serde(default)]
    workspaces: BTreeMap<String, String>,
}

impl TrustStore {
    /// The store in rein's data directory.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            file: data_dir.join("trust.json"),
        }
    }

    /// Whether the user trusted `workspace` as its covered files are now (`digest`).
    pub fn is_trusted(&self, workspace: &Path, digest: &str) -> bool {
        self.read()
            .workspaces
            .get(&workspace.display().to_string())
            .is_some_and(|d| d == digest)
    }

    /// Records that the user trusts `workspace` as it is now (`digest`).
    pub fn trust(&self, workspace: &Path, digest: &str) -> std::io::Result<()> {
        let mut store = self.read();
        store.version = 1;
        store
            .workspaces
            .insert(workspace.display().to_string(), digest.to_string());
        self.write(&store)
    }

    /// Forgets any trust in `workspace`; whether there was any.
    pub fn revoke(&self, workspace: &Path) -> std::io::Result<bool> {
        let mut store = self.read();
        let had = store
            .workspaces
            .remove(&workspace.display().to_string())
            .is_some();
        if had {
            self.write(&store)?;
        }
        Ok(had)
    }

    /// The stored decisions; an unreadable, damaged or oversized file (or anything but a
    /// regular file) trusts nothing.
    fn read(&self) -> StoreFile {
        rein_tools::read_regular(&self.file, MAX_STORE_BYTES)
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    fn write(&self, store: &StoreFile) -> std::io::Result<()> {
        if let Some(dir) = self.file.parent() {
            rein_tools::private::create_private_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(store).map_err(std::io::Error::other)?;
        rein_tools::write_atomic_private(&self.file, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_holds_until_a_covered_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".rein")).unwrap();
        std::fs::write(ws.join(".rein/config.toml"), "model = \"a\"\n").unwrap();
        let store = TrustStore::new(&dir.path().join("data"));
        let before = digest(&ws);
        assert!(!store.is_trusted(&ws, &before));
        store.trust(&ws, &before).unwrap();
        assert!(store.is_trusted(&ws, &digest(&ws)));

        // A new hook script, a changed config, a new .mcp.json: each asks again.
        for (file, text) in [
            (".claude/hooks/pre.sh", "echo hi"),
            (".rein/config.toml", "model = \"b\"\n"),
            (".mcp.json", "{}"),
        ] {
            let path = ws.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            assert!(!store.is_trusted(&ws, &digest(&ws)), "{file}");
            store.trust(&ws, &digest(&ws)).unwrap();
        }
        assert!(store.revoke(&ws).unwrap());
        assert!(!store.is_trusted(&ws, &digest(&ws)));
    }

    #[test]
    fn special_covered_files_are_hashed_unread_and_promptly() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".claude/hooks")).unwrap();
        std::fs::create_dir_all(ws.join(".rein")).unwrap();
        let plain = digest(ws);
        std::os::unix::fs::symlink("/dev/zero", ws.join(".claude/settings.json")).unwrap();
        nix::unistd::mkfifo(&ws.join(".mcp.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        nix::unistd::mkfifo(
            &ws.join(".claude/hooks/pre.sh"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .unwrap();
        std::fs::create_dir(ws.join(".rein/config.toml")).unwrap();
        std::fs::File::create(ws.join(".rein/config.local.toml"))
            .unwrap()
            .set_len(10 * 1024 * 1024)
            .unwrap();
        let folder = ws.to_path_buf();
        let special = rein_testkit::without_hanging("the digest", move || digest(&folder));
        assert_ne!(special, plain, "planting them changes the digest");
        assert_eq!(digest(ws), special, "and the digest is stable");
    }

    #[test]
    fn a_store_that_is_not_a_regular_file_trusts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(
            &dir.path().join("trust.json"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .unwrap();
        let store = TrustStore::new(dir.path());
        assert!(!store.is_trusted(dir.path(), "x"));
        // Recording trust replaces it with a real file.
        store.trust(dir.path(), "x").unwrap();
        assert!(store.is_trusted(dir.path(), "x"));
    }

    #[test]
    fn a_damaged_store_trusts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("trust.json"), "{not json").unwrap();
        let store = TrustStore::new(dir.path());
        assert!(!store.is_trusted(dir.path(), &digest(dir.path())));
        store.trust(dir.path(), "x").unwrap();
        assert!(store.is_trusted(dir.path(), "x"));
    }
}
