use super::*;

/// Each folder its own root, against the built-in sensitive list.
fn own_roots(dirs: &[PathBuf]) -> PromptFiles {
    PromptFiles::new(dirs.to_vec(), rein_tools::SensitivePaths::default())
}

#[test]
fn every_agent_file_from_public_projects_loads() {
    let Some(dir) = rein_testkit::conformance_dir("agent-files/agents").unwrap() else {
        return;
    };
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert!(files >= 10, "{files} files");
    let loaded = load(
        Vec::new(),
        std::slice::from_ref(&dir),
        &own_roots(std::slice::from_ref(&dir)),
    );
    let skipped: Vec<&String> = loaded
        .warnings
        .iter()
        .filter(|w| w.contains("skipped"))
        .collect();
    assert!(skipped.is_empty(), "{skipped:#?}");
    assert_eq!(loaded.definitions.len(), files);
    for definition in &loaded.definitions {
        assert!(!definition.description.is_empty(), "{}", definition.name);
        assert!(!definition.prompt.is_empty(), "{}", definition.name);
    }
    let by_name = |name: &str| {
        loaded
            .definitions
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name} not loaded"))
    };
    // A comma list, mapped to rein's names; tools rein lacks are named once.
    let test_agent = by_name("test-agent");
    assert_eq!(test_agent.tools, Some(vec!["read_file".to_string()]));
    let reviewer = by_name("code-quality-reviewer");
    assert_eq!(
        reviewer.tools.as_deref().unwrap()[..4],
        ["glob", "grep", "read_file", "todo_write"].map(String::from)
    );
    assert_eq!(reviewer.model, ModelChoice::Inherit);
    let warning = loaded
        .warnings
        .iter()
        .find(|w| w.contains("code-quality-reviewer"))
        .unwrap();
    assert!(
        warning.contains("WebFetch") && warning.contains("WebSearch"),
        "{warning}"
    );
    // An unquoted `: ` in a description (YAML refuses it) and a YAML block description.
    assert!(
        reviewer.description.starts_with("Use this agent when"),
        "{}",
        reviewer.description
    );
    assert!(
        by_name("agent-creator")
            .description
            .contains("create an agent")
    );
    // An empty YAML list means no tools; a model alias is kept for the CLI to resolve.
    let arm = by_name("arm-cortex-expert");
    assert_eq!(arm.tools, Some(Vec::new()));
    assert_eq!(
        by_name("code-reviewer").model,
        ModelChoice::Named("opus".into())
    );
    assert_eq!(by_name("code-reviewer").tools, None);
    // MCP tools are kept by name; Agent(...) and Task are dropped (no recursion).
    let gallery = by_name("gallery-researcher");
    assert_eq!(
        gallery.tools.as_deref().unwrap(),
        [
            "mcp__meigen__search_gallery",
            "mcp__meigen__get_inspiration"
        ]
        .map(String::from)
    );
    let lead = by_name("team-lead");
    assert!(!lead.tools.as_ref().unwrap().iter().any(|t| t == "task"));
}

#[test]
fn broken_files_are_reported_and_later_folders_replace_earlier_names() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        user.path().join("reviewer.md"),
        "---\nname: reviewer\ndescription: user's\n---\nuser prompt\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("reviewer.md"),
        "---\nname: reviewer\ndescription: project's\ntools:\n  - Read\n  - Grep\n---\nproject prompt\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("nameless.md"),
        "---\ndescription: x\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(project.path().join("plain.md"), "no frontmatter\n").unwrap();
    std::fs::write(project.path().join("notes.txt"), "ignored\n").unwrap();
    let dirs = [
        user.path().to_path_buf(),
        project.path().join("missing"),
        project.path().to_path_buf(),
    ];
    let loaded = load(built_in(Some("claude-haiku-4-5")), &dirs, &own_roots(&dirs));
    let names: Vec<&str> = loaded.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["general", "explore", "reviewer"]);
    let reviewer = &loaded.definitions[2];
    assert_eq!(reviewer.description, "project's");
    assert_eq!(reviewer.prompt, "project prompt");
    assert_eq!(
        reviewer.tools,
        Some(vec!["read_file".to_string(), "grep".to_string()])
    );
    assert_eq!(
        loaded.definitions[1].model,
        ModelChoice::Named("claude-haiku-4-5".into())
    );
    assert_eq!(loaded.warnings.len(), 2, "{:#?}", loaded.warnings);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("nameless.md") && w.contains("no `name`"))
    );
    assert!(loaded.warnings.iter().any(|w| w.contains("plain.md")));
}

#[test]
fn isolation_worktree_is_read_and_anything_else_shares_the_workspace() {
    let text = "---\nname: fixer\nisolation: worktree\ntools: TaskCreate, SendMessage, TodoWrite\n---\nFix it.";
    let (definition, unknown) = parse(text).unwrap();
    assert_eq!(definition.isolation, Isolation::Worktree);
    assert!(unknown.is_empty(), "{unknown:?}");
    let tools = definition.tools.unwrap();
    for tool in ["task_create", "send_message", "task_update", "todo_write"] {
        assert!(tools.iter().any(|t| t == tool), "{tools:?}");
    }
    let (remote, _) = parse("---\nname: r\nisolation: remote\n---\nx").unwrap();
    assert_eq!(remote.isolation, Isolation::Shared);
}
