//! What the UI asks of the runner: the [`Action`]s [`super::App`] returns.

use rein_policy::PermissionMode;

/// What the runner must do for the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send this prompt to the model.
    Run(String),
    /// Attach the clipboard's picture to the prompt being written (Ctrl-V).
    PasteImage,
    /// Cancel the running turn.
    Cancel,
    /// End the program.
    Quit,
    /// Compact the transcript, with an optional focus.
    Compact(Option<String>),
    /// Start a new session.
    NewSession,
    /// List stored sessions ([`App::open_session_picker`]).
    ListSessions,
    /// Continue the stored session with this id.
    Resume(String),
    /// Switch to this model.
    SetModel(String),
    /// Sets how hard the model thinks (`None`: the model's own default).
    SetEffort(Option<rein_engine::Effort>),
    /// Switch the permission mode.
    SetMode(PermissionMode),
    /// Show the permission rules ([`App::show_policy`]).
    ShowPermissions,
    /// List background shells and subagents ([`App::show_tasks`]).
    ListTasks,
    /// Show the MCP servers ([`App::show_mcp`]).
    ShowMcp,
    /// Show the session's status (`/status`).
    ShowStatus,
    /// Show what fills the context window (`/context`).
    ShowContext,
    /// Show what a background shell printed so far (`/tasks ID`).
    ShowTaskOutput(String),
    /// Write the conversation as Markdown (`/export [file]`).
    Export(Option<String>),
    /// Show a listing of the host's (`/config`, `/hooks`, `/agents`).
    ShowListing(crate::Listing),
    /// List the prompts to rewind to ([`App::open_rewind_picker`]).
    OpenRewind,
    /// Show what rewinding to before the `back`-th last prompt does, and ask how
    /// ([`App::open_rewind_choices`]).
    PlanRewind(usize),
    /// Rewind to before the `back`-th last prompt.
    Rewind {
        /// Which prompt, counted from the end.
        back: usize,
        /// Restore the files.
        code: bool,
        /// Restore the conversation (as a fork).
        conversation: bool,
        /// Also files changed since rein wrote them.
        force: bool,
    },
    /// Stop the background shell or subagent with this id.
    StopTask(String),
    /// Type `text` into the interactive session `id` (`tty_N`, watched with `/tasks`).
    TypeInto {
        /// The session.
        id: String,
        /// The keys.
        text: String,
    },
    /// Add a folder to the workspace (`/add-dir`).
    AddDir(String),
    /// Open a file in the user's editor (`/memory` → pick).
    EditFile(std::path::PathBuf),
    /// Offer where to remember a `#` line (the host's memory files).
    OfferMemory,
    /// Append `text` to the memory file `file` (`#` → pick).
    Remember {
        /// The memory file.
        file: std::path::PathBuf,
        /// The line to add.
        text: String,
    },
    /// Run the user's own shell command (`!command`), its output added to the conversation.
    Shell(String),
    /// Ask the host for the workspace's paths ([`App::set_path_index`]).
    IndexPaths,
    /// Change a settings file (`/config set`, `/permissions allow …`, `/statusline`).
    ChangeSettings(crate::settings::SettingsChange),
    /// Hand the terminal back to the shell until it continues us (Ctrl-Z).
    Suspend,
}
