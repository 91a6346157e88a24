//! The session's metrics, after Claude Code's set: sessions, tokens by type, cost, model
//! requests and errors, tool calls by tool and decision, lines added and removed, active time.
//! Each is a cumulative sum per set of labels, kept in memory and exported whole (the latest
//! export holds the totals).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rein_protocol::{Event, PermissionVerdict};

use crate::names::metric;

/// A sum's total.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Total {
    /// A count (sessions, tokens, calls).
    Count(u64),
    /// An amount (dollars, seconds).
    Amount(f64),
}

/// A metric's definition.
struct Definition {
    name: &'static str,
    description: &'static str,
    unit: &'static str,
}

static SESSIONS: Definition = Definition {
    name: metric::SESSIONS,
    description: "Sessions started",
    unit: "",
};
static TOKENS: Definition = Definition {
    name: metric::TOKENS,
    description: "Tokens, by type (input, output, cache_read, cache_creation) and model",
    unit: "{token}",
};
static COST: Definition = Definition {
    name: metric::COST,
    description: "Cost of model requests, by model",
    unit: "USD",
};
static REQUESTS: Definition = Definition {
    name: metric::REQUESTS,
    description: "Model requests, by model",
    unit: "",
};
static ERRORS: Definition = Definition {
    name: metric::ERRORS,
    description: "Model request failures, retried (retry) or not (failed)",
    unit: "",
};
static TOOL_CALLS: Definition = Definition {
    name: metric::TOOL_CALLS,
    description: "Tool calls, by tool and permission decision",
    unit: "",
};
static LINES: Definition = Definition {
    name: metric::LINES,
    description: "Lines changed by the file tools, by type (added, removed)",
    unit: "",
};
static ACTIVE: Definition = Definition {
    name: metric::ACTIVE_TIME,
    description: "Time a prompt was being worked on",
    unit: "s",
};

/// Labels of a data point, in order.
type Labels = Vec<(&'static str, String)>;

/// The process's sums, shared by every event stream it records.
#[derive(Clone, Default)]
pub(crate) struct Meters(Arc<Mutex<BTreeMap<&'static str, Sums>>>);

struct Sums {
    definition: &'static Definition,
    /// Each label set's total, in the order first seen (a few per metric: found by a scan
    /// that compares the labels given without copying them).
    points: Vec<(Labels, Total)>,
}

/// One metric's totals, as exported.
pub(crate) struct Reading {
    pub name: &'static str,
    pub description: &'static str,
    pub unit: &'static str,
    pub points: Vec<(Labels, Total)>,
}

impl Meters {
    fn add(&self, definition: &'static Definition, labels: &[(&'static str, &str)], amount: Total) {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let sums = all.entry(definition.name).or_insert_with(|| Sums {
            definition,
            points: Vec::new(),
        });
        let same = |kept: &Labels| {
            kept.len() == labels.len()
                && kept
                    .iter()
                    .zip(labels)
                    .all(|((k, v), (key, value))| k == key && v == value)
        };
        let at = match sums.points.iter().position(|(kept, _)| same(kept)) {
            Some(at) => at,
            None => {
                let zero = match amount {
                    Total::Count(_) => Total::Count(0),
                    Total::Amount(_) => Total::Amount(0.0),
                };
                let owned = labels.iter().map(|(k, v)| (*k, v.to_string())).collect();
                sums.points.push((owned, zero));
                sums.points.len() - 1
            }
        };
        let total = &mut sums.points[at].1;
        *total = match (*total, amount) {
            (Total::Count(a), Total::Count(b)) => Total::Count(a.saturating_add(b)),
            (Total::Amount(a), Total::Amount(b)) => Total::Amount(a + b),
            (kept, _) => kept,
        };
    }

    fn count(&self, definition: &'static Definition, labels: &[(&'static str, &str)], n: u64) {
        self.add(definition, labels, Total::Count(n));
    }

    /// Every metric's totals so far (none before anything was recorded).
    pub(crate) fn read(&self) -> Vec<Reading> {
        let all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.values()
            .map(|sums| Reading {
                name: sums.definition.name,
                description: sums.definition.description,
                unit: sums.definition.unit,
                points: sums.points.clone(),
            })
            .collect()
    }
}

/// Records one event stream's metrics.
pub(crate) struct Recording {
    meters: Meters,
    model: String,
    /// Each tool call's decision, until its end.
    decisions: HashMap<String, &'static str>,
    /// When the prompt under way started.
    prompt_started: Option<SystemTime>,
    session_counted: bool,
}

impl Recording {
    pub fn new(meters: Meters) -> Self {
        Self {
            meters,
            model: String::new(),
            decisions: HashMap::new(),
            prompt_started: None,
            session_counted: false,
        }
    }

    /// Takes in one event; subagents' events count as the session's.
    pub fn observe(&mut self, event: &Event, at: SystemTime) {
        let m = &self.meters;
        match event {
            Event::SessionStart { model: name, .. } => {
                self.model = name.clone();
                if !self.session_counted {
                    self.session_counted = true;
                    m.count(&SESSIONS, &[], 1);
                }
            }
            Event::ModelFallback { to, .. } => self.model = to.clone(),
            Event::TurnStart { .. } => {
                self.prompt_started.get_or_insert(at);
                m.count(&REQUESTS, &[("model", &self.model)], 1);
            }
            Event::Retry { .. } => {
                m.count(&ERRORS, &[("kind", "retry"), ("model", &self.model)], 1);
            }
            Event::Usage { usage, cost_usd } => {
                for (kind, n) in [
                    ("input", usage.input_tokens),
                    ("output", usage.output_tokens),
                    ("cache_read", usage.cache_read_input_tokens),
                    ("cache_creation", usage.cache_creation_input_tokens),
                ] {
                    m.count(&TOKENS, &[("model", &self.model), ("type", kind)], n);
                }
                if let Some(cost) = cost_usd {
                    m.add(&COST, &[("model", &self.model)], Total::Amount(*cost));
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
                m.count(&TOOL_CALLS, &[("decision", decision), ("tool", name)], 1);
                if let Some(diff) = diff {
                    let (added, removed) = crate::diff_lines(diff);
                    m.count(&LINES, &[("type", "added")], added);
                    m.count(&LINES, &[("type", "removed")], removed);
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
                    m.count(&ERRORS, &[("kind", "failed"), ("model", &self.model)], 1);
                }
                if let Some(started) = self.prompt_started.take() {
                    let took = at.duration_since(started).unwrap_or_default();
                    m.add(&ACTIVE, &[], Total::Amount(took.as_secs_f64()));
                }
            }
            _ => {}
        }
    }
}
