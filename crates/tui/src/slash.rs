//! Slash commands: the built-in ones and the custom commands and skills the user may type,
//! parsing and completion.

/// What a slash command asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    /// `/help`.
    Help,
    /// `/clear`: a new session.
    Clear,
    /// `/compact [focus]`.
    Compact(Option<String>),
    /// `/resume [id]`: pick a stored session (or the given one).
    Resume(Option<String>),
    /// `/model [name]`: show or switch the model.
    Model(Option<String>),
    /// `/effort [level]`: show or set how hard the model thinks.
    Effort(Option<String>),
    /// `/cost`.
    Cost,
    /// `/permissions [mode]`: show the rules and mode, or switch the mode.
    Permissions(Option<String>),
    /// `/tasks [stop ID]`: list background shells and subagents, or stop one.
    Tasks(Option<String>),
    /// `/mcp`: the MCP servers, their status, tools and prompts.
    Mcp,
    /// `/status`: version, model, provider, mode, workspace, sandbox, servers.
    Status,
    /// `/context`: what fills the context window.
    Context,
    /// `/export [file]`: the conversation as Markdown.
    Export(Option<String>),
    /// `/todos`: the model's todo list.
    Todos,
    /// `/config`, `/hooks`, `/agents`: what the host lists.
    Listing(crate::Listing),
    /// `/config set|unset …`: change a setting.
    Config(String),
    /// `/statusline [command|off]`: set the status line command.
    StatusLine(Option<String>),
    /// `/add-dir [folder]`: add a folder to the workspace.
    AddDir(Option<String>),
    /// `/agents new DESCRIPTION`: ask the model to write a subagent file.
    Agents(String),
    /// `/rewind`: take the code and/or the conversation back to before a prompt.
    Rewind,
    /// `/init`: ask the model to write an AGENTS.md.
    Init,
    /// `/quit`.
    Quit,
    /// A custom command: the prompt to send.
    Prompt(String),
    /// A name nobody knows.
    Unknown(String),
}

/// A command offered by completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// Name without the slash.
    pub name: String,
    /// One line for the completion list and `/help`.
    pub description: String,
    /// A custom command or skill (sent as typed; the agent expands it).
    custom: bool,
}

const BUILTIN: [(&str, &str); 26] = [
    ("help", "show the commands and keys"),
    ("clear", "start a new session"),
    (
        "compact",
        "summarise the conversation to free context [focus]",
    ),
    ("resume", "continue a stored session"),
    ("model", "show or switch the model [name]"),
    (
        "effort",
        "show or set how hard the model thinks [minimal|low|medium|high|default]",
    ),
    ("cost", "tokens and cost of this session"),
    (
        "tasks",
        "background shells, subagents and scheduled jobs [ID: a shell's output | stop ID]",
    ),
    (
        "loop",
        "run a prompt now and again [interval, e.g. 5m; none: the model paces it] PROMPT",
    ),
    ("mcp", "MCP servers: status, tools and prompts"),
    (
        "status",
        "version, model, provider, mode, workspace, sandbox",
    ),
    ("context", "what fills the context window"),
    (
        "export",
        "write the conversation as Markdown [file | --clipboard]",
    ),
    ("todos", "the model's todo list"),
    (
        "config",
        "the configuration, each value with where it was set [set KEY VALUE | unset KEY]",
    ),
    (
        "add-dir",
        "add a folder to the workspace for this session [folder]",
    ),
    (
        "statusline",
        "show a command's output as the status line [command | off]",
    ),
    ("hooks", "the hooks configured, and where"),
    (
        "agents",
        "the subagents and where they are defined [new DESCRIPTION: create one]",
    ),
    ("memory", "the memory files the model is given"),
    (
        "doctor",
        "check the key, the server, the sandbox, git, the terminal, config, MCP",
    ),
    (
        "rewind",
        "rewind code and/or conversation to before a prompt (Esc Esc)",
    ),
    (
        "permissions",
        "edit the rules, or switch mode [mode | allow|ask|deny RULE | remove RULE]",
    ),
    (
        "init",
        "ask the model to write an AGENTS.md for this repository",
    ),
    ("quit", "end the session"),
    ("exit", "end the session"),
];

/// The prompt `/init` sends.
pub const INIT_PROMPT: &str = "Please analyse this repository and write an AGENTS.md file at \
its root for coding agents working here: what the project is, how it is laid out, the commands \
to build, test and lint it, and the conventions its code follows. Keep it short and concrete. \
If an AGENTS.md (or CLAUDE.md) already exists, improve it instead of starting over.";

/// The prompt `/agents new DESCRIPTION` sends, before the description.
pub const NEW_AGENT_PROMPT: &str = "Create a subagent for this repository from the \
description below. Write it to .rein/agents/NAME.md, where NAME is a short kebab-case name \
you choose that no file in .rein/agents or .claude/agents has yet. The file starts with YAML \
frontmatter: `name` (NAME), `description` (one or two sentences saying when to use it: the \
main agent reads this to decide), and `tools` (a comma-separated list of only the tools it \
needs; leave it out to give it all), then a blank line and its system prompt: its role, how \
it works step by step, and what it returns. Keep it short and concrete, and look at the \
repository first where that helps. Say the file's path when done.\n\nDescription: ";

/// The built-in commands plus the custom ones.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    all: Vec<CommandInfo>,
}

impl Commands {
    /// Built-ins, then the custom commands and skills of `catalog` the user may type (a
    /// custom command never replaces a built-in). The agent expands them.
    pub fn load(catalog: &rein_engine::commands::Catalog) -> Self {
        let mut all: Vec<CommandInfo> = BUILTIN
            .iter()
            .map(|(name, description)| CommandInfo {
                name: (*name).to_string(),
                description: (*description).to_string(),
                custom: false,
            })
            .collect();
        for command in catalog.for_user() {
            if BUILTIN.iter().any(|(b, _)| *b == command.name) {
                continue;
            }
            let description = match &command.argument_hint {
                Some(hint) => format!("{} {hint}", command.description),
                None => command.description.clone(),
            };
            all.push(CommandInfo {
                name: command.name.clone(),
                description,
                custom: true,
            });
        }
        Self { all }
    }

    /// Every command, built-ins first.
    pub fn all(&self) -> &[CommandInfo] {
        &self.all
    }

    /// Commands whose name starts with what follows the slash of `input` (only while the
    /// first word is being typed).
    pub fn completions(&self, input: &str) -> Vec<&CommandInfo> {
        let Some(typed) = input.strip_prefix('/') else {
            return Vec::new();
        };
        if typed.contains(char::is_whitespace) {
            return Vec::new();
        }
        self.all
            .iter()
            .filter(|c| c.name.starts_with(typed))
            .collect()
    }

    /// The command `input` names, if it starts with a slash.
    pub fn parse(&self, input: &str) -> Option<SlashCommand> {
        let rest = input.trim().strip_prefix('/')?;
        let (name, args) = match rest.split_once(char::is_whitespace) {
            Some((name, args)) => (name, args.trim()),
            None => (rest, ""),
        };
        let arg = (!args.is_empty()).then(|| args.to_string());
        Some(match name {
            "help" => SlashCommand::Help,
            "clear" | "new" => SlashCommand::Clear,
            "compact" => SlashCommand::Compact(arg),
            "resume" => SlashCommand::Resume(arg),
            "model" => SlashCommand::Model(arg),
            "effort" => SlashCommand::Effort(arg),
            "cost" => SlashCommand::Cost,
            "permissions" => SlashCommand::Permissions(arg),
            "tasks" => SlashCommand::Tasks(arg),
            "mcp" => SlashCommand::Mcp,
            "status" => SlashCommand::Status,
            "context" => SlashCommand::Context,
            "export" => SlashCommand::Export(arg),
            "todos" => SlashCommand::Todos,
            "config" => match arg {
                Some(args) => SlashCommand::Config(args),
                None => SlashCommand::Listing(crate::Listing::Config),
            },
            "statusline" => SlashCommand::StatusLine(arg),
            "add-dir" => SlashCommand::AddDir(arg),
            "hooks" => SlashCommand::Listing(crate::Listing::Hooks),
            "agents" => match arg {
                Some(args) => SlashCommand::Agents(args),
                None => SlashCommand::Listing(crate::Listing::Agents),
            },
            "doctor" => SlashCommand::Listing(crate::Listing::Doctor),
            "memory" => SlashCommand::Listing(crate::Listing::Memory),
            "rewind" | "undo" => SlashCommand::Rewind,
            "init" => SlashCommand::Init,
            // Sent as typed: the agent makes the job and runs the prompt.
            "loop" => SlashCommand::Prompt(input.trim().to_string()),
            "quit" | "exit" => SlashCommand::Quit,
            other => match self.all.iter().find(|c| c.name == other && c.custom) {
                Some(_) => SlashCommand::Prompt(input.trim().to_string()),
                None => SlashCommand::Unknown(other.to_string()),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn builtins_parse_with_their_arguments() {
        let commands = Commands::load(&Default::default());
        let cases = [
            (
                "/compact the API",
                SlashCommand::Compact(Some("the API".into())),
            ),
            ("/compact", SlashCommand::Compact(None)),
            ("/model gpt-5", SlashCommand::Model(Some("gpt-5".into()))),
            ("/effort high", SlashCommand::Effort(Some("high".into()))),
            ("/effort", SlashCommand::Effort(None)),
            (
                "/permissions plan",
                SlashCommand::Permissions(Some("plan".into())),
            ),
            ("/exit", SlashCommand::Quit),
            (
                "/loop 5m check the deploy",
                SlashCommand::Prompt("/loop 5m check the deploy".into()),
            ),
            ("/nope", SlashCommand::Unknown("nope".into())),
        ];
        for (input, expected) in cases {
            assert_eq!(commands.parse(input), Some(expected), "{input}");
        }
        assert_eq!(commands.parse("no slash"), None);
    }

    #[test]
    fn custom_commands_are_offered_and_sent_as_typed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("review.md"),
            "---\ndescription: review a file\n---\nReview $ARGUMENTS for bugs.\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("plain.md"), "Explain the build.\n").unwrap();
        std::fs::write(dir.path().join("help.md"), "never replaces a built-in").unwrap();
        let commands = Commands::load(
            &rein_engine::commands::load(
                &[dir.path().into()],
                &[],
                &rein_fs::PromptFiles::new([dir.path().into()], rein_fs::SensitivePaths::default()),
            )
            .catalog,
        );
        assert_eq!(
            commands.parse("/review src/lib.rs"),
            Some(SlashCommand::Prompt("/review src/lib.rs".into()))
        );
        assert_eq!(
            commands.parse("/plain now"),
            Some(SlashCommand::Prompt("/plain now".into()))
        );
        assert_eq!(commands.parse("/help"), Some(SlashCommand::Help));
        let names: Vec<(&str, &str)> = commands
            .completions("/re")
            .iter()
            .map(|c| (c.name.as_str(), c.description.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("resume", "continue a stored session"),
                (
                    "rewind",
                    "rewind code and/or conversation to before a prompt (Esc Esc)"
                ),
                ("review", "review a file")
            ]
        );
        assert!(commands.completions("/review x").is_empty());
    }
}
