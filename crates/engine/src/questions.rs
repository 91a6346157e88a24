//! Questions the model asks the user: `ask_user_question` in Claude Code's `AskUserQuestion`
//! shape (1–4 questions, a header of at most 12 characters, 2–4 options with a label and a
//! description, `multiSelect`), and codex's `request_user_input` for the models trained on it
//! (1–3 questions with an `id`, 2–3 options). A front end that can ask ([`Answerer`]) shows
//! them, with "Other" for a free answer; without one (`rein exec`) the model is told nobody is
//! there, and decides. Asking changes nothing, so it needs no permission.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

/// Claude Code's shape's name.
pub const ASK_TOOL: &str = "ask_user_question";
/// codex's shape's name.
pub const REQUEST_INPUT_TOOL: &str = "request_user_input";

/// One question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// codex's stable id (`None` in Claude Code's shape).
    pub id: Option<String>,
    /// A short label (at most 12 characters).
    pub header: String,
    /// The question.
    pub question: String,
    /// The choices offered ("Other" is the front end's own).
    pub options: Vec<Choice>,
    /// Several choices may be taken.
    pub multi_select: bool,
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// A few words.
    pub label: String,
    /// What it means.
    pub description: String,
}

/// The user's answer to one question: the labels chosen, or the text typed for "Other".
pub type Answer = Vec<String>;

/// A front end that can put questions to the user.
#[async_trait]
pub trait Answerer: Send + Sync {
    /// The answers, one per question in order; `None` when the user declined.
    async fn answer(&self, questions: Vec<Question>) -> Option<Vec<Answer>>;
}

/// Where the question tool finds who answers (set by the front end, shared by subagents).
pub(crate) type AnswererSlot = Arc<Mutex<Option<Arc<dyn Answerer>>>>;

/// Which shape the tool speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Claude Code's `AskUserQuestion`.
    Claude,
    /// codex's `request_user_input`.
    Codex,
}

/// The question tool.
pub(crate) struct QuestionTool {
    pub shape: Shape,
    pub answerer: AnswererSlot,
}

impl QuestionTool {
    fn name(&self) -> &'static str {
        match self.shape {
            Shape::Claude => ASK_TOOL,
            Shape::Codex => REQUEST_INPUT_TOOL,
        }
    }
}

#[async_trait]
impl Tool for QuestionTool {
    fn lean(&self) -> rein_tools::Lean {
        // Small windows have no room for its nested schema; the model asks in its reply.
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        match self.shape {
            Shape::Claude => ToolSpec {
                name: ASK_TOOL.into(),
                description: "Ask the user 1-4 multiple-choice questions when you need their \
                              decision or preference to go on (an ambiguous request, a choice \
                              between approaches). The user can always answer in their own \
                              words instead (\"Other\"). Put a recommended option first with \
                              \" (Recommended)\" at the end of its label. Do not ask what you \
                              can find out yourself."
                    .into(),
                input_schema: claude_schema().into(),
            },
            Shape::Codex => ToolSpec {
                name: REQUEST_INPUT_TOOL.into(),
                description: "Request user input for one to three short questions and wait \
                              for the response. Prefer one question; offer 2-3 mutually \
                              exclusive options, the recommended one first with \
                              \"(Recommended)\" in its label; do not add an \"Other\" option \
                              (the client offers a free-form one)."
                    .into(),
                input_schema: codex_schema().into(),
            },
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(
            self.name(),
            "AskUserQuestion",
            CallKind::Other,
            Effect::ReadOnly,
        );
        facts.summary = parse(args)
            .ok()
            .and_then(|q| q.into_iter().next())
            .map(|q| q.question)
            .unwrap_or_default();
        facts
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let questions = match parse(&args) {
            Ok(questions) => questions,
            Err(why) => return ToolOutput::error(why),
        };
        let answerer = self
            .answerer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let Some(answerer) = answerer else {
            return ToolOutput::ok(format!(
                "No user is present to answer (this run has no terminal): decide yourself, go \
                 on, and say in your final answer what you assumed for: {}",
                list(&questions)
            ));
        };
        match answerer.answer(questions.clone()).await {
            Some(answers) => ToolOutput::ok(self.answered(&questions, &answers)),
            None => ToolOutput::ok(format!(
                "The user declined to answer: {}. Go on as you think best, or ask in your \
                 reply what you need to know.",
                list(&questions)
            )),
        }
    }
}

impl QuestionTool {
    /// The result the model reads, in its tool's own shape.
    fn answered(&self, questions: &[Question], answers: &[Answer]) -> String {
        match self.shape {
            Shape::Claude => {
                let pairs: Vec<String> = questions
                    .iter()
                    .zip(answers)
                    .map(|(q, a)| format!("\"{}\"=\"{}\"", q.question, a.join(", ")))
                    .collect();
                format!(
                    "User has answered your questions: {}. You can now continue with the \
                     user's answers in mind.",
                    pairs.join(", ")
                )
            }
            Shape::Codex => {
                let answers: serde_json::Map<String, Value> = questions
                    .iter()
                    .zip(answers)
                    .enumerate()
                    .map(|(n, (q, a))| {
                        let id = q.id.clone().unwrap_or_else(|| format!("q{}", n + 1));
                        (id, json!({"answers": a}))
                    })
                    .collect();
                json!({"answers": answers}).to_string()
            }
        }
    }
}

/// The questions, quoted, for a message.
fn list(questions: &[Question]) -> String {
    questions
        .iter()
        .map(|q| format!("\"{}\"", q.question))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The questions of either shape (the schema checked the rest).
fn parse(args: &Value) -> Result<Vec<Question>, String> {
    let questions = args
        .get("questions")
        .and_then(Value::as_array)
        .filter(|q| !q.is_empty())
        .ok_or("`questions` must be a non-empty array")?;
    questions
        .iter()
        .map(|q| {
            let text = |key: &str| q.get(key).and_then(Value::as_str).unwrap_or("").trim();
            let options: Vec<Choice> = q
                .get("options")
                .and_then(Value::as_array)
                .map(|options| {
                    options
                        .iter()
                        .map(|o| Choice {
                            label: o.get("label").and_then(Value::as_str).unwrap_or("").into(),
                            description: o
                                .get("description")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .into(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            if text("question").is_empty() || options.len() < 2 {
                return Err(
                    "each question needs its `question` and at least two `options`".to_string(),
                );
            }
            Ok(Question {
                id: q.get("id").and_then(Value::as_str).map(str::to_string),
                header: text("header").to_string(),
                question: text("question").to_string(),
                options,
                multi_select: q
                    .get("multiSelect")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect()
}

fn option_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "label": {"type": "string", "description": "1-5 words"},
            "description": {"type": "string", "description": "What choosing it means"}
        },
        "required": ["label", "description"],
        "additionalProperties": false
    })
}

fn claude_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 4,
                "description": "Questions to ask the user (1-4)",
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string", "description": "The complete question, ending with a question mark"},
                        "header": {"type": "string", "maxLength": 12, "description": "A very short label shown as a chip (at most 12 characters)"},
                        "options": {"type": "array", "minItems": 2, "maxItems": 4, "items": option_schema()},
                        "multiSelect": {"type": "boolean", "description": "Whether several options may be chosen"}
                    },
                    "required": ["question", "header", "options", "multiSelect"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["questions"],
        "additionalProperties": false
    })
}

fn codex_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "description": "Questions to show the user. Prefer 1 and do not exceed 3",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)"},
                        "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)"},
                        "question": {"type": "string", "description": "Single-sentence prompt shown to the user"},
                        "options": {"type": "array", "minItems": 2, "maxItems": 3, "items": option_schema()}
                    },
                    "required": ["id", "header", "question", "options"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["questions"],
        "additionalProperties": false
    })
}

#[cfg(test)]
#[path = "questions_tests.rs"]
mod tests;
