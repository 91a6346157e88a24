//! A session file read back: the transcript rebuilt, usage summed, damage skipped with
//! warnings.

use std::io::BufRead;

use rein_protocol::{Message, SessionLine, SessionRecord, Usage};

use super::SessionError;

/// A session read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// The header record.
    pub meta: SessionRecord,
    /// The transcript, consecutive same-role parts joined.
    pub transcript: Vec<Message>,
    /// Usage summed over the session's requests.
    pub usage: Usage,
    /// Cost summed over the session; `None` when any request's price was unknown.
    pub cost_usd: Option<f64>,
    /// Model requests made.
    pub requests: u32,
    /// Problems skipped while reading (a torn last line…).
    pub warnings: Vec<String>,
    /// The user's first prompt as recorded (a compaction's summary does not replace it).
    pub first_prompt: String,
    /// Subagents' transcripts, by the `task` call that ran them: (call id, agent, messages).
    pub sidechains: Vec<(String, String, Vec<Message>)>,
    /// The todo list as last written.
    pub todos: Vec<rein_protocol::TodoItem>,
    /// Restores recorded after the last prompt, which the model has not been told of yet:
    /// (turns, files).
    pub restored: Vec<(Vec<u32>, Vec<String>)>,
}

/// One line of `rein sessions`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// Session id.
    pub id: String,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last activity: when the file was last written (set by [`super::SessionStore::list`]).
    pub last_active: Option<std::time::SystemTime>,
    /// The first prompt, on one line.
    pub first_prompt: String,
    /// Model requests made.
    pub requests: u32,
    /// Cost in US dollars, when known.
    pub cost_usd: Option<f64>,
    /// Usage totals.
    pub usage: Usage,
}

impl LoadedSession {
    /// The session's id.
    pub fn id(&self) -> &str {
        match &self.meta {
            SessionRecord::Meta { session_id, .. } => session_id,
            _ => "",
        }
    }

    pub(super) fn summary(&self) -> SessionSummary {
        let created_at = match &self.meta {
            SessionRecord::Meta { created_at, .. } => created_at.clone(),
            _ => String::new(),
        };
        let first_prompt = self
            .first_prompt
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        SessionSummary {
            id: self.id().to_string(),
            created_at,
            last_active: None,
            first_prompt,
            requests: self.requests,
            cost_usd: self.cost_usd,
            usage: self.usage,
        }
    }
}

/// Reads a session from any reader (a file, or bytes in tests).
pub fn load_from(reader: impl BufRead, path: &str) -> Result<LoadedSession, SessionError> {
    let mut meta = None;
    let mut transcript: Vec<Message> = Vec::new();
    let mut usage = Usage::default();
    let mut cost: Option<f64> = Some(0.0);
    let mut requests = 0;
    let mut warnings = Vec::new();
    let mut first_prompt = String::new();
    let mut sidechains: Vec<(String, String, Vec<Message>)> = Vec::new();
    let mut todos = Vec::new();
    let mut restored = Vec::new();
    let mut lines = reader.split(b'\n').enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let bytes = line.map_err(|source| SessionError::Io {
            path: path.to_string(),
            source,
        })?;
        // A torn write inside a character (a full disk) damages one line, not the session.
        let Ok(line) = String::from_utf8(bytes) else {
            if meta.is_none() {
                return Err(SessionError::Corrupt {
                    path: path.to_string(),
                    reason: format!("line {}: not valid UTF-8", index + 1),
                });
            }
            warnings.push(format!("skipped line {}: not valid UTF-8", index + 1));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Result<SessionLine, _> = serde_json::from_str(&line);
        let record = match parsed {
            Ok(parsed) => parsed.record,
            Err(e) if lines.peek().is_none() => {
                warnings.push(format!("skipped a torn last line {} ({e})", index + 1));
                break;
            }
            Err(e) if meta.is_none() => {
                return Err(SessionError::Corrupt {
                    path: path.to_string(),
                    reason: format!("line {}: {e}", index + 1),
                });
            }
            Err(e) => {
                warnings.push(format!("skipped unreadable line {} ({e})", index + 1));
                continue;
            }
        };
        match record {
            SessionRecord::Meta { .. } if meta.is_none() => meta = Some(record),
            SessionRecord::Meta { .. } => {}
            _ if meta.is_none() => {
                return Err(SessionError::Corrupt {
                    path: path.to_string(),
                    reason: "the first record is not a session header".into(),
                });
            }
            SessionRecord::Message { message }
                if first_prompt.is_empty()
                    && message.role == rein_protocol::Role::User
                    && !message.text().trim().is_empty() =>
            {
                first_prompt = message.text();
                match transcript.last_mut() {
                    Some(last) if last.role == message.role => last.content.extend(message.content),
                    _ => transcript.push(message),
                }
            }
            SessionRecord::Message { message } => {
                if message.role == rein_protocol::Role::User && !message.text().trim().is_empty() {
                    // A prompt sent after a restore carried the news of it.
                    restored.clear();
                }
                match transcript.last_mut() {
                    Some(last) if last.role == message.role => last.content.extend(message.content),
                    _ => transcript.push(message),
                }
            }
            SessionRecord::Restored { turns, files } => restored.push((turns, files)),
            SessionRecord::Usage {
                usage: used,
                cost_usd,
                ..
            } => {
                usage.add(&used);
                requests += 1;
                cost = cost.zip(cost_usd).map(|(a, b)| rein_llm::round_cost(a + b));
            }
            SessionRecord::Compaction {
                summary,
                kept_messages,
                ..
            } => transcript = crate::context::compacted(transcript, &summary, kept_messages),
            SessionRecord::Sidechain {
                agent_id,
                agent,
                record,
            } => {
                if let SessionRecord::Message { message } = *record {
                    let at = match sidechains.iter().position(|(id, _, _)| *id == agent_id) {
                        Some(at) => at,
                        None => {
                            sidechains.push((agent_id, agent, Vec::new()));
                            sidechains.len() - 1
                        }
                    };
                    let chain = &mut sidechains[at].2;
                    match chain.last_mut() {
                        Some(last) if last.role == message.role => {
                            last.content.extend(message.content);
                        }
                        _ => chain.push(message),
                    }
                }
            }
            SessionRecord::Todos { todos: list } => todos = list,
            SessionRecord::Error { .. } | SessionRecord::Unknown => {}
        }
    }
    let meta = meta.ok_or_else(|| SessionError::Corrupt {
        path: path.to_string(),
        reason: "the file is empty".into(),
    })?;
    let (transcript, repairs) = super::repair(transcript);
    warnings.extend(repairs);
    Ok(LoadedSession {
        meta,
        transcript,
        usage,
        cost_usd: cost,
        requests,
        warnings,
        first_prompt,
        sidechains,
        todos,
        restored,
    })
}
