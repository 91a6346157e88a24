//! What a prompt's first character asks for: `#` remembers the line in a memory file (the
//! workspace's or the user's `AGENTS.md`, picked), `!` runs the user's own shell command, its
//! output added to the conversation without asking the model anything.

use std::time::Instant;

use super::{Action, App, PickKind, Picker};

impl App {
    /// The actions of a `#` or `!` prompt; `None` for an ordinary prompt.
    pub(super) fn shortcut_prompt(&mut self, text: &str, now: Instant) -> Option<Vec<Action>> {
        let trimmed = text.trim();
        if let Some(line) = trimmed.strip_prefix('#')
            && !line.starts_with('#')
            && !line.trim().is_empty()
            && !trimmed.contains('\n')
        {
            self.commit_user(trimmed);
            self.remembering = Some(line.trim().to_string());
            return Some(vec![Action::OfferMemory]);
        }
        let command = trimmed.strip_prefix('!')?.trim();
        if command.is_empty() {
            self.info(
                "!COMMAND runs COMMAND in the workspace as your own: its output goes to \
                       the conversation, the model is not asked",
            );
            return Some(Vec::new());
        }
        if self.busy.is_some() {
            self.queued.push_back(text.to_string());
            return Some(Vec::new());
        }
        self.begin_run(trimmed, now);
        Some(vec![Action::Shell(command.to_string())])
    }

    /// `#`: where to remember the line (`files`: each memory file with whose it is).
    pub fn open_remember_picker(&mut self, files: &[(std::path::PathBuf, String)]) {
        if self.remembering.is_none() {
            return;
        }
        let items = files
            .iter()
            .map(|(path, whose)| {
                (
                    path.display().to_string(),
                    format!("{} ({whose})", shown(path)),
                )
            })
            .collect();
        self.picker = Some(Picker::new(PickKind::Remember, "Remember this in", items));
    }

    /// The file picked for the `#` line.
    pub(super) fn picked_memory_file(&mut self, id: String) -> Vec<Action> {
        match self.remembering.take() {
            Some(text) => vec![Action::Remember {
                file: id.into(),
                text,
            }],
            None => Vec::new(),
        }
    }
}

/// A memory file as the picker names it: the model's own index as the model knows it
/// (`/memories/MEMORY.md`; its folder in rein's data folder says nothing), others by path.
fn shown(path: &std::path::Path) -> String {
    if path
        .file_name()
        .is_some_and(|n| n == rein_engine::auto_memory::INDEX)
    {
        return format!(
            "{}/{}",
            rein_engine::auto_memory::ROOT,
            rein_engine::auto_memory::INDEX
        );
    }
    crate::sanitize::clean(&path.display().to_string()).into_owned()
}
