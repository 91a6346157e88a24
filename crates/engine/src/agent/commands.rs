//! `/name args` in a prompt: a custom command or a skill the user typed, expanded into the
//! prompt the model gets. Its `` !`…` `` snippets run through the shell tool and the
//! permission gate (with the command's `allowed-tools` as extra allow rules; deny rules still
//! hold), its `@path` references are read through the workspace guard.

use std::sync::{Arc, Mutex};

use rein_protocol::ContentBlock;
use serde_json::json;

use crate::EventSender;
use crate::commands::{PromptCommand, at_references, shell_snippets, substitute};
use crate::dispatch::{Dispatch, ToolCall};
use crate::emitter::Emitter;
use rein_policy::{Rule, SourcedRule};

/// Most bytes of one file an `@path` inlines.
const AT_FILE_CAP: u64 = 100 * 1024;
/// Most entries of a folder an `@path` lists.
const AT_DIR_ENTRIES: usize = 200;

impl super::Agent {
    /// The prompt `prompt` stands for when it is `/name args` naming a command or skill the
    /// user may type, and the model its frontmatter names (a client for it, with the model and
    /// client to go back to after the run); `None` when it names none (it is then sent as
    /// typed).
    pub(super) async fn expand_command(
        &mut self,
        prompt: &str,
        events: &EventSender,
    ) -> Option<(String, Option<(String, Arc<dyn rein_llm::ModelClient>)>)> {
        let rest = prompt.trim_start().strip_prefix('/')?;
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let Some(command) = self.config.commands.user_command(name).cloned() else {
            // `/loop`, unless the user has a command of that name.
            if name != "loop" {
                return None;
            }
            return match rein_tools::schedule::expand_loop(&self.schedule, args) {
                Ok(text) => Some((format!("<command-name>/loop</command-name>\n{text}"), None)),
                Err(why) => {
                    events.error(format!("/loop: {why}; sent as typed"));
                    None
                }
            };
        };
        if command.fetched {
            return self.fetch_command(name, args, events).await;
        }
        let text = match &command.skill {
            Some(info) => crate::commands::skill_text(&command.body, &info.dir, args),
            None => substitute(&command.body, args, None),
        };
        let text = self.run_snippets(&command, text, events).await;
        let text = self.inline_references(text);
        let previous = match &command.model {
            Some(model) => self.use_command_model(&command.name, model, events),
            None => None,
        };
        Some((
            format!("<command-name>/{name}</command-name>\n{text}"),
            previous,
        ))
    }

    /// The text of a fetched command (an MCP server's prompt); `None` (the line is sent as
    /// typed) with an error event when it cannot be had.
    async fn fetch_command(
        &self,
        name: &str,
        args: &str,
        events: &EventSender,
    ) -> Option<(String, Option<(String, Arc<dyn rein_llm::ModelClient>)>)> {
        let fetched = match &self.config.prompt_source {
            Some(source) => source.fetch(name, args).await,
            None => Err("nothing serves it here".into()),
        };
        match fetched {
            Ok(text) => Some((
                format!("<command-name>/{name}</command-name>\n{text}"),
                None,
            )),
            Err(why) => {
                events.error(format!(
                    "/{name} could not be fetched: {why}; sent as typed"
                ));
                None
            }
        }
    }

    /// Switches to `model` for this run (resolved like a subagent's), giving the model and
    /// client to go back to; says why not when it cannot.
    fn use_command_model(
        &mut self,
        command: &str,
        model: &str,
        events: &EventSender,
    ) -> Option<(String, Arc<dyn rein_llm::ModelClient>)> {
        let source = self
            .config
            .subagents
            .as_ref()
            .and_then(|s| s.models.clone());
        let resolved = match source {
            Some(source) => source.client_for(model),
            None => Err("no provider can be resolved here".into()),
        };
        match resolved {
            Ok((name, client)) => {
                let previous = (self.config.model.clone(), Arc::clone(&self.client));
                self.set_model(name, client);
                Some(previous)
            }
            Err(why) => {
                events.error(format!(
                    "/{command} names the model {model}, which is not available ({why}); \
                     the session's model answers"
                ));
                None
            }
        }
    }

    /// `text` with each `` !`command` `` replaced by what the command printed.
    async fn run_snippets(
        &mut self,
        command: &PromptCommand,
        text: String,
        events: &EventSender,
    ) -> String {
        let snippets = shell_snippets(&text);
        if snippets.is_empty() {
            return text;
        }
        let calls: Vec<ToolCall> = snippets
            .iter()
            .enumerate()
            .map(|(n, (_, line))| ToolCall {
                id: format!("command_{}", n + 1),
                name: "bash".into(),
                input: json!({ "command": line }),
            })
            .collect();
        let gate = self.command_gate(command);
        let results = Dispatch {
            tools: &self.toolset.registry,
            ctx: &self.tool_ctx,
            limits: self.config.dispatch,
            gate: &gate,
            events,
            checkpoints: self.checkpointing.store.as_deref(),
            on_done: &|_| {},
            claude_results: self.config.claude_results,
            sees_images: rein_llm::models::sees_images(&self.config.model, &self.config.vision),
        }
        .run(calls)
        .await;
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for ((range, _), done) in snippets.iter().zip(&results) {
            out.push_str(&text[at..range.start]);
            if let ContentBlock::ToolResult { content, .. } = &done.block {
                out.push_str(content.trim_end());
            }
            at = range.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// The session's gate with the command's `allowed-tools` added as allow rules.
    fn command_gate(&self, command: &PromptCommand) -> crate::gate::Gate {
        let mut policy = self.gate.policy().clone();
        let guard = &self.tool_ctx.guard;
        for text in &command.allowed_tools {
            if let Ok(rule) = Rule::parse(text, guard.root(), guard.home()) {
                policy.rules.allow.push(SourcedRule {
                    rule,
                    source: format!("/{} allowed-tools", command.name),
                });
            }
        }
        crate::gate::Gate {
            policy: Arc::new(Mutex::new(policy)),
            ..self.gate.clone()
        }
    }

    /// `text` followed by the files and folders its `@path` references name, read through
    /// the guard; a reference to nothing is left as it is.
    fn inline_references(&self, text: String) -> String {
        let guard = &self.tool_ctx.guard;
        let mut appended = String::new();
        let mut seen = Vec::new();
        for (_, path) in at_references(&text) {
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            let Ok(resolved) = guard.resolve_read(&path) else {
                if guard.locate_anywhere(&path).is_ok_and(|p| p.exists()) {
                    appended.push_str(&format!(
                        "\n\n(@{path} was not included: the workspace guard refuses it)"
                    ));
                }
                continue;
            };
            if resolved.is_dir() {
                let Ok(entries) = std::fs::read_dir(&resolved) else {
                    continue;
                };
                let mut names: Vec<String> = entries
                    .filter_map(Result::ok)
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if e.file_type().is_ok_and(|t| t.is_dir()) {
                            format!("{name}/")
                        } else {
                            name
                        }
                    })
                    .collect();
                names.sort();
                names.truncate(AT_DIR_ENTRIES);
                appended.push_str(&format!(
                    "\n\nThe folder @{path} holds:\n{}",
                    names.join("\n")
                ));
            } else if let Ok(Some(content)) = rein_tools::read_regular(&resolved, AT_FILE_CAP) {
                appended.push_str(&format!(
                    "\n\nThe file @{path}:\n```\n{}\n```",
                    content.trim_end()
                ));
            }
        }
        text + &appended
    }
}
