//! The agent: a transcript plus the loop that extends it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rein_llm::{LlmError, LlmErrorKind, ModelClient, ModelRequest};
use rein_protocol::{
    ContentBlock, Event, Message, Role, RunOutcome, SessionRecord, StopReason, Usage,
};
use rein_tools::{OutputBudget, SensitivePaths, ToolContext, ToolRegistry, WorkspaceGuard};
use tokio_util::sync::CancellationToken;

use crate::context::{self, Anchor};
use crate::dispatch::{self, DispatchLimits, ToolCall};
use crate::gate::{Approver, Gate};
use crate::hooks::{HookEvent, HookSpec, Hooks};
use crate::memory::FolderMemory;
use crate::permissions::Policy;
use crate::prompt::{Environment, SystemPrompt, SystemPromptBuilder};
use crate::session::SessionWriter;
use crate::turn::{self, TurnOutcome};
use crate::{EngineError, EventSender};

/// Settings of an agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model name.
    pub model: String,
    /// Workspace root; tools are confined to it.
    pub workspace: PathBuf,
    /// Model requests allowed per run.
    pub max_turns: u32,
    /// The model's context window in tokens; `None` uses the built-in table.
    pub context_window: Option<u64>,
    /// Output token limit per request.
    pub max_tokens: u32,
    /// Concurrency and timeout of tool calls.
    pub dispatch: DispatchLimits,
    /// Permission mode and rules.
    pub policy: Policy,
    /// Paths no tool may touch, replacing the default list (`None`: the default list).
    pub sensitive_paths: Option<Vec<String>>,
    /// Hook commands.
    pub hooks: Vec<HookSpec>,
    /// The session id to use (resuming); `None` makes a new one.
    pub session_id: Option<String>,
    /// Folder of the user's own memory file (`AGENTS.md`, else `CLAUDE.md`), if any.
    pub user_memory_dir: Option<PathBuf>,
    /// Bytes one tool result may put in the transcript.
    pub output_limit: usize,
    /// Folder under which each session saves its over-long tool outputs in full, in a
    /// subfolder named by the session id (readable by `read_file`); `None` keeps only their
    /// head and tail.
    pub outputs_root: Option<PathBuf>,
}

impl AgentConfig {
    /// Defaults: 50 turns, 8192 output tokens.
    pub fn new(model: impl Into<String>, workspace: PathBuf) -> Self {
        Self {
            model: model.into(),
            workspace,
            max_turns: 50,
            context_window: None,
            max_tokens: 8192,
            dispatch: DispatchLimits::default(),
            policy: Policy::default(),
            sensitive_paths: None,
            hooks: Vec::new(),
            session_id: None,
            user_memory_dir: None,
            output_limit: rein_tools::DEFAULT_OUTPUT_LIMIT,
            outputs_root: None,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// How the run ended.
    pub outcome: RunOutcome,
    /// The last assistant text.
    pub text: String,
    /// Model requests made.
    pub turns: u32,
    /// Usage summed over the run's requests.
    pub usage: Usage,
    /// Cost of the run in US dollars; `None` when any request's price is unknown.
    pub cost_usd: Option<f64>,
    /// The provider error that ended the run, if any.
    pub error: Option<LlmError>,
}

/// A model, tools and a transcript; [`Agent::run`] adds one user prompt and works on it.
pub struct Agent {
    client: Arc<dyn ModelClient>,
    tools: ToolRegistry,
    config: AgentConfig,
    system: SystemPrompt,
    transcript: Vec<Message>,
    session_id: String,
    /// Guard, locks and output budget shared by every tool call of the session.
    tool_ctx: ToolContext,
    /// Permission policy, who answers its questions, and the hooks.
    gate: Gate,
    /// Whether a run has started (the `SessionStart` hooks ran).
    started: bool,
    /// Where the session is recorded, if anywhere.
    recorder: Option<SessionWriter>,
    /// The first failure to record, reported once at the end of the run.
    record_problem: Option<String>,
    /// Whether the transcript was restored from a stored session.
    resumed: bool,
    /// Usage and cost of the whole session (earlier runs included).
    session_usage: Usage,
    session_cost: Option<f64>,
    /// The last reported prompt size, for the context estimate.
    anchor: Option<Anchor>,
    /// Sub-folder memory files shown so far.
    folder_memory: FolderMemory,
}

/// Times in a row a `Stop` hook may send the agent back to work before rein stops anyway.
const MAX_STOP_CONTINUATIONS: u32 = 3;

/// Hook context as text blocks of the user message.
fn context_blocks(event: HookEvent, context: &[String]) -> Vec<ContentBlock> {
    context
        .iter()
        .map(|text| ContentBlock::Text {
            text: format!("[{} hook context]\n{text}", event.name()),
        })
        .collect()
}

impl Agent {
    /// Sets up an agent in `config.workspace`, which must be an existing directory.
    pub fn new(
        client: Arc<dyn ModelClient>,
        tools: ToolRegistry,
        config: AgentConfig,
    ) -> Result<Self, EngineError> {
        let guard = workspace_guard(
            &config.workspace,
            config.sensitive_paths.as_deref(),
            &config.policy,
        )?;
        let session_id = config.session_id.clone().unwrap_or_else(new_session_id);
        let output_dir = config
            .outputs_root
            .as_ref()
            .map(|root| root.join(&session_id));
        let guard = match &output_dir {
            None => guard,
            Some(dir) => guard
                .with_read_root(dir)
                .map_err(|e| EngineError::Workspace {
                    path: dir.clone(),
                    message: format!("cannot use the output folder: {e}"),
                })?,
        };
        let mut builder =
            SystemPromptBuilder::new(Environment::detect(guard.root())).tools(tools.names());
        if let Some(dir) = &config.user_memory_dir {
            builder = builder.user_memory(dir);
        }
        let system = builder.build();
        Ok(Self {
            client,
            tools,
            system,
            transcript: Vec::new(),
            session_id: session_id.clone(),
            started: false,
            recorder: None,
            record_problem: None,
            resumed: false,
            session_usage: Usage::default(),
            session_cost: Some(0.0),
            anchor: None,
            folder_memory: FolderMemory::default(),
            gate: Gate {
                policy: Arc::new(Mutex::new(config.policy.clone())),
                approver: None,
                hooks: Arc::new(Hooks::new(
                    config.hooks.clone(),
                    guard.root().to_path_buf(),
                    session_id,
                )),
                stop: Arc::default(),
            },
            tool_ctx: ToolContext {
                budget: OutputBudget::new(config.output_limit, output_dir),
                ..ToolContext::new(guard)
            },
            config,
        })
    }

    /// Lets `approver` answer the calls the policy asks about; without one, such calls are
    /// refused with a message saying how to allow them.
    pub fn set_approver(&mut self, approver: Arc<dyn Approver>) {
        self.gate.approver = Some(approver);
    }

    /// The live permission policy (a front end may switch the mode mid-session).
    pub fn policy(&self) -> Arc<Mutex<Policy>> {
        Arc::clone(&self.gate.policy)
    }

    /// Records the session from now on: every message, usage and error is appended to
    /// `writer` as it happens.
    pub fn record_to(&mut self, writer: SessionWriter) {
        self.recorder = Some(writer);
    }

    /// Continues an earlier conversation: its transcript becomes this agent's (before the
    /// first run; call [`Agent::record_to`] first so repairs are recorded too). The
    /// `SessionStart` hooks see it as a resume.
    /// A session killed during a tool call ends with calls that have no results: they are
    /// answered as interrupted, so the transcript is valid for the provider again.
    pub fn restore(&mut self, transcript: Vec<Message>, usage: Usage, cost_usd: Option<f64>) {
        self.transcript = transcript;
        self.session_usage = usage;
        self.session_cost = cost_usd;
        self.resumed = true;
        if let Some(last) = self.transcript.last()
            && last.role == Role::Assistant
        {
            let calls = tool_calls(last);
            if !calls.is_empty() {
                self.push_user_blocks(dispatch::interrupted(calls));
            }
        }
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// The system prompt sent with every request.
    pub fn system_prompt(&self) -> &SystemPrompt {
        &self.system
    }

    /// The model this agent asks.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// This session's identifier.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Adds `prompt` as a user message and drives turns until the model answers without tool
    /// calls, `max_turns` requests have been made, the provider fails, or `cancel` fires.
    /// Emits `SessionStart` first and `Result` last; the transcript is valid afterwards (every
    /// tool call has a result) whatever the outcome.
    pub async fn run(
        &mut self,
        prompt: &str,
        events: &EventSender,
        cancel: CancellationToken,
    ) -> RunSummary {
        let started = Instant::now();
        let _ = events.send(Event::SessionStart {
            session_id: self.session_id.clone(),
            provider: self.client.kind().name().to_string(),
            model: self.config.model.clone(),
            cwd: self.tool_ctx.guard.root().display().to_string(),
            tools: self.tools.names(),
        });
        let mut summary = RunSummary {
            outcome: RunOutcome::Completed,
            text: String::new(),
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            error: None,
        };
        match self.submit(prompt, events).await {
            Ok(()) => summary.outcome = self.drive(&mut summary, events, &cancel).await,
            Err(message) => {
                let _ = events.send(Event::Error { message });
                summary.outcome = RunOutcome::Failed;
            }
        }
        if let Some(problem) = self.record_problem.take() {
            let _ = events.send(Event::Error { message: problem });
        }
        self.session_usage.add(&summary.usage);
        self.session_cost = self
            .session_cost
            .zip(summary.cost_usd)
            .map(|(a, b)| rein_llm::round_cost(a + b));
        let _ = events.send(Event::Result {
            outcome: summary.outcome,
            text: summary.text.clone(),
            turns: summary.turns,
            usage: summary.usage,
            cost_usd: summary.cost_usd,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            session_usage: self.session_usage,
            session_cost_usd: self.session_cost,
        });
        summary
    }

    /// Adds the prompt to the transcript after the `SessionStart` (first run only) and
    /// `UserPromptSubmit` hooks, with the context they add. `Err` when a hook blocked it.
    async fn submit(&mut self, prompt: &str, events: &EventSender) -> Result<(), String> {
        let hooks = Arc::clone(&self.gate.hooks);
        let mode = self.gate.hook_mode();
        let mut blocks = vec![ContentBlock::Text {
            text: prompt.to_string(),
        }];
        if !self.started {
            self.started = true;
            let mut fields = serde_json::Map::new();
            let source = if self.resumed { "resume" } else { "startup" };
            fields.insert("source".into(), source.into());
            let said = hooks
                .run(HookEvent::SessionStart, None, mode, fields, events)
                .await;
            blocks.extend(context_blocks(HookEvent::SessionStart, &said.context));
        }
        let mut fields = serde_json::Map::new();
        fields.insert("prompt".into(), prompt.into());
        let said = hooks
            .run(HookEvent::UserPromptSubmit, None, mode, fields, events)
            .await;
        if let Some(reason) = said.block.or(said.stop) {
            return Err(format!(
                "the prompt was blocked by a UserPromptSubmit hook: {reason}"
            ));
        }
        blocks.extend(context_blocks(HookEvent::UserPromptSubmit, &said.context));
        self.push_user_blocks(blocks);
        Ok(())
    }

    /// Runs the `SessionEnd` hooks; front ends call it once when the session is over.
    pub async fn end_session(&self, reason: &str, events: &EventSender) {
        let mut fields = serde_json::Map::new();
        fields.insert("reason".into(), reason.into());
        let mode = self.gate.hook_mode();
        self.gate
            .hooks
            .run(HookEvent::SessionEnd, None, mode, fields, events)
            .await;
    }

    /// Whether a `Stop` hook wants the agent to go on; if so, tells the model why.
    async fn stop_blocked(&mut self, continued: &mut u32, events: &EventSender) -> bool {
        let mut fields = serde_json::Map::new();
        fields.insert("stop_hook_active".into(), (*continued > 0).into());
        let mode = self.gate.hook_mode();
        let said = self
            .gate
            .hooks
            .run(HookEvent::Stop, None, mode, fields, events)
            .await;
        let Some(reason) = said.block else {
            return false;
        };
        if *continued >= MAX_STOP_CONTINUATIONS {
            let _ = events.send(Event::Error {
                message: format!(
                    "a Stop hook kept blocking; stopping after {MAX_STOP_CONTINUATIONS} \
                     continuations ({reason})"
                ),
            });
            return false;
        }
        *continued += 1;
        self.push_user_text(&format!(
            "A Stop hook says the work is not finished yet; continue: {reason}"
        ));
        true
    }

    async fn drive(
        &mut self,
        summary: &mut RunSummary,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let ctx = ToolContext {
            cancel: cancel.clone(),
            ..self.tool_ctx.clone()
        };
        let mut stop_continuations = 0;
        let mut reactive_tried = false;
        loop {
            if summary.turns >= self.config.max_turns {
                let _ = events.send(Event::Error {
                    message: format!(
                        "stopped after {} turns (the --max-turns limit)",
                        self.config.max_turns
                    ),
                });
                return RunOutcome::MaxTurns;
            }
            self.clear_old_results(events);
            if self.over_threshold()
                && let Err(message) = self.compact("auto", None, events, cancel).await
            {
                let _ = events.send(Event::Error {
                    message: format!("compaction failed, continuing without it: {message}"),
                });
            }
            summary.turns += 1;
            let turn = summary.turns;
            let _ = events.send(Event::TurnStart { turn });
            let request = ModelRequest {
                model: self.config.model.clone(),
                system: self.system.as_str().to_string(),
                messages: self.transcript.clone(),
                tools: self.tools.specs(),
                max_tokens: self.config.max_tokens,
            };
            let response = match turn::stream_turn(self.client.as_ref(), request, events, cancel)
                .await
            {
                TurnOutcome::Completed(response) => response,
                TurnOutcome::Cancelled { blocks } => {
                    self.record_cut_reply(blocks);
                    return RunOutcome::Cancelled;
                }
                TurnOutcome::Failed(error)
                    if error.kind == LlmErrorKind::ContextLength && !reactive_tried =>
                {
                    // The prompt no longer fits: compact once and try again.
                    reactive_tried = true;
                    match self.compact("reactive", None, events, cancel).await {
                        Ok(()) => continue,
                        Err(message) => {
                            let message = format!(
                                "{error}; compacting the transcript to make it fit failed: {message}"
                            );
                            self.record(SessionRecord::Error {
                                message: message.clone(),
                            });
                            let _ = events.send(Event::Error { message });
                            summary.error = Some(error);
                            return RunOutcome::Failed;
                        }
                    }
                }
                TurnOutcome::Failed(error) => {
                    self.record(SessionRecord::Error {
                        message: error.to_string(),
                    });
                    let _ = events.send(Event::Error {
                        message: error.to_string(),
                    });
                    summary.error = Some(error);
                    return RunOutcome::Failed;
                }
            };
            let cost = rein_llm::cost_usd(&self.config.model, &response.usage);
            self.record(SessionRecord::Usage {
                model: self.config.model.clone(),
                usage: response.usage,
                cost_usd: cost,
            });
            summary.usage.add(&response.usage);
            summary.cost_usd = summary
                .cost_usd
                .zip(cost)
                .map(|(a, b)| rein_llm::round_cost(a + b));
            let _ = events.send(Event::Usage {
                usage: response.usage,
                cost_usd: cost,
            });
            let message = response.message;
            let _ = events.send(Event::AssistantMessage {
                message: message.clone(),
            });
            let _ = events.send(Event::TurnEnd {
                turn,
                stop_reason: response.stop_reason.clone(),
            });
            let text = message.text();
            if !text.is_empty() {
                summary.text = text;
            }
            let calls = tool_calls(&message);
            self.record(SessionRecord::Message {
                message: message.clone(),
            });
            self.transcript.push(message);
            self.anchor = Some(Anchor {
                messages: self.transcript.len(),
                tokens: response.usage.total_input() + response.usage.output_tokens,
            });
            if calls.is_empty() {
                if response.stop_reason == StopReason::PauseTurn {
                    continue;
                }
                if self.stop_blocked(&mut stop_continuations, events).await {
                    continue;
                }
                return RunOutcome::Completed;
            }
            let inputs: Vec<(String, String, serde_json::Value)> = calls
                .iter()
                .map(|c| (c.id.clone(), c.name.clone(), c.input.clone()))
                .collect();
            let mut results = dispatch::dispatch(
                &self.tools,
                calls,
                &ctx,
                self.config.dispatch,
                &self.gate,
                events,
            )
            .await;
            self.add_folder_memory(&inputs, &mut results);
            self.push_user_blocks(results);
            if cancel.is_cancelled() {
                return RunOutcome::Cancelled;
            }
            if let Some(reason) = self.gate.take_stop() {
                let _ = events.send(Event::Error {
                    message: format!("a hook ended the session: {reason}"),
                });
                return RunOutcome::Failed;
            }
        }
    }

    /// Keeps what a cancelled reply completed; its tool calls get "interrupted" results.
    fn record_cut_reply(&mut self, blocks: Vec<ContentBlock>) {
        if blocks.is_empty() {
            return;
        }
        let message = Message {
            role: Role::Assistant,
            content: blocks,
        };
        let calls = tool_calls(&message);
        self.record(SessionRecord::Message {
            message: message.clone(),
        });
        self.transcript.push(message);
        if !calls.is_empty() {
            self.push_user_blocks(dispatch::interrupted(calls));
        }
    }

    fn window(&self) -> u64 {
        self.config
            .context_window
            .unwrap_or_else(|| context::context_window(&self.config.model))
    }

    /// The estimated size of the next request, tool specs and system prompt included. For
    /// OpenAI models, once the cheap estimate passes half the window, the part since the last
    /// reported usage is counted with the model's own tokenizer.
    fn next_request_tokens(&self) -> u64 {
        let fixed = self.system.as_str().len()
            + serde_json::to_string(&self.tools.specs()).map_or(0, |s| s.len());
        let cheap = context::estimate_next(&self.transcript, fixed, self.anchor);
        let tokenizer = context::Tokenizer::for_model(&self.config.model);
        match (tokenizer, self.anchor) {
            (Some(tokenizer), Some(anchor))
                if cheap * 2 > self.window()
                    && anchor.tokens > 0
                    && anchor.messages <= self.transcript.len() =>
            {
                anchor.tokens + tokenizer.count(&self.transcript[anchor.messages..])
            }
            _ => cheap,
        }
    }

    /// Adds the memory files of folders the calls touched for the first time to their results.
    fn add_folder_memory(
        &mut self,
        calls: &[(String, String, serde_json::Value)],
        results: &mut [ContentBlock],
    ) {
        let root = self.tool_ctx.guard.root().to_path_buf();
        for (id, name, input) in calls {
            let Some(memory) = self.folder_memory.newly_relevant(name, input, &root) else {
                continue;
            };
            for block in results.iter_mut() {
                if let ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error: false,
                } = block
                    && tool_use_id == id
                {
                    content.push_str("\n\n");
                    content.push_str(&memory);
                }
            }
        }
    }

    /// Micro-compaction once the estimate crosses [`context::CLEAR_AT`] of the window.
    fn clear_old_results(&mut self, events: &EventSender) {
        let before = self.next_request_tokens();
        if (before as f64) < context::CLEAR_AT * self.window() as f64 {
            return;
        }
        let budget = self.tool_ctx.budget.clone();
        // Worth clearing once it frees a tenth of the window.
        let min_total = (self.window() as f64 / 10.0 * 3.5) as usize;
        let cleared = context::clear_old_tool_results(
            &mut self.transcript,
            context::KEEP_RECENT_RESULTS,
            context::CLEAR_MIN_BYTES,
            min_total,
            |tool, content| {
                // Read-only lookups are cheap to repeat; only other outputs are saved.
                if matches!(tool, "read_file" | "glob" | "grep") {
                    return None;
                }
                let path = budget.new_save_path(tool)?.ok()?;
                std::fs::write(&path, content).ok()?;
                Some(path.display().to_string())
            },
        );
        if cleared > 0 {
            // The reported size counted the cleared outputs: estimate afresh.
            self.anchor = None;
            let _ = events.send(Event::Compaction {
                trigger: "micro".to_string(),
                tokens_before: before,
                tokens_after: self.next_request_tokens(),
                kept_messages: self.transcript.len(),
            });
        }
    }

    fn over_threshold(&self) -> bool {
        self.transcript.len() > 2
            && self.next_request_tokens() as f64 > context::COMPACT_AT * self.window() as f64
    }

    /// Replaces the older part of the transcript with a model-written summary, keeping recent
    /// turns verbatim. On failure the transcript is left as it was.
    pub async fn compact(
        &mut self,
        trigger: &str,
        focus: Option<&str>,
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let mut fields = serde_json::Map::new();
        fields.insert("trigger".into(), trigger.into());
        fields.insert("custom_instructions".into(), focus.unwrap_or("").into());
        let mode = self.gate.hook_mode();
        let hooks = Arc::clone(&self.gate.hooks);
        hooks
            .run(HookEvent::PreCompact, None, mode, fields, events)
            .await;
        let keep = context::messages_to_keep(&self.transcript, self.window() * 3 / 10);
        let older = self.transcript.len() - keep;
        if older == 0 {
            return Err("there is nothing older than the latest prompt to summarise".into());
        }
        let mut messages = self.transcript[..older].to_vec();
        let mut ask = context::SUMMARY_INSTRUCTIONS.to_string();
        if let Some(focus) = focus.filter(|f| !f.trim().is_empty()) {
            ask.push_str(&format!(" Focus especially on: {}", focus.trim()));
        }
        match messages.last_mut() {
            Some(last) if last.role == Role::User => {
                last.content.push(ContentBlock::Text { text: ask });
            }
            _ => messages.push(Message::user_text(ask)),
        }
        let request = ModelRequest {
            model: self.config.model.clone(),
            system: "You summarise coding sessions for the agent that will continue them."
                .to_string(),
            messages,
            tools: Vec::new(),
            max_tokens: self.config.max_tokens,
        };
        // The summary is not part of the conversation: its deltas are not shown.
        let (quiet, _drop) = tokio::sync::mpsc::unbounded_channel();
        let response = match turn::stream_turn(self.client.as_ref(), request, &quiet, cancel).await
        {
            TurnOutcome::Completed(response) => response,
            TurnOutcome::Cancelled { .. } => return Err("cancelled".into()),
            TurnOutcome::Failed(error) => return Err(error.to_string()),
        };
        let summary = response.message.text();
        if summary.trim().is_empty() {
            return Err("the model returned an empty summary".into());
        }
        let cost = rein_llm::cost_usd(&self.config.model, &response.usage);
        self.record(SessionRecord::Usage {
            model: self.config.model.clone(),
            usage: response.usage,
            cost_usd: cost,
        });
        self.session_usage.add(&response.usage);
        self.session_cost = self
            .session_cost
            .zip(cost)
            .map(|(a, b)| rein_llm::round_cost(a + b));
        let tokens_before = self.next_request_tokens();
        let transcript = std::mem::take(&mut self.transcript);
        let summary = match self.folder_memory.all() {
            Some(memory) => format!("{summary}\n\n{memory}"),
            None => summary,
        };
        self.transcript = context::compacted(transcript, &summary, keep);
        self.anchor = None;
        self.record(SessionRecord::Compaction {
            trigger: trigger.to_string(),
            summary,
            kept_messages: keep,
        });
        let _ = events.send(Event::Compaction {
            trigger: trigger.to_string(),
            tokens_before,
            tokens_after: self.next_request_tokens(),
            kept_messages: keep,
        });
        Ok(())
    }

    /// Appends a record to the session file; a failure is kept and reported once.
    fn record(&mut self, record: SessionRecord) {
        if let Some(writer) = self.recorder.as_mut()
            && let Err(e) = writer.append(&record)
            && self.record_problem.is_none()
        {
            self.record_problem = Some(format!("the session could not be saved: {e}"));
        }
    }

    fn push_user_text(&mut self, text: &str) {
        self.push_user_blocks(vec![ContentBlock::Text {
            text: text.to_string(),
        }]);
    }

    /// Appends user content, merging into a trailing user message (e.g. tool results of a
    /// cancelled turn) so roles keep alternating.
    fn push_user_blocks(&mut self, blocks: Vec<ContentBlock>) {
        self.record(SessionRecord::Message {
            message: Message {
                role: Role::User,
                content: blocks.clone(),
            },
        });
        match self.transcript.last_mut() {
            Some(last) if last.role == Role::User => last.content.extend(blocks),
            _ => self.transcript.push(Message {
                role: Role::User,
                content: blocks,
            }),
        }
    }
}

/// The guard for `workspace`: the sensitive list (`sensitive_paths` or the default) extended
/// with the path globs of the policy's `Read` deny rules. `rein tool` uses the same guard.
pub fn workspace_guard(
    workspace: &Path,
    sensitive_paths: Option<&[String]>,
    policy: &Policy,
) -> Result<WorkspaceGuard, EngineError> {
    let problem = |message: String| EngineError::Workspace {
        path: workspace.to_path_buf(),
        message,
    };
    let guard = WorkspaceGuard::new(workspace).map_err(|e| problem(e.to_string()))?;
    let base = match sensitive_paths {
        None => guard.sensitive_paths().clone(),
        Some(list) => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            SensitivePaths::new(list.iter().map(String::as_str), home.as_deref())
                .map_err(problem)?
        }
    };
    let sensitive = policy.guard_list(base).map_err(problem)?;
    Ok(guard.with_sensitive(sensitive))
}

fn tool_calls(message: &Message) -> Vec<ToolCall> {
    message
        .tool_uses()
        .map(|(id, name, input)| ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            input: input.clone(),
        })
        .collect()
}

fn new_session_id() -> String {
    let now = chrono::Local::now();
    let nanos = now.timestamp_subsec_nanos();
    format!(
        "{}-{:04x}{:04x}",
        now.format("%Y%m%dT%H%M%S"),
        nanos & 0xffff,
        std::process::id() & 0xffff
    )
}
