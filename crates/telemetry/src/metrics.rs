//! The session's metrics, after Claude Code's set: sessions, tokens by type, cost, model
//! requests and errors, tool calls by tool and decision, lines added and removed, active time.

use std::collections::HashMap;
use std::time::SystemTime;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Meter};
use rein_protocol::{Event, PermissionVerdict};

use crate::names::metric;

/// The instruments, made once per process.
#[derive(Clone)]
pub struct Instruments {
    sessions: Counter<u64>,
    tokens: Counter<u64>,
    cost: Counter<f64>,
    requests: Counter<u64>,
    errors: Counter<u64>,
    tool_calls: Counter<u64>,
    lines: Counter<u64>,
    active: Counter<f64>,
}

impl Instruments {
    pub fn new(meter: &Meter) -> Self {
        Self {
            sessions: meter
                .u64_counter(metric::SESSIONS)
                .with_description("Sessions started")
                .build(),
            tokens: meter
                .u64_counter(metric::TOKENS)
                .with_unit("{token}")
                .with_description(
                    "Tokens, by type (input, output, cache_read, cache_creation) and model",
                )
                .build(),
            cost: meter
                .f64_counter(metric::COST)
                .with_unit("USD")
                .with_description("Cost of model requests, by model")
                .build(),
            requests: meter
                .u64_counter(metric::REQUESTS)
                .with_description("Model requests, by model")
                .build(),
            errors: meter
                .u64_counter(metric::ERRORS)
                .with_description("Model request failures, retried (retry) or not (failed)")
                .build(),
            tool_calls: meter
                .u64_counter(metric::TOOL_CALLS)
                .with_description("Tool calls, by tool and permission decision")
                .build(),
            lines: meter
                .u64_counter(metric::LINES)
                .with_description("Lines changed by the file tools, by type (added, removed)")
                .build(),
            active: meter
                .f64_counter(metric::ACTIVE_TIME)
                .with_unit("s")
                .with_description("Time a prompt was being worked on")
                .build(),
        }
    }
}

/// Records one event stream's metrics.
pub struct Recording {
    instruments: Instruments,
    model: String,
    /// Each tool call's decision, until its end.
    decisions: HashMap<String, &'static str>,
    /// When the prompt under way started.
    prompt_started: Option<SystemTime>,
    session_counted: bool,
}

impl Recording {
    pub fn new(instruments: Instruments) -> Self {
        Self {
            instruments,
            model: String::new(),
            decisions: HashMap::new(),
            prompt_started: None,
            session_counted: false,
        }
    }

    /// Takes in one event; subagents' events count as the session's.
    pub fn observe(&mut self, event: &Event, at: SystemTime) {
        let i = &self.instruments;
        let model = || KeyValue::new("model", self.model.clone());
        match event {
            Event::SessionStart { model: name, .. } => {
                self.model = name.clone();
                if !self.session_counted {
                    self.session_counted = true;
                    i.sessions.add(1, &[]);
                }
            }
            Event::ModelFallback { to, .. } => self.model = to.clone(),
            Event::TurnStart { .. } => {
                self.prompt_started.get_or_insert(at);
                i.requests.add(1, &[model()]);
            }
            Event::Retry { .. } => i.errors.add(1, &[model(), KeyValue::new("kind", "retry")]),
            Event::Usage { usage, cost_usd } => {
                for (kind, n) in [
                    ("input", usage.input_tokens),
                    ("output", usage.output_tokens),
                    ("cache_read", usage.cache_read_input_tokens),
                    ("cache_creation", usage.cache_creation_input_tokens),
                ] {
                    i.tokens.add(n, &[model(), KeyValue::new("type", kind)]);
                }
                if let Some(cost) = cost_usd {
                    i.cost.add(*cost, &[model()]);
                }
            }
            Event::Permission { id, decision, .. } => {
                let word = match decision {
                    PermissionVerdict::Allow => "allow",
                    PermissionVerdict::Ask => "ask",
                    PermissionVerdict::Deny => "deny",
                };
                self.decisions.insert(id.clone(), word);
            }
            Event::ToolCallEnd { id, name, diff, .. } => {
                let decision = self.decisions.remove(id).unwrap_or("none");
                i.tool_calls.add(
                    1,
                    &[
                        KeyValue::new("tool", name.clone()),
                        KeyValue::new("decision", decision),
                    ],
                );
                if let Some(diff) = diff {
                    let (added, removed) = crate::diff_lines(diff);
                    i.lines.add(added, &[KeyValue::new("type", "added")]);
                    i.lines.add(removed, &[KeyValue::new("type", "removed")]);
                }
            }
            Event::Subagent { event, .. } => {
                let model = self.model.clone();
                let counted = self.session_counted;
                self.session_counted = true;
                let started = self.prompt_started;
                self.observe(event, at);
                self.model = model;
                self.session_counted = counted;
                self.prompt_started = started;
            }
            Event::Result { outcome, .. } => {
                if matches!(outcome, rein_protocol::RunOutcome::Failed) {
                    i.errors.add(1, &[model(), KeyValue::new("kind", "failed")]);
                }
                if let Some(started) = self.prompt_started.take() {
                    let took = at.duration_since(started).unwrap_or_default();
                    i.active.add(took.as_secs_f64(), &[]);
                }
            }
            _ => {}
        }
    }
}
