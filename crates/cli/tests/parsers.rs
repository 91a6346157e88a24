//! Outside files made to kill their parser (a PDF of 20,000 nested arrays, a page of 5,000
//! nested `<div>`s) are parsed in a child under limits: the session goes on, and the model
//! reads what happened; ordinary files read as before.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use serde_json::json;

use crate::support::*;

/// A one-page PDF whose page dictionary holds arrays `depth` deep, with a correct xref.
fn pdf_nested(depth: usize) -> Vec<u8> {
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /X {nested} >>"),
    ];
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{object}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        out.push_str(&format!("{offset:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

#[tokio::test]
async fn a_pdf_nested_to_overflow_its_parser_ends_the_parser_not_the_session() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bomb.pdf"), pdf_nested(20_000)).unwrap();
    std::fs::write(dir.path().join("plain.pdf"), pdf_nested(2)).unwrap();
    let read = |path: &str| json!({"name": "read_file", "arguments": {"path": path}});
    let server = mock(
        &json!({"turns": [
            {"tool_calls": [read("bomb.pdf")]},
            {"tool_calls": [read("plain.pdf")]},
            {"text": "done"}
        ]})
        .to_string(),
    )
    .await;
    let out = output(exec_in(dir.path(), &server, "default", "read them")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bomb = last_message(&server, 1);
    assert!(
        bomb.contains("bomb.pdf: the pdf parser was stopped at its limits"),
        "{bomb}"
    );
    let plain = last_message(&server, 2);
    assert!(plain.contains("plain.pdf: PDF, 1 pages."), "{plain}");
    assert_eq!(server.requests().len(), 3, "the session went on");
}

#[tokio::test]
async fn a_page_nested_thousands_deep_is_converted_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let page = format!(
        "<html><body>{}the bottom{}</body></html>",
        "<div>".repeat(5_000),
        "</div>".repeat(5_000)
    );
    let port = crate::web::serve_always("text/html", Box::leak(page.into_boxed_str()));
    write_user_config(
        dir.path(),
        &format!("[web]\nallow_private_hosts = [\"127.0.0.1:{port}\"]\n"),
    );
    let server = mock(
        &json!({"turns": [
            {"tool_calls": [{"name": "web_fetch", "arguments":
                {"url": format!("http://127.0.0.1:{port}/deep"), "prompt": "what is there?"}}]},
            {"text": "done"}
        ]})
        .to_string(),
    )
    .await;
    let mut cmd = exec_in(dir.path(), &server, "default", "read the page");
    cmd.args(["--allowed-tools", "WebFetch(domain:127.0.0.1)"]);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = last_message(&server, 1);
    assert!(result.contains("the bottom"), "{result}");
}

/// Control: the PDF above does overflow the parser when nothing bounds it — run here as
/// rein's parser child with a stack the size of a worker thread's, it dies of it.
#[test]
fn control_the_nested_pdf_kills_an_unbounded_parser() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rein"))
        .args(["__parse", "pdf", "4294967296", "30", "2097152"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&pdf_nested(20_000))
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), None, "killed by a signal: {status:?}");
}
