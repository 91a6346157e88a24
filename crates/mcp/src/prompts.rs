//! A server's prompts as slash commands: `/mcp__<server>__<prompt> words…`, the words given
//! to the prompt's arguments in order (the last argument takes the rest), the messages the
//! server returns joined into the user's prompt.

use std::sync::Arc;

use serde_json::Value;

use crate::McpError;
use crate::server::Server;
use crate::tool::{sanitise, unique};

/// One prompt, as the user types it.
#[derive(Debug, Clone)]
pub struct McpPrompt {
    /// `mcp__server__prompt`.
    pub command: String,
    /// The server's own name for it.
    pub remote: String,
    /// Its description.
    pub description: String,
    /// Its arguments, in order: (name, required).
    pub arguments: Vec<(String, bool)>,
    /// The server it belongs to.
    pub server: Arc<Server>,
}

impl McpPrompt {
    /// `<name> [style]`: how to call it.
    pub fn argument_hint(&self) -> Option<String> {
        let hint: Vec<String> = self
            .arguments
            .iter()
            .map(|(name, required)| {
                if *required {
                    format!("<{name}>")
                } else {
                    format!("[{name}]")
                }
            })
            .collect();
        (!hint.is_empty()).then(|| hint.join(" "))
    }

    /// The prompt's text with `args` (the words typed after it), or why not.
    pub async fn fetch(&self, args: &str) -> Result<String, McpError> {
        let mut words: Vec<&str> = args.split_whitespace().collect();
        let mut map = serde_json::Map::new();
        let count = self.arguments.len();
        for (n, (name, required)) in self.arguments.iter().enumerate() {
            let value = if n + 1 == count {
                words.join(" ")
            } else if words.is_empty() {
                String::new()
            } else {
                words.remove(0).to_string()
            };
            if value.is_empty() {
                if *required {
                    return Err(McpError::MissingArgument {
                        argument: name.clone(),
                        command: self.command.clone(),
                        hint: self.argument_hint().unwrap_or_default(),
                    });
                }
                continue;
            }
            map.insert(name.clone(), Value::String(value));
        }
        let result = self.server.prompt(&self.remote, map).await?;
        let texts: Vec<String> = result
            .messages
            .iter()
            .map(|message| {
                let value = serde_json::to_value(&message.content).unwrap_or_default();
                match value.get("type").and_then(Value::as_str) {
                    Some("text") => value
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    Some("resource") => value
                        .pointer("/resource/text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    Some(other) => format!("[{other} content]"),
                    None => String::new(),
                }
            })
            .filter(|t| !t.trim().is_empty())
            .collect();
        if texts.is_empty() {
            return Err(McpError::NoText);
        }
        Ok(texts.join("\n\n"))
    }
}

/// The prompts of every server, named uniquely.
pub fn all(servers: &[Arc<Server>]) -> Vec<McpPrompt> {
    let mut taken = Vec::new();
    let mut prompts = Vec::new();
    for server in servers {
        for prompt in &server.prompts {
            let command = unique(
                &format!(
                    "mcp__{}__{}",
                    sanitise(&server.config.name),
                    sanitise(&prompt.name)
                ),
                &taken,
            );
            taken.push(command.clone());
            prompts.push(McpPrompt {
                command,
                remote: prompt.name.clone(),
                description: prompt
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("prompt of MCP server {}", server.config.name)),
                arguments: prompt
                    .arguments
                    .iter()
                    .flatten()
                    .map(|a| (a.name.clone(), a.required == Some(true)))
                    .collect(),
                server: Arc::clone(server),
            });
        }
    }
    prompts
}
