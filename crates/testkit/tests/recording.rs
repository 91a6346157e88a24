//! Request recording, turn order across protocols, unknown routes and exhaustion.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{client, frames, mock, post};

#[tokio::test]
async fn requests_are_recorded_with_method_path_headers_and_json_body() {
    let server = mock(r#"{"turns": [{"text": "Hi"}]}"#).await;
    let body = json!({"model": "claude-test", "messages": [{"role": "user", "content": "hello"}]});
    let response = client()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "sk-test")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await
        .unwrap();
    response.text().await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.body, body);
    assert_eq!(request.header("X-Api-Key"), Some("sk-test"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("missing"), None);
}

#[tokio::test]
async fn turn_n_answers_request_n_whatever_the_protocol() {
    let server =
        mock(r#"{"turns": [{"text": "first"}, {"text": "second"}, {"text": "third"}]}"#).await;
    let anthropic = frames(post(&format!("{}/v1/messages", server.url()), &json!({})).await).await;
    let chat = frames(
        post(
            &format!("{}/chat/completions", server.openai_url()),
            &json!({}),
        )
        .await,
    )
    .await;
    let responses =
        frames(post(&format!("{}/responses", server.openai_url()), &json!({})).await).await;
    assert_eq!(anthropic[3].1["delta"]["text"], "first");
    assert_eq!(chat[1].1["choices"][0]["delta"]["content"], "second");
    assert_eq!(responses[4].1["delta"], "third");
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        vec!["/v1/messages", "/v1/chat/completions", "/v1/responses"]
    );
}

#[tokio::test]
async fn unknown_routes_get_a_json_404_are_recorded_and_use_no_turn() {
    let server = mock(r#"{"turns": [{"text": "Hi"}]}"#).await;
    let response = client()
        .get(format!("{}/models", server.openai_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "not_found_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("GET /v1/models")
    );

    let ok = post(&format!("{}/v1/messages", server.url()), &json!({})).await;
    assert_eq!(ok.status(), 200);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(requests[0].body, Value::Null);
}

#[tokio::test]
async fn requests_past_the_last_turn_get_a_500_saying_the_scenario_is_exhausted() {
    let server = mock(r#"{"turns": [{"text": "only"}]}"#).await;
    let url = format!("{}/v1/messages", server.url());
    assert_eq!(post(&url, &json!({})).await.status(), 200);

    let response = post(&url, &json!({"model": "m"})).await;
    assert_eq!(response.status(), 500);
    assert_eq!(response.headers()["request-id"], "req_mock_2");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "api_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("scenario exhausted")
    );

    let chat = post(
        &format!("{}/chat/completions", server.openai_url()),
        &json!({}),
    )
    .await;
    assert_eq!(chat.status(), 500);
    let body: Value = chat.json().await.unwrap();
    assert_eq!(body["error"]["type"], "server_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("scenario exhausted")
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn non_json_bodies_are_recorded_as_text() {
    let server = mock(r#"{"turns": []}"#).await;
    let response = client()
        .post(format!("{}/v1/messages", server.url()))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    assert_eq!(server.requests()[0].body, json!("not json"));
}

#[test]
fn scenario_doc_example_and_demo_parse() {
    let demo = include_str!("../scenarios/demo.json");
    let scenario = rein_testkit::Scenario::from_json(demo).unwrap();
    assert_eq!(scenario.turns.len(), 4);
    let names: Vec<&str> = scenario
        .turns
        .iter()
        .flat_map(|t| t.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(names, vec!["read_file", "bash", "bash"]);
    assert!(scenario.turns[3].tool_calls.is_empty() && scenario.turns[3].text.is_some());
}

#[tokio::test]
async fn demo_scenario_plays_through_on_every_protocol() {
    let demo = include_str!("../scenarios/demo.json");
    for route in ["/v1/messages", "/v1/responses", "/v1/chat/completions"] {
        let server = mock(demo).await;
        let mut stops = Vec::new();
        for _ in 0..4 {
            let frames = frames(post(&format!("{}{route}", server.url()), &json!({})).await).await;
            let last_data = frames.iter().rev().map(|(_, d)| d);
            let stop = last_data
                .filter_map(|d| {
                    d["delta"]["stop_reason"]
                        .as_str()
                        .or(d["choices"][0]["finish_reason"].as_str())
                        .or(d["response"]["status"].as_str())
                })
                .next()
                .unwrap()
                .to_string();
            stops.push(stop);
        }
        let expected = match route {
            "/v1/messages" => ["tool_use", "tool_use", "tool_use", "end_turn"],
            "/v1/responses" => ["completed"; 4],
            _ => ["tool_calls", "tool_calls", "tool_calls", "stop"],
        };
        assert_eq!(stops, expected, "{route}");
        let exhausted = post(&format!("{}{route}", server.url()), &json!({})).await;
        assert_eq!(exhausted.status(), 500, "{route}");
    }
}

#[tokio::test]
async fn tool_less_requests_get_the_summary_without_using_a_turn_and_bodies_can_be_dropped() {
    let server = mock(
        r#"{"turns": [{"text": "turn one"}], "summary": {"text": "SUMMARY"}, "record_bodies": false}"#,
    )
    .await;
    let url = format!("{}/v1/messages", server.url());
    let text = |frames: Vec<(Option<String>, Value)>| -> String {
        frames
            .iter()
            .filter_map(|(_, d)| d["delta"]["text"].as_str())
            .collect()
    };
    let summary = frames(post(&url, &json!({"model": "m", "messages": []})).await).await;
    assert_eq!(text(summary), "SUMMARY");
    let with_tools = json!({"model": "m", "messages": [], "tools": [{"name": "t"}]});
    let turn = frames(post(&url, &with_tools).await).await;
    assert_eq!(text(turn), "turn one");
    let recorded = server.requests();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0].body, Value::Null, "bodies are not kept");
    assert_eq!(recorded[1].path, "/v1/messages");
}
