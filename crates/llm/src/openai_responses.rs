//! OpenAI Responses: `POST {base}/responses` with `stream: true` and `store: false`.
//!
//! The transcript becomes a list of input items: messages, `function_call`s,
//! `function_call_output`s, and `reasoning` items carrying the encrypted reasoning content that
//! came back as a thinking block's signature (stateless reasoning, as `store` is off).

mod body;
mod stream;

use reqwest::RequestBuilder;

use crate::http::{StreamParser, WireProtocol};
use crate::{ModelRequest, ProviderKind};

pub(crate) use stream::ResponsesParser;

/// The OpenAI Responses protocol.
pub(crate) struct ResponsesProtocol;

impl WireProtocol for ResponsesProtocol {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn endpoint(&self, base_url: &str) -> String {
        format!("{base_url}/responses")
    }

    fn authorize(&self, builder: RequestBuilder, api_key: Option<&str>) -> RequestBuilder {
        crate::http::bearer(builder, api_key)
    }

    fn body(&self, request: &ModelRequest) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&request_body(request))
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(ResponsesParser::default())
    }
}

/// The body of a Responses request (see [`body::Body`]).
pub(crate) fn request_body(request: &ModelRequest) -> body::Body<'_> {
    body::Body::new(request)
}

#[cfg(test)]
#[path = "openai_responses/tests.rs"]
mod tests;
