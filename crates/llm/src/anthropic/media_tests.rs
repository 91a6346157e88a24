//! The Messages API's media, web search and citations: a result's pictures and PDFs inside its
//! `tool_result`, the server's search declared for Claude models, searches counted and priced,
//! cited pages announced.

use super::*;
use crate::ModelEvent;
use crate::http::parse_recorded;
use pretty_assertions::assert_eq;
use rein_protocol::Usage;
use serde_json::json;

#[test]
fn a_results_pictures_and_pdfs_are_blocks_inside_the_tool_result() {
    let body =
        serde_json::to_value(request_body(&crate::test_request::result_with_media())).unwrap();
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "a.png: PNG image"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
        ]})
    );
}

#[test]
fn the_providers_web_search_is_declared_for_claude_models_only() {
    let mut request = crate::test_request::result_with_media();
    request.web_search = Some(crate::HostedSearch {
        max_uses: 5,
        allowed_domains: vec!["docs.rs".into()],
        blocked_domains: vec!["spam.example".into()],
    });
    let body = serde_json::to_value(request_body(&request)).unwrap();
    assert_eq!(
        body["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 5,
                "allowed_domains": ["docs.rs"], "cache_control": {"type": "ephemeral"}}])
    );
    request.model = "kimi-k2".into();
    let body = serde_json::to_value(request_body(&request)).unwrap();
    assert!(body.get("tools").is_none(), "{body}");
}

#[test]
fn a_recorded_search_counts_its_searches_and_costs_them() {
    for (name, searches) in [
        ("llm-anthropic-web-search-citations.sse", 1),
        ("mirascope-web-search-cache-usage.sse", 3),
    ] {
        let Some(stream) =
            rein_testkit::conformance_file(&format!("real-streams/corpus/anthropic/{name}"))
                .unwrap()
        else {
            return;
        };
        let events = parse_recorded(&mut AnthropicParser::default(), &stream).unwrap();
        let Some(ModelEvent::Completed { usage, .. }) = events.last() else {
            panic!("{name}: no Completed")
        };
        assert_eq!(usage.web_search_requests, searches, "{name}");
        let without = Usage {
            web_search_requests: 0,
            ..*usage
        };
        let cost = crate::cost_usd("claude-sonnet-4-5", usage).unwrap();
        let tokens = crate::cost_usd("claude-sonnet-4-5", &without).unwrap();
        assert!(
            (cost - tokens - 0.01 * searches as f64).abs() < 1e-9,
            "{name}"
        );
    }
}

#[test]
fn each_cited_page_is_announced_once_and_the_text_stays_as_written() {
    let Some(stream) = rein_testkit::conformance_file(
        "real-streams/corpus/anthropic/llm-anthropic-web-search-citations.sse",
    )
    .unwrap() else {
        return;
    };
    let events = parse_recorded(&mut AnthropicParser::default(), &stream).unwrap();
    let cited: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Citation { title, url } => Some((title.as_str(), url.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        cited,
        [
            (
                "San Francisco, CA Hourly Weather Forecast | Weather Underground",
                "https://www.wunderground.com/hourly/us/ca/san-francisco"
            ),
            (
                "Live Doppler 7 | Bay Area Weather News - ABC7 San Francisco",
                "https://abc7news.com/weather/"
            )
        ]
    );
}
