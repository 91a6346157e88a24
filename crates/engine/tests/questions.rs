//! The model's questions to the user end to end: the tool each model family is offered, the
//! answers a front end gives reaching the model in that tool's shape, and a run with nobody
//! to ask telling the model to decide.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_engine::questions::{Answer, Answerer, Question};
use rein_engine::{Agent, AgentConfig};
use rein_llm::ProviderKind;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// Answers with the given labels, keeping what it was asked.
struct Scripted {
    answers: Option<Vec<Answer>>,
    asked: Mutex<Vec<Question>>,
}

#[async_trait]
impl Answerer for Scripted {
    async fn answer(&self, questions: Vec<Question>) -> Option<Vec<Answer>> {
        self.asked.lock().unwrap().extend(questions);
        self.answers.clone()
    }
}

async fn ask(
    kind: ProviderKind,
    model: &str,
    call: serde_json::Value,
    answerer: Option<Arc<Scripted>>,
) -> (String, String) {
    let scenario = serde_json::json!({"turns": [{"tool_calls": [call]}, {"text": "ok"}]});
    let server = mock(&scenario.to_string()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = AgentConfig::new(model, dir.path().to_path_buf());
    let mut agent = Agent::new(
        client(kind, &server),
        rein_tools::ToolRegistry::for_model(model),
        config,
    )
    .unwrap();
    if let Some(answerer) = answerer {
        agent.set_answerer(answerer);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    agent
        .run("help me choose", &tx, CancellationToken::new())
        .await;
    let requests = server.requests();
    (
        requests[0].body["tools"].to_string(),
        requests[1].body.to_string(),
    )
}

fn claude_call() -> serde_json::Value {
    serde_json::json!({"name": "ask_user_question", "arguments": {"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres", "description": "a server"},
                     {"label": "SQLite", "description": "a file"}]}]}})
}

#[tokio::test]
async fn claude_models_ask_in_claude_codes_shape_and_read_the_answers() {
    let answerer = Arc::new(Scripted {
        answers: Some(vec![vec!["use DuckDB".to_string()]]),
        asked: Mutex::default(),
    });
    let (tools, next) = ask(
        ProviderKind::Anthropic,
        "claude-sonnet-4-5",
        claude_call(),
        Some(Arc::clone(&answerer)),
    )
    .await;
    assert!(tools.contains("\"name\":\"ask_user_question\""), "{tools}");
    assert!(!tools.contains("request_user_input"), "{tools}");
    assert_eq!(answerer.asked.lock().unwrap()[0].header, "Database");
    assert!(
        next.contains(r#"User has answered your questions: \"Which database?\"=\"use DuckDB\""#),
        "{next}"
    );
}

#[tokio::test]
async fn gpt_models_get_codexs_request_user_input_and_its_answer_shape() {
    let answerer = Arc::new(Scripted {
        answers: Some(vec![vec!["SQLite".to_string()]]),
        asked: Mutex::default(),
    });
    let call = serde_json::json!({"name": "request_user_input", "arguments": {"questions": [
        {"id": "database", "header": "Database", "question": "Which database?",
         "options": [{"label": "Postgres (Recommended)", "description": "a server"},
                     {"label": "SQLite", "description": "a file"}]}]}});
    let (tools, next) = ask(ProviderKind::Openai, "gpt-5", call, Some(answerer)).await;
    assert!(tools.contains("\"name\":\"request_user_input\""), "{tools}");
    assert!(!tools.contains("ask_user_question"), "{tools}");
    assert!(
        next.contains(r#"{\"answers\":{\"database\":{\"answers\":[\"SQLite\"]}}}"#),
        "{next}"
    );
}

#[tokio::test]
async fn with_nobody_to_ask_the_model_is_told_to_decide_and_say_what_it_assumed() {
    let (_, next) = ask(
        ProviderKind::Anthropic,
        "claude-sonnet-4-5",
        claude_call(),
        None,
    )
    .await;
    assert!(next.contains("No user is present to answer"), "{next}");
    assert!(next.contains("what you assumed"), "{next}");
    let declined = Arc::new(Scripted {
        answers: None,
        asked: Mutex::default(),
    });
    let (_, next) = ask(
        ProviderKind::Anthropic,
        "claude-sonnet-4-5",
        claude_call(),
        Some(declined),
    )
    .await;
    assert!(next.contains("The user declined to answer"), "{next}");
}
