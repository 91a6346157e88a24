//! One model turn: send the request, forward the stream as events, and assemble the reply.

use futures::StreamExt;
use rein_llm::{
    AssembledResponse, LlmError, ModelClient, ModelEvent, ModelRequest, ResponseAssembler,
};
use rein_protocol::{ContentBlock, Event};
use tokio_util::sync::CancellationToken;

use crate::EventSender;
use crate::emitter::Emitter;

/// How a model turn ended.
pub(crate) enum TurnOutcome {
    /// The response streamed to completion.
    Completed(AssembledResponse),
    /// The user cancelled; `blocks` are the content blocks completed before that.
    Cancelled { blocks: Vec<ContentBlock> },
    /// The provider failed (after its own retries).
    Failed(LlmError),
}

/// Streams one request, forwarding deltas and retries as events.
pub(crate) async fn stream_turn(
    client: &dyn ModelClient,
    request: ModelRequest,
    events: &EventSender,
    cancel: &CancellationToken,
) -> TurnOutcome {
    let mut stream = client.stream(request);
    let mut assembler = ResponseAssembler::new();
    let mut blocks = Vec::new();
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return TurnOutcome::Cancelled { blocks },
            next = stream.next() => next,
        };
        let event = match next {
            None => break,
            Some(Err(error)) => return TurnOutcome::Failed(error),
            Some(Ok(event)) => event,
        };
        forward(&event, events);
        if let ModelEvent::BlockComplete(block) = &event {
            blocks.push(block.clone());
        }
        assembler.push(&event);
    }
    match assembler.finish() {
        Ok(response) => TurnOutcome::Completed(response),
        Err(error) => TurnOutcome::Failed(error),
    }
}

fn forward(event: &ModelEvent, events: &EventSender) {
    let out = match event {
        ModelEvent::TextDelta(text) => Event::TextDelta { text: text.clone() },
        ModelEvent::ThinkingDelta(text) => Event::ThinkingDelta { text: text.clone() },
        ModelEvent::Citation { title, url } => Event::Citation {
            title: title.clone(),
            url: url.clone(),
        },
        ModelEvent::Retry {
            attempt,
            delay_ms,
            error,
        } => Event::Retry {
            attempt: *attempt,
            delay_ms: *delay_ms,
            reason: error.to_string(),
        },
        ModelEvent::BlockComplete(block) => {
            // A search the provider ran is shown as the call it is.
            for event in crate::web::search_events(block) {
                events.emit(event);
            }
            return;
        }
        ModelEvent::ToolCallStart { .. }
        | ModelEvent::ToolCallDelta { .. }
        | ModelEvent::Completed { .. } => return,
    };
    // A closed receiver means nobody is listening; the run goes on.
    events.emit(out);
}
