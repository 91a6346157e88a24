//! Parses in a child under limits: each limit met by a parser made to meet it ends the
//! child, never the caller, and says which limits held; a normal parse and a refusal come
//! back as they are.

use std::path::PathBuf;
use std::time::Duration;

use rein_sandbox::bounded::{BoundedError, Limits, ParseFn, Parsers};

fn helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rein-sandbox-helper"))
}

/// The parsers by name: the child has its own (the helper binary's), these are what would
/// run in process.
fn named(kind: &str) -> (&str, ParseFn) {
    (kind, |_, _| Err("in process".into()))
}

fn small() -> Limits {
    Limits {
        memory: 512 * 1024 * 1024,
        cpu: Duration::from_secs(1),
        wall: Duration::from_secs(5),
        stack: 8 * 1024 * 1024,
    }
}

#[test]
fn a_parse_within_its_limits_returns_its_result_or_its_refusal() {
    let parsers = Parsers::child(helper()).with_limits(small());
    let echoed = parsers.run(named("echo"), b"page ", &["a".into(), "b".into()]);
    assert_eq!(echoed, Ok(b"page a b".to_vec()));
    let refused = parsers.run(named("refuse"), b"x", &[]);
    assert_eq!(
        refused,
        Err(BoundedError::Refused("not a document of this kind".into()))
    );
    // Shallow recursion fits the stack.
    assert!(parsers.run(named("deep"), b"x", &[]).is_ok());
}

#[test]
fn each_limit_ends_the_child_and_names_the_limits() {
    let parsers = Parsers::child(helper()).with_limits(small());
    // 64 KiB of input: 64,000 frames of a kilobyte, far over 8 MiB of stack.
    let deep = vec![0u8; 64 * 1024];
    for (kind, input) in [("deep", deep.as_slice()), ("hog", b"x"), ("spin", b"x")] {
        let stopped = parsers.run(named(kind), input, &[]);
        match &stopped {
            Err(BoundedError::Limit { kind: k, limits }) => {
                assert_eq!(k, kind);
                assert!(limits.contains("512 MiB of memory"), "{limits}");
            }
            other => panic!("{kind}: {other:?}"),
        }
        let said = stopped.unwrap_err().to_string();
        assert!(said.contains("nothing of it is shown"), "{said}");
    }
}

#[test]
fn without_a_program_the_parse_runs_here_and_a_missing_one_is_an_error() {
    let here = Parsers::in_process();
    assert_eq!(
        here.run(("mine", |input, _| Ok(input.to_vec())), b"hi", &[]),
        Ok(b"hi".to_vec())
    );
    let missing = Parsers::child(PathBuf::from("/nonexistent/rein"));
    assert!(matches!(
        missing.run(named("echo"), b"x", &[]),
        Err(BoundedError::Start { .. })
    ));
}

/// Six parses asked at once run at most two at a time: whenever one starts, at most one other
/// has started and not ended.
#[test]
fn at_most_two_children_parse_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let parsers = Parsers::child(helper()).with_limits(small());
    let folder = dir.path().display().to_string();
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let (parsers, folder) = (parsers.clone(), folder.clone());
            std::thread::spawn(move || parsers.run(named("pause"), b"", &[folder]))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), Ok(Vec::new()));
    }
    let mut marks: Vec<(std::time::SystemTime, bool)> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let start = e.file_name().to_string_lossy().starts_with("start");
            (e.metadata().unwrap().modified().unwrap(), start)
        })
        .collect();
    assert_eq!(marks.len(), 12);
    // Ends before starts at the same instant: a slot is given back before the next is taken.
    marks.sort_by_key(|(at, start)| (*at, *start));
    let mut running = 0i32;
    for (_, start) in marks {
        running += if start { 1 } else { -1 };
        assert!(running <= bounded_at_once(), "{running} at once");
    }
}

fn bounded_at_once() -> i32 {
    rein_sandbox::bounded::AT_ONCE as i32
}
