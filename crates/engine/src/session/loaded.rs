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
    /// What each teammate spent (its share of `usage` and `cost_usd`), by name.
    pub teammates: Vec<AgentSpend>,
    /// The teammates started and not stopped when the session was last written.
    pub roster: Vec<RosterEntry>,
    /// The worktree the session was in when last written (its path, and whether this
    /// session made it).
    pub worktree: Option<(String, bool)>,
}

/// A teammate of a stored session's roster.
#[derive(Debug, Clone, PartialEq)]
pub struct RosterEntry {
    /// Its name.
    pub name: String,
    /// Its definition.
    pub agent: String,
    /// Its own permission mode, when it had one.
    pub mode: Option<String>,
    /// Its worktree, when isolated.
    pub worktree: Option<String>,
}

/// What one teammate of a session spent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpend {
    /// The teammate's name.
    pub name: String,
    /// Its usage.
    pub usage: Usage,
    /// Its cost; `None` when a price was unknown.
    pub cost_usd: Option<f64>,
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
    /// What each teammate spent (part of the totals).
    pub teammates: Vec<AgentSpend>,
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
        let first_prompt = as_typed(&self.first_prompt)
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
            teammates: self.teammates.clone(),
        }
    }
}

/// Reads a session from any reader (a file, or bytes in tests).
pub fn load_from(reader: impl BufRead, path: &str) -> Result<LoadedSession, SessionError> {
    let mut reading = Reading {
        path,
        meta: None,
        transcript: Vec::new(),
        usage: Usage::default(),
        cost: Some(0.0),
        requests: 0,
        warnings: Vec::new(),
        first_prompt: String::new(),
        sidechains: Vec::new(),
        todos: Vec::new(),
        restored: Vec::new(),
        teammates: Vec::new(),
        roster: Vec::new(),
        worktree: None,
    };
    let mut lines = reader.split(b'\n').enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let bytes = line.map_err(|source| SessionError::Io {
            path: path.to_string(),
            source,
        })?;
        let last = lines.peek().is_none();
        match reading.line(index + 1, bytes, last)? {
            Line::Record(record) => reading.add(record)?,
            Line::Skip => {}
            Line::TornEnd => break,
        }
    }
    reading.finish()
}

/// What one line of a session file holds.
enum Line {
    /// A record.
    Record(SessionRecord),
    /// Nothing to read (blank, or damaged and warned about).
    Skip,
    /// A torn last line, warned about: the end of what can be read.
    TornEnd,
}

/// A session being read: what the records so far add up to.
struct Reading<'a> {
    path: &'a str,
    meta: Option<SessionRecord>,
    transcript: Vec<Message>,
    usage: Usage,
    cost: Option<f64>,
    requests: u32,
    warnings: Vec<String>,
    first_prompt: String,
    sidechains: Vec<(String, String, Vec<Message>)>,
    todos: Vec<rein_protocol::TodoItem>,
    restored: Vec<(Vec<u32>, Vec<String>)>,
    teammates: Vec<AgentSpend>,
    roster: Vec<RosterEntry>,
    worktree: Option<(String, bool)>,
}

impl Reading<'_> {
    fn corrupt(&self, reason: String) -> SessionError {
        SessionError::Corrupt {
            path: self.path.to_string(),
            reason,
        }
    }

    /// Line `number` (from 1) parsed. Damage before the header makes the file unreadable;
    /// after it, the line is skipped with a warning.
    fn line(&mut self, number: usize, bytes: Vec<u8>, last: bool) -> Result<Line, SessionError> {
        // A torn write inside a character (a full disk) damages one line, not the session.
        let Ok(line) = String::from_utf8(bytes) else {
            if self.meta.is_none() {
                return Err(self.corrupt(format!("line {number}: not valid UTF-8")));
            }
            self.warnings
                .push(format!("skipped line {number}: not valid UTF-8"));
            return Ok(Line::Skip);
        };
        if line.trim().is_empty() {
            return Ok(Line::Skip);
        }
        let parsed: Result<SessionLine, _> = serde_json::from_str(&line);
        match parsed {
            Ok(parsed) => Ok(Line::Record(parsed.record)),
            Err(e) if last => {
                self.warnings
                    .push(format!("skipped a torn last line {number} ({e})"));
                Ok(Line::TornEnd)
            }
            Err(e) if self.meta.is_none() => Err(self.corrupt(format!("line {number}: {e}"))),
            Err(e) => {
                self.warnings
                    .push(format!("skipped unreadable line {number} ({e})"));
                Ok(Line::Skip)
            }
        }
    }

    /// Adds one record to what was read.
    fn add(&mut self, record: SessionRecord) -> Result<(), SessionError> {
        match record {
            SessionRecord::Meta { .. } if self.meta.is_none() => self.meta = Some(record),
            SessionRecord::Meta { .. } => {}
            _ if self.meta.is_none() => {
                return Err(self.corrupt("the first record is not a session header".into()));
            }
            SessionRecord::Message { message } => self.message(message),
            SessionRecord::Restored { turns, files } => self.restored.push((turns, files)),
            SessionRecord::Usage {
                usage: used,
                cost_usd,
                ..
            } => {
                self.usage.add(&used);
                self.requests += 1;
                self.cost = self
                    .cost
                    .zip(cost_usd)
                    .map(|(a, b)| rein_llm::round_cost(a + b));
            }
            SessionRecord::Compaction {
                summary,
                kept_messages,
                ..
            } => {
                let transcript = std::mem::take(&mut self.transcript);
                self.transcript = crate::context::compacted(transcript, &summary, kept_messages);
            }
            SessionRecord::Sidechain {
                agent_id,
                agent,
                record,
            } => match *record {
                SessionRecord::Message { message } => {
                    self.sidechain_message(agent_id, agent, message);
                }
                // A teammate's requests (the top-level records count them for the session).
                SessionRecord::Usage {
                    usage, cost_usd, ..
                } => {
                    if let Some(name) = agent_id.strip_prefix(crate::subagents::TEAMMATE_PREFIX) {
                        self.teammate_spent(name.to_string(), &usage, cost_usd);
                    }
                }
                _ => {}
            },
            SessionRecord::Todos { todos: list } => self.todos = list,
            SessionRecord::Teammate {
                name,
                agent,
                state,
                mode,
                worktree,
            } => {
                self.roster.retain(|entry| entry.name != name);
                if state == "started" {
                    self.roster.push(RosterEntry {
                        name,
                        agent,
                        mode,
                        worktree,
                    });
                }
            }
            SessionRecord::Worktree { path, made } => self.worktree = path.map(|p| (p, made)),
            SessionRecord::Error { .. } | SessionRecord::Unknown => {}
        }
        Ok(())
    }

    /// A message of the transcript; the first prompt is kept aside, and a later one ends the
    /// restores it carried the news of.
    fn message(&mut self, message: Message) {
        let prompt = message.role == rein_protocol::Role::User && !message.text().trim().is_empty();
        if prompt && self.first_prompt.is_empty() {
            self.first_prompt = message.text();
        } else if prompt {
            // A prompt sent after a restore carried the news of it.
            self.restored.clear();
        }
        join(&mut self.transcript, message);
    }

    /// Adds a request of teammate `name` to what it spent.
    fn teammate_spent(&mut self, name: String, usage: &Usage, cost: Option<f64>) {
        let at = match self.teammates.iter().position(|t| t.name == name) {
            Some(at) => at,
            None => {
                self.teammates.push(AgentSpend {
                    name,
                    usage: Usage::default(),
                    cost_usd: Some(0.0),
                });
                self.teammates.len() - 1
            }
        };
        let spend = &mut self.teammates[at];
        spend.usage.add(usage);
        spend.cost_usd = spend
            .cost_usd
            .zip(cost)
            .map(|(a, b)| rein_llm::round_cost(a + b));
    }

    /// A message of the subagent run by call `agent_id`.
    fn sidechain_message(&mut self, agent_id: String, agent: String, message: Message) {
        let at = match self
            .sidechains
            .iter()
            .position(|(id, _, _)| *id == agent_id)
        {
            Some(at) => at,
            None => {
                self.sidechains.push((agent_id, agent, Vec::new()));
                self.sidechains.len() - 1
            }
        };
        join(&mut self.sidechains[at].2, message);
    }

    /// The session read, its transcript repaired.
    fn finish(mut self) -> Result<LoadedSession, SessionError> {
        let meta = self
            .meta
            .take()
            .ok_or_else(|| self.corrupt("the file is empty".into()))?;
        let (transcript, repairs) = super::repair(self.transcript);
        self.warnings.extend(repairs);
        Ok(LoadedSession {
            meta,
            transcript,
            usage: self.usage,
            cost_usd: self.cost,
            requests: self.requests,
            warnings: self.warnings,
            first_prompt: self.first_prompt,
            sidechains: self.sidechains,
            todos: self.todos,
            restored: self.restored,
            teammates: self.teammates,
            roster: self.roster,
            worktree: self.worktree,
        })
    }
}

/// Appends `message`, joined to the last message when it has the same role.
fn join(messages: &mut Vec<Message>, message: Message) {
    match messages.last_mut() {
        Some(last) if last.role == message.role => last.content.extend(message.content),
        _ => messages.push(message),
    }
}

/// A prompt as the user typed it: a custom command's expansion as `/name`, a `!command`'s
/// transcript line as `!command`.
fn as_typed(prompt: &str) -> String {
    if let Some(rest) = prompt.strip_prefix("<command-name>")
        && let Some((name, _)) = rest.split_once("</command-name>")
    {
        return name.to_string();
    }
    shell_as_typed(prompt)
}

/// A prompt as the user typed it: a `!command`'s transcript line back to `!command`.
pub(crate) fn shell_as_typed(prompt: &str) -> String {
    match prompt
        .strip_prefix(super::BASH_INPUT)
        .and_then(|rest| rest.strip_suffix("</bash-input>"))
    {
        Some(command) => format!("!{command}"),
        None => prompt.to_string(),
    }
}

#[cfg(test)]
mod typed_tests {
    #[test]
    fn a_listed_first_prompt_reads_as_typed() {
        assert_eq!(
            super::as_typed("<command-name>/review</command-name>\nReview the diff for bugs."),
            "/review"
        );
        assert_eq!(
            super::as_typed("<bash-input>git status</bash-input>"),
            "!git status"
        );
        assert_eq!(super::as_typed("fix the bug"), "fix the bug");
    }
}
