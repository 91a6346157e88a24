use std::io::Cursor;

use pretty_assertions::assert_eq;
use rein_protocol::{ContentBlock, Message, Role, Usage};

use super::*;

fn meta(id: &str) -> SessionRecord {
    SessionRecord::Meta {
        session_id: id.into(),
        created_at: "2026-11-23T05:00:00Z".into(),
        cwd: "/ws".into(),
        model: "claude-sonnet-4-5".into(),
        provider: "anthropic".into(),
        forked_from: None,
    }
}

fn message(record: SessionRecord) -> SessionRecord {
    record
}

#[test]
fn records_round_trip_and_parts_of_a_message_are_joined() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut writer = store.create(meta("s1")).unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::user_text("fix the bug"),
        })
        .unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text {
                        text: "done".into(),
                    },
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "bash".into(),
                        input: serde_json::json!({}),
                    },
                ],
            },
        })
        .unwrap();
    writer
        .append(&SessionRecord::Usage {
            model: "claude-sonnet-4-5".into(),
            usage: Usage {
                input_tokens: 10,
                output_tokens: 5,
                ..Usage::default()
            },
            cost_usd: Some(0.25),
        })
        .unwrap();
    writer
        .append(&message(SessionRecord::Message {
            message: Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: "t1".into(),
                    content: "interrupted".into(),
                    is_error: true,
                    media: Vec::new(),
                }],
            },
        }))
        .unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::user_text("next"),
        })
        .unwrap();
    let loaded = store.load("s1").unwrap();
    assert_eq!(loaded.transcript.len(), 3);
    assert_eq!(
        loaded.transcript[2].content.len(),
        2,
        "the two user parts are one message"
    );
    assert_eq!(loaded.usage.input_tokens, 10);
    assert_eq!(loaded.cost_usd, Some(0.25));
    assert_eq!(loaded.requests, 1);
    assert_eq!(store.latest().as_deref(), Some("s1"));
    let listed = store.list();
    assert_eq!(listed[0].first_prompt, "fix the bug");
}

#[test]
fn a_torn_last_line_is_skipped_with_a_warning_and_appending_resumes_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut writer = store.create(meta("s2")).unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::user_text("one"),
        })
        .unwrap();
    let path = writer.path().to_path_buf();
    drop(writer);
    // Killed in the middle of writing a record.
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(br#"{"v":1,"type":"message","message":{"role":"assist"#)
        .unwrap();
    let loaded = store.load("s2").unwrap();
    assert_eq!(loaded.transcript, [Message::user_text("one")]);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    let mut writer = store.append_to("s2").unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::assistant_text("two"),
        })
        .unwrap();
    let loaded = store.load("s2").unwrap();
    assert_eq!(loaded.transcript.len(), 2, "{:?}", loaded.warnings);
}

#[test]
fn a_line_with_invalid_utf8_is_skipped_with_a_warning_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut writer = store.create(meta("s3")).unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::user_text("one"),
        })
        .unwrap();
    let path = writer.path().to_path_buf();
    drop(writer);
    // A torn write inside a multi-byte character, then more records after it.
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(b"{\"v\":1,\"type\":\"message\",\"message\":{\"text\":\"\xc3\n")
        .unwrap();
    drop(file);
    let mut writer = store.append_to("s3").unwrap();
    writer
        .append(&SessionRecord::Message {
            message: Message::assistant_text("two"),
        })
        .unwrap();
    let loaded = store.load("s3").unwrap();
    assert_eq!(
        loaded.transcript,
        [Message::user_text("one"), Message::assistant_text("two")]
    );
    assert_eq!(loaded.warnings, ["skipped line 3: not valid UTF-8"]);
}

#[test]
fn version_1_records_written_by_older_rein_still_load() {
    // Frozen sample of the v1 format; new fields must stay optional so this keeps loading.
    let v1 = r#"{"v":1,"type":"meta","session_id":"20261122T210000-abcd1234","created_at":"2026-11-22T21:00:00+00:00","cwd":"/ws","model":"gpt-5","provider":"openai"}
{"v":1,"type":"message","message":{"role":"user","content":[{"type":"text","text":"hello"}]}}
{"v":1,"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"c1","name":"bash","input":{"command":"ls"}}]}}
{"v":1,"type":"message","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a.txt\n","is_error":false}]}}
{"v":1,"type":"usage","model":"gpt-5","usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":50},"cost_usd":0.001}
{"v":1,"type":"error","message":"cancelled"}
{"v":2,"type":"compaction_from_the_future","summary":"x"}
"#;
    let loaded = load_from(Cursor::new(v1), "sample").unwrap();
    assert_eq!(loaded.transcript.len(), 3);
    assert_eq!(loaded.usage.cache_read_input_tokens, 50);
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn bad_ids_and_missing_sessions_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    assert!(matches!(
        store.load("../../etc/passwd"),
        Err(SessionError::InvalidId { .. })
    ));
    assert!(matches!(
        store.load("nope"),
        Err(SessionError::NotFound { .. })
    ));
    let garbage = load_from(Cursor::new("not json\n{}\n"), "g").unwrap_err();
    assert!(matches!(garbage, SessionError::Corrupt { .. }), "{garbage}");
}

#[test]
fn workspace_keys_are_readable_and_distinct() {
    let a = workspace_key(Path::new("/home/u/my project"));
    let b = workspace_key(Path::new("/home/u/my-project"));
    assert!(a.starts_with("-home-u-my-project-"), "{a}");
    assert_ne!(a, b);
}

#[test]
fn a_session_file_stored_under_another_id_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut writer = store.create(meta("real")).unwrap();
    // A run that got an answer (runs without one are not listed).
    writer
        .append(&SessionRecord::Usage {
            model: "m".into(),
            usage: Usage::default(),
            cost_usd: None,
        })
        .unwrap();
    let renamed = store.path("other").unwrap();
    std::fs::copy(writer.path(), &renamed).unwrap();
    let before = std::fs::read(&renamed).unwrap();

    let refused = store.load("other").unwrap_err();
    assert!(
        matches!(refused, SessionError::Mismatch { .. }),
        "{refused}"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "{} records session real of workspace /ws, but it is stored as session other of \
             /ws: not resumed (the file is left as it is; start a new session, or resume it \
             from its own workspace)",
            renamed.display()
        )
    );
    assert_eq!(std::fs::read(&renamed).unwrap(), before, "nothing lost");
    // Listing skips it; the real one still loads.
    assert_eq!(store.list().len(), 1);
    assert!(store.load("real").is_ok());
}

#[test]
fn a_session_file_copied_from_another_workspaces_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let theirs = SessionStore::new(dir.path(), Path::new("/elsewhere"));
    let ours = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut planted = meta("s1");
    if let SessionRecord::Meta { cwd, .. } = &mut planted {
        *cwd = "/elsewhere".into();
    }
    let writer = theirs.create(planted).unwrap();
    std::fs::create_dir_all(ours.dir()).unwrap();
    std::fs::copy(writer.path(), ours.path("s1").unwrap()).unwrap();
    assert!(theirs.load("s1").is_ok());
    let refused = ours.load("s1").unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("records session s1 of workspace /elsewhere"),
        "{refused}"
    );
}

#[test]
fn a_session_path_that_is_not_a_small_regular_file_is_refused_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    std::fs::create_dir_all(store.dir()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", store.path("zero").unwrap()).unwrap();
    nix::unistd::mkfifo(&store.path("fifo").unwrap(), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::create_dir(store.path("folder").unwrap()).unwrap();
    std::fs::File::create(store.path("huge").unwrap())
        .unwrap()
        .set_len(SESSION_FILE_CAP + 1)
        .unwrap();
    let base = dir.path().to_path_buf();
    rein_testkit::without_hanging("loading special session files", move || {
        let store = SessionStore::new(&base, Path::new("/ws"));
        for id in ["zero", "fifo", "folder", "huge"] {
            let refused = store.load(id).unwrap_err();
            assert!(
                matches!(refused, SessionError::Refused(_)),
                "{id}: {refused}"
            );
            assert!(
                refused.to_string().contains(&format!("{id}.jsonl")),
                "{refused}"
            );
        }
        // Appending to a FIFO does not wait for a reader either.
        assert!(store.append_to("fifo").is_err());
        assert!(store.list().is_empty());
    });
}

#[test]
fn one_writer_per_session_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let first = store.create(meta("s4")).unwrap();
    let err = store.append_to("s4").unwrap_err();
    assert!(matches!(err, SessionError::InUse { .. }), "{err}");
    assert!(err.to_string().contains("--fork-session"), "{err}");
    drop(first);
    let mut again = store.append_to("s4").unwrap();
    again
        .append(&SessionRecord::Message {
            message: Message::user_text("after"),
        })
        .unwrap();
}

proptest::proptest! {
    /// Fuzz target (`bench/fuzz`): any bytes, and real records damaged at any byte, load or
    /// are refused with a clear error; never a panic.
    #[test]
    fn fuzz_session_loading_never_panics(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        at in 0usize..2000,
        junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..8),
    ) {
        let _ = load_from(&bytes[..], "fuzz.jsonl");
        let mut file = Vec::new();
        for record in [
            meta("f1"),
            SessionRecord::Message { message: Message::user_text("hello") },
            SessionRecord::Message { message: Message::assistant_text("hi") },
        ] {
            file.extend(serde_json::to_vec(&rein_protocol::SessionLine::from(record)).unwrap());
            file.push(b'\n');
        }
        let at = at.min(file.len());
        file.splice(at..at, junk);
        match load_from(&file[..], "fuzz.jsonl") {
            Ok(loaded) => proptest::prop_assert!(loaded.transcript.len() <= 2),
            Err(e) => proptest::prop_assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn the_list_hides_unanswered_runs_and_labels_with_the_first_prompt_even_after_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let mut empty = store.create(meta("empty")).unwrap();
    empty
        .append(&SessionRecord::Message {
            message: Message::user_text("never answered"),
        })
        .unwrap();
    let mut compacted = store.create(meta("compacted")).unwrap();
    for record in [
        SessionRecord::Message {
            message: Message::user_text("refactor the parser"),
        },
        SessionRecord::Usage {
            model: "m".into(),
            usage: Usage::default(),
            cost_usd: None,
        },
        SessionRecord::Message {
            message: Message::assistant_text("done"),
        },
        SessionRecord::Compaction {
            trigger: "manual".into(),
            summary: "Summary of the work so far".into(),
            kept_messages: 0,
        },
    ] {
        compacted.append(&record).unwrap();
    }
    let listed = store.list();
    let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["compacted"]);
    assert_eq!(listed[0].first_prompt, "refactor the parser");
    assert!(listed[0].last_active.is_some());
}

/// A session file appears with its header or not at all, and an empty one (left by a rein
/// killed between creating and writing it) is never the session `--continue` picks.
#[test]
fn a_new_session_appears_whole_and_an_empty_file_is_never_the_latest() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path(), Path::new("/ws"));
    let writer = store.create(meta("whole")).unwrap();
    let text = std::fs::read_to_string(writer.path()).unwrap();
    assert!(text.starts_with('{') && text.ends_with('\n'), "{text:?}");
    assert!(text.contains("\"whole\""), "{text}");
    drop(writer);
    let names: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["whole.jsonl"], "no partial file is left");
    // A second create of the same id is refused, the first file intact.
    assert!(store.create(meta("whole")).is_err());
    assert_eq!(
        std::fs::read_to_string(store.dir().join("whole.jsonl")).unwrap(),
        text
    );
    // An empty file, newer than the real one, is not chosen.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(store.dir().join("empty.jsonl"), "").unwrap();
    assert_eq!(store.latest().as_deref(), Some("whole"));
    assert_eq!(store.ids_newest_first(), ["whole"]);
}
