//! What a server knows about a place in a file: where the name there is defined, where it is
//! used, and what it is (hover).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{GotoDefinitionResponse, Hover, HoverContents, Location, MarkedString};
use serde_json::{Value, json};

use super::launch::Launch;
use super::{LspError, Servers, uri};

/// The most places listed.
const MAX_PLACES: usize = 50;

/// The longest hover text shown.
const HOVER_CHARS: usize = 4000;

/// A question for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// `textDocument/definition`.
    Definition,
    /// `textDocument/references` (declarations included).
    References,
    /// `textDocument/hover`.
    Hover,
}

impl Query {
    fn method(self) -> &'static str {
        match self {
            Self::Definition => "textDocument/definition",
            Self::References => "textDocument/references",
            Self::Hover => "textDocument/hover",
        }
    }

    fn provider(self) -> &'static str {
        match self {
            Self::Definition => "definitionProvider",
            Self::References => "referencesProvider",
            Self::Hover => "hoverProvider",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Self::Definition => "definition",
            Self::References => "references",
            Self::Hover => "hover information",
        }
    }
}

/// A place in a file: 1-based line and column (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file (canonical).
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// Why a question got no answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// No server reads the file.
    #[error("no language server reads {0} (see `rein lsp check`)")]
    NoServer(String),
    /// The server does not answer this question.
    #[error("{server} does not offer {what}")]
    Unsupported {
        /// The server.
        server: String,
        /// The question.
        what: &'static str,
    },
    /// The place is not in the file.
    #[error("{0}")]
    BadPlace(String),
    /// The server failed.
    #[error(transparent)]
    Server(#[from] LspError),
}

impl Servers {
    /// Asks the server for `place`'s file `query`, the answer as text for the model; the
    /// source line of a place is shown only when `shows` accepts its file (a sensitive file's
    /// is not).
    pub async fn query(
        self: &Arc<Self>,
        query: Query,
        place: &Place,
        launch: Arc<dyn Launch>,
        shows: &(dyn Fn(&Path) -> bool + Send + Sync),
    ) -> Result<String, QueryError> {
        let shown = place.path.display().to_string();
        let client = self
            .client(&place.path, launch.as_ref())
            .await
            .ok_or_else(|| QueryError::NoServer(shown.clone()))??;
        if !client.supports(query.provider()) {
            return Err(QueryError::Unsupported {
                server: client.name().to_string(),
                what: query.what(),
            });
        }
        let character = utf16_column(&place.path, place.line, place.column)?;
        client.sync(&place.path).await?;
        let mut params = json!({
            "textDocument": {"uri": uri::from_path(&place.path)},
            "position": {"line": place.line - 1, "character": character},
        });
        if query == Query::References {
            params["context"] = json!({"includeDeclaration": true});
        }
        let timeout = self.settings().request_timeout;
        let answer = client.request(query.method(), params, timeout).await?;
        let here = format!(
            "{}:{}:{}",
            self.relative(&place.path),
            place.line,
            place.column
        );
        Ok(match query {
            Query::Hover => self.hover_text(answer, &here),
            Query::Definition | Query::References => self.places_text(query, answer, &here, shows),
        })
    }

    fn relative(&self, path: &Path) -> String {
        let workspace = self.workspace();
        path.strip_prefix(workspace)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn places_text(
        &self,
        query: Query,
        answer: Value,
        here: &str,
        shows: &(dyn Fn(&Path) -> bool + Send + Sync),
    ) -> String {
        let places: Vec<(PathBuf, u32, u32)> = match query {
            Query::References => serde_json::from_value::<Option<Vec<Location>>>(answer)
                .ok()
                .flatten()
                .unwrap_or_default()
                .iter()
                .filter_map(location)
                .collect(),
            _ => match serde_json::from_value::<Option<GotoDefinitionResponse>>(answer) {
                Ok(Some(GotoDefinitionResponse::Scalar(one))) => {
                    location(&one).into_iter().collect()
                }
                Ok(Some(GotoDefinitionResponse::Array(many))) => {
                    many.iter().filter_map(location).collect()
                }
                Ok(Some(GotoDefinitionResponse::Link(links))) => links
                    .iter()
                    .filter_map(|link| {
                        let path = uri::to_path(link.target_uri.as_str())?;
                        let start = link.target_selection_range.start;
                        Some((path, start.line + 1, start.character + 1))
                    })
                    .collect(),
                _ => Vec::new(),
            },
        };
        if places.is_empty() {
            return format!("No {} found at {here}.", query.what());
        }
        let mut text = String::new();
        for (path, line, column) in places.iter().take(MAX_PLACES) {
            let source = match shows(path) {
                true => line_text(path, *line).unwrap_or_default(),
                false => "(not shown)".into(),
            };
            let _ = writeln!(
                text,
                "{}:{line}:{column}: {}",
                self.relative(path),
                source.trim()
            );
        }
        if places.len() > MAX_PLACES {
            let _ = writeln!(text, "… and {} more", places.len() - MAX_PLACES);
        }
        text
    }

    fn hover_text(&self, answer: Value, here: &str) -> String {
        let hover = serde_json::from_value::<Option<Hover>>(answer)
            .ok()
            .flatten();
        let text = match hover.map(|h| h.contents) {
            Some(HoverContents::Markup(markup)) => markup.value,
            Some(HoverContents::Scalar(marked)) => marked_text(marked),
            Some(HoverContents::Array(marked)) => marked
                .into_iter()
                .map(marked_text)
                .collect::<Vec<_>>()
                .join("\n\n"),
            None => String::new(),
        };
        let text = text.trim();
        if text.is_empty() {
            return format!("No hover information at {here}.");
        }
        if text.chars().count() > HOVER_CHARS {
            return text.chars().take(HOVER_CHARS).collect::<String>() + "\n…";
        }
        text.to_string()
    }
}

fn marked_text(marked: MarkedString) -> String {
    match marked {
        MarkedString::String(text) => text,
        MarkedString::LanguageString(code) => format!("```{}\n{}\n```", code.language, code.value),
    }
}

fn location(location: &Location) -> Option<(PathBuf, u32, u32)> {
    let path = uri::to_path(location.uri.as_str())?;
    let start = location.range.start;
    Some((path, start.line + 1, start.character + 1))
}

/// The 1-based `line` of `path`, without its line break.
fn line_text(path: &Path, line: u32) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)
        .map(str::to_string)
}

/// LSP's 0-based character offset (in UTF-16 code units) of the 1-based `column` (in
/// characters) on the 1-based `line`.
fn utf16_column(path: &Path, line: u32, column: u32) -> Result<u32, QueryError> {
    let bad = |what: String| QueryError::BadPlace(what);
    if line == 0 || column == 0 {
        return Err(bad("line and column count from 1".into()));
    }
    let text = line_text(path, line).ok_or_else(|| {
        bad(format!(
            "{} has no line {line} (or cannot be read)",
            path.display()
        ))
    })?;
    let before: String = text.chars().take(column as usize - 1).collect();
    if before.chars().count() < column as usize - 1 {
        let length = text.chars().count();
        return Err(bad(format!(
            "line {line} has {length} characters; column {column} is past its end"
        )));
    }
    Ok(before.encode_utf16().count() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_and_become_utf16_offsets() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "x = 1\ns = '𝄞é' + name\n").unwrap();
        assert_eq!(utf16_column(&file, 1, 1).unwrap(), 0);
        // `name` starts at character 12 of line 2; the clef before it takes two UTF-16 units.
        assert_eq!(utf16_column(&file, 2, 12).unwrap(), 12);
        let past = utf16_column(&file, 2, 40).unwrap_err().to_string();
        assert!(past.contains("column 40 is past its end"), "{past}");
        assert!(utf16_column(&file, 9, 1).is_err());
        assert!(utf16_column(&file, 0, 1).is_err());
    }
}
