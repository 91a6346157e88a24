//! `/export [file]`: the conversation as Markdown, written to a new file.

use std::io::Write;
use std::path::PathBuf;

use rein_protocol::{ContentBlock, Message, Role};

/// The conversation as Markdown: each message under a heading, tool calls with their input
/// and results in fenced blocks, thinking left out.
pub fn markdown(messages: &[Message]) -> String {
    let mut out = String::from("# Conversation\n");
    for message in messages {
        for block in &message.content {
            match (block, message.role) {
                (ContentBlock::Text { text }, role) if !text.trim().is_empty() => {
                    let who = match role {
                        Role::User => "User",
                        Role::Assistant => "Assistant",
                    };
                    out.push_str(&format!("\n## {who}\n\n{}\n", text.trim_end()));
                }
                (ContentBlock::ToolUse { name, input, .. }, _) => {
                    let input = serde_json::to_string_pretty(input).unwrap_or_default();
                    out.push_str(&format!(
                        "\n### Tool call: {name}\n\n{}",
                        fenced(&input, "json")
                    ));
                }
                (
                    ContentBlock::ToolResult {
                        content, is_error, ..
                    },
                    _,
                ) => {
                    let heading = if *is_error {
                        "Tool error"
                    } else {
                        "Tool result"
                    };
                    out.push_str(&format!("\n### {heading}\n\n{}", fenced(content, "")));
                }
                _ => {}
            }
        }
    }
    out
}

/// `text` in a fence longer than any run of backticks inside it.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{}\n{fence}\n", text.trim_end())
}

/// Why the conversation was not written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExportError {
    /// The file exists: it is never replaced.
    #[error("{} exists; /export another name", .0.display())]
    Exists(PathBuf),
    /// It could not be created or written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Writes `messages` as Markdown to `file` (relative to `workspace`), or to
/// `conversation-<session>.md` in the workspace; an existing file is never replaced.
pub(crate) fn write(
    messages: &[Message],
    file: Option<&str>,
    session: &str,
    workspace: Option<PathBuf>,
) -> Result<PathBuf, ExportError> {
    let base = workspace.unwrap_or_else(|| PathBuf::from("."));
    let name = match file.map(str::trim).filter(|f| !f.is_empty()) {
        Some(file) => PathBuf::from(file),
        None => PathBuf::from(format!("conversation-{session}.md")),
    };
    let path = if name.is_absolute() {
        name
    } else {
        base.join(name)
    };
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => ExportError::Exists(path.clone()),
            _ => ExportError::Write {
                path: path.clone(),
                source,
            },
        })?;
    out.write_all(markdown(messages).as_bytes())
        .map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

/// Copies `messages` as Markdown to the clipboard of the terminal (OSC 52, which terminals
/// and tmux with `set-clipboard on` take); the size copied.
pub(crate) fn to_clipboard(messages: &[Message]) -> std::io::Result<usize> {
    let text = markdown(messages);
    let mut out = std::io::stdout();
    crossterm::execute!(
        out,
        crossterm::clipboard::CopyToClipboard::to_clipboard_from(text.as_bytes())
    )?;
    Ok(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_conversation_reads_as_markdown_and_no_file_is_replaced() {
        let messages = vec![
            Message::user_text("fix it"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "hidden".into(),
                        signature: None,
                    },
                    ContentBlock::Text {
                        text: "Looking.".into(),
                    },
                    ContentBlock::ToolUse {
                        id: "1".into(),
                        name: "bash".into(),
                        input: json!({"command": "ls"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: "1".into(),
                    content: "a ``` b".into(),
                    is_error: true,
                    media: Vec::new(),
                }],
            },
        ];
        assert_eq!(
            markdown(&messages),
            "# Conversation\n\n## User\n\nfix it\n\n## Assistant\n\nLooking.\n\n\
             ### Tool call: bash\n\n```json\n{\n  \"command\": \"ls\"\n}\n```\n\n\
             ### Tool error\n\n````\na ``` b\n````\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = write(&messages, None, "s1", Some(dir.path().to_path_buf())).unwrap();
        assert_eq!(path, dir.path().join("conversation-s1.md"));
        assert!(std::fs::read_to_string(&path).unwrap().contains("fix it"));
        let again = write(
            &messages,
            Some("conversation-s1.md"),
            "s1",
            Some(dir.path().into()),
        );
        assert!(
            again
                .unwrap_err()
                .to_string()
                .ends_with("exists; /export another name")
        );
    }
}
