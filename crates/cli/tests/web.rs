//! The web and pictures through `rein exec`: `web_fetch` of a page on a local server the
//! user's own config allows (a workspace's config cannot), the answering model, and a picture
//! read into the request as an image block.

use std::io::{Read, Write};
use std::net::TcpListener;

use serde_json::json;

use crate::support::*;

const PAGE: &str = "<html><head><title>t</title><script>x()</script></head><body>\
    <main><h1>Release notes</h1><p>Version <code>2.4</code> adds <em>streaming</em>.</p>\
    </main></body></html>";

/// A server on 127.0.0.1 answering every request with `PAGE`; its port.
fn page_server() -> u16 {
    serve_always("text/html; charset=utf-8", PAGE)
}

/// A server on 127.0.0.1 answering every request with `body`; its port.
pub(crate) fn serve_always(content_type: &'static str, body: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    port
}

/// The first request's prompt (its content blocks) and the picture attached to it, if any.
fn prompt_image(
    server: &rein_testkit::MockServer,
) -> (serde_json::Value, Option<serde_json::Value>) {
    let content = server.requests()[0].body["messages"][0]["content"].clone();
    let image = (content.as_array().into_iter().flatten())
        .find(|b| b["type"] == "image")
        .cloned();
    (content, image)
}

fn fetch_turn(port: u16) -> serde_json::Value {
    json!({"tool_calls": [{"name": "web_fetch", "arguments":
        {"url": format!("http://127.0.0.1:{port}/notes"), "prompt": "What does 2.4 add?"}}]})
}

#[tokio::test]
async fn a_page_the_users_config_allows_is_fetched_as_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let port = page_server();
    let server = mock(&json!({"turns": [fetch_turn(port), {"text": "done"}]}).to_string()).await;
    write_user_config(
        dir.path(),
        &format!("[web]\nallow_private_hosts = [\"127.0.0.1:{port}\"]\n"),
    );
    let mut cmd = exec_in(dir.path(), &server, "default", "read the notes");
    cmd.args(["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&server, 1);
    assert!(
        result.contains("# Release notes") && result.contains("Version `2.4` adds *streaming*."),
        "{result}"
    );
    assert!(!result.contains("x()"), "{result}");
}

#[tokio::test]
async fn a_workspace_cannot_open_private_hosts_and_a_new_domain_asks() {
    let dir = tempfile::tempdir().unwrap();
    let port = page_server();
    // The workspace's own config says so, and the user trusted the workspace: still refused.
    std::fs::create_dir_all(dir.path().join(".rein")).unwrap();
    std::fs::write(
        dir.path().join(".rein/config.toml"),
        format!("[web]\nallow_private_hosts = [\"127.0.0.1:{port}\"]\n"),
    )
    .unwrap();
    let server = mock(&json!({"turns": [fetch_turn(port), {"text": "done"}]}).to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "read the notes");
    cmd.args(["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&server, 1);
    assert!(result.contains("a local or private address"), "{result}");

    // Without a rule, the new domain asks, and a headless run cannot answer.
    let server = mock(&json!({"turns": [fetch_turn(port), {"text": "done"}]}).to_string()).await;
    write_user_config(
        dir.path(),
        &format!("[web]\nallow_private_hosts = [\"127.0.0.1:{port}\"]\n"),
    );
    let out = output(exec_in(dir.path(), &server, "default", "read the notes")).await;
    let result = last_message(&server, 1);
    assert!(!result.contains("Release notes"), "{result}");
    assert!(result.contains("is_error"), "{result}");
    let _ = out;
}

#[tokio::test]
async fn the_answering_model_reads_the_page_and_its_answer_is_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let port = page_server();
    let server = mock(
        &json!({"turns": [
            fetch_turn(port),
            {"text": "2.4 adds streaming."},
            {"text": "done"}
        ]})
        .to_string(),
    )
    .await;
    write_user_config(
        dir.path(),
        &format!(
            "[web]\nallow_private_hosts = [\"127.0.0.1:{port}\"]\nfetch_model = \"claude-haiku-4-5\"\n"
        ),
    );
    let mut cmd = exec_in(dir.path(), &server, "default", "read the notes");
    cmd.args(["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let asked = &server.requests()[1].body;
    assert_eq!(asked["model"], "claude-haiku-4-5");
    let question = asked["messages"][0].to_string();
    assert!(
        question.contains("# Release notes") && question.contains("What does 2.4 add?"),
        "{question}"
    );
    let result = last_message(&server, 2);
    assert!(result.contains("2.4 adds streaming."), "{result}");
}

#[tokio::test]
async fn a_picture_read_is_sent_as_an_image_block() {
    let dir = tempfile::tempdir().unwrap();
    // A real 1×1 PNG.
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64,
        0xf8, 0xcf, 0x50, 0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    std::fs::write(dir.path().join("dot.png"), png).unwrap();
    let read = json!({"tool_calls": [{"name": "read_file", "arguments": {"path": "dot.png"}}]});
    let server = mock(&json!({"turns": [read, {"text": "a dot"}]}).to_string()).await;
    let out = output(exec_in(dir.path(), &server, "default", "look")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = &server.requests()[1].body;
    let result = &body["messages"].as_array().unwrap().last().unwrap()["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(
        result["content"][0]["text"],
        "dot.png: PNG image, 1×1 pixels."
    );
    assert_eq!(result["content"][1]["type"], "image");
    assert_eq!(result["content"][1]["source"]["media_type"], "image/png");
}

#[tokio::test]
async fn a_recorded_provider_search_is_shown_with_its_results_and_counted() {
    let Some(stream) = rein_testkit::conformance_file(
        "real-streams/corpus/anthropic/llm-anthropic-web-search-citations.sse",
    )
    .unwrap() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = mock(&json!({"turns": [{"raw_stream": stream}]}).to_string()).await;
    // The mock is not Anthropic's own endpoint: the search is declared only when asked for.
    write_user_config(
        dir.path(),
        "[web]\nsearch = \"hosted\"\nsearch_max_uses = 3\n",
    );
    let mut cmd = exec_in(dir.path(), &server, "default", "weather in SF?");
    cmd.args(["--output-format", "stream-json"]);
    let out = output(cmd).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tools = &server.requests()[0].body["tools"];
    let declared = tools.as_array().unwrap().last().unwrap();
    assert_eq!(declared["type"], "web_search_20250305");
    assert_eq!(declared["max_uses"], 3);
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let start = events
        .iter()
        .find(|e| e["type"] == "tool_call_start")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(start["name"], "web_search");
    assert!(
        start["summary"].as_str().unwrap().contains("San Francisco"),
        "{start}"
    );
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_call_end")
        .unwrap();
    let output = end["output"].as_str().unwrap();
    assert!(output.starts_with("10 results\n- [San Francisco, CA Weather Forecast | AccuWeather](https://www.accuweather.com/"), "{output}");
    let cited: Vec<&str> = (events.iter().filter(|e| e["type"] == "citation"))
        .map(|e| e["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        cited,
        [
            "https://www.wunderground.com/hourly/us/ca/san-francisco",
            "https://abc7news.com/weather/"
        ]
    );
    let usage = events.iter().rev().find(|e| e["type"] == "usage").unwrap();
    assert_eq!(usage["usage"]["web_search_requests"], 1, "{usage}");
}

#[tokio::test]
async fn a_chat_server_searches_through_the_configured_searxng() {
    let dir = tempfile::tempdir().unwrap();
    let searx = serve_always(
        "application/json",
        r#"{"results": [
            {"url": "https://serde.rs/", "title": "Serde", "content": "A framework"},
            {"url": "https://docs.rs/serde", "title": "serde - Rust", "content": "docs"}
        ]}"#,
    );
    let search = json!({"tool_calls": [{"name": "web_search", "arguments":
        {"query": "rust serde", "blocked_domains": ["docs.rs"]}}]});
    let server = mock(&json!({"turns": [search, {"text": "done"}]}).to_string()).await;
    write_user_config(
        dir.path(),
        &format!("[web]\nsearch = \"searxng\"\nsearch_url = \"http://127.0.0.1:{searx}\"\n"),
    );
    let mut cmd = rein(dir.path());
    cmd.args([
        "exec",
        "--provider",
        "openai-chat",
        "--model",
        "qwen3-coder",
        "--base-url",
        &format!("{}/v1", server.url()),
        "find serde",
    ]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(tools.contains("\"name\":\"web_search\""), "{tools}");
    let result = last_message(&server, 1);
    assert!(result.contains("[Serde](https://serde.rs/)"), "{result}");
    assert!(!result.contains("docs.rs"), "{result}");
}

#[tokio::test]
async fn exec_image_attaches_the_picture_to_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let photo = image::RgbImage::from_fn(3000, 2000, |x, _| image::Rgb([(x % 256) as u8, 0, 0]));
    photo.save(dir.path().join("shot.png")).unwrap();
    let server = mock(&json!({"turns": [{"text": "a red gradient"}]}).to_string()).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "what is this?");
    cmd.args(["--image", "shot.png"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (content, image) = prompt_image(&server);
    let image = image.unwrap_or_else(|| panic!("{content}"));
    assert_eq!(image["source"]["media_type"], "image/jpeg");
    assert!(
        content
            .to_string()
            .contains("PNG image, 3000×2000 pixels, shown scaled down to 1568×1045"),
        "{content}"
    );

    let missing = output({
        let mut cmd = exec_in(dir.path(), &server, "default", "x");
        cmd.args(["--image", "nope.png"]);
        cmd
    })
    .await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("--image \"nope.png\": no such file"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pasted_picture_path_is_shown_as_image_1_and_sent_as_a_picture() {
    let Some(tmux) = crate::tmux::Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let photo = image::RgbImage::from_fn(40, 30, |x, _| image::Rgb([(x * 6) as u8, 9, 9]));
    photo.save(ws.join("diagram.png")).unwrap();
    let server = mock(r#"{"turns": [{"text": "It is a gradient."}]}"#).await;
    let script = crate::tmux::launcher(ws, &server.url(), "");
    tmux.open(&format!("sh '{}'", script.display()));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("what is in ");
    // What a terminal receives when a file is dropped on it: its quoted path, as a paste.
    let dropped = format!("'{}'", ws.join("diagram.png").display());
    tmux.run(&["set-buffer", "-b", "p", &dropped]);
    tmux.run(&["paste-buffer", "-p", "-b", "p", "-t", "ui"]);
    let screen = tmux.wait_for("[Image #1]").await;
    assert!(screen.contains("what is in [Image #1]"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("It is a gradient.").await;
    let (content, image) = prompt_image(&server);
    assert!(
        image.is_some_and(|i| i["source"]["media_type"] == "image/png"),
        "{content}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_v_pastes_the_clipboards_picture_as_an_image() {
    use std::os::unix::fs::PermissionsExt;
    let Some(tmux) = crate::tmux::Tmux::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    // The clipboard: a `wl-paste` that gives a picture, as on a Wayland desktop.
    let bin = ws.join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    let photo = image::RgbImage::from_fn(20, 10, |x, _| image::Rgb([(x * 12) as u8, 1, 1]));
    photo.save(bin.join("clip.png")).unwrap();
    let fake = bin.join("wl-paste");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\ncat '{}'\n", bin.join("clip.png").display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = mock(r#"{"turns": [{"text": "A small red bar."}]}"#).await;
    let script = crate::tmux::launcher(ws, &server.url(), "");
    tmux.open(&format!(
        "env PATH='{}':\"$PATH\" WAYLAND_DISPLAY=wayland-test DISPLAY= sh '{}'",
        bin.display(),
        script.display()
    ));
    tmux.wait_for("/help for commands").await;
    tmux.type_text("describe ");
    tmux.keys(&["C-v"]);
    let screen = tmux.wait_for("[Image #1]").await;
    assert!(screen.contains("describe [Image #1]"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("A small red bar.").await;
    let (content, image) = prompt_image(&server);
    assert!(image.is_some(), "{content}");
    assert!(
        content.to_string().contains("PNG image, 20×10 pixels"),
        "{content}"
    );
}
