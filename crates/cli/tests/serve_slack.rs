//! `rein serve` on Slack, against `rein_testkit::FakeSlack` (payloads from Slack's API
//! documentation) and the mock model: a direct message's conversation with a tool call, an
//! approval by button in a channel's thread, strangers, forged and replayed webhooks refused,
//! a rate limit waited out, a restart resuming the thread's session.

use std::path::Path;

use rein_testkit::{BotCall, FakeSlack};

use crate::support::*;

const TOKEN: &str = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy";
const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

fn slack_config(ws: &Path, fake: &FakeSlack, allowed: &str) {
    write_user_config(
        ws,
        &format!(
            "[serve]\nworkspace = \"{}\"\nallowed_users = [{allowed}]\nlisten = \"127.0.0.1:0\"\n\
             [serve.slack]\nbot_token_env = \"TEST_SLACK_TOKEN\"\n\
             signing_secret_env = \"TEST_SLACK_SECRET\"\napi_base = \"{}\"\n",
            ws.display(),
            fake.url()
        ),
    );
}

/// `rein serve` against `model`, told where its webhooks are.
async fn serve(ws: &Path, fake: &FakeSlack, model: &rein_testkit::MockServer) -> Served {
    let mut cmd = rein(ws);
    cmd.args(["serve", "--base-url", &model.url()])
        .env("TEST_SLACK_TOKEN", TOKEN)
        .env("TEST_SLACK_SECRET", SECRET)
        .env("ANTHROPIC_API_KEY", "sk-ant-test");
    let served = Served::spawn(cmd);
    fake.deliver_to(&served.webhooks().await);
    served
}

/// The texts posted or updated in `channel`.
fn texts_in(calls: &[BotCall], channel: &str) -> Vec<String> {
    calls
        .iter()
        .filter(|c| c.body["channel"] == channel)
        .filter_map(|c| c.body["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_direct_message_gets_a_streamed_answer_and_strangers_and_forgeries_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("notes.txt"), "hello from the notes\n").unwrap();
    let fake = FakeSlack::start(TOKEN, SECRET).await.unwrap();
    slack_config(ws, &fake, "\"slack:U2147483697\"");
    let model = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
          {"text": "The notes say hello.", "chunk_size": 4}]}"#,
    )
    .await;
    let served = serve(ws, &fake, &model).await;
    // Slack's URL check is answered with its challenge (here over a signed request).
    let check = r#"{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}"#;
    let (status, answer) = fake.deliver("/slack/events", check.into()).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        r#"{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}"#
    );
    // A forged request (another secret), a replayed one (signed six minutes ago), an
    // unsigned one: refused, and the model never hears of them.
    let forged = FakeSlack::direct_message("U2147483697", "D1", "rm -rf ~", "EvForged");
    let now = rein_testkit::epoch_secs();
    assert_eq!(
        fake.signed("/slack/events", forged.clone(), now, "guessed")
            .await
            .0,
        401
    );
    assert_eq!(
        fake.signed("/slack/events", forged.clone(), now - 360, SECRET)
            .await
            .0,
        401
    );
    assert_eq!(fake.send("/slack/events", &[], forged).await.0, 401);
    let stranger = FakeSlack::direct_message("U999", "D999", "read ~/.ssh/id_rsa", "EvStranger");
    assert_eq!(fake.deliver("/slack/events", stranger).await.0, 200);
    let asked =
        FakeSlack::direct_message("U2147483697", "D024BE91L", "what do the notes say?", "Ev1");
    assert_eq!(fake.deliver("/slack/events", asked.clone()).await.0, 200);
    // Slack sends an event again when it thinks it was not taken: taken once.
    assert_eq!(fake.deliver("/slack/events", asked).await.0, 200);
    until("the answer", || {
        texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t.ends_with("The notes say hello."))
    })
    .await;
    // Slack does not send a message starting with `/`: `/rein status` stands for `/status`.
    let status = FakeSlack::slash("U2147483697", "D024BE91L", "/rein", "status");
    assert_eq!(fake.deliver("/slack/commands", status).await.0, 200);
    let stranger = FakeSlack::slash("U999", "D024BE91L", "/rein", "new");
    assert_eq!(fake.deliver("/slack/commands", stranger).await.0, 200);
    until("the status", || {
        texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t.starts_with("Session "))
    })
    .await;
    let stderr = served.stop();
    let calls: Vec<BotCall> = fake
        .calls()
        .into_iter()
        .filter(|c| {
            !c.body["text"]
                .as_str()
                .unwrap_or_default()
                .starts_with("Session ")
        })
        .collect();
    assert!(
        !texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t.starts_with("Started a new"))
    );
    let in_dm: Vec<&BotCall> = calls
        .iter()
        .filter(|c| c.body["channel"] == "D024BE91L")
        .collect();
    assert_eq!(in_dm[0].method, "chat.postMessage", "{in_dm:?}");
    assert!(
        in_dm[1..].iter().all(|c| c.method == "chat.update"),
        "{in_dm:?}"
    );
    let last = in_dm.last().unwrap();
    assert_eq!(
        last.body["text"],
        "→ read_file notes.txt\n\nThe notes say hello."
    );
    assert_eq!(last.body["blocks"][0]["text"]["text"], last.body["text"]);
    // Every update is of the one message posted (its ts the fake's first).
    assert!(
        in_dm[1..]
            .iter()
            .all(|c| c.body["ts"] == "1700000000.000001"),
        "{in_dm:?}"
    );
    assert!(
        texts_in(&calls, "D999").is_empty() && texts_in(&calls, "D1").is_empty(),
        "{calls:?}"
    );
    assert_eq!(model.requests().len(), 2, "one prompt, taken once");
    let first = model.requests()[0].body.to_string();
    assert!(
        !first.contains(".ssh") && !first.contains("rm -rf"),
        "{first}"
    );
    assert!(
        stderr.contains("ignored a message from slack:U999 in slack:D999"),
        "{stderr}"
    );
    assert!(
        stderr.contains("refused a request to /slack/events (401): its timestamp"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a signature the signing secret did not make"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(TOKEN) && !stderr.contains(SECRET),
        "{stderr}"
    );
}

/// The call that asked for approval in `calls` (the one with an actions block).
fn approval(calls: &[BotCall]) -> Option<BotCall> {
    calls
        .iter()
        .find(|c| c.body["blocks"][1]["type"] == "actions")
        .cloned()
}

#[tokio::test]
async fn a_mention_starts_a_thread_approved_by_button_resumed_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let fake = FakeSlack::start(TOKEN, SECRET).await.unwrap();
    slack_config(ws, &fake, "\"slack:U061F7AUR\"");
    let long: String = (0..400).map(|n| format!("line {n:04}\\n")).collect();
    let model = mock(&format!(
        r#"{{"turns": [
          {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "echo made > made.txt"}}}}]}},
          {{"text": "Made it."}},
          {{"text": "{long}THE END"}}]}}"#
    ))
    .await;
    let served = serve(ws, &fake, &model).await;
    let (channel, thread) = ("C0LAN2Q65", "1515449522.000016");
    let mention = FakeSlack::mention("U061F7AUR", channel, thread, "make the file", "Ev1");
    assert_eq!(fake.deliver("/slack/events", mention).await.0, 200);
    until("the approval", || approval(&fake.calls()).is_some()).await;
    let question = approval(&fake.calls()).unwrap();
    // Asked in the mention's thread, with what the call would do and its buttons.
    assert_eq!(question.body["thread_ts"], thread);
    let said = question.body["text"].as_str().unwrap();
    assert!(
        said.starts_with("rein wants to run bash echo made > made.txt"),
        "{said}"
    );
    let buttons = question.body["blocks"][1]["elements"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(buttons[0]["text"]["text"], "Allow");
    let allow = buttons[0]["value"].as_str().unwrap();
    let ts = "1700000000.000001";
    // A stranger's press does nothing; a forged press is refused; the user's runs it.
    let stranger = FakeSlack::press("U999", channel, ts, Some(thread), allow);
    assert_eq!(fake.deliver("/slack/actions", stranger).await.0, 200);
    let forged = FakeSlack::press("U061F7AUR", channel, ts, Some(thread), allow);
    let now = rein_testkit::epoch_secs();
    assert_eq!(
        fake.signed("/slack/actions", forged, now, "guessed")
            .await
            .0,
        401
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!ws.join("made.txt").exists());
    let press = FakeSlack::press("U061F7AUR", channel, ts, Some(thread), allow);
    assert_eq!(fake.deliver("/slack/actions", press).await.0, 200);
    until("the answer", || {
        texts_in(&fake.calls(), channel)
            .iter()
            .any(|t| t.ends_with("Made it."))
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(ws.join("made.txt")).unwrap(),
        "made\n"
    );
    let stderr = served.stop();
    assert!(
        stderr.contains("ignored a message from slack:U999"),
        "{stderr}"
    );
    let answers = fake.calls();
    assert!(
        answers
            .iter()
            .filter(|c| c.method == "chat.postMessage")
            .all(|c| c.body["thread_ts"] == thread),
        "every post in the thread: {answers:?}"
    );

    // Restarted, the thread's session goes on; Slack's rate limit (429, Retry-After: 1) on the
    // first calls is waited out, and the long answer arrives cut, and whole as a file.
    let served = serve(ws, &fake, &model).await;
    fake.rate_limit(2);
    let again = FakeSlack::mention("U061F7AUR", channel, "1515449600.000001", "and now?", "Ev2");
    let mut again: serde_json::Value = serde_json::from_str(&again).unwrap();
    again["event"]["thread_ts"] = serde_json::json!(thread);
    assert_eq!(
        fake.deliver("/slack/events", again.to_string()).await.0,
        200
    );
    let uploaded = || {
        fake.calls()
            .into_iter()
            .find(|c| c.method == "files.completeUploadExternal")
    };
    until("the file", || uploaded().is_some()).await;
    let stderr = served.stop();
    assert!(
        stderr.contains("slack refused chat.postMessage: ratelimited"),
        "{stderr}"
    );
    let resumed = model.requests()[2].body.to_string();
    assert!(
        resumed.contains("make the file") && resumed.contains("Made it."),
        "{resumed}"
    );
    let calls = fake.calls();
    let file = calls.iter().find(|c| c.method == "upload").unwrap();
    let raw = file.body["raw"].as_str().unwrap();
    assert!(
        raw.contains("line 0399") && raw.contains("THE END"),
        "{raw:.200}"
    );
    assert_eq!(uploaded().unwrap().body["channel_id"], channel);
    assert_eq!(uploaded().unwrap().body["thread_ts"], thread);
    let last = texts_in(&calls, channel).last().unwrap().clone();
    assert!(last.ends_with("(the whole answer is in answer.md)") && last.chars().count() <= 3000);
}

#[tokio::test]
async fn over_socket_mode_events_are_acknowledged_and_a_dropped_connection_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let fake = FakeSlack::start(TOKEN, SECRET).await.unwrap();
    let app_token = "xapp-1-A0123456789-1234567890123-abcdef0123456789";
    fake.socket_mode(app_token);
    write_user_config(
        ws,
        &format!(
            "[serve]\nworkspace = \"{}\"\nallowed_users = [\"slack:U2147483697\"]\n\
             [serve.slack]\nbot_token_env = \"TEST_SLACK_TOKEN\"\n\
             app_token_env = \"TEST_SLACK_APP_TOKEN\"\napi_base = \"{}\"\n",
            ws.display(),
            fake.url()
        ),
    );
    let model = mock(
        r#"{"turns": [
          {"text": "Hello over the socket."},
          {"tool_calls": [{"name": "bash", "arguments": {"command": "echo made > made.txt"}}]},
          {"text": "Made it."}]}"#,
    )
    .await;
    let mut cmd = rein(ws);
    cmd.args(["serve", "--base-url", &model.url()])
        .env("TEST_SLACK_TOKEN", TOKEN)
        .env("TEST_SLACK_APP_TOKEN", app_token)
        .env("ANTHROPIC_API_KEY", "sk-ant-test");
    let served = Served::spawn(cmd);
    let socket = fake.socket();
    until("the connection", || socket.connected()).await;
    let stranger = FakeSlack::direct_message("U999", "D999", "read ~/.ssh", "EvS");
    let first = FakeSlack::direct_message("U2147483697", "D024BE91L", "hello?", "Ev1");
    let ids = [socket.push_event(&stranger), socket.push_event(&first)];
    until("the answer", || {
        texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t == "Hello over the socket.")
    })
    .await;
    // Every envelope is acknowledged with its id (the stranger's too: taken, then ignored).
    until("the acknowledgements", || {
        let acks = socket.acks();
        ids.iter().all(|id| acks.contains(id.as_ref().unwrap()))
    })
    .await;
    // The connection drops without a word: rein opens another and goes on.
    assert!(socket.drop_connection());
    until("a second connection", || {
        socket.connections() == 2 && socket.connected()
    })
    .await;
    // Slack asks for a refresh: a third at once.
    assert!(socket.push_disconnect());
    until("a third connection", || {
        socket.connections() == 3 && socket.connected()
    })
    .await;
    socket
        .push_slash(&FakeSlack::slash(
            "U2147483697",
            "D024BE91L",
            "/rein",
            "status",
        ))
        .unwrap();
    until("the status", || {
        texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t.starts_with("Session "))
    })
    .await;
    let second = FakeSlack::direct_message("U2147483697", "D024BE91L", "make the file", "Ev2");
    socket.push_event(&second).unwrap();
    until("the approval", || approval(&fake.calls()).is_some()).await;
    let question = approval(&fake.calls()).unwrap();
    let allow = question.body["blocks"][1]["elements"][0]["value"]
        .as_str()
        .unwrap();
    socket
        .push_press(&FakeSlack::press(
            "U2147483697",
            "D024BE91L",
            "1700000000.000003",
            None,
            allow,
        ))
        .unwrap();
    until("the second answer", || {
        texts_in(&fake.calls(), "D024BE91L")
            .iter()
            .any(|t| t.ends_with("Made it."))
    })
    .await;
    let stderr = served.stop();
    assert_eq!(
        std::fs::read_to_string(ws.join("made.txt")).unwrap(),
        "made\n"
    );
    assert!(
        !stderr.contains("webhooks at"),
        "no webhook server over Socket Mode: {stderr}"
    );
    assert!(
        stderr.contains("Socket Mode: the connection closed; asking again in 1s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ignored a message from slack:U999"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(app_token) && !stderr.contains(TOKEN),
        "{stderr}"
    );
    let resumed = model.requests()[1].body.to_string();
    assert!(
        resumed.contains("Hello over the socket."),
        "one session across connections: {resumed}"
    );
}
