//! `--input-format stream-json`: the user's messages on standard input, one JSON object per
//! line, as Claude Code's SDK writes them:
//! `{"type":"user","message":{"role":"user","content":"…"}}`, where `content` may also be a
//! list of blocks whose `text` blocks are read.

use serde_json::Value;

/// What one input line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputLine {
    /// A user message: run it as a prompt.
    Prompt(String),
    /// A blank line: nothing.
    Blank,
}

/// Why an input line was not used (said on stderr; the next line is read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Not JSON.
    #[error("not JSON ({0})")]
    NotJson(String),
    /// JSON, but not a user message rein reads.
    #[error("{0}")]
    NotAMessage(String),
}

/// Reads one line of the input stream.
pub fn parse(line: &str) -> Result<InputLine, InputError> {
    if line.trim().is_empty() {
        return Ok(InputLine::Blank);
    }
    let value: Value =
        serde_json::from_str(line).map_err(|e| InputError::NotJson(e.to_string()))?;
    let kind = value["type"].as_str().unwrap_or_default();
    if kind != "user" {
        return Err(InputError::NotAMessage(format!(
            "a line of type {kind:?} is not read; send {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"…\"}}}}"
        )));
    }
    let text = match &value["message"]["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            if texts.len() < blocks.len() {
                return Err(InputError::NotAMessage(
                    "only text blocks are read from a message's content".to_string(),
                ));
            }
            texts.join("\n\n")
        }
        _ => {
            return Err(InputError::NotAMessage(
                "a user message needs `message.content`: a text or a list of text blocks"
                    .to_string(),
            ));
        }
    };
    if text.trim().is_empty() {
        return Err(InputError::NotAMessage("the message is empty".to_string()));
    }
    Ok(InputLine::Prompt(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn user_messages_are_prompts_and_other_lines_say_why_not() {
        let cases = [
            (
                r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#,
                Ok(InputLine::Prompt("fix it".into())),
            ),
            (
                r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}"#,
                Ok(InputLine::Prompt("a\n\nb".into())),
            ),
            ("   ", Ok(InputLine::Blank)),
            (
                r#"{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}"#,
                Err(InputError::NotAMessage(
                    "only text blocks are read from a message's content".into(),
                )),
            ),
            (
                r#"{"type":"user","message":{"role":"user","content":"  "}}"#,
                Err(InputError::NotAMessage("the message is empty".into())),
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(parse(line), expected, "{line}");
        }
        assert!(matches!(parse("{oops"), Err(InputError::NotJson(_))));
        assert!(matches!(
            parse(r#"{"type":"control_request"}"#),
            Err(InputError::NotAMessage(m)) if m.contains("\"control_request\" is not read")
        ));
    }
}
