//! The command line's top: `rein [PROMPT]` and its subcommands, each with its own flags
//! (`args.rs`, and the front ends' own: `mcp_args.rs`, `stores_args.rs`, `eval/args.rs`,
//! `serve_chat`'s).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::VERSION;
use crate::args::{ConfigCommand, ExecArgs, LspCommand, SandboxCommand, ToolArgs, UndoArgs};
use crate::mcp_args::{McpCommand, ServeArgs};
use crate::stores_args::{MemoryCommand, WorktreeCommand};

/// rein: a coding agent harness. Without a subcommand, starts the interactive terminal UI
/// (with PROMPT as the first message); the flags of `rein exec` apply to it too.
#[derive(Debug, Parser)]
#[command(
    name = "rein",
    version = VERSION,
    about,
    propagate_version = true,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Flags of the interactive session (those of `rein exec`).
    #[command(flatten)]
    pub interactive: ExecArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a prompt to completion without interaction and print the answer.
    Exec(Box<ExecArgs>),
    /// Run one tool directly, as the model would.
    Tool(ToolArgs),
    /// Inspect the configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Trust this workspace's own config (.rein/, .claude/, .mcp.json) as it is now, so its
    /// hooks, allow rules and mode apply; a later change to those files asks again.
    Trust {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Forget the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// The OS sandbox of shell commands.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// rein in the team chat: answer the users of `[serve] allowed_users` on the platforms of
    /// `[serve.*]` (Telegram, Slack, Feishu/Lark), each chat with its own session in `[serve] workspace`.
    Serve(Box<crate::serve_chat::ServeChatArgs>),
    /// The language servers rein starts for diagnostics after edits (`check`).
    #[command(subcommand)]
    Lsp(LspCommand),
    /// The MCP servers this workspace would start; and rein itself as one (`serve`).
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Serve rein to an editor over the Agent Client Protocol on stdio (Zed, JetBrains IDEs,
    /// Neovim and Emacs plugins): sessions, prompts, tool calls with diffs, approvals, modes.
    Acp(Box<ServeArgs>),
    /// What the model remembers of this workspace across sessions (its `/memories`).
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// The git worktrees rein made for isolated agents and `enter_worktree`.
    #[command(subcommand)]
    Worktree(WorktreeCommand),
    /// Run a set of tasks (JSON lines), each in a fresh copy of its repository, and check
    /// them: `rein eval TASKS.jsonl`; `rein eval report FILE…`; `rein eval compare A B`.
    Eval(Box<crate::eval::EvalArgs>),
    /// Print a `--trace` file's spans as a tree with their timings.
    Trace {
        /// The file `rein exec --trace FILE` wrote.
        file: PathBuf,
    },
    /// Put back the files rein's file tools changed in the last turns of a session (default:
    /// this workspace's latest session, one turn), printing each file.
    Undo(UndoArgs),
    /// List this workspace's stored sessions, newest first; or remove stored sessions.
    Sessions {
        /// Workspace directory (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Remove the sessions of every workspace not touched for longer than the retention
        /// period (`cleanup_period_days`, default 30) or --older-than, with their saved
        /// outputs, and print what went.
        #[arg(long, conflicts_with = "delete")]
        prune: bool,
        /// With --prune: the age in days beyond which a session goes.
        #[arg(long, value_name = "DAYS", requires = "prune")]
        older_than: Option<u64>,
        /// Remove this workspace's session ID and its saved outputs.
        #[arg(long, value_name = "ID")]
        delete: Option<String>,
    },
}
