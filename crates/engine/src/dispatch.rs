//! Running the tool calls of one assistant message.
//!
//! The calls are split, in order, into batches: consecutive read-only calls form one batch that
//! runs concurrently (at most [`DispatchLimits::max_parallel`] at a time), a mutating call runs
//! alone. Batches run one after another, so a mutating call never overlaps anything. Each call
//! has its own timeout and its own cancellation token (a child of the turn's); every call gets
//! exactly one result, returned in call order, so the transcript stays valid even when the user
//! cancels half-way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rein_checkpoint::Checkpoints;
use rein_protocol::{ContentBlock, Event, Media};
use rein_tools::{CallFacts, CallKind, Effect, Progress, ToolContext, ToolOutput, ToolRegistry};
use serde_json::Value;

use crate::EventSender;
use crate::emitter::Emitter;
use crate::gate::{Cleared, Gate, ToolOf};
use crate::hooks::Ran;

/// Result text for a call that never ran because the user cancelled first.
pub(crate) const NOT_RUN: &str =
    "Interrupted: the user cancelled the turn before this tool call ran.";

/// A tool call taken from an assistant message.
#[derive(Debug, Clone)]
pub(crate) struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// A call's result, and what it touched when it ran (`None`: it was not run).
#[derive(Debug, Clone)]
pub(crate) struct Done {
    pub block: ContentBlock,
    pub facts: Option<Arc<CallFacts>>,
}

/// How calls are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchLimits {
    /// Most read-only calls of one batch running at once.
    pub max_parallel: usize,
    /// Longest one call may run before it is stopped with an error result.
    pub call_timeout: Duration,
}

impl Default for DispatchLimits {
    fn default() -> Self {
        Self {
            max_parallel: 8,
            call_timeout: Duration::from_secs(600),
        }
    }
}

/// Everything a dispatch of calls needs, and every call of it shares.
#[derive(Clone, Copy)]
pub(crate) struct Dispatch<'a> {
    /// The tools the calls name.
    pub tools: &'a ToolRegistry,
    /// The session's tool context; each call runs in a copy of its own.
    pub ctx: &'a ToolContext,
    /// How many read-only calls run at once, and how long one may run.
    pub limits: DispatchLimits,
    /// The permission check and hooks around each call.
    pub gate: &'a Gate,
    /// Where the calls' events go.
    pub events: &'a EventSender,
    /// Where each file's state is kept before a file tool changes it (`rein undo`); `None`:
    /// not kept.
    pub checkpoints: Option<&'a Checkpoints>,
    /// Told each result once its call is done, before `ToolCallEnd` goes out.
    pub on_done: &'a (dyn Fn(&ContentBlock) + Send + Sync),
    /// Whether `ToolCallEnd` carries Claude Code's shape of the result.
    pub claude_results: bool,
    /// Whether the model reads images: when not, a result's media become a note saying so.
    pub sees_images: bool,
}

impl Dispatch<'_> {
    /// Runs `calls` in batches and returns one `tool_result` block per call, in call order,
    /// with the facts of each call that ran.
    pub(crate) async fn run(self, calls: Vec<ToolCall>) -> Vec<Done> {
        let mut results = Vec::with_capacity(calls.len());
        // What each call touches, computed once: batching, the gate, hooks and events read it.
        let planned: Vec<(ToolCall, CallFacts)> = calls
            .into_iter()
            .map(|call| {
                let facts = self.tools.facts(&call.name, &call.input, &self.ctx.guard);
                (call, facts)
            })
            .collect();
        for batch in batches(planned) {
            let parallel = if batch.len() > 1 {
                self.limits.max_parallel.max(1)
            } else {
                1
            };
            let outputs: Vec<Done> = futures::stream::iter(batch)
                // Each result is recorded as its call finishes: a process killed mid-batch
                // keeps what already ran.
                .map(|(call, facts)| run_one(self, call, facts))
                .buffered(parallel)
                .collect()
                .await;
            results.extend(outputs);
        }
        results
    }
}

/// Splits calls, in order, into runs of calls that may run together (read-only ones) and
/// single other calls.
fn batches(calls: Vec<(ToolCall, CallFacts)>) -> Vec<Vec<(ToolCall, CallFacts)>> {
    let mut batches: Vec<Vec<(ToolCall, CallFacts)>> = Vec::new();
    let mut reading: Vec<(ToolCall, CallFacts)> = Vec::new();
    for call in calls {
        if call.1.runs_concurrently() {
            reading.push(call);
            continue;
        }
        if !reading.is_empty() {
            batches.push(std::mem::take(&mut reading));
        }
        batches.push(vec![call]);
    }
    if !reading.is_empty() {
        batches.push(reading);
    }
    batches
}

/// Runs one call with its own timeout and cancellation, reporting its start and end.
async fn run_one(shared: Dispatch<'_>, call: ToolCall, facts: CallFacts) -> Done {
    shared.events.emit(Event::ToolCallStart {
        id: call.id.clone(),
        name: call.name.clone(),
        input: call.input.clone(),
        summary: facts.summary.clone(),
    });
    let cleared = clear(shared, &call, facts).await;
    // The call's time starts once it is cleared: not while the user thinks about it.
    let started = Instant::now();
    let (output, facts) = match cleared {
        Err(refusal) => (refusal, None),
        Ok(_) if shared.ctx.cancel.is_cancelled() => (ToolOutput::error(NOT_RUN), None),
        Ok(cleared) => {
            // One copy of the facts, shared by the tool (through its context) and the hooks.
            let facts = Arc::new(cleared.facts);
            let output = execute(shared, &call, &cleared.input, &facts, &cleared.notes).await;
            let ran = Ran {
                duration: started.elapsed(),
                interrupted: shared.ctx.cancel.is_cancelled(),
            };
            let output = shared
                .gate
                .after(&call.id, &facts, &cleared.input, output, ran, shared.events)
                .await;
            (output, Some(facts))
        }
    };
    Done {
        block: finish(shared, call, output, started),
        facts,
    }
}

/// Whether the call may run: not when the turn was cancelled or its arguments are not JSON;
/// else as the gate decides.
async fn clear(
    shared: Dispatch<'_>,
    call: &ToolCall,
    facts: CallFacts,
) -> Result<Cleared, ToolOutput> {
    let Dispatch {
        tools, ctx, gate, ..
    } = shared;
    if ctx.cancel.is_cancelled() {
        return Err(ToolOutput::error(NOT_RUN));
    }
    if let Some(problem) = call.input.get(rein_protocol::INVALID_ARGUMENTS) {
        // Nothing to check or run: the model's arguments never became JSON.
        return Err(ToolOutput::error(format!(
            "this call was not run: its arguments are not valid JSON ({}). Send it again with \
             complete, valid JSON arguments (a very long argument may have been cut off: split \
             the work into smaller calls).",
            problem.as_str().unwrap_or_default()
        )));
    }
    if let Some(problem) = tools.invalid(&call.name, &call.input) {
        // It could never run: no approval is asked for it, the model is told what to fix.
        return Err(ToolOutput::error(problem));
    }
    let facts_of = |input: &Value| tools.facts(&call.name, input, &ctx.guard);
    let preview_of =
        |input: &Value| rein_tools::unified(&tools.preview(&call.name, input, &ctx.guard));
    gate.check(
        &call.id,
        &call.input,
        facts,
        ToolOf {
            facts: &facts_of,
            preview: &preview_of,
        },
        &ctx.guard,
        shared.events,
    )
    .await
}

/// Runs a cleared call in its own context (its cancel token, progress, facts), within its
/// timeout, keeping the files it changes for `rein undo`; the notes go after its output.
async fn execute(
    shared: Dispatch<'_>,
    call: &ToolCall,
    input: &Value,
    facts: &Arc<CallFacts>,
    notes: &[String],
) -> ToolOutput {
    let Dispatch {
        tools,
        ctx,
        limits,
        gate,
        events,
        checkpoints,
        ..
    } = shared;
    let live = events.clone();
    let id = call.id.clone();
    let own = ToolContext {
        cancel: ctx.cancel.child_token(),
        sandbox_policy: gate.sandbox_policy(ctx.sandbox_policy),
        facts: Some(Arc::clone(facts)),
        call_id: Some(call.id.clone()),
        progress: Some(Progress::new(move |text| {
            live.emit(Event::ToolOutputDelta {
                id: id.clone(),
                text: text.to_string(),
            });
        })),
        ..ctx.clone()
    };
    // Tools watch their token and kill what they started; on timeout the call's future is
    // dropped as well, which kills anything it still runs.
    let kept = checkpoints.and_then(|kept| keep_before(kept, facts, &call.id));
    let run = tools.call(&call.name, input.clone(), &own);
    // A subagent's own calls have their timeouts; its run is bounded by its turns.
    let timeout = if call.name == crate::subagents::TASK_TOOL {
        crate::subagents::TASK_TIMEOUT
    } else {
        limits.call_timeout
    };
    let mut output = match tokio::time::timeout(timeout, run).await {
        Ok(output) => output,
        Err(_) => {
            own.cancel.cancel();
            ToolOutput::error(format!(
                "the {} call timed out after {} s and was stopped",
                call.name,
                timeout.as_secs_f64()
            ))
        }
    };
    if let Some(kept) = checkpoints {
        keep_after(kept, facts, &call.id);
    }
    for note in kept.iter().chain(notes) {
        output.text.push_str("\n\n");
        output.text.push_str(note);
    }
    output
}

/// The call's result block: saved, then reported with `ToolCallEnd` (and a file tool's
/// diff).
fn finish(
    shared: Dispatch<'_>,
    call: ToolCall,
    mut output: ToolOutput,
    started: Instant,
) -> ContentBlock {
    // Moved, not copied: a picture is megabytes of base64, and only the block needs it.
    let media = std::mem::take(&mut output.media);
    let (content, media) = shown(&output.text, media, shared.sees_images);
    let block = ContentBlock::ToolResult {
        tool_use_id: call.id.clone(),
        content,
        is_error: output.is_error,
        media,
    };
    let diff = output
        .details
        .as_deref()
        .filter(|_| !output.is_error)
        .and_then(|details| {
            rein_tools::unified(&rein_tools::of_details(details, &shared.ctx.guard))
        });
    // Saved before anyone is told it finished: a result a front end showed is never lost.
    (shared.on_done)(&block);
    let tool_response = shared
        .claude_results
        .then(|| crate::hooks::hook_tool_response(&output));
    let (exit_code, sandbox) = match output.details.as_deref() {
        Some(rein_tools::ToolDetails::Command(run)) => {
            (run.exit_code, Some(run.sandbox.name().to_string()))
        }
        _ => (None, None),
    };
    shared.events.emit(Event::ToolCallEnd {
        id: call.id,
        name: call.name,
        output: output.text,
        is_error: output.is_error,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        diff,
        tool_response,
        exit_code,
        sandbox,
    });
    block
}

/// What the model is shown of a result: its text and media, or, for a model that reads no
/// images, the text with a note in place of each image (a PDF's extracted text stays).
fn shown(text: &str, media: Vec<Media>, sees_images: bool) -> (String, Vec<Media>) {
    if sees_images || media.is_empty() {
        return (text.to_string(), media);
    }
    let mut text = text.to_string();
    let mut kept = Vec::new();
    for item in media {
        match &item {
            Media::Image { source } => text.push_str(&format!(
                "\n[An image ({}, {} bytes) is not shown: this model does not read images. \
                 Set `[vision]` in rein's config if it does.]",
                source.media_type,
                source.data.len() / 4 * 3
            )),
            Media::Pdf { .. } => kept.push(item),
        }
    }
    (text, kept)
}

/// Keeps the state of the files a file tool's call is about to change (`rein undo`); a note
/// for the model when they could not be kept (the call still runs).
fn keep_before(checkpoints: &Checkpoints, facts: &CallFacts, id: &str) -> Option<String> {
    if facts.effect != Effect::ReadOnly {
        checkpoints.note_change();
    }
    if facts.kind != CallKind::Edit || facts.writes.is_empty() {
        return None;
    }
    let error = checkpoints.before(id, &facts.writes).err()?;
    Some(format!(
        "(rein could not keep the earlier state of these files, so this change cannot be \
         undone with `rein undo`: {error})"
    ))
}

/// Notes what a file tool's call left, so a later undo can tell a file changed since (when
/// this cannot be written, the undo treats the file as changed since and asks for `--force`).
fn keep_after(checkpoints: &Checkpoints, facts: &CallFacts, id: &str) {
    if facts.kind == CallKind::Edit && !facts.writes.is_empty() {
        let _ = checkpoints.after(id, &facts.writes);
    }
}

/// Results for calls issued by a reply that was cut off by cancellation.
pub(crate) fn interrupted(calls: Vec<ToolCall>) -> Vec<ContentBlock> {
    calls
        .into_iter()
        .map(|call| ContentBlock::ToolResult {
            tool_use_id: call.id,
            content: NOT_RUN.to_string(),
            is_error: true,
            media: Vec::new(),
        })
        .collect()
}
