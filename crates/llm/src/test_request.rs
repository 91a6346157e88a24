//! A request holding every kind of content block, for the protocols' body tests.

use rein_protocol::{ContentBlock, ImageSource, Media, Message, Role, ToolSpec};
use serde_json::json;

use crate::{CacheTtl, Effort, ModelRequest, PromptCache};

fn text(text: &str) -> ContentBlock {
    ContentBlock::Text { text: text.into() }
}

fn image() -> ContentBlock {
    ContentBlock::Image {
        source: ImageSource {
            media_type: "image/png".into(),
            data: "iVBO".into(),
        },
    }
}

fn provider(protocol: &str, block: serde_json::Value) -> ContentBlock {
    ContentBlock::Provider {
        protocol: protocol.into(),
        block,
    }
}

/// Every block kind, in user and assistant messages, with tools, effort and a cache key. A
/// tool call's input has its keys in sorted order, so its arguments text is the same whether
/// or not serde_json keeps insertion order (a feature another crate of the build may turn on).
pub(crate) fn every_block() -> ModelRequest {
    let user = |content| Message {
        role: Role::User,
        content,
    };
    let assistant = |content| Message {
        role: Role::Assistant,
        content,
    };
    ModelRequest {
        model: "model-x".into(),
        system: "Sys \"quoted\"\n".into(),
        messages: vec![
            user(vec![text("first"), text(""), text("second"), image()]),
            assistant(vec![
                ContentBlock::Thinking {
                    thinking: "mine ".into(),
                    signature: None,
                },
                ContentBlock::Thinking {
                    thinking: "again".into(),
                    signature: None,
                },
                ContentBlock::Thinking {
                    thinking: "signed".into(),
                    signature: Some("enc".into()),
                },
                ContentBlock::Thinking {
                    thinking: String::new(),
                    signature: Some("enc2".into()),
                },
                ContentBlock::RedactedThinking { data: "red".into() },
                text("calling"),
                provider("openai", json!({"type": "message", "phase": "commentary"})),
                provider(
                    "openai-chat",
                    json!({"reasoning_details": [{"type": "reasoning.text", "text": "r"}]}),
                ),
                provider("anthropic", json!({"type": "server_tool_use", "id": "s1"})),
                ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "read_file".into(),
                    input: json!({"n": [1, 2.5, null], "path": "a \"b\".txt"}),
                },
                ContentBlock::ToolUse {
                    id: "t2".into(),
                    name: "bash".into(),
                    input: json!({}),
                },
                image(),
            ]),
            user(vec![
                ContentBlock::ToolResult {
                    tool_use_id: "t1".into(),
                    content: "ok ✓\n".into(),
                    is_error: false,
                    media: Vec::new(),
                },
                ContentBlock::ToolResult {
                    tool_use_id: "t2".into(),
                    content: "boom".into(),
                    is_error: true,
                    media: Vec::new(),
                },
                text("and then"),
            ]),
            assistant(vec![text("done"), text("really")]),
            assistant(vec![text("")]),
            user(vec![image()]),
            user(vec![text("last")]),
        ],
        tools: tools(),
        max_tokens: 32_000,
        cache: PromptCache {
            ttl: CacheTtl::OneHour,
            key: Some("session-1".into()),
        },
        effort: Some(Effort::High),
        web_search: None,
    }
}

/// A call whose result read a picture and a PDF, and a user's question after it.
pub(crate) fn result_with_media() -> ModelRequest {
    let source = |media_type: &str, data: &str| ImageSource {
        media_type: media_type.into(),
        data: data.into(),
    };
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: String::new(),
        messages: vec![
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "read_file".into(),
                    input: json!({"path": "a.png"}),
                }],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "t1".into(),
                        content: "a.png: PNG image".into(),
                        is_error: false,
                        media: vec![
                            Media::Image {
                                source: source("image/png", "iVBO"),
                            },
                            Media::Pdf {
                                source: source("application/pdf", "JVBE"),
                                text: "page 1: hello".into(),
                            },
                        ],
                    },
                    text("what is it?"),
                ],
            },
        ],
        tools: Vec::new(),
        max_tokens: 1024,
        cache: PromptCache::default(),
        effort: None,
        web_search: None,
    }
}

/// Two tools (Anthropic marks the last one for the cache).
pub(crate) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Reads".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}})
                .into(),
        },
        ToolSpec {
            name: "bash".into(),
            description: "Runs".into(),
            input_schema: json!({"type": "object"}).into(),
        },
    ]
}
