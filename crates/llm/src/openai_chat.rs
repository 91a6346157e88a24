//! OpenAI Chat Completions and the many servers compatible with it (Ollama, vLLM, llama.cpp,
//! DeepSeek, Qwen, Kimi, OpenRouter): `POST {base}/chat/completions` with `stream: true`.
//!
//! Chat has no place for reasoning in the request, so thinking blocks are not sent back; tool
//! results become `tool` messages placed right after the assistant message that called them.

mod body;
mod stream;

use std::sync::atomic::{AtomicBool, Ordering};

use reqwest::RequestBuilder;

use crate::http::{StreamParser, WireProtocol};
use crate::{LlmError, ModelRequest, ProviderKind};

pub(crate) use stream::ChatParser;

/// The Chat Completions protocol. Remembers which optional fields the server refused.
#[derive(Debug, Default)]
pub(crate) struct ChatProtocol {
    omit_stream_options: AtomicBool,
    omit_prompt_cache_key: AtomicBool,
    omit_reasoning_effort: AtomicBool,
}

/// Which optional fields a Chat Completions body carries; a server that refuses one gets the
/// request again without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChatFields {
    /// `stream_options: {include_usage: true}`: the usage chunk.
    pub usage_in_stream: bool,
    /// `prompt_cache_key` (OpenAI's cache routing; other servers may not know it).
    pub prompt_cache_key: bool,
    /// `reasoning_effort`, when the request sets an effort.
    pub reasoning_effort: bool,
}

#[cfg(test)]
impl ChatFields {
    /// Every optional field.
    pub(crate) const ALL: Self = Self {
        usage_in_stream: true,
        prompt_cache_key: true,
        reasoning_effort: true,
    };
}

impl WireProtocol for ChatProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenaiChat
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/chat/completions")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        crate::http::bearer(builder, api_key)
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        let fields = ChatFields {
            usage_in_stream: !self.omit_stream_options.load(Ordering::Relaxed),
            prompt_cache_key: !self.omit_prompt_cache_key.load(Ordering::Relaxed),
            reasoning_effort: !self.omit_reasoning_effort.load(Ordering::Relaxed),
        };
        serde_json::to_vec(&request_body(request, fields))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ChatParser::default())
    }

    /// Servers that do not know an optional field answer 400 (or 422) naming it: resend
    /// without it, and leave it out from now on.
    fn adapt(&self, error: &LlmError) -> bool {
        if !matches!(error.status, Some(400 | 422)) {
            return false;
        }
        let message = error.message.to_lowercase();
        let flag = if message.contains("stream_options") || message.contains("include_usage") {
            &self.omit_stream_options
        } else if message.contains("prompt_cache_key") {
            &self.omit_prompt_cache_key
        } else if message.contains("reasoning_effort") {
            &self.omit_reasoning_effort
        } else {
            return false;
        };
        !flag.swap(true, Ordering::Relaxed)
    }
}

/// The body of a Chat Completions request with the optional `fields` (see [`body::Body`]).
pub(crate) fn request_body(request: &ModelRequest, fields: ChatFields) -> body::Body<'_> {
    body::Body::new(request, fields)
}

#[cfg(test)]
#[path = "openai_chat/tests.rs"]
mod tests;
