//! rein's events as ACP `session/update`s: message and thought chunks, tool calls (kind,
//! title, locations, and a diff for edits), their ends, the plan from the task board; and a
//! stored conversation replayed as the same updates (`session/load`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, Terminal, TextContent, ToolCall, ToolCallContent, ToolCallLocation,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use rein_protocol::{ContentBlock as Block, Event, Message, Role, TodoItem, TodoStatus};
use serde_json::Value;

/// The most of a tool's output shown in the editor (the model sees it all).
const OUTPUT_SHOWN: usize = 8_000;
/// The largest file whose old text a `write_file` diff carries.
const OLD_TEXT_READ: u64 = 1024 * 1024;

/// What kind of thing a rein tool does, as editors group them.
pub fn kind_of(tool: &str) -> ToolKind {
    match tool {
        "read_file" | "view_image" | "read_mcp_resource" | "list_mcp_resources" => ToolKind::Read,
        "edit_file" | "write_file" | "apply_patch" | "notebook_edit" => ToolKind::Edit,
        "grep" | "glob" | "tool_search" => ToolKind::Search,
        "bash" | "bash_output" | "kill_shell" | "exec_command" | "write_stdin" => ToolKind::Execute,
        "web_fetch" | "web_search" => ToolKind::Fetch,
        "todo_write" | "task_create" | "task_update" | "task_list" | "task_get" => ToolKind::Think,
        "exit_plan_mode" | "enter_plan_mode" => ToolKind::SwitchMode,
        _ => ToolKind::Other,
    }
}

/// The path a file tool's call names, absolute (ACP wants absolute paths).
fn path_of(tool: &str, input: &Value, workspace: &Path) -> Option<PathBuf> {
    let key = match tool {
        "notebook_edit" => "notebook_path",
        "read_file" | "view_image" | "edit_file" | "write_file" | "grep" | "glob" => "path",
        _ => return None,
    };
    let path = Path::new(input.get(key)?.as_str()?);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    })
}

/// The change an edit would make, as ACP's diff (old and new text): the replaced text for
/// `edit_file`, the file's whole old and new text for `write_file`.
fn diff_of(tool: &str, input: &Value, path: &Path) -> Option<Diff> {
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
    match tool {
        "edit_file" => Some(Diff::new(path, text("new_string")?).old_text(text("old_string"))),
        "write_file" => {
            let old = std::fs::metadata(path)
                .ok()
                .filter(|meta| meta.is_file() && meta.len() <= OLD_TEXT_READ)
                .and_then(|_| std::fs::read_to_string(path).ok());
            Some(Diff::new(path, text("content")?).old_text(old))
        }
        _ => None,
    }
}

/// A tool call as it starts: its kind, a title, where it works and, for an edit, the diff.
pub fn tool_call(id: &str, name: &str, input: &Value, summary: &str, workspace: &Path) -> ToolCall {
    let title = if summary.is_empty() {
        name.to_string()
    } else {
        format!("{name} {summary}")
    };
    let path = path_of(name, input, workspace);
    let mut content = Vec::new();
    if let Some(diff) = path.as_deref().and_then(|path| diff_of(name, input, path)) {
        content.push(ToolCallContent::Diff(diff));
    }
    let locations = path.map(ToolCallLocation::new).into_iter().collect();
    ToolCall::new(id.to_string(), title)
        .name(name.to_string())
        .kind(kind_of(name))
        .status(ToolCallStatus::InProgress)
        .raw_input(input.clone())
        .content(content)
        .locations(locations)
}

/// The same call as a permission question shows it.
pub fn asked(
    id: &str,
    name: &str,
    input: &Value,
    summary: &str,
    workspace: &Path,
) -> ToolCallUpdate {
    let call = tool_call(id, name, input, summary, workspace);
    let mut fields = ToolCallUpdateFields::new()
        .title(call.title)
        .kind(call.kind)
        .status(ToolCallStatus::Pending)
        .raw_input(call.raw_input)
        .locations(call.locations);
    if !call.content.is_empty() {
        fields = fields.content(call.content);
    }
    ToolCallUpdate::new(id.to_string(), fields)
}

/// A tool call as it ends: completed or failed, with its output (an edit keeps the diff it
/// started with, adding `apply_patch`'s unified diff, which has no old and new text).
pub fn tool_end(
    id: &str,
    name: &str,
    output: &str,
    status: ToolCallStatus,
    diff: Option<&str>,
) -> ToolCallUpdate {
    let is_error = status == ToolCallStatus::Failed;
    let mut fields = ToolCallUpdateFields::new()
        .status(status)
        .raw_output(Value::String(output.to_string()));
    let edit = kind_of(name) == ToolKind::Edit;
    let shown = match (edit, is_error, diff) {
        (true, false, Some(diff)) if name == "apply_patch" => Some(format!("```diff\n{diff}\n```")),
        (true, false, _) => None,
        _ => Some(cut(output)),
    };
    if let Some(shown) = shown {
        fields = fields.content(vec![text_content(shown)]);
    }
    ToolCallUpdate::new(id.to_string(), fields)
}

/// A running command's output so far (`so_far` with `text` added, kept to its last
/// [`OUTPUT_SHOWN`] bytes), shown in its tool call until the result replaces it.
pub fn live_output(id: &str, so_far: &mut String, text: &str) -> SessionUpdate {
    so_far.push_str(text);
    if so_far.len() > OUTPUT_SHOWN {
        let start = rein_tools::ceil_char_boundary(so_far, so_far.len() - OUTPUT_SHOWN);
        so_far.drain(..start);
    }
    let fields = ToolCallUpdateFields::new().content(vec![text_content(so_far.clone())]);
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields))
}

/// Whether a call of `tool` runs a command whose output a terminal shows.
pub fn in_terminal(tool: &str) -> bool {
    matches!(tool, "bash" | "exec_command")
}

/// A command's call shown as a terminal in the editor: Zed's display-only terminal (the
/// `_meta` extension codex-acp uses, offered as `_meta.terminal_output` in the client's
/// capabilities). rein runs the command; the editor only shows what it prints.
pub fn with_terminal(call: ToolCall, workspace: &Path) -> ToolCall {
    let id = call.tool_call_id.0.to_string();
    let info = serde_json::Map::from_iter([(
        "terminal_info".to_string(),
        serde_json::json!({"terminal_id": id, "cwd": workspace}),
    )]);
    call.content(vec![ToolCallContent::Terminal(Terminal::new(id))])
        .meta(info)
}

/// What the command printed since, to its terminal.
pub fn terminal_output(id: &str, data: &str) -> SessionUpdate {
    let meta = serde_json::Map::from_iter([(
        "terminal_output".to_string(),
        serde_json::json!({"terminal_id": id, "data": data}),
    )]);
    SessionUpdate::ToolCallUpdate(
        ToolCallUpdate::new(id.to_string(), ToolCallUpdateFields::new()).meta(meta),
    )
}

/// A command's end (`event`, its `ToolCallEnd`) in its terminal.
pub fn terminal_end(event: &Event) -> Option<SessionUpdate> {
    let Event::ToolCallEnd {
        id,
        output,
        is_error,
        ..
    } = event
    else {
        return None;
    };
    Some(terminal_exit(id, output, status_of(*is_error)))
}

/// The command's end, in its terminal: its exit code (or signal) from the result's last line.
fn terminal_exit(id: &str, output: &str, status: ToolCallStatus) -> SessionUpdate {
    let is_error = status == ToolCallStatus::Failed;
    let tail = output.lines().last().unwrap_or("");
    let code_of = |prefix: &str| {
        tail.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|n| n.parse::<i32>().ok())
    };
    let (code, signal) = match (code_of("[exit code "), code_of("[killed by signal ")) {
        (Some(code), _) => (Some(code), None),
        (None, Some(signal)) => (None, Some(signal)),
        (None, None) => (Some(i32::from(is_error)), None),
    };
    let meta = serde_json::Map::from_iter([(
        "terminal_exit".to_string(),
        serde_json::json!({"terminal_id": id, "exit_code": code, "signal": signal}),
    )]);
    let fields = ToolCallUpdateFields::new()
        .status(status)
        .raw_output(Value::String(output.to_string()));
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_string(), fields).meta(meta))
}

fn text_content(text: String) -> ToolCallContent {
    ToolCallContent::from(ContentBlock::Text(TextContent::new(text)))
}

/// `text` cut to what an editor shows, on a character boundary.
fn cut(text: &str) -> String {
    if text.len() <= OUTPUT_SHOWN {
        return text.to_string();
    }
    let end = rein_tools::floor_char_boundary(text, OUTPUT_SHOWN);
    format!("{}\n… ({} more bytes)", &text[..end], text.len() - end)
}

/// The task board as the session's plan.
pub fn plan(todos: &[TodoItem]) -> Plan {
    Plan::new(
        todos
            .iter()
            .map(|todo| {
                let status = match todo.status {
                    TodoStatus::Pending => PlanEntryStatus::Pending,
                    TodoStatus::InProgress => PlanEntryStatus::InProgress,
                    TodoStatus::Completed => PlanEntryStatus::Completed,
                };
                PlanEntry::new(todo.content.clone(), PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

/// How a call that ended with `is_error` ended.
fn status_of(is_error: bool) -> ToolCallStatus {
    if is_error {
        ToolCallStatus::Failed
    } else {
        ToolCallStatus::Completed
    }
}

/// A message to the editor's user, as the agent's words.
pub fn message(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(chunk(text))
}

fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text.to_string())))
}

/// The update an event of the main agent makes, if any (a subagent's own events stay inside
/// its `task` call).
pub fn update_of(event: &Event, workspace: &Path) -> Option<SessionUpdate> {
    Some(match event {
        Event::TextDelta { text } => SessionUpdate::AgentMessageChunk(chunk(text)),
        Event::ThinkingDelta { text } => SessionUpdate::AgentThoughtChunk(chunk(text)),
        Event::ToolCallStart {
            id,
            name,
            input,
            summary,
        } => SessionUpdate::ToolCall(tool_call(id, name, input, summary, workspace)),
        Event::ToolCallEnd {
            id,
            name,
            output,
            is_error,
            diff,
            ..
        } => SessionUpdate::ToolCallUpdate(tool_end(
            id,
            name,
            output,
            status_of(*is_error),
            diff.as_deref(),
        )),
        Event::Todos { todos } => SessionUpdate::Plan(plan(todos)),
        Event::Error { message } => {
            SessionUpdate::AgentMessageChunk(chunk(&format!("\n\nerror: {message}\n")))
        }
        Event::Retry { reason, .. } => {
            SessionUpdate::AgentThoughtChunk(chunk(&format!("(retrying: {reason})\n")))
        }
        Event::Compaction { .. } => SessionUpdate::AgentThoughtChunk(chunk(
            "(the conversation was compacted to fit the context window)\n",
        )),
        _ => return None,
    })
}

/// A stored conversation as the updates that would have shown it: the user's prompts, the
/// answers and thoughts, each tool call with its result.
pub fn replay(transcript: &[Message], workspace: &Path) -> Vec<SessionUpdate> {
    let mut calls: HashMap<&str, &str> = HashMap::new();
    let mut updates = Vec::new();
    for message in transcript {
        for block in &message.content {
            match (message.role, block) {
                // What rein attached to a prompt (`@` mentions) is not what the user said.
                (Role::User, Block::Text { text }) if !text.starts_with("<attachment ") => {
                    updates.push(SessionUpdate::UserMessageChunk(chunk(text)));
                }
                (Role::Assistant, Block::Text { text }) => {
                    updates.push(SessionUpdate::AgentMessageChunk(chunk(text)));
                }
                (Role::Assistant, Block::Thinking { thinking, .. }) => {
                    updates.push(SessionUpdate::AgentThoughtChunk(chunk(thinking)));
                }
                (_, Block::ToolUse { id, name, input }) => {
                    calls.insert(id, name);
                    let call =
                        tool_call(id, name, input, "", workspace).status(ToolCallStatus::Pending);
                    updates.push(SessionUpdate::ToolCall(call));
                }
                (
                    _,
                    Block::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                        ..
                    },
                ) => {
                    let name = calls.get(tool_use_id.as_str()).copied().unwrap_or("");
                    updates.push(SessionUpdate::ToolCallUpdate(tool_end(
                        tool_use_id,
                        name,
                        content,
                        status_of(*is_error),
                        None,
                    )));
                }
                _ => {}
            }
        }
    }
    updates
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn wire(update: &SessionUpdate) -> Value {
        serde_json::to_value(update).unwrap_or_default()
    }

    #[test]
    fn an_edit_starts_with_its_diff_and_its_absolute_location() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let start = Event::ToolCallStart {
            id: "toolu_1".into(),
            name: "edit_file".into(),
            input: json!({"path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
            summary: "src/lib.rs".into(),
        };
        let update = wire(&update_of(&start, dir.path()).unwrap_or_else(|| panic!("an update")));
        let path = dir.path().join("src/lib.rs").display().to_string();
        assert_eq!(update["sessionUpdate"], "tool_call");
        assert_eq!(update["toolCallId"], "toolu_1");
        assert_eq!(update["kind"], "edit");
        assert_eq!(update["status"], "in_progress");
        assert_eq!(update["title"], "edit_file src/lib.rs");
        assert_eq!(update["locations"], json!([{"path": path}]));
        assert_eq!(
            update["content"],
            json!([{"type": "diff", "path": path, "oldText": "a", "newText": "b"}])
        );
    }

    #[test]
    fn a_write_over_a_file_shows_its_old_text_and_a_new_file_none() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("old.txt"), "before\n").unwrap_or_default();
        let over = tool_call(
            "1",
            "write_file",
            &json!({"path": "old.txt", "content": "after\n"}),
            "old.txt",
            dir.path(),
        );
        let content = serde_json::to_value(&over.content).unwrap_or_default();
        assert_eq!(content[0]["oldText"], "before\n");
        assert_eq!(content[0]["newText"], "after\n");
        let new = tool_call(
            "2",
            "write_file",
            &json!({"path": "new.txt", "content": "x"}),
            "new.txt",
            dir.path(),
        );
        let content = serde_json::to_value(&new.content).unwrap_or_default();
        assert!(
            content[0].get("oldText").is_none_or(Value::is_null),
            "{content}"
        );
    }

    #[test]
    fn a_command_ends_with_its_output_and_a_failed_one_says_so() {
        let done = wire(&SessionUpdate::ToolCallUpdate(tool_end(
            "1",
            "bash",
            "ok\n",
            ToolCallStatus::Completed,
            None,
        )));
        assert_eq!(done["sessionUpdate"], "tool_call_update");
        assert_eq!(done["status"], "completed");
        assert_eq!(done["content"][0]["content"]["text"], "ok\n");
        let failed = tool_end(
            "2",
            "edit_file",
            "old_string not found",
            ToolCallStatus::Failed,
            None,
        );
        let failed = wire(&SessionUpdate::ToolCallUpdate(failed));
        assert_eq!(failed["status"], "failed");
        assert_eq!(
            failed["content"][0]["content"]["text"],
            "old_string not found"
        );
        // A successful edit keeps the diff it started with.
        let edited = wire(&SessionUpdate::ToolCallUpdate(tool_end(
            "3",
            "edit_file",
            "Edited a.txt",
            ToolCallStatus::Completed,
            Some("@@ -1 +1 @@"),
        )));
        assert!(edited.get("content").is_none_or(Value::is_null), "{edited}");
    }

    #[test]
    fn a_running_commands_output_grows_in_its_call_and_keeps_its_end() {
        let mut so_far = String::new();
        let first = wire(&live_output("c1", &mut so_far, "compiling\n"));
        assert_eq!(first["sessionUpdate"], "tool_call_update");
        assert_eq!(first["toolCallId"], "c1");
        assert_eq!(first["content"][0]["content"]["text"], "compiling\n");
        let second = wire(&live_output("c1", &mut so_far, "done\n"));
        assert_eq!(second["content"][0]["content"]["text"], "compiling\ndone\n");
        let long = "é".repeat(OUTPUT_SHOWN);
        let _ = live_output("c1", &mut so_far, &long);
        assert!(so_far.len() <= OUTPUT_SHOWN && so_far.ends_with('é'));
    }

    #[test]
    fn a_command_in_a_terminal_starts_streams_and_exits_in_zeds_extension() {
        let call = tool_call(
            "c1",
            "bash",
            &json!({"command": "make"}),
            "make",
            Path::new("/w"),
        );
        let call = wire(&SessionUpdate::ToolCall(with_terminal(
            call,
            Path::new("/w"),
        )));
        assert_eq!(
            call["content"],
            json!([{"type": "terminal", "terminalId": "c1"}])
        );
        assert_eq!(
            call["_meta"]["terminal_info"],
            json!({"terminal_id": "c1", "cwd": "/w"})
        );
        let out = wire(&terminal_output("c1", "cc -c a.c\n"));
        assert_eq!(
            out["_meta"]["terminal_output"],
            json!({"terminal_id": "c1", "data": "cc -c a.c\n"})
        );
        let failed = wire(&terminal_exit(
            "c1",
            "error\n[exit code 2]",
            ToolCallStatus::Failed,
        ));
        assert_eq!(failed["status"], "failed");
        assert_eq!(
            failed["_meta"]["terminal_exit"],
            json!({"terminal_id": "c1", "exit_code": 2, "signal": null})
        );
        let killed = wire(&terminal_exit(
            "c1",
            "[killed by signal 9]",
            ToolCallStatus::Failed,
        ));
        assert_eq!(killed["_meta"]["terminal_exit"]["signal"], 9);
        let fine = wire(&terminal_exit("c1", "ok", ToolCallStatus::Completed));
        assert_eq!(fine["_meta"]["terminal_exit"]["exit_code"], 0);
    }

    #[test]
    fn the_board_is_the_plan() {
        let todos = vec![
            TodoItem {
                content: "Run the tests".into(),
                status: TodoStatus::InProgress,
                active_form: "Running the tests".into(),
            },
            TodoItem {
                content: "Fix them".into(),
                status: TodoStatus::Pending,
                active_form: String::new(),
            },
        ];
        let update = wire(
            &update_of(&Event::Todos { todos }, Path::new("/")).unwrap_or_else(|| panic!("a plan")),
        );
        assert_eq!(
            update,
            json!({"sessionUpdate": "plan", "entries": [
                {"content": "Run the tests", "priority": "medium", "status": "in_progress"},
                {"content": "Fix them", "priority": "medium", "status": "pending"}
            ]})
        );
    }

    #[test]
    fn a_stored_conversation_replays_in_order() {
        let transcript = vec![
            Message {
                role: Role::User,
                content: vec![Block::Text { text: "hi".into() }],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::Text {
                        text: "Looking.".into(),
                    },
                    Block::ToolUse {
                        id: "t1".into(),
                        name: "read_file".into(),
                        input: json!({"path": "a.txt"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "t1".into(),
                    content: "hello".into(),
                    is_error: false,
                    media: Vec::new(),
                }],
            },
        ];
        let kinds: Vec<String> = replay(&transcript, Path::new("/w"))
            .iter()
            .map(|u| {
                wire(u)["sessionUpdate"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "agent_message_chunk",
                "tool_call",
                "tool_call_update"
            ]
        );
    }
}
