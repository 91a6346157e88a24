//! The spans of model requests: started at `TurnStart` (with the prompt's span before the
//! first), given the usage, the time to the first token, retries and a fallback as they come,
//! ended at `TurnEnd`.

use std::time::SystemTime;

use rein_protocol::{Event, Usage};

use super::{AgentSpans, Request, SpanTree, clamp, session_attributes};
use crate::names::*;
use crate::record::{KeyValue, Value};

impl SpanTree {
    /// A session start or an event of a model request.
    pub(super) fn on_model_event(&mut self, agent: &mut AgentSpans, event: &Event, at: SystemTime) {
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
            Event::TurnStart { turn } => self.start_request(agent, *turn, at),
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
            _ => {}
        }
    }

    fn start_request(&mut self, agent: &mut AgentSpans, turn: u32, at: SystemTime) {
        if let Some(open) = agent.request.take() {
            // A request that never ended (cut off): it ends where the next begins.
            self.end(&open.span, at);
        }
        if agent.session && agent.prompt.is_none() {
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
            KeyValue::new(FINISH_REASONS, Value::Strs(vec![reason])),
            KeyValue::new(RESPONSE_MODEL, agent.model.clone()),
            KeyValue::new(RETRIES, request.retries),
        ]);
        self.end(&request.span, at);
    }
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
/// The GenAI conventions' provider name of a protocol.
fn provider_name(protocol: &str) -> &'static str {
    match protocol {
        "anthropic" => "anthropic",
        "openai" => "openai",
        _ => "openai_compatible",
    }
}
