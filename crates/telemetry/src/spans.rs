//! The span tree of one event stream: a span for the session, each prompt, each model request,
//! each tool call, each compaction and hook run, and each subagent (a child of the `task` call
//! that started it), built from the events as they come, with their times.

use std::collections::HashMap;
use std::time::SystemTime;

use opentelemetry::trace::{SpanBuilder, SpanKind, Status, TraceContextExt as _};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use opentelemetry_sdk::trace::SdkTracer;
use rein_protocol::{Event, PermissionVerdict, Usage};

use crate::Content;
use crate::names::*;

/// The spans of one agent (the session's own, or a subagent's), open until their end event.
struct AgentSpans {
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
pub struct SpanTree {
    tracer: SdkTracer,
    content: Content,
    main: Option<AgentSpans>,
    /// Spans ended so far (to tell how many an exporter dropped).
    pub ended: u64,
}

impl SpanTree {
    pub fn new(tracer: SdkTracer, content: Content) -> Self {
        Self {
            tracer,
            content,
            main: None,
            ended: 0,
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
        self.on_event(&mut main, event, at, true);
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
        let kind = if attributes.iter().any(|kv| kv.value.as_str() == "LLM") {
            SpanKind::Client
        } else {
            SpanKind::Internal
        };
        let span = SpanBuilder::from_name(name.into())
            .with_kind(kind)
            .with_start_time(at)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, parent);
        Context::new().with_span(span)
    }

    fn end(&mut self, span: &Context, at: SystemTime) {
        span.span().end_with_timestamp(at);
        self.ended += 1;
    }

    /// One event for `agent` (`main`: the session's own agent, whose runs are prompts).
    fn on_event(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime, main: bool) {
        match event {
            Event::SessionStart {
                session_id,
                model,
                prompt,
                ..
            } => {
                if agent.session_id.is_empty() {
                    agent.session_id = session_id.clone();
                    agent
                        .root
                        .span()
                        .set_attributes(session_attributes(session_id));
                }
                agent.model = model.clone();
                if let Some(prompt) = prompt.as_deref().filter(|_| self.content.on) {
                    agent.prompt_text = Some(self.content.redact(prompt));
                }
            }
            Event::TurnStart { turn } => self.start_request(agent, *turn, at, main),
            Event::TextDelta { .. } | Event::ThinkingDelta { .. } => first_token(agent, at),
            Event::Retry {
                attempt, reason, ..
            } => {
                if let Some(request) = &mut agent.request {
                    request.retries += 1;
                    request.span.span().add_event_with_timestamp(
                        "retry",
                        at,
                        vec![
                            KeyValue::new("rein.retry.attempt", i64::from(*attempt)),
                            KeyValue::new("rein.retry.reason", reason.clone()),
                        ],
                    );
                }
            }
            Event::ModelFallback { from, to, .. } => {
                if let Some(request) = &agent.request {
                    request
                        .span
                        .span()
                        .set_attribute(KeyValue::new(FALLBACK_FROM, from.clone()));
                }
                agent.model = to.clone();
            }
            Event::Usage { usage, cost_usd } => usage_attributes(agent, usage, *cost_usd),
            Event::AssistantMessage { message } if self.content.on => {
                if let Some(request) = &agent.request {
                    let text = self.content.redact(&message.text());
                    request.span.span().set_attributes([
                        KeyValue::new(OUTPUT_MESSAGES, text.clone()),
                        KeyValue::new(OI_OUTPUT, text),
                    ]);
                }
            }
            Event::TurnEnd { stop_reason, .. } => self.end_request(agent, stop_reason, at),
            Event::ToolCallStart {
                id,
                name,
                input,
                summary,
            } => self.start_tool(agent, (id, name), input, summary, at),
            Event::Permission {
                id,
                decision,
                reason,
                ..
            } => {
                if let Some(tool) = agent.tools.get(id) {
                    tool.span().set_attributes([
                        KeyValue::new(DECISION, verdict(*decision)),
                        KeyValue::new(DECIDED_BY, reason.clone()),
                    ]);
                }
            }
            Event::ToolCallEnd { .. } => self.end_tool(agent, event, at),
            Event::Compaction { .. } => self.compaction(agent, event, at),
            Event::HookRun { .. } => self.hook(agent, event, at),
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
            Event::Result { .. } if main => self.end_prompt(agent, event, at),
            Event::Result { .. } => result_attributes(&agent.root, event),
            _ => {}
        }
    }

    fn start_request(&mut self, agent: &mut AgentSpans, turn: u32, at: SystemTime, main: bool) {
        if let Some(open) = agent.request.take() {
            // A request that never ended (cut off): it ends where the next begins.
            self.end(&open.span, at);
        }
        if main && agent.prompt.is_none() {
            let mut attributes = vec![
                KeyValue::new(OPERATION, "invoke_agent"),
                KeyValue::new(AGENT_NAME, "rein"),
                KeyValue::new(SPAN_KIND, "AGENT"),
            ];
            attributes.extend(session_attributes(&agent.session_id));
            if let Some(text) = agent.prompt_text.take() {
                attributes.push(KeyValue::new(INPUT_MESSAGES, text.clone()));
                attributes.push(KeyValue::new(OI_INPUT, text));
            }
            agent.prompt = Some(self.start("invoke_agent rein", attributes, at, &agent.root));
        }
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let provider = provider_name(&agent.provider);
        let mut attributes = vec![
            KeyValue::new(OPERATION, "chat"),
            KeyValue::new(PROVIDER, provider),
            KeyValue::new(SYSTEM, provider),
            KeyValue::new(REQUEST_MODEL, agent.model.clone()),
            KeyValue::new(SPAN_KIND, "LLM"),
            KeyValue::new(LLM_MODEL, agent.model.clone()),
            KeyValue::new(LLM_PROVIDER, provider),
            KeyValue::new(TURN, i64::from(turn)),
        ];
        attributes.extend(session_attributes(&agent.session_id));
        let span = self.start(format!("chat {}", agent.model), attributes, at, &parent);
        agent.request = Some(Request {
            span,
            started: at,
            first_token: false,
            retries: 0,
        });
    }

    fn end_request(
        &mut self,
        agent: &mut AgentSpans,
        stop_reason: &rein_protocol::StopReason,
        at: SystemTime,
    ) {
        let Some(request) = agent.request.take() else {
            return;
        };
        let reason = serde_json::to_value(stop_reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{stop_reason:?}"));
        request.span.span().set_attributes([
            KeyValue::new(
                FINISH_REASONS,
                Value::Array(Array::String(vec![StringValue::from(reason)])),
            ),
            KeyValue::new(RESPONSE_MODEL, agent.model.clone()),
            KeyValue::new(RETRIES, request.retries),
        ]);
        self.end(&request.span, at);
    }

    fn start_tool(
        &mut self,
        agent: &mut AgentSpans,
        (id, name): (&String, &String),
        input: &serde_json::Value,
        summary: &str,
        at: SystemTime,
    ) {
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let mut attributes = vec![
            KeyValue::new(OPERATION, "execute_tool"),
            KeyValue::new(TOOL_NAME, name.clone()),
            KeyValue::new(TOOL_CALL_ID, id.clone()),
            KeyValue::new(TOOL_TYPE, "function"),
            KeyValue::new(SPAN_KIND, "TOOL"),
            KeyValue::new(OI_TOOL_NAME, name.clone()),
        ];
        attributes.extend(session_attributes(&agent.session_id));
        if self.content.on {
            let arguments = self.content.redact(&input.to_string());
            attributes.push(KeyValue::new(TOOL_ARGUMENTS, arguments.clone()));
            attributes.push(KeyValue::new(OI_INPUT, arguments));
            attributes.push(KeyValue::new(SUMMARY, self.content.redact(summary)));
        }
        let span = self.start(format!("execute_tool {name}"), attributes, at, &parent);
        agent.tools.insert(id.clone(), span);
    }

    fn end_tool(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::ToolCallEnd {
            id,
            output,
            is_error,
            duration_ms,
            diff,
            exit_code,
            sandbox,
            ..
        } = event
        else {
            return;
        };
        let Some(span) = agent.tools.remove(id) else {
            return;
        };
        let mut attributes = vec![
            KeyValue::new(TOOL_ERROR, *is_error),
            KeyValue::new(TOOL_DURATION, clamp(*duration_ms)),
            KeyValue::new(OUTPUT_BYTES, clamp(output.len() as u64)),
        ];
        if let Some(code) = exit_code {
            attributes.push(KeyValue::new(EXIT_CODE, i64::from(*code)));
        }
        if let Some(policy) = sandbox {
            attributes.push(KeyValue::new(SANDBOX, policy.clone()));
        }
        if let Some(diff) = diff {
            let (added, removed) = crate::diff_lines(diff);
            attributes.push(KeyValue::new(LINES_ADDED, clamp(added)));
            attributes.push(KeyValue::new(LINES_REMOVED, clamp(removed)));
        }
        if self.content.on {
            let result = self.content.redact(output);
            attributes.push(KeyValue::new(TOOL_RESULT, result.clone()));
            attributes.push(KeyValue::new(OI_OUTPUT, result));
        }
        span.span().set_attributes(attributes);
        if *is_error {
            span.span().set_status(Status::error("the call failed"));
        }
        // A subagent still open under this call ends with it.
        if let Some(mut sub) = agent.subagents.remove(id) {
            self.end_agent(&mut sub, at);
        }
        self.end(&span, at);
    }

    fn compaction(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::Compaction {
            trigger,
            tokens_before,
            tokens_after,
            duration_ms,
            ..
        } = event
        else {
            return;
        };
        let started = back(at, *duration_ms);
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let attributes = vec![
            KeyValue::new(SPAN_KIND, "CHAIN"),
            KeyValue::new(TRIGGER, trigger.clone()),
            KeyValue::new(TOKENS_BEFORE, clamp(*tokens_before)),
            KeyValue::new(TOKENS_AFTER, clamp(*tokens_after)),
        ];
        let span = self.start("rein.compaction", attributes, started, &parent);
        self.end(&span, at);
    }

    fn hook(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
        let Event::HookRun {
            event: hooked,
            command,
            exit_code,
            blocked,
            duration_ms,
            ..
        } = event
        else {
            return;
        };
        let started = back(at, *duration_ms);
        let parent = agent.prompt.as_ref().unwrap_or(&agent.root).clone();
        let mut attributes = vec![
            KeyValue::new(SPAN_KIND, "CHAIN"),
            KeyValue::new(HOOK_EVENT, hooked.clone()),
            KeyValue::new(HOOK_COMMAND, self.content.redact(command)),
            KeyValue::new(HOOK_BLOCKED, *blocked),
        ];
        if let Some(code) = exit_code {
            attributes.push(KeyValue::new(HOOK_EXIT, i64::from(*code)));
        }
        let span = self.start(format!("rein.hook {hooked}"), attributes, started, &parent);
        self.end(&span, at);
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
        self.on_event(&mut sub, event, at, false);
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

fn first_token(agent: &mut AgentSpans, at: SystemTime) {
    let Some(request) = &mut agent.request else {
        return;
    };
    if request.first_token {
        return;
    }
    request.first_token = true;
    let waited = at.duration_since(request.started).unwrap_or_default();
    request.span.span().set_attribute(KeyValue::new(
        TIME_TO_FIRST_TOKEN,
        waited.as_secs_f64() * 1000.0,
    ));
}

fn usage_attributes(agent: &AgentSpans, usage: &Usage, cost: Option<f64>) {
    let Some(request) = &agent.request else {
        return;
    };
    let input = usage.total_input();
    let mut attributes = vec![
        KeyValue::new(INPUT_TOKENS, clamp(input)),
        KeyValue::new(OUTPUT_TOKENS, clamp(usage.output_tokens)),
        KeyValue::new(CACHE_READ_TOKENS, clamp(usage.cache_read_input_tokens)),
        KeyValue::new(
            CACHE_CREATION_TOKENS,
            clamp(usage.cache_creation_input_tokens),
        ),
        KeyValue::new(LLM_PROMPT_TOKENS, clamp(input)),
        KeyValue::new(LLM_COMPLETION_TOKENS, clamp(usage.output_tokens)),
        KeyValue::new(
            LLM_TOTAL_TOKENS,
            clamp(input.saturating_add(usage.output_tokens)),
        ),
    ];
    if let Some(cost) = cost {
        attributes.push(KeyValue::new(COST, cost));
    }
    request.span.span().set_attributes(attributes);
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

fn verdict(decision: PermissionVerdict) -> &'static str {
    match decision {
        PermissionVerdict::Allow => "allow",
        PermissionVerdict::Ask => "ask",
        PermissionVerdict::Deny => "deny",
    }
}

/// The GenAI conventions' provider name of a protocol.
fn provider_name(protocol: &str) -> &'static str {
    match protocol {
        "anthropic" => "anthropic",
        "openai" => "openai",
        _ => "openai_compatible",
    }
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
