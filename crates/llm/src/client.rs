//! The seam between the engine and the providers.

use std::pin::Pin;

use futures::Stream;
use rein_protocol::{ContentBlock, Message, StopReason, ToolSpec, Usage};
use serde::{Deserialize, Serialize};

use crate::{LlmError, PromptCache};

/// Which wire protocol a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// Anthropic Messages (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`POST {base}/responses`).
    Openai,
    /// OpenAI Chat Completions and compatible servers (`POST {base}/chat/completions`).
    OpenaiChat,
}

impl ProviderKind {
    /// The name used on the command line and in events.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::Openai => "openai",
            Self::OpenaiChat => "openai-chat",
        }
    }
}

/// One model request: everything the provider needs to produce the next assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// Model name as the provider knows it.
    pub model: String,
    /// System prompt.
    pub system: String,
    /// The transcript so far, oldest first; the last message is from the user.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    pub tools: Vec<ToolSpec>,
    /// Output token limit.
    pub max_tokens: u32,
    /// Prompt-cache settings (Anthropic breakpoint lifetime, OpenAI cache key).
    pub cache: PromptCache,
    /// How hard the model should think; `None` leaves the model's default.
    pub effort: Option<crate::Effort>,
    /// A web search the provider runs itself, declared beside the tools (Anthropic's
    /// `web_search_20250305` for Claude models, the Responses `web_search` tool); the Chat
    /// protocol has none and ignores it.
    pub web_search: Option<HostedSearch>,
}

/// The provider's own web search, as a request declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostedSearch {
    /// Most searches in one response (Anthropic's `max_uses`).
    pub max_uses: u32,
    /// Only these domains (when set, `blocked_domains` is not sent: Anthropic takes one).
    pub allowed_domains: Vec<String>,
    /// Never these domains (Anthropic only).
    pub blocked_domains: Vec<String>,
}

/// One step of a streamed model response.
///
/// A well-formed stream is: any number of deltas and [`ModelEvent::BlockComplete`]s (one per
/// content block, in order) and [`ModelEvent::Retry`] notices, then exactly one
/// [`ModelEvent::Completed`]. A stream that ends without `Completed` yields an error instead.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A failed attempt will be retried after a delay (only before any output streamed).
    Retry {
        /// 1-based number of the attempt that failed.
        attempt: u32,
        /// Wait before the next attempt, in milliseconds.
        delay_ms: u64,
        /// The error of the failed attempt.
        error: LlmError,
    },
    /// Answer text.
    TextDelta(String),
    /// A web page the answer streaming now cites (Anthropic's citations of its search
    /// results), each page once per response; for display: the transcript keeps the text as
    /// the model wrote it.
    Citation {
        /// The page's title.
        title: String,
        /// Its address.
        url: String,
    },
    /// Reasoning text.
    ThinkingDelta(String),
    /// A tool call started streaming.
    ToolCallStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments.
    ToolCallDelta {
        /// Call id.
        id: String,
        /// Raw JSON fragment.
        fragment: String,
    },
    /// A content block is complete (tool calls with their parsed arguments, thinking with its
    /// signature). The sequence of these is the assistant message.
    BlockComplete(ContentBlock),
    /// The response finished.
    Completed {
        /// Why the model stopped.
        stop_reason: StopReason,
        /// Usage of the request.
        usage: Usage,
    },
}

/// The stream a client returns.
pub type ModelEventStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, LlmError>> + Send>>;

/// A model provider.
///
/// Contract: `stream` is lazy; the request is sent when the stream is first polled. Connection
/// errors, 429/5xx/529 answers are retried inside the stream with backoff (announced by
/// [`ModelEvent::Retry`]) as long as nothing has been streamed yet. Every error carries the
/// provider's request id when one was sent. Dropping the stream cancels the request.
pub trait ModelClient: Send + Sync {
    /// The wire protocol of this client.
    fn kind(&self) -> ProviderKind;
    /// Starts a streamed request.
    fn stream(&self, request: ModelRequest) -> ModelEventStream;
}
