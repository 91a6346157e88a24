//! Slash commands: the built-in ones, custom ones from `.rein/commands/*.md`, parsing and
//! completion.

use std::path::Path;

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
    /// For custom commands: the prompt template (`$ARGUMENTS` substituted).
    template: Option<String>,
}

const BUILTIN: [(&str, &str); 12] = [
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
    ("tasks", "background shells and subagents [stop ID]"),
    (
        "permissions",
        "show the rules and mode, or switch mode [mode]",
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

/// Most of a custom command file read; a larger one, or anything but a regular file (a FIFO,
/// a link to a device), is skipped with a warning.
const COMMAND_FILE_CAP: u64 = 256 * 1024;

/// The built-in commands plus the custom ones.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    all: Vec<CommandInfo>,
    /// Command files skipped unread, as warnings naming them.
    unread: Vec<String>,
}

impl Commands {
    /// Built-ins, then the custom commands of `dirs` (`*.md`, later folders override earlier
    /// ones of the same name; a custom command never replaces a built-in).
    pub fn load(dirs: &[&Path]) -> Self {
        let mut all: Vec<CommandInfo> = BUILTIN
            .iter()
            .map(|(name, description)| CommandInfo {
                name: (*name).to_string(),
                description: (*description).to_string(),
                template: None,
            })
            .collect();
        let mut unread = Vec::new();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            files.sort();
            for path in files {
                if path.extension().and_then(|e| e.to_str()) != Some("md") {
                    continue;
                }
                let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                let text = match rein_tools::read_regular(&path, COMMAND_FILE_CAP) {
                    Ok(Some(text)) => text,
                    Ok(None) => continue,
                    Err(refused) => {
                        unread.push(format!("command file not read: {refused}"));
                        continue;
                    }
                };
                if BUILTIN.iter().any(|(b, _)| *b == name) {
                    continue;
                }
                let (description, body) = split_frontmatter(&text);
                let info = CommandInfo {
                    name: name.to_string(),
                    description: description
                        .unwrap_or_else(|| first_words(&body))
                        .to_string(),
                    template: Some(body),
                };
                all.retain(|c| c.name != info.name);
                all.push(info);
            }
        }
        Self { all, unread }
    }

    /// Command files skipped unread (not a regular file, too large, not UTF-8), as warnings.
    pub fn unread(&self) -> &[String] {
        &self.unread
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
            "init" => SlashCommand::Init,
            "quit" | "exit" => SlashCommand::Quit,
            other => match self
                .all
                .iter()
                .find(|c| c.name == other)
                .and_then(|c| c.template.as_ref())
            {
                Some(template) => SlashCommand::Prompt(expand(template, args)),
                None => SlashCommand::Unknown(other.to_string()),
            },
        })
    }
}

/// `$ARGUMENTS` replaced by `args`; without the placeholder, the arguments are appended.
fn expand(template: &str, args: &str) -> String {
    if template.contains("$ARGUMENTS") {
        template.replace("$ARGUMENTS", args)
    } else if args.is_empty() {
        template.to_string()
    } else {
        format!("{template}\n\n{args}")
    }
}

/// The `description:` of a `---` frontmatter block, and the body after it.
fn split_frontmatter(text: &str) -> (Option<&str>, String) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text.trim().to_string());
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text.trim().to_string());
    };
    let front = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['-', '\r', '\n']);
    let description = front.lines().find_map(|line| {
        line.strip_prefix("description:")
            .map(|d| d.trim().trim_matches('"').trim_matches('\''))
    });
    (description, body.trim().to_string())
}

fn first_words(body: &str) -> &str {
    let line = body.lines().next().unwrap_or("");
    match line.char_indices().nth(60) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn builtins_parse_with_their_arguments() {
        let commands = Commands::load(&[]);
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
            ("/nope", SlashCommand::Unknown("nope".into())),
        ];
        for (input, expected) in cases {
            assert_eq!(commands.parse(input), Some(expected), "{input}");
        }
        assert_eq!(commands.parse("no slash"), None);
    }

    #[test]
    fn a_command_file_that_is_not_a_small_regular_file_is_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&dir.path().join("wait.md"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.md")).unwrap();
        std::fs::write(dir.path().join("ok.md"), "Fine.\n").unwrap();
        let folder = dir.path().to_path_buf();
        let commands = rein_testkit::without_hanging("loading commands", move || {
            Commands::load(&[folder.as_path()])
        });
        assert_eq!(
            commands.parse("/ok"),
            Some(SlashCommand::Prompt("Fine.".into()))
        );
        let d = dir.path().display();
        assert_eq!(
            commands.unread(),
            [
                format!("command file not read: {d}/wait.md is a FIFO, not a regular file"),
                format!(
                    "command file not read: {d}/zero.md is a character device, not a regular file"
                ),
            ]
        );
    }

    #[test]
    fn custom_commands_come_from_markdown_files_with_arguments_substituted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("review.md"),
            "---\ndescription: review a file\n---\nReview $ARGUMENTS for bugs.\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("plain.md"), "Explain the build.\n").unwrap();
        std::fs::write(dir.path().join("help.md"), "never replaces a built-in").unwrap();
        let commands = Commands::load(&[dir.path()]);
        assert_eq!(
            commands.parse("/review src/lib.rs"),
            Some(SlashCommand::Prompt("Review src/lib.rs for bugs.".into()))
        );
        assert_eq!(
            commands.parse("/plain now"),
            Some(SlashCommand::Prompt("Explain the build.\n\nnow".into()))
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
                ("review", "review a file")
            ]
        );
        assert!(commands.completions("/review x").is_empty());
    }
}
