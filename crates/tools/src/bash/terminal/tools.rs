//! `write_stdin` in rein's shape (`id`, `chars`, `yield_ms`) and in codex's (`session_id`,
//! `chars`, `yield_time_ms`, `max_output_tokens`), for the models trained on each.
//!
//! Typing is checked like a command when it reaches a shell or an interpreter at its prompt:
//! each line it completes is a new command there ([`super::Reader`]); keys for any other
//! program (an answer, an editor's keys) were approved with the command that started it.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::interact::{self, Exchange, MAX_POLL_MS, MAX_YIELD_MS, Style};
use super::{Reader, Terminals};
use crate::output::DEFAULT_OUTPUT_LIMIT;
use crate::{
    CallFacts, CallKind, Effect, Lean, ToolContext, ToolOutput, TypedTool, WorkspaceGuard,
};

/// Wait after typing when the call gives none.
const WRITE_YIELD_MS: u64 = 1_000;
/// Wait of a poll when the call gives none.
const POLL_YIELD_MS: u64 = 5_000;

/// A session's number as a call gives it: `3`, `"3"` or `"tty_3"` — `kill_shell` takes the
/// same spellings, so an id the model saw anywhere works everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionNumber(pub u32);

impl<'de> Deserialize<'de> for SessionNumber {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(de)?;
        let number = match &value {
            serde_json::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            serde_json::Value::String(text) => Terminals::number(text),
            _ => None,
        };
        number.map(Self).ok_or_else(|| {
            serde::de::Error::custom(format!("{value} is not a session number (such as 1)"))
        })
    }
}

impl JsonSchema for SessionNumber {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionNumber".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": ["integer", "string"]})
    }
}

/// Arguments of `write_stdin` (rein's shape).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteStdinArgs {
    /// The session number.
    pub id: SessionNumber,
    /// Keys: text, `\n` Enter, `\u0003` Ctrl-C, `\u001b` Esc; empty waits for output.
    #[serde(default)]
    pub chars: String,
    /// Wait in ms (default 1000; 5000 when chars is empty).
    pub yield_ms: Option<u64>,
}

/// Arguments of `write_stdin` (codex's shape).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CodexWriteStdinArgs {
    /// The running session (an integer, as codex's tool has it).
    pub session_id: u32,
    /// Bytes to write; empty polls.
    #[serde(default)]
    pub chars: String,
    /// Wait before returning (ms).
    pub yield_time_ms: Option<u64>,
    /// Output budget in tokens.
    pub max_output_tokens: Option<u64>,
}

/// Types into (or polls) an interactive session.
#[derive(Debug, Clone, Default)]
pub struct WriteStdin {
    terminals: Terminals,
}

/// [`WriteStdin`] in codex's shape.
#[derive(Debug, Clone, Default)]
pub struct CodexWriteStdin {
    terminals: Terminals,
}

impl WriteStdin {
    /// The tool for `terminals`' sessions.
    pub fn new(terminals: Terminals) -> Self {
        Self { terminals }
    }
}

impl CodexWriteStdin {
    /// The tool for `terminals`' sessions.
    pub fn new(terminals: Terminals) -> Self {
        Self { terminals }
    }
}

#[async_trait]
impl TypedTool for WriteStdin {
    type Args = WriteStdinArgs;
    const NAME: &'static str = "write_stdin";
    const CLAUDE_NAME: &'static str = "WriteStdin";
    const KIND: CallKind = CallKind::Shell;
    const LEAN: Lean = Lean::LeftOut;

    fn description(&self) -> String {
        "Types into a tty session; returns what its screen showed since.".to_string()
    }

    fn effect(&self, args: &WriteStdinArgs) -> Effect {
        typing_effect(&args.chars)
    }

    fn describe(&self, args: &WriteStdinArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        describe_typing(&self.terminals, (args.id.0, &args.chars), guard, facts);
    }

    async fn run(&self, args: WriteStdinArgs, ctx: &ToolContext) -> ToolOutput {
        let wait = yield_of(args.yield_ms, &args.chars);
        let exchange = Exchange {
            id: args.id.0,
            chars: &args.chars,
            wait,
            limit: DEFAULT_OUTPUT_LIMIT,
            style: Style::Rein,
        };
        interact::exchange(&self.terminals, exchange, ctx).await
    }
}

#[async_trait]
impl TypedTool for CodexWriteStdin {
    type Args = CodexWriteStdinArgs;
    const NAME: &'static str = "write_stdin";
    const CLAUDE_NAME: &'static str = "WriteStdin";
    const KIND: CallKind = CallKind::Shell;
    const LEAN: Lean = Lean::LeftOut;

    fn description(&self) -> String {
        "Writes characters to an existing unified exec session and returns recent output."
            .to_string()
    }

    fn effect(&self, args: &CodexWriteStdinArgs) -> Effect {
        typing_effect(&args.chars)
    }

    fn describe(&self, args: &CodexWriteStdinArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        describe_typing(
            &self.terminals,
            (args.session_id, &args.chars),
            guard,
            facts,
        );
    }

    async fn run(&self, args: CodexWriteStdinArgs, ctx: &ToolContext) -> ToolOutput {
        let exchange = Exchange {
            id: args.session_id,
            chars: &args.chars,
            wait: yield_of(args.yield_time_ms, &args.chars),
            limit: tokens_to_bytes(args.max_output_tokens),
            style: Style::Codex,
        };
        interact::exchange(&self.terminals, exchange, ctx).await
    }
}

/// The wait of an exchange: asked or default, within its bounds.
pub(crate) fn yield_of(asked: Option<u64>, chars: &str) -> Duration {
    let (default, max) = if chars.is_empty() {
        (POLL_YIELD_MS, MAX_POLL_MS)
    } else {
        (WRITE_YIELD_MS, MAX_YIELD_MS)
    };
    Duration::from_millis(asked.unwrap_or(default).clamp(1, max))
}

/// An output budget in tokens as bytes (about four bytes a token), within rein's limit.
pub(crate) fn tokens_to_bytes(tokens: Option<u64>) -> usize {
    tokens.map_or(DEFAULT_OUTPUT_LIMIT, |t| {
        usize::try_from(t.saturating_mul(4))
            .unwrap_or(usize::MAX)
            .clamp(256, DEFAULT_OUTPUT_LIMIT)
    })
}

/// A poll changes nothing; typing may (the describe step narrows what it is).
fn typing_effect(chars: &str) -> Effect {
    if chars.is_empty() {
        Effect::ReadOnly
    } else {
        Effect::Mutating
    }
}

/// What typing `chars` into session `id` does, as the permission check sees it: a poll
/// reads; a line completed at a shell's prompt is that shell line; at an interpreter's
/// prompt, the interpreter running that code (`python3 -c '…'`); keys for any other program
/// are part of the command already approved. Exchanges with one session run in order.
fn describe_typing(
    terminals: &Terminals,
    (id, chars): (u32, &str),
    guard: &WorkspaceGuard,
    facts: &mut CallFacts,
) {
    facts.serial = true;
    facts.summary = if chars.is_empty() {
        format!("session {id}: wait for output")
    } else {
        format!("session {id} ← {}", visible(chars))
    };
    if chars.is_empty() {
        return;
    }
    let Some((reader, typed, unsandboxed)) = terminals.reader(id) else {
        // No such session: the call fails without typing anything.
        facts.effect = Effect::ReadOnly;
        return;
    };
    let (lines, _) = super::lines_typed(&typed, chars);
    let (program, cwd, shell) = match &reader {
        Reader::Shell { program, cwd } => (program, cwd, true),
        Reader::Interpreter { program, cwd } => (program, cwd, false),
        Reader::Program if unsandboxed.is_some() => {
            // Keys for a program outside the sandbox: no rule can judge them, so they are
            // asked about (a sandboxed program's keys run inside the sandbox).
            facts.effect = Effect::Mutating;
            unanalysable(
                chars,
                facts,
                "keys for a program running outside the sandbox",
            );
            facts.unsandboxed = unsandboxed;
            return;
        }
        Reader::Program => {
            facts.effect = Effect::ReadOnly;
            return;
        }
    };
    if lines.is_empty() {
        // Nothing runs until a line ends; the whole line is checked then.
        facts.effect = Effect::ReadOnly;
        return;
    }
    let line = if shell {
        lines.join("\n")
    } else {
        format!("{program} -c {}", quote(&lines.join("\n")))
    };
    let start = cwd
        .clone()
        .filter(|dir| guard.contains(dir))
        .unwrap_or_else(|| guard.root().to_path_buf());
    let memo = crate::shell::RepoMemo::default();
    crate::bash::facts::describe(&line, &start, guard, &memo, facts);
    if line.chars().any(|c| c.is_control() && c != '\n') {
        unanalysable(
            &line,
            facts,
            "line-editing keys (Tab, arrows, Esc) change what runs",
        );
    } else if shell
        && lines
            .iter()
            .any(|l| l.contains('!') || l.trim_start().starts_with('^'))
    {
        // An interactive shell expands history (`!!`, `!$`, `^a^b`) after the line was read:
        // what runs is not what was judged.
        unanalysable(
            &line,
            facts,
            "history expansion (`!`, `^`) changes what runs",
        );
    }
    facts.unsandboxed = unsandboxed;
    facts.summary = format!("session {id} ({program}) ← {}", visible(chars));
}

/// A line whose meaning the shell changes after it is read (a line editor's keys: Tab
/// completes, arrows recall history, Esc starts a binding; history expansion), or keys no
/// rule can judge: what runs cannot be known, so it is checked as unanalysable (`why`).
fn unanalysable(line: &str, facts: &mut CallFacts, why: &'static str) {
    facts.effect = Effect::Mutating;
    let analysis = crate::shell::ShellLine {
        commands: Vec::new(),
        effective: Vec::new(),
        unanalysable: Some(why),
        naive_words: rein_shell::naive_words(line),
    };
    match facts.shell.as_mut() {
        Some(shell) => shell.analysis = analysis,
        None => {
            facts.shell = Some(crate::facts::ShellFacts {
                line: line.to_string(),
                analysis,
                unresolved_paths: true,
                workspace_files_only: false,
            });
        }
    }
}

/// `text` with control characters shown as `^C`, `\n`.
fn visible(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(200) {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("Esc"),
            c if (c as u32) < 0x20 => out.push_str(&format!("^{}", char::from(b'@' + c as u8))),
            c => out.push(c),
        }
    }
    out
}

/// `text` as one shell word.
pub(super) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
