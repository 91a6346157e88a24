//! Attribute and metric names: OpenTelemetry's GenAI semantic conventions (`gen_ai.*`) where
//! they exist, OpenInference's (`openinference.*`, `llm.*`) so Phoenix and Arize read the
//! spans' kinds, and rein's own under `rein.*`.

pub const OPERATION: &str = "gen_ai.operation.name";
pub const PROVIDER: &str = "gen_ai.provider.name";
/// The older name of [`PROVIDER`], which many tools still read.
pub const SYSTEM: &str = "gen_ai.system";
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
pub const CACHE_READ_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
pub const CACHE_CREATION_TOKENS: &str = "gen_ai.usage.cache_creation.input_tokens";
pub const FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
pub const CONVERSATION: &str = "gen_ai.conversation.id";
pub const AGENT_NAME: &str = "gen_ai.agent.name";
pub const TOOL_NAME: &str = "gen_ai.tool.name";
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
pub const TOOL_TYPE: &str = "gen_ai.tool.type";
pub const TOOL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";

pub const SPAN_KIND: &str = "openinference.span.kind";
pub const LLM_MODEL: &str = "llm.model_name";
pub const LLM_PROVIDER: &str = "llm.provider";
pub const LLM_PROMPT_TOKENS: &str = "llm.token_count.prompt";
pub const LLM_COMPLETION_TOKENS: &str = "llm.token_count.completion";
pub const LLM_TOTAL_TOKENS: &str = "llm.token_count.total";
pub const OI_SESSION: &str = "session.id";
pub const OI_TOOL_NAME: &str = "tool.name";
pub const OI_OUTPUT: &str = "output.value";
pub const OI_INPUT: &str = "input.value";

pub const COST: &str = "rein.cost_usd";
pub const TIME_TO_FIRST_TOKEN: &str = "rein.time_to_first_token_ms";
pub const RETRIES: &str = "rein.retries";
pub const FALLBACK_FROM: &str = "rein.fallback.from";
pub const TURN: &str = "rein.turn";
pub const DECISION: &str = "rein.permission.decision";
pub const DECIDED_BY: &str = "rein.permission.reason";
pub const TOOL_ERROR: &str = "rein.tool.is_error";
pub const TOOL_DURATION: &str = "rein.tool.duration_ms";
pub const OUTPUT_BYTES: &str = "rein.tool.output_bytes";
pub const EXIT_CODE: &str = "rein.tool.exit_code";
pub const SANDBOX: &str = "rein.tool.sandbox";
pub const SUMMARY: &str = "rein.tool.summary";
pub const LINES_ADDED: &str = "rein.lines_added";
pub const LINES_REMOVED: &str = "rein.lines_removed";
pub const OUTCOME: &str = "rein.outcome";
pub const TURNS: &str = "rein.turns";
pub const SESSION: &str = "rein.session.id";
pub const CWD: &str = "rein.cwd";
pub const TRIGGER: &str = "rein.compaction.trigger";
pub const TOKENS_BEFORE: &str = "rein.compaction.tokens_before";
pub const TOKENS_AFTER: &str = "rein.compaction.tokens_after";
pub const HOOK_EVENT: &str = "rein.hook.event";
pub const HOOK_COMMAND: &str = "rein.hook.command";
pub const HOOK_EXIT: &str = "rein.hook.exit_code";
pub const HOOK_BLOCKED: &str = "rein.hook.blocked";
pub const PARENT_CALL: &str = "rein.parent_tool_use_id";

/// Metric names, after Claude Code's set.
pub mod metric {
    pub const SESSIONS: &str = "rein.session.count";
    pub const TOKENS: &str = "rein.token.usage";
    pub const COST: &str = "rein.cost.usage";
    pub const REQUESTS: &str = "rein.model.requests";
    pub const ERRORS: &str = "rein.model.errors";
    pub const TOOL_CALLS: &str = "rein.tool.calls";
    pub const LINES: &str = "rein.lines_of_code.count";
    pub const ACTIVE_TIME: &str = "rein.active_time.total";
}
