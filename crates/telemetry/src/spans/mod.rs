//! The span tree of one event stream: a span for the session, each prompt, each model request,
//! each tool call, each compaction and hook run, and each subagent (a child of the `task` call
//! that started it), built from the events as they come, with their times.

use std::collections::HashMap;
use std::time::SystemTime;

use std::sync::Arc;

use rein_protocol::Event;

use crate::Content;
use crate::names::*;
use crate::record::{Context, KeyValue, SpanRecord, Status};

/// Where ended spans go (the export queue, the trace file).
pub(crate) trait Sink: Send + Sync {
    /// `span` ended.
    fn ended(&self, span: SpanRecord);
}

/// The spans of one agent (the session's own, or a subagent's), open until their end event.
mod requests;
mod tools;

/// The spans of one agent (the session's own, or a subagent's), open until their end event.
struct AgentSpans {
    /// The session's own agent, whose runs are prompts (a subagent's root is its one run).
    session: bool,
    /// The session (main agent) or the subagent's run.
    root: Context,
    /// The prompt under way (main agent only; a subagent's root is its one prompt).
    prompt: Option<Context>,
    /// The model request under way.
    request: Option<Request>,
    /// Tool calls under way, by call id.
    tools: HashMap<String, Context>,
    /// Subagents under way, by the id of the `task` call that runs them.
    subagents: HashMap<String, AgentSpans>,
    model: String,
    provider: String,
    session_id: String,
    /// The prompt's text, when content is attached, until its span starts.
    prompt_text: Option<String>,
}

/// A model request's span and what is learnt while it streams.
struct Request {
    span: Context,
    started: SystemTime,
    first_token: bool,
    retries: i64,
}

/// Builds the span tree of one event stream.
pub(crate) struct SpanTree {
    sink: Arc<dyn Sink>,
    content: Content,
    main: Option<AgentSpans>,
}

impl SpanTree {
    pub fn new(sink: Arc<dyn Sink>, content: Content) -> Self {
        Self {
            sink,
            content,
            main: None,
        }
    }

    /// Takes in one event that happened at `at`.
    pub fn observe(&mut self, event: &Event, at: SystemTime) {
        // Another session on the same stream (`/clear`, `/resume`): the last one's spans end.
        if let (Event::SessionStart { session_id, .. }, Some(main)) = (event, &self.main)
            && !main.session_id.is_empty()
            && main.session_id != *session_id
        {
            self.close(at);
        }
        if self.main.is_none() {
            let root = self.start_session(event, at);
            self.main = Some(root);
        }
        let Some(mut main) = self.main.take() else {
            return;
        };
        self.on_event(&mut main, event, at);
        self.main = Some(main);
    }

    /// Ends every span still open (the stream closed), at `at`.
    pub fn close(&mut self, at: SystemTime) {
        if let Some(mut main) = self.main.take() {
            self.end_agent(&mut main, at);
        }
    }

    fn start_session(&mut self, event: &Event, at: SystemTime) -> AgentSpans {
        let (session_id, provider, model, cwd) = match event {
            Event::SessionStart {
                session_id,
                provider,
                model,
                cwd,
                ..
            } => (
                session_id.clone(),
                provider.clone(),
                model.clone(),
                cwd.clone(),
            ),
            _ => Default::default(),
        };
        let mut attributes = vec![
            KeyValue::new(OPERATION, "invoke_agent"),
            KeyValue::new(AGENT_NAME, "rein"),
            KeyValue::new(SPAN_KIND, "AGENT"),
            KeyValue::new(CWD, cwd),
        ];
        attributes.extend(session_attributes(&session_id));
        let root = self.start("rein.session", attributes, at, &Context::new());
        AgentSpans {
            session: true,
            root,
            prompt: None,
            request: None,
            tools: HashMap::new(),
            subagents: HashMap::new(),
            model,
            provider,
            session_id,
            prompt_text: None,
        }
    }

    fn start(
        &self,
        name: impl Into<String>,
        attributes: Vec<KeyValue>,
        at: SystemTime,
        parent: &Context,
    ) -> Context {
        parent.child(name.into(), attributes, at)
    }

    fn end(&mut self, span: &Context, at: SystemTime) {
        if let Some(ended) = span.end_at(at) {
            self.sink.ended(ended);
        }
    }

    /// One event for `agent`.
    fn on_event(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        match event {
            Event::SessionStart { .. }
            | Event::TurnStart { .. }
            | Event::TextDelta { .. }
            | Event::ThinkingDelta { .. }
            | Event::Retry { .. }
            | Event::ModelFallback { .. }
            | Event::Usage { .. }
            | Event::AssistantMessage { .. }
            | Event::TurnEnd { .. } => self.on_model_event(agent, event, at),
            Event::ToolCallStart { .. }
            | Event::Permission { .. }
            | Event::ToolCallEnd { .. }
            | Event::Compaction { .. }
            | Event::HookRun { .. } => self.on_tool_event(agent, event, at),
            Event::Subagent {
                parent_tool_use_id,
                agent: name,
                event,
            } => self.subagent(agent, (parent_tool_use_id, name), event, at),
            Event::Error { message } => {
                let span = agent.prompt.as_ref().unwrap_or(&agent.root);
                span.span().add_event_with_timestamp(
                    "error",
                    at,
                    vec![KeyValue::new("rein.error", self.content.redact(message))],
                );
            }
            Event::Result { .. } if agent.session => self.end_prompt(agent, event, at),
            Event::Result { .. } => result_attributes(&agent.root, event),
            _ => {}
        }
    }

    fn subagent(
        &mut self,
        agent: &mut AgentSpans,
        (call, name): (&String, &String),
        event: &Event,
        at: SystemTime,
    ) {
        let mut sub = match agent.subagents.remove(call) {
            Some(sub) => sub,
            None => {
                let parent = agent.tools.get(call).unwrap_or(&agent.root).clone();
                let mut attributes = vec![
                    KeyValue::new(OPERATION, "invoke_agent"),
                    KeyValue::new(AGENT_NAME, name.clone()),
                    KeyValue::new(SPAN_KIND, "AGENT"),
                    KeyValue::new(PARENT_CALL, call.clone()),
                ];
                attributes.extend(session_attributes(&agent.session_id));
                let root = self.start(format!("invoke_agent {name}"), attributes, at, &parent);
                AgentSpans {
                    session: false,
                    root,
                    prompt: None,
                    request: None,
                    tools: HashMap::new(),
                    subagents: HashMap::new(),
                    model: agent.model.clone(),
                    provider: agent.provider.clone(),
                    session_id: agent.session_id.clone(),
                    prompt_text: None,
                }
            }
        };
        self.on_event(&mut sub, event, at);
        if matches!(event, Event::Result { .. }) {
            self.end_agent(&mut sub, at);
        } else {
            agent.subagents.insert(call.clone(), sub);
        }
    }

    fn end_prompt(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Some(prompt) = agent.prompt.take() else {
            return;
        };
        if let Some(request) = agent.request.take() {
            self.end(&request.span, at);
        }
        for (_, tool) in std::mem::take(&mut agent.tools) {
            self.end(&tool, at);
        }
        result_attributes(&prompt, event);
        self.end(&prompt, at);
    }

    /// Ends an agent's open spans and its root.
    fn end_agent(&mut self, agent: &mut AgentSpans, at: SystemTime) {
        for (_, mut sub) in std::mem::take(&mut agent.subagents) {
            self.end_agent(&mut sub, at);
        }
        if let Some(request) = agent.request.take() {
            self.end(&request.span, at);
        }
        for (_, tool) in std::mem::take(&mut agent.tools) {
            self.end(&tool, at);
        }
        if let Some(prompt) = agent.prompt.take() {
            self.end(&prompt, at);
        }
        let root = agent.root.clone();
        self.end(&root, at);
    }
}

fn session_attributes(session_id: &str) -> Vec<KeyValue> {
    if session_id.is_empty() {
        return Vec::new();
    }
    vec![
        KeyValue::new(CONVERSATION, session_id.to_string()),
        KeyValue::new(SESSION, session_id.to_string()),
        KeyValue::new(OI_SESSION, session_id.to_string()),
    ]
}

fn result_attributes(span: &Context, event: &Event) {
    let Event::Result {
        outcome,
        turns,
        usage,
        cost_usd,
        ..
    } = event
    else {
        return;
    };
    let outcome = serde_json::to_value(outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut attributes = vec![
        KeyValue::new(TURNS, i64::from(*turns)),
        KeyValue::new(INPUT_TOKENS, clamp(usage.total_input())),
        KeyValue::new(OUTPUT_TOKENS, clamp(usage.output_tokens)),
    ];
    if let Some(cost) = cost_usd {
        attributes.push(KeyValue::new(COST, *cost));
    }
    if outcome == "failed" {
        span.span().set_status(Status::error("the run failed"));
    }
    attributes.push(KeyValue::new(OUTCOME, outcome));
    span.span().set_attributes(attributes);
}
/// `at` minus `duration_ms` (a span whose end event carries its duration).
fn back(at: SystemTime, duration_ms: Option<u64>) -> SystemTime {
    duration_ms
        .and_then(|ms| at.checked_sub(std::time::Duration::from_millis(ms)))
        .unwrap_or(at)
}

/// OTLP integers are signed.
fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
