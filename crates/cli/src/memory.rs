//! `rein memory list|show|forget`: what the model remembers of this workspace across
//! sessions (`<data>/memory/<workspace key>/`, its `/memories`).

use rein_engine::auto_memory::{INDEX, MEMORY_FOLDER, MemoryStore, ROOT};

use crate::Exit;
use crate::stores_args::MemoryCommand;

/// Runs one `rein memory` command.
pub fn run(command: MemoryCommand) -> Result<(), Exit> {
    let (cwd, action) = match command {
        MemoryCommand::List { cwd } => (cwd, Action::List),
        MemoryCommand::Show { path, cwd } => (cwd, Action::Show(path)),
        MemoryCommand::Forget { path, all, cwd } => (cwd, Action::Forget(path, all)),
    };
    let workspace = crate::resolve::workspace(cwd.as_deref())?;
    let data = crate::env::data_dir(&crate::env::process)
        .ok_or_else(|| Exit::usage("cannot find rein's data folder: set HOME or XDG_DATA_HOME"))?;
    let store = MemoryStore::for_workspace(&data.join(MEMORY_FOLDER), &workspace);
    let text = match action {
        Action::List => list(&store),
        Action::Show(path) => {
            let path = memory_path(path.as_deref().unwrap_or(INDEX));
            store
                .view(&path, None)
                .map_err(|e| Exit::failed(e.to_string()))?
                + "\n"
        }
        Action::Forget(_, true) => {
            let gone = store.files().len();
            match std::fs::remove_dir_all(store.dir()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Exit::failed(format!("{}: {e}", store.dir().display())));
                }
                _ => format!("forgot {gone} memory file(s) of {}\n", workspace.display()),
            }
        }
        Action::Forget(path, false) => {
            let path = memory_path(path.as_deref().unwrap_or(""));
            store
                .delete(&path)
                .map_err(|e| Exit::failed(e.to_string()))?
                + "\n"
        }
    };
    crate::output::print_all(&text)
}

enum Action {
    List,
    Show(Option<String>),
    /// A file, or everything.
    Forget(Option<String>, bool),
}

fn list(store: &MemoryStore) -> String {
    let files = store.files();
    if files.is_empty() {
        return "no memory for this workspace yet\n".to_string();
    }
    files
        .into_iter()
        .map(|(path, size)| format!("{size:>8}  {path}\n"))
        .collect()
}

/// `notes.md` or `/memories/notes.md` as the model names it.
fn memory_path(path: &str) -> String {
    match path.starts_with(ROOT) {
        true => path.to_string(),
        false => format!("{ROOT}/{}", path.trim_start_matches('/')),
    }
}
