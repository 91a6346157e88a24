//! Memory across sessions from the command line: a fact the model keeps with the `memory`
//! tool opens the next session's system prompt (never the current one's: its cache prefix
//! stays the same), a provider key written there is redacted, `rein memory` lists, shows and
//! forgets.

use serde_json::{Value, json};

use crate::support::*;

fn memory_call(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "memory", "arguments": arguments}]})
}

fn system_of(request: &Value) -> String {
    request["system"].to_string()
}

#[tokio::test]
async fn a_fact_kept_in_one_session_opens_the_next_and_keys_are_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-ant-test-0123456789abcdef";
    let first = json!({"turns": [
        memory_call(json!({"command": "create", "path": "/memories/MEMORY.md",
            "file_text": format!("- run tests with cargo nextest\n- the key is {key}\n")})),
        memory_call(json!({"command": "view", "path": "/memories"})),
        {"text": "Noted."}
    ]});
    let server = mock(&first.to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "remember how tests run");
    cmd.env("ANTHROPIC_API_KEY", key);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = server.requests();
    // Written during the session, read at the next one's start: this one's prefix held.
    assert_eq!(system_of(&requests[0].body), system_of(&requests[2].body));
    assert!(!system_of(&requests[0].body).contains("cargo nextest"));
    let created = last_message(&server, 1);
    let listed = last_message(&server, 2);
    assert!(
        listed.contains("/memories/MEMORY.md"),
        "{created}\n{listed}"
    );

    let second = json!({"turns": [{"text": "Tests run with cargo nextest."}]});
    let server = mock(&second.to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "how do tests run?");
    cmd.env("ANTHROPIC_API_KEY", key);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let system = system_of(&server.requests()[0].body);
    assert!(
        system.contains("# Your memory of this workspace"),
        "{system}"
    );
    assert!(
        system.contains("- run tests with cargo nextest"),
        "{system}"
    );
    assert!(
        !system.contains(key) && system.contains("[redacted: $ANTHROPIC_API_KEY]"),
        "{system}"
    );

    let run = |args: &[&str]| {
        let mut cmd = rein(dir.path());
        cmd.arg("memory").args(args);
        cmd
    };
    let listed = text(&output(run(&["list"])).await.stdout);
    assert!(listed.contains("/memories/MEMORY.md"), "{listed}");
    let shown = text(&output(run(&["show"])).await.stdout);
    assert!(
        shown.contains("     1\t- run tests with cargo nextest"),
        "{shown}"
    );
    let forgot = output(run(&["forget", "MEMORY.md"])).await;
    assert!(text(&forgot.stdout).contains("Successfully deleted /memories/MEMORY.md"));
    let listed = text(&output(run(&["list"])).await.stdout);
    assert_eq!(listed, "no memory for this workspace yet\n");
    let outside = output(run(&["show", "/memories/../../x"])).await;
    assert!(!outside.status.success());
    assert!(text(&outside.stderr).contains("is not under /memories"));
}
