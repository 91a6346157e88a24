//! Files the engine reads on its own (memory files, `.git/HEAD`) that are not small regular
//! files: a symlink to `/dev/zero`, a FIFO, a directory, a 10 MB file. Setting up and running
//! finish promptly, each is skipped, and the user is told which.

use std::path::Path;

use rein_protocol::{Event, RunOutcome};
use rein_tools::ToolRegistry;
use tokio_util::sync::CancellationToken;

use crate::support::*;

fn fifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
}

fn huge(path: &Path) {
    // Sparse: ten megabytes that take no disk.
    std::fs::File::create(path)
        .unwrap()
        .set_len(10 * 1024 * 1024)
        .unwrap();
}

fn errors(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Error { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn special_memory_files_and_git_head_are_skipped_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    fifo(&ws.join("AGENTS.md"));
    huge(&ws.join("CLAUDE.md"));
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join(".git/HEAD")).unwrap();
    std::fs::create_dir_all(ws.join("sub/AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join("sub/CLAUDE.md")).unwrap();
    std::fs::write(ws.join("sub/x.txt"), "x\n").unwrap();
    let server = mock(
        r#"{"turns": [
          {"tool_calls": [{"name": "read_file", "arguments": {"path": "sub/x.txt"}}]},
          {"text": "done"}
        ]}"#,
    )
    .await;

    let mut config = rein_engine::AgentConfig::new("claude-sonnet-4-5", ws.to_path_buf());
    config.policy.mode = rein_policy::PermissionMode::Bypass;
    let client = client(rein_llm::ProviderKind::Anthropic, &server);
    let mut agent = rein_testkit::without_hanging("set-up", move || {
        rein_engine::Agent::new(client, ToolRegistry::builtin(), config).unwrap()
    });
    let prompt = agent.system_prompt().as_str().to_string();
    assert!(!prompt.contains("Project instructions"), "{prompt}");
    assert!(prompt.contains("Not a git repository"), "{prompt}");
    assert_eq!(agent.notices().len(), 3, "{:?}", agent.notices());

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let summary = tokio::time::timeout(
        rein_testkit::HANG_LIMIT,
        agent.run("go", &tx, CancellationToken::new()),
    )
    .await
    .expect("the run hung");
    assert_eq!(summary.outcome, RunOutcome::Completed, "{summary:?}");
    let d = ws.display();
    assert_eq!(
        errors(&drain(&mut rx)),
        vec![
            format!("git branch not read: {d}/.git/HEAD is a character device, not a regular file"),
            format!("memory file not read: {d}/AGENTS.md is a FIFO, not a regular file"),
            format!(
                "memory file not read: {d}/CLAUDE.md is larger than 256 KiB (the most rein reads \
                 of it)"
            ),
            format!("memory file not read: {d}/sub/AGENTS.md is a directory, not a regular file"),
            // A link out of the workspace is refused before it is opened.
            format!(
                "memory file not read: {d}/sub/CLAUDE.md leads outside {d} (a symbolic link on \
                 the way points out of it); rein reads no prompt file from elsewhere"
            ),
        ]
    );
    // Said once: the next run does not repeat them.
    assert!(agent.notices().is_empty());
}
