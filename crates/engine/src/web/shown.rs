//! The provider's own web searches, shown as the tool calls they are: a search the model ran
//! at Anthropic (`server_tool_use` then `web_search_tool_result`) or at OpenAI
//! (`web_search_call`) becomes `ToolCallStart` and `ToolCallEnd` events, so every front end
//! shows the query and the results' titles and addresses like any other call.

use rein_protocol::{ContentBlock, Event};
use serde_json::{Value, json};

/// The events that show `block`, when it is a provider's web search.
pub(crate) fn search_events(block: &ContentBlock) -> Vec<Event> {
    let ContentBlock::Provider { protocol, block } = block else {
        return Vec::new();
    };
    let kind = block["type"].as_str().unwrap_or("");
    match (protocol.as_str(), kind) {
        ("anthropic", "server_tool_use") if block["name"] == "web_search" => {
            vec![start(text(block, "id"), &block["input"])]
        }
        ("anthropic", "web_search_tool_result") => {
            vec![end(
                text(block, "tool_use_id"),
                anthropic_results(&block["content"]),
            )]
        }
        ("openai", "web_search_call") => {
            let action = &block["action"];
            let id = text(block, "id");
            vec![start(id.clone(), action), end(id, openai_sources(action))]
        }
        _ => Vec::new(),
    }
}

fn text(block: &Value, field: &str) -> String {
    block[field].as_str().unwrap_or("").to_string()
}

fn start(id: String, input: &Value) -> Event {
    let query = input["query"].as_str().unwrap_or("");
    Event::ToolCallStart {
        id,
        name: super::WEB_SEARCH.into(),
        input: json!({"query": query}),
        summary: query.to_string(),
    }
}

fn end(id: String, (output, is_error): (String, bool)) -> Event {
    Event::ToolCallEnd {
        id,
        name: super::WEB_SEARCH.into(),
        output,
        is_error,
        duration_ms: 0,
        diff: None,
        tool_response: None,
        exit_code: None,
        sandbox: None,
    }
}

/// Anthropic's results: a list of `web_search_result`s, or an error object.
fn anthropic_results(content: &Value) -> (String, bool) {
    let Some(results) = content.as_array() else {
        let code = content["error_code"].as_str().unwrap_or("unknown error");
        return (format!("The search failed: {code}"), true);
    };
    let lines: Vec<String> = results
        .iter()
        .map(|r| format!("- [{}]({})", text(r, "title"), text(r, "url")))
        .collect();
    (
        format!("{} results\n{}", lines.len(), lines.join("\n")),
        false,
    )
}

/// OpenAI's search: the sources it names, if any.
fn openai_sources(action: &Value) -> (String, bool) {
    let sources: Vec<String> = (action["sources"].as_array().into_iter().flatten())
        .map(|s| {
            s["url"]
                .as_str()
                .or(s["name"].as_str())
                .unwrap_or("")
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .map(|s| format!("- {s}"))
        .collect();
    if sources.is_empty() {
        return ("searched".to_string(), false);
    }
    (format!("searched\n{}", sources.join("\n")), false)
}
