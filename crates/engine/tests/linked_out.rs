//! Files read for the prompt that lead out of their folder: a trusted workspace's skill,
//! command, agent definition or memory file linked (or hard-linked) to the user's secrets.
//! Each loader skips it with a warning naming the file, and the secret is nowhere in what it
//! returns.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use rein_engine::subagents::built_in;
use rein_tools::{PromptFiles, SensitivePaths, ToolRegistry};

const SECRET: &str = "SECRET-CREDENTIAL-0451";

/// A workspace and, beside it, a folder of secrets the sensitive list names (like `~/.ssh`).
struct Attack {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    ws: PathBuf,
    secrets: PathBuf,
}

impl Attack {
    fn new() -> Self {
        let ws = tempfile::tempdir().unwrap();
        let secrets = tempfile::tempdir().unwrap();
        let secret = format!("---\nname: stolen\ndescription: {SECRET}\n---\n{SECRET}\n");
        std::fs::write(secrets.path().join("id_rsa"), &secret).unwrap();
        std::fs::create_dir(secrets.path().join("folder")).unwrap();
        std::fs::write(secrets.path().join("folder/SKILL.md"), &secret).unwrap();
        Self {
            ws: ws.path().canonicalize().unwrap(),
            secrets: secrets.path().canonicalize().unwrap(),
            _dirs: (ws, secrets),
        }
    }

    fn sensitive(&self) -> SensitivePaths {
        SensitivePaths::new([self.secrets.to_string_lossy().as_ref()], None).unwrap()
    }

    fn files(&self) -> PromptFiles {
        PromptFiles::new([self.ws.clone()], self.sensitive())
    }

    /// Creates the folders of `path` (below the workspace) and links it to `target`.
    fn link(&self, path: &str, target: &Path) -> PathBuf {
        let path = self.ws.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, &path).unwrap();
        path
    }

    /// What the commands and skills of `.claude/` give: the catalog's text and the warnings.
    fn commands(&self) -> (String, Vec<String>) {
        let claude = self.ws.join(".claude");
        let loaded = rein_engine::commands::load(
            &[claude.join("commands")],
            &[claude.join("skills")],
            &self.files(),
        );
        let text = format!("{:?}", loaded.catalog.all());
        (text, loaded.warnings)
    }

    /// What the agent definitions of `.claude/agents` give.
    fn agents(&self) -> (String, Vec<String>) {
        let dirs = [self.ws.join(".claude/agents")];
        let loaded = rein_engine::subagents::load(built_in(None), &dirs, &self.files());
        (format!("{:?}", loaded.definitions), loaded.warnings)
    }

    /// The system prompt of an agent in the workspace, and its notices.
    fn prompt(&self) -> (String, Vec<String>) {
        let mut config = rein_engine::AgentConfig::new("claude-sonnet-4-5", self.ws.clone());
        let secrets = self.secrets.to_string_lossy();
        let patterns = rein_tools::DEFAULT_SENSITIVE.iter().copied();
        config.sensitive = Some(
            rein_tools::SensitivePaths::new(patterns.chain([secrets.as_ref()]), None).unwrap(),
        );
        let agent =
            rein_engine::Agent::new(never_called(), ToolRegistry::builtin(), config).unwrap();
        (
            agent.system_prompt().as_str().to_string(),
            agent.notices().to_vec(),
        )
    }
}

/// A client that is never called: building the prompt asks no model.
fn never_called() -> std::sync::Arc<dyn rein_llm::ModelClient> {
    rein_llm::connect(rein_llm::ProviderConfig::new(
        rein_llm::ProviderKind::Anthropic,
        "http://127.0.0.1:9",
        Some("test-key".into()),
        "TEST_KEY",
    ))
}

/// Reads what a loader returns: its text and its warnings.
type Loader = fn(&Attack) -> (String, Vec<String>);
/// Plants the attack; returns the path the warning must name.
type Plant = fn(&Attack) -> PathBuf;

#[test]
fn prompt_files_linked_out_of_the_workspace_are_skipped_and_named() {
    // (case, the file planted, the loader, the path the warning names)
    let cases: [(&str, Plant, Loader); 9] = [
        (
            "skill SKILL.md linked out",
            |a| a.link(".claude/skills/x/SKILL.md", &a.secrets.join("id_rsa")),
            Attack::commands,
        ),
        (
            "skill folder linked out",
            |a| {
                a.link(".claude/skills/x", &a.secrets.join("folder"));
                a.ws.join(".claude/skills/x/SKILL.md")
            },
            Attack::commands,
        ),
        (
            "command file linked out",
            |a| a.link(".claude/commands/x.md", &a.secrets.join("id_rsa")),
            Attack::commands,
        ),
        (
            "commands folder linked out",
            |a| {
                std::fs::rename(
                    a.secrets.join("folder/SKILL.md"),
                    a.secrets.join("folder/x.md"),
                )
                .unwrap();
                a.link(".claude/commands", &a.secrets.join("folder"));
                a.ws.join(".claude/commands/x.md")
            },
            Attack::commands,
        ),
        (
            "agent file linked out",
            |a| a.link(".claude/agents/x.md", &a.secrets.join("id_rsa")),
            Attack::agents,
        ),
        (
            "agents folder linked out",
            |a| {
                std::fs::rename(
                    a.secrets.join("folder/SKILL.md"),
                    a.secrets.join("folder/x.md"),
                )
                .unwrap();
                a.link(".claude/agents", &a.secrets.join("folder"));
                a.ws.join(".claude/agents/x.md")
            },
            Attack::agents,
        ),
        (
            "memory file linked out",
            |a| a.link("CLAUDE.md", &a.secrets.join("id_rsa")),
            Attack::prompt,
        ),
        (
            "memory import linked out",
            |a| {
                std::fs::write(a.ws.join("AGENTS.md"), "Rules: @docs/keys.md\n").unwrap();
                a.link("docs/keys.md", &a.secrets.join("id_rsa"))
            },
            Attack::prompt,
        ),
        (
            "skill SKILL.md hard-linked to a secret",
            |a| {
                let path = a.ws.join(".claude/skills/x/SKILL.md");
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::hard_link(a.secrets.join("id_rsa"), &path).unwrap();
                path
            },
            Attack::commands,
        ),
    ];
    for (case, plant, loader) in cases {
        let attack = Attack::new();
        let named = plant(&attack);
        let (text, warnings) = loader(&attack);
        assert!(
            !text.contains(SECRET),
            "{case}: the secret was read: {text}"
        );
        let named = named.display().to_string();
        assert!(
            warnings.iter().any(|w| w.contains(&named)),
            "{case}: no warning names {named}: {warnings:?}"
        );
    }
}

#[test]
fn links_that_stay_inside_the_workspace_are_still_followed() {
    let attack = Attack::new();
    let ws = &attack.ws;
    std::fs::create_dir_all(ws.join("shared")).unwrap();
    std::fs::write(
        ws.join("shared/review.md"),
        "---\nname: reviewer\ndescription: reviews\n---\nReview it.\n",
    )
    .unwrap();
    attack.link(".claude/agents/reviewer.md", &ws.join("shared/review.md"));
    attack.link(".claude/commands/review.md", &ws.join("shared/review.md"));
    let (agents, warnings) = attack.agents();
    assert!(agents.contains("Review it."), "{agents}");
    assert_eq!(warnings, Vec::<String>::new());
    let (commands, warnings) = attack.commands();
    assert!(commands.contains("Review it."), "{commands}");
    assert_eq!(warnings, Vec::<String>::new());
}
