//! Reading and writing the settings files rein changes at the user's word (`rein mcp add`,
//! `rein config set`, `/permissions allow …`): read as they are (a missing file is empty),
//! written whole and atomically, and the workspace's trust kept when the user changed one of
//! its own files.

use std::path::Path;

use serde_json::{Value, json};

use crate::Exit;
use crate::config::trust::{TrustStore, digest};

/// Most of a settings file read.
const CAP: u64 = 1024 * 1024;

/// The TOML document at `path` (empty when there is none).
pub(crate) fn read_toml(path: &Path) -> Result<toml_edit::DocumentMut, Exit> {
    let text = read(path)?;
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| Exit::failed(format!("{}: not valid TOML: {e}", path.display())))
}

/// The JSON document at `path` (an empty object when there is none).
pub(crate) fn read_json(path: &Path) -> Result<Value, Exit> {
    let text = read(path)?;
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_str(&text)
        .map_err(|e| Exit::failed(format!("{}: not valid JSON: {e}", path.display())))
}

/// The text of the regular file at `path`, empty when there is none.
pub(crate) fn read(path: &Path) -> Result<String, Exit> {
    match rein_tools::read_regular(path, CAP) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Ok(String::new()),
        Err(e) => Err(Exit::failed(format!("cannot read {}: {e}", path.display()))),
    }
}

/// Writes `doc` pretty-printed to `path`.
pub(crate) fn write_json(path: &Path, doc: &Value) -> Result<(), Exit> {
    let text = serde_json::to_string_pretty(doc)
        .map_err(|e| Exit::failed(format!("cannot write {}: {e}", path.display())))?;
    write(path, &(text + "\n"))
}

/// Writes `text` to `path` atomically, creating its folder.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), Exit> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Exit::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    rein_tools::write_atomic(path, text.as_bytes())
        .map_err(|e| Exit::failed(format!("cannot write {}: {e}", path.display())))
}

/// Whether the user trusts the workspace's own config as it is now.
pub(crate) fn trusted(workspace: &Path) -> bool {
    let env = crate::env::process;
    crate::env::data_dir(&env)
        .is_some_and(|dir| TrustStore::new(&dir).is_trusted(workspace, &digest(workspace)))
}

/// Records the workspace's trust again after rein changed one of its files at the user's
/// word (when it was trusted before the change: the caller asks [`trusted`] first).
pub(crate) fn retrust(workspace: &Path) -> Result<(), Exit> {
    let env = crate::env::process;
    if let Some(dir) = crate::env::data_dir(&env) {
        TrustStore::new(&dir)
            .trust(workspace, &digest(workspace))
            .map_err(|e| Exit::failed(format!("cannot update the trust store: {e}")))?;
    }
    Ok(())
}
