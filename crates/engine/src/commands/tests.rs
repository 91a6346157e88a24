use super::*;
use pretty_assertions::assert_eq;

/// Each folder its own root, against the built-in sensitive list.
fn own_roots(dirs: &[PathBuf]) -> PromptFiles {
    PromptFiles::new(dirs.to_vec(), rein_tools::SensitivePaths::default())
}

fn fixtures(relative: &str) -> Option<PathBuf> {
    rein_testkit::conformance_dir(relative).unwrap()
}

#[test]
fn every_real_skill_loads_with_its_frontmatter_and_lists_its_files() {
    let Some(dir) = fixtures("agent-files/skills") else {
        return;
    };
    let loaded = load(
        &[],
        std::slice::from_ref(&dir),
        &own_roots(std::slice::from_ref(&dir)),
    );
    assert_eq!(loaded.warnings, Vec::<String>::new());
    let names: Vec<&str> = loaded
        .catalog
        .all()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "testing-patterns",
            "verify",
            "access",
            "claude-security",
            "example-command",
            "claude-api",
            "mcp-builder",
            "skill-creator",
            "theme-factory",
            "systematic-debugging"
        ]
    );
    let catalog = &loaded.catalog;
    for skill in catalog.all() {
        assert!(!skill.description.is_empty(), "{}", skill.name);
        assert!(!skill.body.is_empty(), "{}", skill.name);
        assert!(skill.description.chars().count() <= DESCRIPTION_CHARS + 1);
    }
    // `disable-model-invocation: true`: the user's only.
    assert!(catalog.model_skill("claude-security").is_none());
    assert!(catalog.user_command("claude-security").is_some());
    let security = catalog.user_command("claude-security").unwrap();
    assert!(
        security
            .allowed_tools
            .iter()
            .any(|t| t.starts_with("Agent(claude-security:scan-inventory, ")),
        "{:?}",
        security.allowed_tools
    );
    assert!(security.description.starts_with("The Claude Security menu"));
    let example = catalog.model_skill("example-command").unwrap();
    assert_eq!(
        example.argument_hint.as_deref(),
        Some("<required-arg> [optional-arg]")
    );
    assert_eq!(example.allowed_tools, ["Read", "Glob", "Grep", "Bash"]);
    // A block-scalar description is one line.
    let api = catalog.model_skill("claude-api").unwrap();
    assert!(!api.description.contains('\n'));
    assert!(api.body.len() > 60_000, "the large body is whole");

    let debugging = catalog.model_skill("systematic-debugging").unwrap();
    let info = debugging.skill.as_ref().unwrap();
    let text = skill_tool::skill_text(&debugging.body, &info.dir, "");
    assert!(text.starts_with(&format!(
        "Base directory for this skill: {}",
        info.dir.display()
    )));
    for sibling in ["root-cause-tracing.md", "defense-in-depth.md"] {
        assert!(
            text.contains(&info.dir.join(sibling).display().to_string()),
            "{text}"
        );
    }
    assert!(!text.contains(&info.dir.join("SKILL.md").display().to_string()));
    let builder = catalog.model_skill("mcp-builder").unwrap();
    let info = builder.skill.as_ref().unwrap();
    let text = skill_tool::skill_text(&builder.body, &info.dir, "");
    assert!(
        text.contains(
            &info
                .dir
                .join("reference/evaluation.md")
                .display()
                .to_string()
        )
    );
}

#[test]
fn every_real_command_loads_with_its_frontmatter() {
    let Some(dir) = fixtures("agent-files/commands") else {
        return;
    };
    let loaded = load(
        std::slice::from_ref(&dir),
        &[],
        &own_roots(std::slice::from_ref(&dir)),
    );
    assert_eq!(loaded.warnings, Vec::<String>::new());
    let catalog = &loaded.catalog;
    assert_eq!(catalog.all().len(), 14);
    let find = |suffix: &str| {
        catalog
            .all()
            .iter()
            .find(|c| c.name.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix}"))
    };
    let commit = find("__commit");
    assert_eq!(
        commit.allowed_tools,
        [
            "Bash(git add:*)",
            "Bash(git status:*)",
            "Bash(git commit:*)"
        ]
    );
    assert_eq!(commit.description, "Create a git commit");
    assert_eq!(
        shell_snippets(&commit.body).len(),
        4,
        "status, diff, branch, log"
    );
    // YAML refuses these; they load anyway.
    let cleanup = find("cleanup-cache");
    assert_eq!(
        cleanup.argument_hint.as_deref(),
        Some("[--aggressive] | [--maximum]")
    );
    assert!(cleanup.description.starts_with("Clean system caches"));
    let gemini = find("gemini-review");
    assert_eq!(gemini.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    let changelog = find("add-changelog");
    let refs: Vec<String> = at_references(&changelog.body)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    assert!(refs.contains(&"CHANGELOG.md".to_string()), "{refs:?}");
    // No frontmatter: the first line describes it.
    let plain = find("commit-and-pr");
    assert!(plain.description.starts_with("Let's commit the changes."));
    let business = find("business-case");
    assert_eq!(business.allowed_tools.len(), 8);
    let migrations = find("sql-migrations");
    assert!(
        migrations
            .description
            .starts_with("SQL database migrations")
    );
    let label = find("label-issue");
    assert_eq!(label.allowed_tools.len(), 2);
}

#[test]
fn nested_commands_are_namespaced_and_later_folders_win() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("git")).unwrap();
    std::fs::write(user.path().join("review.md"), "User review").unwrap();
    std::fs::write(project.path().join("review.md"), "Project review").unwrap();
    std::fs::write(project.path().join("git/commit.md"), "Commit $1").unwrap();
    let dirs = [user.path().into(), project.path().into()];
    let loaded = load(&dirs, &[], &own_roots(&dirs));
    let catalog = loaded.catalog;
    assert_eq!(
        catalog.user_command("review").unwrap().body,
        "Project review"
    );
    assert_eq!(
        catalog.user_command("git:commit").unwrap().body,
        "Commit $1"
    );
    assert!(
        catalog.prompt_section().is_none(),
        "commands are not skills"
    );
}

#[test]
fn fifty_skills_stay_within_the_catalog_cap() {
    let skills: Vec<PromptCommand> = (0..50)
        .map(|n| PromptCommand {
            fetched: false,
            name: format!("skill-number-{n}"),
            description: "d".repeat(DESCRIPTION_CHARS),
            argument_hint: None,
            allowed_tools: Vec::new(),
            model: None,
            body: "body".into(),
            source: PathBuf::new(),
            skill: Some(SkillInfo {
                dir: PathBuf::from("/s"),
                model_invocable: true,
                user_invocable: true,
            }),
        })
        .collect();
    let catalog = Catalog::new(skills);
    let section = catalog.prompt_section().unwrap();
    assert!(section.len() <= CATALOG_CAP, "{}", section.len());
    assert!(section.contains("- skill-number-0: ddd"));
    assert!(section.contains("skill-number-49"), "{section}");

    let lean = catalog.prompt_section_within(LEAN_CATALOG_CAP).unwrap();
    assert!(lean.len() <= LEAN_CATALOG_CAP, "{}", lean.len());
    assert!(lean.contains("- skill-number-0: ddd"), "{lean}");
    assert!(lean.contains("more, by name: "), "{lean}");
}
