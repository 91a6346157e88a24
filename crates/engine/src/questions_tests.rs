use super::*;

fn claude_call() -> Value {
    json!({"questions": [
        {"question": "Which database?", "header": "Database", "multiSelect": false,
         "options": [{"label": "Postgres (Recommended)", "description": "the team knows it"},
                     {"label": "SQLite", "description": "no server"}]},
        {"question": "Which checks?", "header": "Checks", "multiSelect": true,
         "options": [{"label": "lint", "description": "clippy"},
                     {"label": "tests", "description": "cargo test"}]}
    ]})
}

#[test]
fn both_shapes_read_into_the_same_questions() {
    let questions = parse(&claude_call()).unwrap();
    assert_eq!(questions.len(), 2);
    assert_eq!(questions[0].header, "Database");
    assert_eq!(questions[0].options[1].label, "SQLite");
    assert!(!questions[0].multi_select && questions[1].multi_select);
    let codex = json!({"questions": [{"id": "db", "header": "Database", "question": "Which database?",
        "options": [{"label": "Postgres", "description": "a"}, {"label": "SQLite", "description": "b"}]}]});
    let questions = parse(&codex).unwrap();
    assert_eq!(questions[0].id.as_deref(), Some("db"));
    assert!(parse(&json!({"questions": []})).is_err());
    assert!(
        parse(&json!({"questions": [{"question": "x?", "options": [{"label": "a"}]}]})).is_err()
    );
}

#[test]
fn each_shape_gets_its_own_schema_and_answer() {
    let slot = AnswererSlot::default();
    let claude = QuestionTool {
        shape: Shape::Claude,
        answerer: Arc::clone(&slot),
    };
    let codex = QuestionTool {
        shape: Shape::Codex,
        answerer: slot,
    };
    assert_eq!(claude.spec().name, "ask_user_question");
    assert_eq!(codex.spec().name, "request_user_input");
    let items = |tool: &QuestionTool| tool.spec().input_schema["properties"]["questions"].clone();
    assert_eq!(items(&claude)["maxItems"], 4);
    assert_eq!(
        items(&claude)["items"]["properties"]["header"]["maxLength"],
        12
    );
    assert_eq!(items(&codex)["maxItems"], 3);
    assert_eq!(
        items(&codex)["items"]["required"],
        json!(["id", "header", "question", "options"])
    );
    let questions = parse(&claude_call()).unwrap();
    let answers = vec![
        vec!["SQLite".to_string()],
        vec!["lint".into(), "tests".into()],
    ];
    assert_eq!(
        claude.answered(&questions, &answers),
        "User has answered your questions: \"Which database?\"=\"SQLite\", \
         \"Which checks?\"=\"lint, tests\". You can now continue with the user's answers in mind."
    );
    let answered: Value = serde_json::from_str(&codex.answered(&questions, &answers)).unwrap();
    assert_eq!(
        answered,
        json!({"answers": {"q1": {"answers": ["SQLite"]}, "q2": {"answers": ["lint", "tests"]}}})
    );
}
