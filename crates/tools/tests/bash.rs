#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use rein_tools::{Bash, ToolContext, ToolOutput, TypedTool, WorkspaceGuard};
use serde_json::json;

use crate::support::{Workspace, assert_all_die, pids};

#[tokio::test]
async fn echo_returns_its_output() {
    let ws = Workspace::new();
    let out = ws.call("bash", json!({"command": "echo hello"})).await;
    assert_eq!(out, ToolOutput::ok("hello\n"));
}

#[tokio::test]
async fn silent_success_says_there_was_no_output() {
    let ws = Workspace::new();
    let out = ws.call("bash", json!({"command": "true"})).await;
    assert_eq!(out, ToolOutput::ok("(no output)"));
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_the_code_and_the_output() {
    let ws = Workspace::new();
    let out = ws
        .call("bash", json!({"command": "echo before; exit 3"}))
        .await;
    assert_eq!(out, ToolOutput::error("before\n[exit code 3]"));
}

#[tokio::test]
async fn exit_code_is_the_last_commands_even_after_cd() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    let out = ws.call("bash", json!({"command": "cd sub && false"})).await;
    assert_eq!(out, ToolOutput::error("[exit code 1]"));
}

#[tokio::test]
async fn stderr_is_captured_in_order_with_stdout() {
    let ws = Workspace::new();
    let out = ws
        .call(
            "bash",
            json!({"command": "echo one; echo two >&2; echo three; echo four >&2"}),
        )
        .await;
    assert_eq!(out, ToolOutput::ok("one\ntwo\nthree\nfour\n"));
}

#[tokio::test]
async fn stdin_is_closed() {
    let ws = Workspace::new();
    let out = ws.call("bash", json!({"command": "cat; echo done"})).await;
    assert_eq!(out, ToolOutput::ok("done\n"));
}

#[tokio::test]
async fn claude_codes_timeout_argument_is_taken_as_timeout_ms() {
    let ws = Workspace::new();
    let out = ws
        .call("bash", json!({"command": "sleep 30", "timeout": 300}))
        .await;
    assert!(
        out.text.starts_with("[timed out after 0.3 s"),
        "{}",
        out.text
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let ws = Workspace::new();
    let started = Instant::now();
    let out = ws
        .call(
            "bash",
            json!({
                "command": "sleep 100 & echo bg=$!; sh -c 'echo fg=$$; exec sleep 100'",
                "timeout_ms": 500
            }),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(5), "{out:?}");
    assert!(out.is_error);
    assert!(
        out.text
            .ends_with("[timed out after 0.5 s; the command and its child processes were killed]"),
        "{}",
        out.text
    );
    let (bg, fg) = (pids(&out.text, "bg"), pids(&out.text, "fg"));
    assert_eq!((bg.len(), fg.len()), (1, 1), "{}", out.text);
    assert_all_die(&[bg[0], fg[0]]).await;
}

#[tokio::test]
async fn cancellation_kills_the_process_group_and_says_interrupted() {
    let ws = Workspace::new();
    let cancel = ws.ctx.cancel.clone();
    // Cancelled once the command says it has started, however long that takes.
    let marker = ws.root.join("started");
    let canceller = tokio::spawn(async move {
        while !marker.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        cancel.cancel();
    });
    let out = ws
        .call(
            "bash",
            json!({"command": "sleep 100 & echo bg=$!; echo started; touch started; sleep 100"}),
        )
        .await;
    canceller.await.unwrap();
    assert!(out.is_error);
    assert!(out.text.contains("started\n"), "{}", out.text);
    assert!(
        out.text.ends_with(
            "[interrupted by the user; the command and its child processes were killed]"
        ),
        "{}",
        out.text
    );
    assert_all_die(&pids(&out.text, "bg")).await;
}

#[tokio::test]
async fn background_child_holding_the_pipe_does_not_hang_the_call() {
    let ws = Workspace::new();
    let started = Instant::now();
    let out = ws
        .call(
            "bash",
            json!({"command": "sleep 30 & echo bg=$!; echo done", "timeout_ms": 20000}),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(5), "{out:?}");
    assert!(!out.is_error, "{out:?}");
    assert!(out.text.ends_with("done\n"), "{}", out.text);
    // Left running by design (a server started with `&`); clean up after the test.
    for pid in pids(&out.text, "bg") {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
}

#[tokio::test]
async fn working_directory_persists_across_calls() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.root.join("sub/deeper")).unwrap();
    let first = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(first, ToolOutput::ok(format!("{}\n", ws.root.display())));
    let cd = ws.call("bash", json!({"command": "cd sub"})).await;
    assert_eq!(cd, ToolOutput::ok("(no output)"));
    let pwd = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(
        pwd,
        ToolOutput::ok(format!("{}\n", ws.root.join("sub").display()))
    );
    let failed = ws
        .call("bash", json!({"command": "cd deeper; exit 4"}))
        .await;
    assert!(failed.is_error);
    let pwd = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(
        pwd,
        ToolOutput::ok(format!("{}\n", ws.root.join("sub/deeper").display()))
    );
}

#[tokio::test]
async fn cd_outside_the_workspace_is_not_carried_over() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    ws.call("bash", json!({"command": "cd sub"})).await;
    let outside = ws.outside.display().to_string();
    let out = ws
        .call("bash", json!({"command": format!("cd {outside} && pwd")}))
        .await;
    assert_eq!(
        out,
        ToolOutput::ok(format!(
            "{outside}\n[note: the command ended in {outside}, outside the workspace; \
             the working directory stays sub]"
        ))
    );
    let pwd = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(
        pwd,
        ToolOutput::ok(format!("{}\n", ws.root.join("sub").display()))
    );
}

#[tokio::test]
async fn removed_working_directory_falls_back_to_the_root_with_a_note() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("gone")).unwrap();
    ws.call("bash", json!({"command": "cd gone"})).await;
    std::fs::remove_dir(ws.root.join("gone")).unwrap();
    let out = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(
        out,
        ToolOutput::ok(format!(
            "{}\n[note: the working directory gone no longer exists; ran in the workspace root]",
            ws.root.display()
        ))
    );
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let ws = Workspace::new();
    let out = ws.call("bash", json!({"command": "seq 1 100000"})).await;
    assert!(!out.is_error);
    assert!(out.text.starts_with("1\n2\n3\n"), "{}", &out.text[..50]);
    assert!(out.text.ends_with("99999\n100000\n"));
    // seq 1 100000 prints 588895 bytes; what the budget leaves for content is kept.
    let kept = ws.ctx.budget.content_room();
    let marker = format!("\n[... {} bytes omitted ...]\n", 588_895 - kept);
    assert!(out.text.contains(&marker), "{marker}");
    assert!(out.text.len() <= rein_tools::DEFAULT_OUTPUT_LIMIT);
}

#[tokio::test]
async fn output_limit_is_configurable() {
    let ws = Workspace::new();
    let bash = Bash::with_output_limit(10);
    let ctx = ToolContext::new(WorkspaceGuard::new(&ws.root).unwrap());
    let args = serde_json::from_value(json!({"command": "printf 0123456789abcdefghij"})).unwrap();
    let out = bash.run(args, &ctx).await;
    assert_eq!(
        (out.text.as_str(), out.is_error),
        ("01234\n[... 10 bytes omitted ...]\nfghij", false)
    );
}

#[tokio::test]
async fn cut_output_is_saved_in_full_and_the_result_names_the_file() {
    let ws = Workspace::new();
    let saved_dir = ws.outside.join("outputs");
    let ctx = ToolContext {
        budget: rein_tools::OutputBudget::new(2_000, Some(saved_dir.clone())),
        ..ws.ctx.clone()
    };
    let small = ws
        .registry
        .call("bash", json!({"command": "echo small"}), &ctx)
        .await;
    assert_eq!(small.text, "small\n");
    let big = ws
        .registry
        .call("bash", json!({"command": "seq 1 100000"}), &ctx)
        .await;
    assert!(big.text.len() <= 2_000, "{}", big.text.len());
    let files: Vec<_> = std::fs::read_dir(&saved_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "only the cut output is kept: {files:?}");
    assert!(
        big.text.contains(&format!(
            "the full output is saved in {}",
            files[0].display()
        )),
        "{}",
        big.text
    );
    let full = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(full.len(), 588_895);
    assert!(full.starts_with("1\n2\n") && full.ends_with("99999\n100000\n"));
}

/// Live output reports, each with the time it came.
type Reports = Arc<Mutex<Vec<(Instant, String)>>>;

/// A context whose live output is recorded with the time it came.
fn recording(ws: &crate::support::Workspace) -> (ToolContext, Reports) {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let ctx = ToolContext {
        progress: Some(rein_tools::Progress::new(move |text| {
            sink.lock()
                .unwrap()
                .push((Instant::now(), text.to_string()));
        })),
        ..ws.ctx.clone()
    };
    (ctx, reports)
}

#[tokio::test]
async fn live_output_of_a_chatty_command_is_coalesced_and_ends_with_its_last_line() {
    let ws = Workspace::new();
    let (ctx, reports) = recording(&ws);
    let started = Instant::now();
    ws.registry
        .call("bash", json!({"command": "seq 1 300000"}), &ctx)
        .await;
    let took = started.elapsed();
    let reports = reports.lock().unwrap();
    // About 2 MB arrive in 16 KiB reads: over a hundred of them, but at most one report per
    // tenth of a second (plus the first and the last).
    let allowed = usize::try_from(took.as_millis() / 100).unwrap() + 2;
    assert!(
        reports.len() <= allowed,
        "{} reports in {took:?}",
        reports.len()
    );
    for (_, text) in reports.iter() {
        assert!(text.len() <= 4096, "{}", text.len());
        let rest = text.strip_prefix('\n').unwrap_or(text);
        assert!(
            rest.starts_with(|c: char| c.is_ascii_digit()),
            "whole lines: {text:?}"
        );
    }
    let last = &reports.last().expect("live output").1;
    assert!(last.ends_with("299999\n300000\n"), "{last:?}");
}

#[tokio::test]
async fn live_output_of_a_line_longer_than_a_report_still_shows_its_end() {
    let ws = Workspace::new();
    let (ctx, reports) = recording(&ws);
    let command = r"head -c 40000 /dev/zero | tr '\0' x; echo";
    ws.registry
        .call("bash", json!({ "command": command }), &ctx)
        .await;
    let reports = reports.lock().unwrap();
    let all: String = reports.iter().map(|(_, text)| text.as_str()).collect();
    assert!(all.ends_with("xxxx\n"), "{all:?}");
}

#[tokio::test]
async fn live_output_held_back_is_reported_while_the_command_still_runs() {
    let ws = Workspace::new();
    let (ctx, reports) = recording(&ws);
    // The command waits for `go`, which the test creates only once "second" was reported: a
    // report held back until the end would leave the command waiting until its timeout.
    let go = ws.root.join("go");
    let watcher = {
        let reports = Arc::clone(&reports);
        tokio::spawn(async move {
            while !reports
                .lock()
                .unwrap()
                .iter()
                .any(|(_, t)| t.contains("second"))
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            std::fs::write(go, "").unwrap();
        })
    };
    let out = ws
        .registry
        .call(
            "bash",
            json!({
                "command": "echo first; sleep 0.02; echo second; while [ ! -e go ]; do sleep 0.02; done; echo done",
                "timeout_ms": 20000
            }),
            &ctx,
        )
        .await;
    watcher.await.unwrap();
    assert!(!out.is_error, "{}", out.text);
    assert!(out.text.ends_with("done\n"), "{}", out.text);
}

#[tokio::test]
async fn nothing_the_command_sets_decides_where_rein_writes_or_which_folder_it_follows() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    let planted = ws.outside.join("planted");
    let outside = ws.outside.display().to_string();
    let lines = [
        // The old report file's variable, and the shell's own PWD, set by the command.
        format!("__REIN_CWD_FILE={} ; PWD={outside}", planted.display()),
        format!("export __REIN_CWD_FILE={}; true", planted.display()),
        // A forged report written early: the trap's own report comes last and wins.
        format!("printf '%s\\0' {outside} >&77"),
    ];
    for line in &lines {
        let out = ws.call("bash", json!({ "command": line })).await;
        assert!(!out.is_error, "{line}: {}", out.text);
        assert!(!out.text.contains("[note"), "{line}: {}", out.text);
        assert!(!planted.exists(), "{line} wrote {}", planted.display());
        let pwd = ws.call("bash", json!({"command": "pwd"})).await;
        assert_eq!(pwd.text, format!("{}\n", ws.root.display()), "{line}");
    }
    // A trap of the command's own that reports outside: not followed, and said.
    let out = ws
        .call(
            "bash",
            json!({"command": format!("trap \"printf '%s\\0' {outside} >&77\" EXIT")}),
        )
        .await;
    assert!(out.text.contains("outside the workspace"), "{}", out.text);
    let pwd = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(pwd.text, format!("{}\n", ws.root.display()));
    // Nor a report of a file, or of a path that is not absolute.
    for fake in ["sub", "/dev/null"] {
        let out = ws
            .call(
                "bash",
                json!({"command": format!("trap \"printf '%s\\0' {fake} >&77\" EXIT")}),
            )
            .await;
        assert!(out.text.contains("[note"), "{fake}: {}", out.text);
    }
    assert!(!planted.exists());
}

#[tokio::test]
async fn a_background_process_holding_the_report_pipe_does_not_hold_up_the_call() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    let out = ws
        .call(
            "bash",
            json!({"command": "(sleep 30 >/dev/null 2>&1 &); cd sub && echo moved"}),
        )
        .await;
    assert_eq!(out.text, "moved\n");
    let pwd = ws.call("bash", json!({"command": "pwd"})).await;
    assert_eq!(pwd.text, format!("{}\n", ws.root.join("sub").display()));
    let _ = std::process::Command::new("pkill")
        .args(["-f", "^sleep 30$"])
        .status();
}

/// Processes whose command line is exactly `sleep <seconds>` for one of `seconds`.
fn sleeping(seconds: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
        if !zombie
            && seconds
                .iter()
                .any(|s| cmdline.trim_end() == format!("sleep {s}"))
        {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

#[tokio::test]
async fn a_timeout_kills_what_left_the_group_too() {
    let ws = Workspace::new();
    // A new session (setsid), and a double fork, both outliving the shell's group.
    let line = "setsid sleep 917.1 & ( ( sleep 917.2 & ) & ); setsid -f sleep 917.3; sleep 60";
    let out = ws
        .call("bash", json!({"command": line, "timeout_ms": 700}))
        .await;
    assert!(out.is_error);
    assert!(
        out.text
            .contains("the command and its child processes were killed"),
        "{}",
        out.text
    );
    let left = sleeping(&["917.1", "917.2", "917.3"]);
    assert!(left.is_empty(), "still running: {left:?}");
}

#[tokio::test]
async fn each_call_has_a_private_temp_folder_removed_when_it_ends() {
    let ws = Workspace::new();
    let out = ws
        .call(
            "bash",
            json!({"command": "echo $TMPDIR; echo spill > \"$TMPDIR/sort.tmp\"; sleep 30", "timeout_ms": 500}),
        )
        .await;
    let tmp = out.text.lines().next().unwrap().to_string();
    assert!(tmp.contains("rein-tmp-"), "{}", out.text);
    assert!(out.text.contains("timed out"), "{}", out.text);
    assert!(
        !std::path::Path::new(&tmp).exists(),
        "{tmp} was left behind"
    );
    // The next call gets a folder of its own.
    let next = ws.call("bash", json!({"command": "echo $TMPDIR"})).await;
    assert_ne!(next.text.trim(), tmp);
}

#[tokio::test]
async fn a_line_run_without_asking_has_a_memory_ceiling_and_others_do_not() {
    let mut ws = Workspace::new();
    let mut registry = rein_tools::ToolRegistry::new();
    registry.register(rein_tools::typed(
        rein_tools::Bash::new().with_read_only_memory(32 * 1024 * 1024),
    ));
    ws.registry = registry;
    // One 64 MiB line: sorting it needs more than the ceiling.
    std::fs::File::create(ws.root.join("big"))
        .unwrap()
        .set_len(64 * 1024 * 1024)
        .unwrap();
    let proven = ws
        .call("bash", json!({"command": "sort big | wc -c"}))
        .await;
    assert!(proven.text.contains("memory exhausted"), "{}", proven.text);
    // The same work in a line that needed the user's approval is not held back.
    let asked = ws
        .call(
            "bash",
            json!({"command": "sort big > sorted && wc -c < sorted"}),
        )
        .await;
    // (sort ends the one line with a newline.)
    assert_eq!(asked.text.trim(), "67108865", "{}", asked.text);
}
