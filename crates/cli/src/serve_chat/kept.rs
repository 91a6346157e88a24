//! Which session each chat has, kept in rein's data folder (`serve/chats.json`), so that a
//! restarted `rein serve` resumes every chat where it was.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// The chats' sessions, on disk.
#[derive(Debug)]
pub(super) struct Kept {
    /// The file (`None`: nowhere to keep them; a restart starts over).
    file: Option<PathBuf>,
    chats: Mutex<BTreeMap<String, String>>,
}

impl Kept {
    /// The chats kept in `data`'s `serve/chats.json` (none when it is missing or unreadable).
    pub(super) fn load(data: Option<PathBuf>) -> Self {
        let file = data.map(|d| d.join("serve").join("chats.json"));
        let chats = file
            .as_ref()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Self {
            file,
            chats: Mutex::new(chats),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.chats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session `chat` had.
    pub(super) fn session(&self, chat: &str) -> Option<String> {
        self.lock().get(chat).cloned()
    }

    /// Records `chat`'s session (`None`: it has none; its next prompt starts one).
    pub(super) fn set(&self, chat: &str, session: Option<&str>) {
        let mut chats = self.lock();
        match session {
            Some(id) => chats.insert(chat.to_string(), id.to_string()),
            None => chats.remove(chat),
        };
        let Some(file) = &self.file else { return };
        let saved = serde_json::to_vec_pretty(&*chats)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                if let Some(dir) = file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                rein_tools::write_atomic_private(file, &bytes)
            });
        if let Err(e) = saved {
            eprintln!(
                "rein serve: cannot keep the chats' sessions in {}: {e}",
                file.display()
            );
        }
    }
}
