//! Custom commands and skills through the binary: found where Claude Code keeps them (the
//! workspace's only once it is trusted, the user's always), typed as `/name args`.

use crate::support::*;

const HELLO: &str = "---\ndescription: say hello\n---\nSay hello to $1 from $2.\n";
const GREET: &str = "---\nname: greet\ndescription: Greets people politely.\n---\nBow first.\n";

fn workspace_with_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join(".claude/commands");
    let skill = dir.path().join(".claude/skills/greet");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(commands.join("hello.md"), HELLO).unwrap();
    std::fs::write(skill.join("SKILL.md"), GREET).unwrap();
    dir
}

#[tokio::test]
async fn a_trusted_workspaces_command_and_skill_are_used() {
    let dir = workspace_with_files();
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "/hello rein tests");
    cmd.env("HOME", dir.path().join("home"));
    cmd.arg("--trust-workspace");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = server.requests()[0].body.to_string();
    assert!(body.contains("Say hello to rein from tests."), "{body}");
    assert!(body.contains("- greet: Greets people politely."), "{body}");
}

#[tokio::test]
async fn an_untrusted_workspaces_commands_and_skills_are_held_back_but_the_users_load() {
    let dir = workspace_with_files();
    let home = dir.path().join("home");
    let user_skill = home.join(".claude/skills/tidy");
    std::fs::create_dir_all(&user_skill).unwrap();
    std::fs::write(
        user_skill.join("SKILL.md"),
        "---\ndescription: Tidies imports.\n---\nSort them.\n",
    )
    .unwrap();
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut cmd = exec_in(dir.path(), &server, "default", "/hello rein tests");
    cmd.env("HOME", &home);
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("commands are not loaded"), "{stderr}");
    assert!(stderr.contains("skills are not loaded"), "{stderr}");
    let body = server.requests()[0].body.to_string();
    assert!(body.contains("/hello rein tests"), "sent as typed: {body}");
    assert!(!body.contains("Say hello to"), "{body}");
    assert!(!body.contains("- greet:"), "{body}");
    assert!(body.contains("- tidy: Tidies imports."), "{body}");
}

#[tokio::test]
async fn a_trusted_workspaces_files_linked_to_the_users_secrets_are_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = dir.path();
    // Secrets shaped as definitions, so that read they would show in the catalogs.
    let secret = |word: &str| format!("---\nname: {word}\ndescription: {word}\n---\n{word}\n");
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".git-credentials"), secret("GITCREDS")).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), secret("SSHKEY")).unwrap();
    for folder in [".claude/skills/creds", ".claude/agents"] {
        std::fs::create_dir_all(ws.join(folder)).unwrap();
    }
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(home.path().join(target), ws.join(at)).unwrap()
    };
    link(".git-credentials", ".claude/skills/creds/SKILL.md");
    link(".ssh/id_rsa", ".claude/agents/x.md");
    link(".ssh/id_rsa", "CLAUDE.md");
    let server = mock(r#"{"turns": [{"text": "hi"}]}"#).await;
    let mut cmd = exec_in(ws, &server, "default", "hello");
    cmd.env("HOME", home.path());
    cmd.arg("--trust-workspace");
    let out = output(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = server.requests()[0].body.to_string();
    assert!(
        !body.contains("GITCREDS") && !body.contains("SSHKEY"),
        "{body}"
    );
    let stderr = text(&out.stderr);
    for named in [".claude/skills/creds/SKILL.md", ".claude/agents/x.md"] {
        let named = ws.join(named).display().to_string();
        assert!(
            stderr.contains(&format!("{named} leads outside")),
            "{stderr}"
        );
    }
}
