//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`.
//!
//! The canonical transcript is modelled on this protocol, so translation is nearly one to one:
//! thinking blocks travel back with their signatures, tool results sit in user messages.

mod body;
mod breakpoints;
mod stream;

use reqwest::RequestBuilder;

use crate::http::{StreamParser, WireProtocol};
use crate::{ModelRequest, ProviderKind};

pub(crate) use stream::AnthropicParser;

/// The `anthropic-version` header value.
const API_VERSION: &str = "2023-06-01";

/// The Anthropic Messages protocol.
pub(crate) struct AnthropicProtocol;

impl WireProtocol for AnthropicProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/v1/messages")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        let builder = builder.header("anthropic-version", API_VERSION);
        match api_key {
            Some(key) => builder.header("x-api-key", key),
            None => builder,
        }
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&request_body(request))
    }

    /// Thinking between tool calls (interleaved) is a beta the request must name.
    fn request_headers(&self, request: &ModelRequest) -> Vec<(&'static str, &'static str)> {
        if thinking_budget(request).is_some() && !request.tools.is_empty() {
            vec![("anthropic-beta", crate::effort::INTERLEAVED_THINKING_BETA)]
        } else {
            Vec::new()
        }
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(AnthropicParser::default())
    }
}

/// The body of a Messages request (see [`body::Body`]).
pub(crate) fn request_body(request: &ModelRequest) -> body::Body<'_> {
    body::Body::new(request)
}

/// The thinking budget the request's effort asks for, if it asks to think.
fn thinking_budget(request: &ModelRequest) -> Option<u32> {
    request.effort?.anthropic_budget(request.max_tokens)
}

#[cfg(test)]
#[path = "anthropic/tests.rs"]
mod tests;

#[cfg(test)]
#[path = "anthropic/media_tests.rs"]
mod media_tests;
