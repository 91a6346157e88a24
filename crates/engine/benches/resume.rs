//! Loading a 100 MB session file, as `--resume` does. Budget: ≤ 1 s.
//! Run with `cargo bench -p rein-engine --bench resume`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use rein_engine::session::SessionStore;
use rein_protocol::{ContentBlock, Message, Role, SessionRecord, Usage};

const TARGET_BYTES: u64 = 100 * 1024 * 1024;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/bench/workspace"));
    let mut writer = store
        .create(SessionRecord::Meta {
            session_id: "bench".into(),
            created_at: "2026-11-23T00:00:00Z".into(),
            cwd: "/bench/workspace".into(),
            model: "claude-sonnet-4-5".into(),
            provider: "anthropic".into(),
            forked_from: None,
        })
        .unwrap();
    let output: String = (0..80)
        .map(|n| format!("line {n} of a long tool output\n"))
        .collect();
    let mut turn = 0;
    while std::fs::metadata(writer.path()).unwrap().len() < TARGET_BYTES {
        turn += 1;
        let id = format!("call_{turn}");
        writer
            .append(&SessionRecord::Message {
                message: Message {
                    role: Role::Assistant,
                    content: vec![
                        ContentBlock::Text {
                            text: format!("Step {turn}: reading the next file."),
                        },
                        ContentBlock::ToolUse {
                            id: id.clone(),
                            name: "read_file".into(),
                            input: serde_json::json!({"path": format!("src/file_{turn}.rs")}),
                        },
                    ],
                },
            })
            .unwrap();
        writer
            .append(&SessionRecord::Message {
                message: Message {
                    role: Role::User,
                    content: vec![ContentBlock::ToolResult {
                        tool_use_id: id,
                        content: output.clone(),
                        is_error: false,
                        media: Vec::new(),
                    }],
                },
            })
            .unwrap();
        writer
            .append(&SessionRecord::Usage {
                model: "claude-sonnet-4-5".into(),
                usage: Usage {
                    input_tokens: 1000,
                    output_tokens: 50,
                    ..Usage::default()
                },
                cost_usd: Some(0.00375),
            })
            .unwrap();
    }
    let size = std::fs::metadata(writer.path()).unwrap().len();
    let mut samples: Vec<Duration> = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let loaded = store.load("bench").unwrap();
        samples.push(started.elapsed());
        assert_eq!(loaded.requests, turn);
    }
    samples.sort();
    println!(
        "resume: loading a {:.0} MB session ({turn} turns) takes {:.0?} (median of 5)",
        size as f64 / 1e6,
        samples[2]
    );
}
