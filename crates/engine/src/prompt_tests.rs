use super::*;
use pretty_assertions::assert_eq;
use std::fs;

fn git_branch_of(dir: &Path) -> Option<String> {
    git_branch(dir, &mut Vec::new())
}

fn guard_for(dir: &Path) -> rein_tools::WorkspaceGuard {
    rein_tools::WorkspaceGuard::new(dir).unwrap()
}

fn env_for(dir: &Path) -> Environment {
    Environment {
        cwd: dir.to_path_buf(),
        os: "linux".into(),
        date: "2026-11-22".into(),
        git_branch: git_branch(dir, &mut Vec::new()),
        warnings: Vec::new(),
    }
}

#[test]
fn prompt_names_the_environment_and_guides_only_offered_tools() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .tools(vec!["read_file".into(), "mystery".into()])
        .build();
    let text = prompt.as_str();
    assert!(text.contains(&format!("- Working directory: {}", dir.path().display())));
    assert!(text.contains("- Date: 2026-11-22"));
    assert!(text.contains("- Not a git repository"));
    assert!(text.contains("read_file: numbered lines"));
    assert!(!text.contains("bash: runs"));
    assert!(!text.contains("Project instructions"));
}

#[test]
fn agents_md_wins_over_claude_md() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
    fs::write(dir.path().join("CLAUDE.md"), "Use spaces.\n").unwrap();
    let text = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .build()
        .0;
    assert!(text.contains("# Project instructions (AGENTS.md)"));
    assert!(text.contains("Use tabs."));
    assert!(!text.contains("Use spaces."));
}

#[test]
fn claude_md_is_the_fallback_memory_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("CLAUDE.md"), "Use spaces.\n").unwrap();
    let text = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .build()
        .0;
    assert!(text.contains("# Project instructions (CLAUDE.md)\n"));
    assert!(text.contains("Use spaces."));
}

#[test]
fn huge_memory_file_is_cut_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("AGENTS.md"), "é".repeat(30_000)).unwrap();
    let text = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .build()
        .0;
    assert!(text.len() < MEMORY_FILE_CAP + 2_000);
    assert!(text.contains("[... cut: the file has 60000 bytes ...]"));
}

#[test]
fn the_lean_profile_opens_shortly_leaves_guidance_out_and_cuts_memory_files_lower() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("AGENTS.md"), "Use tabs. ".repeat(1_000)).unwrap();
    let build = |profile| {
        SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
            .tools(vec!["bash".into(), "read_file".into()])
            .profile(profile)
            .build()
            .0
    };
    let full = build(ToolsProfile::Full);
    let lean = build(ToolsProfile::Lean);
    assert!(full.contains("read_file: numbered lines"));
    assert!(!lean.contains("read_file: numbered lines"), "{lean}");
    assert!(lean.starts_with(LEAN_IDENTITY));
    assert!(full.contains(&"Use tabs. ".repeat(999)));
    assert!(
        lean.contains("[... cut for a small context window; the whole file is AGENTS.md ...]"),
        "{lean}"
    );
    assert!(lean.len() < LEAN_MEMORY_CAP + 1_000, "{}", lean.len());
    // A subagent's own opening stays in the lean profile.
    let subagent = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .identity("You explore.")
        .profile(ToolsProfile::Lean)
        .build()
        .0;
    assert!(subagent.starts_with("You explore.\n"), "{subagent}");
}

#[test]
fn git_branch_is_read_from_head_including_worktrees_and_detached_heads() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join("src/deep")).unwrap();
    fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
    assert_eq!(
        git_branch_of(&repo.join("src/deep")),
        Some("feature/x".into())
    );

    fs::write(repo.join(".git/HEAD"), "0123456789abcdef\n").unwrap();
    assert_eq!(git_branch_of(&repo), Some("(detached at 01234567)".into()));

    let worktree = dir.path().join("wt");
    fs::create_dir_all(dir.path().join("gitdata")).unwrap();
    fs::create_dir_all(&worktree).unwrap();
    fs::write(worktree.join(".git"), "gitdir: ../gitdata\n").unwrap();
    fs::write(dir.path().join("gitdata/HEAD"), "ref: refs/heads/main\n").unwrap();
    assert_eq!(git_branch_of(&worktree), Some("main".into()));
}

#[test]
fn base_prompt_stays_lean() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
        .tools(vec!["bash".into(), "read_file".into()])
        .build();
    // Sent on every request: keep identity + environment + guidance under 2 KB.
    assert!(
        prompt.len() < 2_048,
        "system prompt is {} bytes",
        prompt.len()
    );
}

#[test]
fn prompt_and_tool_specs_stay_lean() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["claude-sonnet-4-5", "gpt-5"] {
        let tools = rein_tools::ToolRegistry::for_model(model);
        let prompt = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()))
            .tools(tools.names())
            .build();
        let specs = serde_json::to_string(&tools.specs()).unwrap();
        let total = prompt.len() + specs.len();
        println!(
            "{model}: system prompt {} bytes + tool specs {} bytes = {total}",
            prompt.len(),
            specs.len()
        );
        // What every request carries before the conversation, with todo_write, skill and task
        // offered: at most 12.5 KB (about 3k tokens; 12 KB before `repo_map`); GPT models
        // 12.75 KB, since they carry codex's `exec_command` beside `bash` (the mock scenarios
        // and benchmarks drive `bash` with every provider).
        let budget = if rein_tools::codex_trained(model) {
            12_750
        } else {
            12_500
        };
        assert!(total < budget, "{model}: {total} bytes");
    }
}

#[test]
fn the_users_own_memory_file_is_included_before_the_projects() {
    let user = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(user.path().join("AGENTS.md"), "Always answer in English.").unwrap();
    std::fs::write(ws.path().join("CLAUDE.md"), "Use tabs.").unwrap();
    let prompt = SystemPromptBuilder::new(env_for(ws.path()), &guard_for(ws.path()))
        .user_memory(user.path())
        .build();
    let text = prompt.as_str();
    let user_at = text.find("Always answer in English.").unwrap();
    let project_at = text.find("Use tabs.").unwrap();
    assert!(user_at < project_at);
    assert!(text.contains("# The user's instructions ("));
}

#[test]
fn a_memory_file_that_is_not_a_small_regular_file_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    nix::unistd::mkfifo(&dir.path().join("AGENTS.md"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    fs::write(dir.path().join("CLAUDE.md"), "Use tabs.").unwrap();
    let builder = SystemPromptBuilder::new(env_for(dir.path()), &guard_for(dir.path()));
    assert_eq!(
        builder.warnings(),
        [format!(
            "memory file not read: {}/AGENTS.md is a FIFO, not a regular file",
            dir.path().display()
        )]
    );
    // The fallback is still read.
    assert!(builder.build().0.contains("Use tabs."));
}

#[test]
fn a_git_head_that_is_not_a_regular_file_gives_no_branch_and_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join(".git/HEAD")).unwrap();
    let mut warnings = Vec::new();
    assert_eq!(git_branch(dir.path(), &mut warnings), None);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(".git/HEAD is a character device"));
}

#[test]
fn a_memory_file_leading_where_tools_may_not_read_is_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let ws = dir.path();
    fs::write(outside.path().join("id_rsa"), "PRIVATE KEY").unwrap();
    fs::write(ws.join(".env"), "TOKEN=secret").unwrap();
    std::os::unix::fs::symlink(outside.path().join("id_rsa"), ws.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink(".env", ws.join("CLAUDE.md")).unwrap();
    let builder = SystemPromptBuilder::new(env_for(ws), &guard_for(ws));
    assert_eq!(builder.warnings().len(), 2, "{:?}", builder.warnings());
    assert!(builder.warnings()[0].contains("leads outside"));
    assert!(builder.warnings()[1].contains("off limits"));
    let text = builder.build().0;
    assert!(
        !text.contains("PRIVATE KEY") && !text.contains("TOKEN"),
        "{text}"
    );
    assert!(!text.contains("# Project instructions"));
    // Inside the workspace, a link to another memory file is still followed.
    fs::remove_file(ws.join("CLAUDE.md")).unwrap();
    fs::write(ws.join("docs.md"), "Use tabs.").unwrap();
    std::os::unix::fs::symlink("docs.md", ws.join("CLAUDE.md")).unwrap();
    let text = SystemPromptBuilder::new(env_for(ws), &guard_for(ws))
        .build()
        .0;
    assert!(text.contains("Use tabs."), "{text}");
}

#[test]
fn the_project_memory_brings_in_what_it_imports() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("CLAUDE.md"), "@docs/rules.md\nMore rules.").unwrap();
    std::fs::create_dir(ws.path().join("docs")).unwrap();
    std::fs::write(ws.path().join("docs/rules.md"), "Never push to main.").unwrap();
    let prompt = SystemPromptBuilder::new(env_for(ws.path()), &guard_for(ws.path())).build();
    assert!(
        prompt
            .as_str()
            .contains("## Imported from @docs/rules.md\n\nNever push to main."),
        "{}",
        prompt.as_str()
    );
}
