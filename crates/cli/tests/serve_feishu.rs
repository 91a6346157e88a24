//! `rein serve` on Feishu/Lark, against `rein_testkit::FakeFeishu` (payloads from Feishu's Open
//! Platform documentation) and the mock model: a conversation on one updated card with a tool
//! call, events encrypted and signed with the Encrypt Key, strangers, forged, replayed and
//! wrongly-tokened events refused, an expired tenant token renewed, an approval by a card's
//! button, a restart resuming the chat, a long answer sent as a file.

use std::path::Path;

use rein_testkit::{BotCall, FakeFeishu, FeishuApp, feishu_encrypt, feishu_signature};
use serde_json::{Value, json};

use crate::support::*;

const APP_SECRET: &str = "dskLLdkasdjlasdKK4Se1e82xfFjk";
const VERIFICATION: &str = "rvaYgkND1GOiu5MM0E1rncYC6PLtF7JV";
const ENCRYPT_KEY: &str = "kudryavka-encrypt-key-0123456789";
const USER: &str = "ou_84aad35d084aa403a838cf73ee18467";
const CHAT: &str = "oc_5ce6d572455d361153b7xx51da133945";

fn app(encrypt_key: Option<&str>) -> FeishuApp {
    FeishuApp {
        app_id: "cli_9f5343c580712544".into(),
        app_secret: APP_SECRET.into(),
        verification_token: VERIFICATION.into(),
        encrypt_key: encrypt_key.map(str::to_string),
    }
}

fn feishu_config(ws: &Path, fake: &FakeFeishu) {
    write_user_config(
        ws,
        &format!(
            "[serve]\nworkspace = \"{}\"\nallowed_users = [\"feishu:{USER}\"]\n\
             listen = \"127.0.0.1:0\"\n\
             [serve.feishu]\napp_id = \"cli_9f5343c580712544\"\n\
             app_secret_env = \"TEST_FEISHU_SECRET\"\n\
             verification_token_env = \"TEST_FEISHU_TOKEN\"\n\
             encrypt_key_env = \"TEST_FEISHU_KEY\"\napi_base = \"{}\"\n",
            ws.display(),
            fake.url()
        ),
    );
}

async fn serve(
    ws: &Path,
    fake: &FakeFeishu,
    model: &rein_testkit::MockServer,
    encrypt_key: Option<&str>,
) -> Served {
    let mut cmd = rein(ws);
    cmd.args(["serve", "--base-url", &model.url()])
        .env("TEST_FEISHU_SECRET", APP_SECRET)
        .env("TEST_FEISHU_TOKEN", VERIFICATION)
        .env("ANTHROPIC_API_KEY", "sk-ant-test");
    if let Some(key) = encrypt_key {
        cmd.env("TEST_FEISHU_KEY", key);
    }
    let served = Served::spawn(cmd);
    fake.deliver_to(&served.webhooks().await);
    served
}

/// The markdown of every card sent to or updated in `chat`, in order.
fn cards_in(calls: &[BotCall], chat: &str) -> Vec<String> {
    let mut sent_here = std::collections::HashSet::new();
    let mut texts = Vec::new();
    for call in calls {
        let id = call.body["message_id"].as_str().unwrap_or_default();
        let here = match call.method.as_str() {
            "im.message.create" if call.body["receive_id"] == chat => sent_here.insert(id),
            "im.message.patch" => sent_here.contains(id),
            _ => false,
        };
        let card: Value =
            serde_json::from_str(call.body["content"].as_str().unwrap_or("{}")).unwrap_or_default();
        if let (true, Some(text)) = (here, card["elements"][0]["content"].as_str()) {
            texts.push(text.to_string());
        }
    }
    texts
}

#[tokio::test]
async fn an_encrypted_message_gets_an_answer_on_one_card_and_forgeries_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join("notes.txt"), "hello from the notes\n").unwrap();
    let fake = FakeFeishu::start(app(Some(ENCRYPT_KEY))).await.unwrap();
    feishu_config(ws, &fake);
    let model = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
          {"text": "The notes say hello.", "chunk_size": 4}]}"#,
    )
    .await;
    let served = serve(ws, &fake, &model, Some(ENCRYPT_KEY)).await;
    // Feishu's URL check, encrypted: answered with its challenge.
    let check =
        json!({"challenge": "ajls384kdjx98XX", "token": VERIFICATION, "type": "url_verification"});
    let (status, answer) = fake.deliver(&check).await;
    assert_eq!(
        (status, answer.as_str()),
        (200, r#"{"challenge":"ajls384kdjx98XX"}"#)
    );
    // Forged: the right key but a wrong Verification Token; signed with another key;
    // replayed (signed six minutes ago); sent in the clear. None reaches the model.
    let wrong_token = {
        let mut event = fake.message(USER, CHAT, "rm -rf ~", "EvWrongToken");
        event["header"]["token"] = json!("guessed");
        event
    };
    assert_eq!(fake.deliver(&wrong_token).await.0, 401);
    let event = fake.message(USER, CHAT, "rm -rf ~", "EvForged");
    let sealed =
        json!({"encrypt": feishu_encrypt(ENCRYPT_KEY, event.to_string().as_bytes())}).to_string();
    let signed = |timestamp: i64, key: &str| {
        let timestamp = timestamp.to_string();
        let signature = feishu_signature(&timestamp, "nonce-1", key, sealed.as_bytes());
        vec![
            ("x-lark-request-timestamp", timestamp),
            ("x-lark-request-nonce", "nonce-1".to_string()),
            ("x-lark-signature", signature),
        ]
    };
    let now = rein_testkit::epoch_secs();
    assert_eq!(
        fake.send("/feishu/events", &signed(now, "guessed"), sealed.clone())
            .await
            .0,
        401
    );
    assert_eq!(
        fake.send(
            "/feishu/events",
            &signed(now - 360, ENCRYPT_KEY),
            sealed.clone()
        )
        .await
        .0,
        401
    );
    assert_eq!(
        fake.send("/feishu/events", &[], event.to_string()).await.0,
        401
    );
    let stranger = fake.message("ou_stranger", "oc_elsewhere", "read ~/.ssh", "EvStranger");
    assert_eq!(fake.deliver(&stranger).await.0, 200);
    let asked = fake.message(USER, CHAT, "what do the notes say?", "Ev1");
    assert_eq!(fake.deliver(&asked).await.0, 200);
    assert_eq!(
        fake.deliver(&asked).await.0,
        200,
        "Feishu's resend, taken once"
    );
    until("the answer", || {
        cards_in(&fake.calls(), CHAT)
            .iter()
            .any(|t| t.ends_with("The notes say hello."))
    })
    .await;
    let stderr = served.stop();
    let calls = fake.calls();
    let creates: Vec<&BotCall> = calls
        .iter()
        .filter(|c| c.method == "im.message.create")
        .collect();
    assert_eq!(creates.len(), 1, "one card, updated in place: {calls:?}");
    assert_eq!(creates[0].body["receive_id_type"], "chat_id");
    assert_eq!(creates[0].body["msg_type"], "interactive");
    assert!(
        calls
            .iter()
            .skip(1)
            .all(|c| c.method == "im.message.patch" && c.body["message_id"] == "om_fake1")
    );
    let cards = cards_in(&calls, CHAT);
    assert_eq!(
        cards.last().unwrap(),
        "→ read_file notes.txt\n\nThe notes say hello."
    );
    assert_eq!(model.requests().len(), 2, "one prompt, taken once");
    let first = model.requests()[0].body.to_string();
    assert!(
        !first.contains(".ssh") && !first.contains("rm -rf"),
        "{first}"
    );
    assert!(
        stderr.contains("ignored a message from feishu:ou_stranger in feishu:oc_elsewhere"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not the app's Verification Token"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a signature the Encrypt Key did not make"),
        "{stderr}"
    );
    assert!(
        stderr.contains("more than five minutes from now"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not encrypted with the Encrypt Key"),
        "{stderr}"
    );
    for secret in [APP_SECRET, VERIFICATION, ENCRYPT_KEY] {
        assert!(!stderr.contains(secret), "{stderr}");
    }
}

#[tokio::test]
async fn a_card_button_approves_a_restart_resumes_and_a_long_answer_comes_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    // No Encrypt Key: events in the clear, the Verification Token their only proof.
    let fake = FakeFeishu::start(app(None)).await.unwrap();
    feishu_config(ws, &fake);
    let long: String = (0..1200).map(|n| format!("line {n:04}\\n")).collect();
    let model = mock(&format!(
        r#"{{"turns": [
          {{"tool_calls": [{{"name": "bash", "arguments": {{"command": "echo made > made.txt"}}}}]}},
          {{"text": "Made it."}},
          {{"text": "{long}THE END"}}]}}"#
    ))
    .await;
    let served = serve(ws, &fake, &model, None).await;
    assert_eq!(
        fake.deliver(&fake.message(USER, CHAT, "make the file", "Ev1"))
            .await
            .0,
        200
    );
    let question = || {
        fake.calls().into_iter().find(|c| {
            let card: Value = serde_json::from_str(c.body["content"].as_str().unwrap_or("{}"))
                .unwrap_or_default();
            card["elements"][1]["tag"] == "action"
        })
    };
    until("the approval", || question().is_some()).await;
    let asked = question().unwrap();
    let card: Value = serde_json::from_str(asked.body["content"].as_str().unwrap()).unwrap();
    let said = card["elements"][0]["content"].as_str().unwrap();
    assert!(
        said.starts_with("rein wants to run bash echo made > made.txt"),
        "{said}"
    );
    let button = &card["elements"][1]["actions"][0];
    assert_eq!(button["text"]["content"], "Allow");
    let allow = button["value"]["data"].as_str().unwrap();
    let card_id = asked.body["message_id"].as_str().unwrap();
    let (status, answer) = fake
        .deliver(&fake.press("ou_stranger", CHAT, card_id, allow))
        .await;
    assert_eq!((status, answer.as_str()), (200, "{}"));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        !ws.join("made.txt").exists(),
        "a stranger's press does nothing"
    );
    assert_eq!(
        fake.deliver(&fake.press(USER, CHAT, card_id, allow))
            .await
            .0,
        200
    );
    until("the answer", || {
        cards_in(&fake.calls(), CHAT)
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
        stderr.contains("ignored a message from feishu:ou_stranger"),
        "{stderr}"
    );

    // Restarted, the chat's session goes on; the tenant token, withdrawn as if expired, is
    // asked for again; the long answer comes cut on the card and whole as a file.
    let tokens = fake.tokens_asked();
    let served = serve(ws, &fake, &model, None).await;
    // Feishu goes away for the first two calls (a proxy's 502, the connection closed): the
    // answer still arrives.
    fake.fail_next(2);
    assert_eq!(
        fake.deliver(&fake.message(USER, CHAT, "and now?", "Ev2"))
            .await
            .0,
        200
    );
    let file_sent = || {
        fake.calls()
            .into_iter()
            .find(|c| c.body["msg_type"] == "file")
    };
    until("the file", || file_sent().is_some()).await;
    assert_eq!(fake.failing(), 0);
    fake.withdraw_token();
    assert_eq!(
        fake.deliver(&fake.message(USER, CHAT, "/status", "Ev3"))
            .await
            .0,
        200
    );
    until("the status", || {
        cards_in(&fake.calls(), CHAT)
            .iter()
            .any(|t| t.starts_with("Session "))
    })
    .await;
    let stderr = served.stop();
    assert!(
        stderr.contains("feishu: im/v1/messages?receive_id_type=chat_id: HTTP 502"),
        "{stderr}"
    );
    assert!(
        fake.tokens_asked() >= tokens + 2,
        "a new token after the restart and after the withdrawal"
    );
    let resumed = model.requests()[2].body.to_string();
    assert!(
        resumed.contains("make the file") && resumed.contains("Made it."),
        "{resumed}"
    );
    let calls = fake.calls();
    let upload = calls.iter().find(|c| c.method == "im.file.create").unwrap();
    let raw = upload.body["raw"].as_str().unwrap();
    assert!(
        raw.contains("filename=\"answer.md\"")
            && raw.contains("line 1199")
            && raw.contains("THE END"),
        "{raw:.300}"
    );
    let file = file_sent().unwrap();
    assert_eq!(file.body["receive_id"], CHAT);
    let cards = cards_in(&calls, CHAT);
    let cut = cards
        .iter()
        .find(|t| t.ends_with("(the whole answer is in answer.md)"))
        .unwrap();
    assert!(cut.chars().count() <= 8000 && !cut.contains("THE END"));
}
