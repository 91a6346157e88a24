//! After a call: what a mount could not hold, put right. A `commondir` names a path that does
//! not exist in a main git folder until a command writes it, and an empty one breaks git, so
//! no placeholder can be bound there in advance.

use std::path::{Path, PathBuf};

use super::MODULE_DEPTH;
use super::writable::{Located, WritableView};

/// Moves aside a `commondir` written into a main git folder of `workspace` (or of the
/// checkout it is in, when that lies in `writable_roots`), and says so: a mount cannot hold a
/// name that does not exist, so this is checked after every `workspace-write` call.
pub fn disarm(workspace: &Path, writable_roots: &[PathBuf]) -> Vec<String> {
    let view = WritableView::new(workspace, writable_roots);
    let mut tops = vec![workspace.to_path_buf()];
    if let Some(top) = workspace
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(".git").is_dir())
        && let Ok(Located::Writable(top)) = view.locate(top)
    {
        tops.push(top);
    }
    let mut dirs: Vec<PathBuf> = tops
        .iter()
        .map(|top| top.join(".git"))
        .filter(|dir| dir.is_dir())
        .collect();
    let mut notes = Vec::new();
    while let Some(dir) = dirs.pop() {
        let commondir = dir.join("commondir");
        if commondir.symlink_metadata().is_ok() {
            let aside = dir.join("commondir.rein-blocked");
            notes.push(match std::fs::rename(&commondir, &aside) {
                Ok(()) => format!(
                    "[sandbox: the command wrote {} (git would take hooks and config from \
                     where it points); rein moved it to {}]",
                    commondir.display(),
                    aside.display()
                ),
                Err(e) => format!(
                    "[sandbox: the command wrote {} (git would take hooks and config from \
                     where it points) and rein could not move it aside ({e}): remove it before \
                     running git]",
                    commondir.display()
                ),
            });
        }
        dirs.extend(module_dirs(&dir.join("modules"), 0));
    }
    notes
}

/// Submodule git folders under `dir`.
fn module_dirs(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        let real_dir = path.symlink_metadata().is_ok_and(|m| m.is_dir());
        if real_dir && path.join("HEAD").exists() {
            found.push(path);
        } else if real_dir && depth < MODULE_DEPTH {
            found.extend(module_dirs(&path, depth + 1));
        }
    }
    found
}
