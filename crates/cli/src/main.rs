//! The `rein` binary: parses arguments, dispatches to a subcommand, and maps failures to exit
//! codes (0 success, 1 the run failed, 2 usage or config error, 3 the turn limit, 4 the budget,
//! 128 + N a signal: 130 Ctrl-C). All real work lives in the library crates.

mod acp;
mod agents;
mod answers;
mod arg_values;
mod args;
mod claude_output;
mod command;
mod config;
mod doctor;
mod edit_files;
mod env;
mod eval;
mod exec;
mod exit;
mod factory;
mod hosted;
mod input_messages;
mod interactive;
mod lsp;
mod mcp;
mod mcp_args;
mod mcp_edit;
mod memory;
mod output;
mod overrides;
mod paths;
mod resolve;
mod sandbox;
mod secrets;
mod serve_chat;
mod serve_mcp;
mod sessions;
mod settings;
mod settings_edit;
mod setup;
mod stores_args;
mod telemetry;
mod tool_cmd;
mod trust;
mod undo;
mod worktrees;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{ConfigCommand, LspCommand, SandboxCommand};
use crate::command::{Cli, Command};
pub use crate::exit::Exit;
use crate::mcp_args::McpCommand;

/// `rein --version`: the version, the commit and the build date (`0.1.0 (1a2b3c4d5e6f
/// 2026-11-27)`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("REIN_BUILD"), ")");

fn main() -> ExitCode {
    // The sandbox helper (`rein __sandbox …`, which rein runs around every sandboxed shell
    // command) comes before anything else: no arguments parsed, no config, no threads.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| rein_sandbox::helper::is_subcommand(&first))
    {
        return rein_sandbox::helper::main(std::env::args_os().skip(1));
    }
    // A parser of outside input under limits (`rein __parse KIND …`, started by rein itself).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == rein_sandbox::bounded::SUBCOMMAND)
    {
        let parsers = [
            rein_web::HTML_PARSER,
            rein_tools::media::PDF_PARSER,
            rein_tools::media::PICTURE_PARSER,
        ];
        return rein_sandbox::bounded::main(std::env::args_os().skip(2), &parsers);
    }
    // `rein tool --help` lists the tools with their arguments (the registry knows them); built
    // for that help only, so no other command pays for the registry at start-up.
    let mut command = Cli::command();
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == "tool")
        && std::env::args_os().any(|arg| arg == "--help" || arg == "-h")
    {
        command = command.mut_subcommand("tool", |tool| tool.after_help(tool_cmd::help()));
    }
    let cli = match command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    let result = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run(cli)),
        Err(err) => Err(Exit::failed(format!(
            "cannot start the async runtime: {err}"
        ))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(exit) => {
            if !exit.message.is_empty() {
                eprintln!("rein: {}", exit.message);
            }
            ExitCode::from(exit.code())
        }
    }
}

async fn run(cli: Cli) -> Result<(), Exit> {
    match cli.command {
        Some(Command::Exec(args)) => exec::run(*args).await,
        Some(Command::Acp(args)) => acp::run(*args).await,
        Some(Command::Eval(args)) => eval::run(*args).await,
        Some(Command::Trace { file }) => telemetry::print_trace(&file),
        Some(Command::Tool(args)) => tool_cmd::run(args).await,
        Some(Command::Undo(args)) => undo::run(&args),
        Some(Command::Worktree(command)) => worktrees::run(command),
        Some(Command::Memory(command)) => memory::run(command),
        Some(Command::Sessions {
            cwd,
            prune,
            older_than,
            delete,
        }) => {
            let workspace = resolve::workspace(cwd.as_deref())?;
            let data_dir = crate::env::data_dir(&crate::env::process);
            if prune {
                let config = trust::load_for_reading(&workspace)?;
                let days = older_than.unwrap_or_else(|| sessions::retention_days(&config));
                sessions::prune(data_dir, days)
            } else if let Some(id) = delete {
                sessions::delete(&workspace, data_dir, &id)
            } else {
                sessions::list(&workspace, data_dir)
            }
        }
        Some(Command::Config(ConfigCommand::Show { cwd })) => config_show(cwd.as_deref()),
        Some(Command::Config(edit)) => settings_edit::command(edit),
        Some(Command::Serve(args)) => serve_chat::run(*args).await,
        Some(Command::Lsp(LspCommand::Check { cwd })) => {
            lsp::check(&resolve::workspace(cwd.as_deref())?).await
        }
        Some(Command::Sandbox(SandboxCommand::Check { cwd })) => {
            let workspace = resolve::workspace(cwd.as_deref())?;
            sandbox::check(&workspace)
        }
        Some(Command::Mcp(McpCommand::List { cwd })) => {
            let workspace = resolve::workspace(cwd.as_deref())?;
            let env = crate::env::process;
            let config = trust::load_for_reading(&workspace)?;
            mcp::list(&workspace, &config, &env).await
        }
        Some(Command::Mcp(McpCommand::Serve(args))) => serve_mcp::run(*args).await,
        Some(Command::Mcp(McpCommand::Add(add))) => {
            let workspace = resolve::workspace(add.cwd.as_deref())?;
            mcp_edit::add(add, &workspace)
        }
        Some(Command::Mcp(McpCommand::Remove { name, scope, cwd })) => {
            let workspace = resolve::workspace(cwd.as_deref())?;
            mcp_edit::remove(&name, scope, &workspace)
        }
        Some(Command::Trust { cwd, revoke }) => {
            let workspace = resolve::workspace(cwd.as_deref())?;
            let what = if revoke {
                trust::TrustCommand::Revoke
            } else {
                trust::TrustCommand::Grant
            };
            trust::command(&workspace, what)
        }
        // Claude Code's `-p`: the headless run.
        None if cli.interactive.print => exec::run(cli.interactive).await,
        None => {
            let mut args = cli.interactive;
            // `-r` alone: the session picker, opened as `/resume` would.
            if args.resume.as_deref() == Some("") {
                args.resume = None;
                args.prompt.get_or_insert_with(|| "/resume".to_string());
            }
            interactive::run(args).await
        }
    }
}

/// `rein config show`: the configuration a run in the workspace would use, with sources.
fn config_show(cwd: Option<&std::path::Path>) -> Result<(), Exit> {
    let workspace = resolve::workspace(cwd)?;
    let env = crate::env::process;
    let config = trust::load_for_reading(&workspace)?;
    let layered = resolve::layered(&config, &env)?;
    crate::output::print_all(&config::render(&config, &layered))
}
