//! The tags of each file on disk between builds, keyed by its path, modification time and size:
//! a build reparses only the files that changed. One JSON file per repository root; a cache
//! that cannot be read is rebuilt, one that cannot be written is skipped (the map is the same).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::tags::FileTags;

/// Bumped when what is stored changes meaning.
const VERSION: u32 = 3;

/// A file's tags as of its stamp.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub modified_ns: u128,
    pub size: u64,
    pub tags: FileTags,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Stored {
    version: u32,
    pub files: HashMap<String, Entry>,
}

/// Where the cache of `root` lives under `dir`: one file per root, named by a hash of its path.
pub(crate) fn path_for(dir: &Path, root: &Path) -> PathBuf {
    // FNV-1a: stable across builds and platforms (std's hasher is not).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    dir.join(format!("{hash:016x}.json"))
}

pub(crate) fn load(path: &Path) -> Stored {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Stored>(&bytes).ok())
        .filter(|stored| stored.version == VERSION)
        .unwrap_or_default()
}

pub(crate) fn save(path: &Path, files: HashMap<String, Entry>) {
    let stored = Stored {
        version: VERSION,
        files,
    };
    let Ok(bytes) = serde_json::to_vec(&stored) else {
        return;
    };
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    // Renamed into place, so a reader never sees half a cache.
    let _ = rein_fs::write_atomic_private(path, &bytes);
}
