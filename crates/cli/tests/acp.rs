//! `rein acp`: an editor's session over the Agent Client Protocol, driven by the official
//! TypeScript SDK's client (`acp_client.mjs`) and by the Rust crate's client side, against the
//! mock LLM server on real temp workspaces.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::Path;
use std::process::Command;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ImageContent, InitializeRequest, McpServer, McpServerStdio, NewSessionRequest,
    PermissionOptionKind, PromptRequest, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionConfigOptionValue,
    SessionNotification, SetSessionConfigOptionRequest, StopReason, TextContent,
};
use agent_client_protocol::{AcpAgent, Agent, Client};
use serde_json::{Value, json};

use crate::support::{mock, output, rein, text};

/// The updates of `record[key]` of one kind.
fn of_kind<'a>(record: &'a Value, key: &str, kind: &str) -> Vec<&'a Value> {
    (record[key].as_array().into_iter().flatten())
        .filter(|update| update["sessionUpdate"] == kind)
        .collect()
}

#[tokio::test]
async fn the_typescript_sdk_drives_a_session_with_a_diff_an_approval_a_cancel_and_a_load() {
    let test = "the_typescript_sdk_drives_a_session_with_a_diff_an_approval_a_cancel_and_a_load";
    if !rein_testkit::require("node", "--version", test) {
        return;
    }
    let sdk = rein_testkit::node_folder().join("node_modules/@agentclientprotocol/sdk");
    if !sdk.is_dir() {
        rein_testkit::skip(
            test,
            &format!(
                "{} is missing (scripts/test-deps installs it)",
                sdk.display()
            ),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let server = mock(
        r#"{"turns": [
          {"text": "Editing.", "tool_calls": [{"name": "edit_file", "arguments": {"path": "notes.txt", "old_string": "hello", "new_string": "hello rein"}}]},
          {"tool_calls": [{"name": "edit_file", "arguments": {"path": "notes.txt", "old_string": "rein", "new_string": "rein!"}}]},
          {"text": "Done."},
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo going; sleep 30; touch finished"}}]}
        ]}"#,
    )
    .await;
    let agent = json!([
        env!("CARGO_BIN_EXE_rein"),
        "acp",
        "--base-url",
        server.url()
    ]);
    let mut cmd = Command::new("node");
    for (key, value) in rein(dir.path()).get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd.env("REIN_TEST_NODE", rein_testkit::node_folder())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp_client.mjs"))
        .arg(agent.to_string())
        .arg(dir.path());
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();

    // initialize: what rein can do, how it is authenticated.
    let capabilities = &record["initialize"]["agentCapabilities"];
    assert_eq!(capabilities["loadSession"], true);
    assert_eq!(capabilities["promptCapabilities"]["embeddedContext"], true);
    assert_eq!(capabilities["promptCapabilities"]["image"], true);
    assert_eq!(record["initialize"]["authMethods"][0]["id"], "environment");
    assert_eq!(record["initialize"]["agentInfo"]["name"], "rein");
    // session/new: rein's modes and its model.
    assert_eq!(record["session"]["modes"]["currentModeId"], "default");
    let options: Vec<&str> = (record["session"]["configOptions"]
        .as_array()
        .unwrap()
        .iter())
    .filter_map(|option| option["id"].as_str())
    .collect();
    assert_eq!(options, ["mode", "model"]);

    // The prompt: the link became a mention (attached), the resource was quoted.
    let first = server.requests()[0].body.to_string();
    assert!(
        first.contains("<attachment path=\\\"notes.txt\\\">"),
        "{first}"
    );
    assert!(first.contains("a draft only the editor has"), "{first}");
    assert!(
        first.contains("(unsaved line)"),
        "the editor's buffer is attached: {first}"
    );
    // Streamed chunks, a tool call with its diff, one approval answered "allow always" (the
    // second edit of the file did not ask), the edits made.
    let chunks: Vec<&str> = of_kind(&record, "updates", "agent_message_chunk")
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert_eq!(chunks.concat(), "Editing.Done.");
    let calls = of_kind(&record, "updates", "tool_call");
    let notes = dir.path().join("notes.txt").display().to_string();
    assert_eq!(calls[0]["kind"], "edit");
    assert_eq!(
        calls[0]["content"][0],
        json!({"type": "diff", "path": notes, "oldText": "hello", "newText": "hello rein"})
    );
    assert_eq!(calls[0]["locations"][0]["path"], notes);
    let permissions = record["permissions"].as_array().unwrap();
    assert_eq!(permissions.len(), 1, "{permissions:?}");
    let kinds: Vec<&str> = (permissions[0]["options"].as_array().unwrap().iter())
        .filter_map(|o| o["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
    assert_eq!(permissions[0]["toolCall"]["content"][0]["type"], "diff");
    assert_eq!(record["firstPrompt"]["stopReason"], "end_turn");
    // The edits were made on the editor's buffer and written through it.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "hello rein!\n(unsaved line)\n"
    );
    let (read, write) = (format!("read {notes}"), format!("write {notes}"));
    assert_eq!(
        record["files"],
        json!([read, read, write, read, write]),
        "the attachment, then each edit's read and write"
    );
    // After each turn, how full the context is and what the session cost.
    let usage = of_kind(&record, "updates", "usage_update");
    assert_eq!(usage.len(), 2, "{usage:?}");
    assert_eq!(usage[0]["size"], 200_000);
    assert!(usage[0]["used"].as_u64().unwrap() > 0);
    assert_eq!(usage[0]["cost"]["currency"], "USD");
    let ends = of_kind(&record, "updates", "tool_call_update");
    assert_eq!(ends[0]["status"], "completed");

    // The mode change let the command run unasked; its output showed in the editor's
    // display-only terminal; the cancel killed it.
    assert_eq!(record["cancelledPrompt"]["stopReason"], "cancelled");
    assert_eq!(calls[2]["kind"], "execute");
    let id = calls[2]["toolCallId"].as_str().unwrap();
    assert_eq!(
        calls[2]["content"],
        json!([{"type": "terminal", "terminalId": id}])
    );
    assert_eq!(
        calls[2]["_meta"]["terminal_info"]["cwd"],
        dir.path().display().to_string()
    );
    let printed: String = ends
        .iter()
        .filter_map(|u| u["_meta"]["terminal_output"]["data"].as_str())
        .collect();
    assert_eq!(printed, "going\n");
    let exit = ends.last().unwrap();
    assert_eq!(exit["status"], "failed");
    assert_eq!(exit["_meta"]["terminal_exit"]["terminal_id"], id);
    assert!(
        !dir.path().join("finished").exists(),
        "the command was killed"
    );
    assert_eq!(server.requests().len(), 4);

    // session/load on a new connection replays the stored session.
    let loaded = of_kind(&record, "loaded", "user_message_chunk");
    let said: Vec<&str> = loaded
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert!(
        said[0].starts_with("Update the notes\n@notes.txt"),
        "{said:?}"
    );
    assert_eq!(
        said[1], "Wait a while",
        "attachments are not replayed: {said:?}"
    );
    assert_eq!(of_kind(&record, "loaded", "tool_call").len(), 3);
    assert_eq!(record["load"]["modes"]["currentModeId"], "default");
}

/// The `session/update`s a client got, as their wire JSON.
type Updates = std::sync::Arc<std::sync::Mutex<Vec<Value>>>;

/// The Rust crate's client against `rein acp`: `op` runs with the connection; the permission
/// requests are answered by `answer`, the updates collected in `updates`.
async fn with_rust_client<T: Send + 'static>(
    dir: &Path,
    url: &str,
    updates: &Updates,
    answer: fn(&RequestPermissionRequest) -> RequestPermissionResponse,
    op: impl AsyncFnOnce(ConnectionTo<Agent>) -> Result<T, agent_client_protocol::Error>
    + Send
    + 'static,
) -> T {
    let mut config = agent_client_protocol::AcpAgentConfig::new(env!("CARGO_BIN_EXE_rein"))
        .args(["acp", "--base-url", url, "--cwd"])
        .arg(dir.display().to_string());
    for (key, value) in rein(dir).get_envs() {
        if let (Some(key), Some(Some(value))) = (key.to_str(), value.map(|v| v.to_str())) {
            config = config.env(key, value);
        }
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let seen = updates.clone();
    Client
        .v1()
        .on_receive_notification(
            async move |notification: SessionNotification, _cx| {
                let update = serde_json::to_value(&notification.update).unwrap();
                seen.lock().unwrap().push(update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                responder.respond(answer(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(
            AcpAgent::new(config),
            async move |cx: ConnectionTo<Agent>| {
                cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let _ = tx.send(op(cx).await?);
                Ok(())
            },
        )
        .await
        .unwrap();
    rx.await.unwrap()
}

fn reject_with_feedback(_: &RequestPermissionRequest) -> RequestPermissionResponse {
    let mut meta = serde_json::Map::new();
    meta.insert("feedback".into(), json!("write it to docs/ instead"));
    RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
        SelectedPermissionOutcome::new("reject_once"),
    ))
    .meta(meta)
}

#[tokio::test]
async fn a_rejection_with_feedback_reaches_the_model_and_the_model_option_switches_models() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
          {"text": "I will use docs/."}
        ]}"#,
    )
    .await;
    let path = dir.path().to_path_buf();
    let (reason, options) = with_rust_client(
        dir.path(),
        &server.url(),
        &Updates::default(),
        reject_with_feedback,
        async move |cx| {
            let session = cx
                .send_request(NewSessionRequest::new(path))
                .block_task()
                .await?;
            let options = cx
                .send_request(SetSessionConfigOptionRequest::new(
                    session.session_id.clone(),
                    "model",
                    SessionConfigOptionValue::value_id("claude-haiku-4-5"),
                ))
                .block_task()
                .await?;
            let prompt = PromptRequest::new(
                session.session_id,
                vec![ContentBlock::Text(TextContent::new("write out.txt"))],
            );
            let ended = cx.send_request(prompt).block_task().await?;
            Ok((ended.stop_reason, options))
        },
    )
    .await;
    assert_eq!(reason, StopReason::EndTurn);
    let options = serde_json::to_value(&options).unwrap();
    assert_eq!(
        options["configOptions"][1]["currentValue"],
        "claude-haiku-4-5"
    );
    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "claude-haiku-4-5");
    let told = requests[1].body.to_string();
    assert!(told.contains("write it to docs/ instead"), "{told}");
    assert!(!dir.path().join("out.txt").exists());
}

fn allow_once(request: &RequestPermissionRequest) -> RequestPermissionResponse {
    let once = (request.options.iter())
        .find(|option| option.kind == PermissionOptionKind::AllowOnce)
        .map(|option| option.option_id.clone())
        .unwrap();
    RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
        SelectedPermissionOutcome::new(once),
    ))
}

#[tokio::test]
async fn a_picture_in_a_prompt_reaches_the_model_and_an_unknown_session_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = mock(r#"{"turns": [{"text": "A red dot."}]}"#).await;
    // A real 1×1 PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let path = dir.path().to_path_buf();
    let (reason, unknown) = with_rust_client(
        dir.path(),
        &server.url(),
        &Updates::default(),
        allow_once,
        async move |cx| {
            let session = cx
                .send_request(NewSessionRequest::new(path))
                .block_task()
                .await?;
            let prompt = PromptRequest::new(
                session.session_id,
                vec![
                    ContentBlock::Text(TextContent::new("What is this?")),
                    ContentBlock::Image(ImageContent::new(png, "image/png")),
                ],
            );
            let ended = cx.send_request(prompt).block_task().await?;
            let unknown = cx
                .send_request(PromptRequest::new(
                    "no-such-session",
                    vec![ContentBlock::Text(TextContent::new("hi"))],
                ))
                .block_task()
                .await;
            Ok((
                ended.stop_reason,
                unknown.map(|_| ()).map_err(|e| format!("{e:?}")),
            ))
        },
    )
    .await;
    assert_eq!(reason, StopReason::EndTurn);
    let body = &server.requests()[0].body;
    let content = body["messages"][0]["content"].to_string();
    assert!(content.contains(r#""type":"image""#), "{content}");
    assert!(
        content.contains(png),
        "the picture is sent as it came: {content}"
    );
    assert!(
        unknown
            .as_ref()
            .is_err_and(|e| e.contains("no session no-such-session")),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn the_editors_mcp_servers_and_the_users_commands_reach_the_session_and_set_model_switches() {
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join(".rein-test-config/rein/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("greet.md"),
        "---\ndescription: Greets someone\nargument-hint: NAME\n---\nGreet $ARGUMENTS.\n",
    )
    .unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [
            {"name": "mcp__kit__echo", "arguments": {"text": "from the editor's server"}},
            {"name": "task_create", "arguments": {"subject": "Say hi", "description": "Greet the user", "activeForm": "Saying hi"}}
          ]},
          {"text": "Echoed."}
        ]}"#,
    )
    .await;
    let path = dir.path().to_path_buf();
    let updates = Updates::default();
    let kit = rein_testkit::mcp_test_server();
    let reason = with_rust_client(
        dir.path(),
        &server.url(),
        &updates,
        allow_once,
        async move |cx| {
            let kit = McpServer::Stdio(McpServerStdio::new("kit", kit));
            let session = cx
                .send_request(NewSessionRequest::new(path).mcp_servers(vec![kit]))
                .block_task()
                .await?;
            cx.send_request(SetModelRequest {
                session_id: session.session_id.clone(),
                model_id: "claude-opus-4-5".into(),
            })
            .block_task()
            .await?;
            let prompt = PromptRequest::new(
                session.session_id,
                vec![ContentBlock::Text(TextContent::new("echo it"))],
            );
            Ok(cx.send_request(prompt).block_task().await?.stop_reason)
        },
    )
    .await;
    assert_eq!(reason, StopReason::EndTurn);
    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "claude-opus-4-5");
    let result = requests[1].body.to_string();
    assert!(
        result.contains("echo: from the editor's server"),
        "{result}"
    );
    let updates = updates.lock().unwrap().clone();
    let commands = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "available_commands_update")
        .unwrap();
    assert_eq!(
        commands["availableCommands"],
        json!([
            {"name": "greet", "description": "Greets someone", "input": {"hint": "NAME"}},
            {"name": "mcp__kit__greet", "description": "Asks for a greeting", "input": {"hint": "<name> [style]"}}
        ]),
        "the user's command, and the editor's MCP server's prompt"
    );
    let plan = (updates.iter().find(|u| u["sessionUpdate"] == "plan"))
        .unwrap_or_else(|| panic!("{updates:#?}"));
    assert_eq!(
        plan["entries"],
        json!([{"content": "Say hi", "priority": "medium", "status": "pending"}])
    );
}

/// `session/set_model`, as clients written before config options send it.
#[derive(
    Debug, Clone, serde::Serialize, serde::Deserialize, agent_client_protocol::JsonRpcRequest,
)]
#[request(method = "session/set_model", response = SetModelResponse)]
#[serde(rename_all = "camelCase")]
struct SetModelRequest {
    session_id: agent_client_protocol::v1::schema::SessionId,
    model_id: String,
}

#[derive(
    Debug, Clone, serde::Serialize, serde::Deserialize, agent_client_protocol::JsonRpcResponse,
)]
struct SetModelResponse {}

#[tokio::test]
async fn without_a_key_rein_starts_and_the_editor_is_asked_to_authenticate() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = agent_client_protocol::AcpAgentConfig::new(env!("CARGO_BIN_EXE_rein"))
        .args(["acp", "--cwd"])
        .arg(dir.path().display().to_string());
    for (key, value) in rein(dir.path()).get_envs() {
        if let (Some(key), Some(Some(value))) = (key.to_str(), value.map(|v| v.to_str())) {
            config = config.env(key, value);
        }
    }
    let path = dir.path().to_path_buf();
    let refused = Client
        .v1()
        .connect_with(
            AcpAgent::new(config),
            async move |cx: ConnectionTo<Agent>| {
                let hello = cx
                    .send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                assert_eq!(hello.auth_methods.len(), 1);
                let session = cx
                    .send_request(NewSessionRequest::new(path))
                    .block_task()
                    .await;
                Ok(session.map(|_| ()).map_err(|e| (i32::from(e.code), e.data)))
            },
        )
        .await
        .unwrap();
    let (code, data) = refused.unwrap_err();
    assert_eq!(code, -32000, "auth required");
    let said = data.unwrap_or_default().to_string();
    assert!(said.contains("ANTHROPIC_API_KEY is not set"), "{said}");
}
