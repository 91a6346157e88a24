use std::os::unix::fs::PermissionsExt;

use super::*;

fn store() -> (tempfile::TempDir, MemoryStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = MemoryStore::for_workspace(&dir.path().join("memory"), Path::new("/ws/project"));
    (dir, store)
}

#[test]
fn the_six_commands_behave_as_documented() {
    let (_dir, store) = store();
    assert_eq!(
        store
            .create("/memories/MEMORY.md", "- tests: cargo nextest\n")
            .unwrap(),
        "File created successfully at: /memories/MEMORY.md"
    );
    assert!(matches!(
        store.create("/memories/MEMORY.md", "again"),
        Err(MemoryError::Exists(_))
    ));
    store
        .create("/memories/notes/db.md", "postgres 16\n")
        .unwrap();
    assert_eq!(
        store.view("/memories", None).unwrap(),
        "Here're the files and directories in /memories:\n23\t/memories/MEMORY.md\n12\t/memories/notes/db.md"
    );
    assert_eq!(
        store.view("/memories/MEMORY.md", None).unwrap(),
        "Here's the content of /memories/MEMORY.md with line numbers:\n     1\t- tests: cargo nextest"
    );
    assert_eq!(
        store
            .str_replace("/memories/notes/db.md", "16", "17")
            .unwrap(),
        "The memory file has been edited."
    );
    let missing = store
        .str_replace("/memories/notes/db.md", "mysql", "x")
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("No replacement was performed"),
        "{missing}"
    );
    store
        .insert("/memories/notes/db.md", 0, "# Database")
        .unwrap();
    assert_eq!(
        store.view("/memories/notes/db.md", Some((1, 2))).unwrap(),
        "Here's the content of /memories/notes/db.md with line numbers:\n     1\t# Database\n     2\tpostgres 17"
    );
    assert!(
        store
            .insert("/memories/notes/db.md", 9, "x")
            .unwrap_err()
            .to_string()
            .contains("Invalid `insert_line`")
    );
    assert_eq!(
        store
            .rename("/memories/notes/db.md", "/memories/db.md")
            .unwrap(),
        "Successfully renamed /memories/notes/db.md to /memories/db.md"
    );
    assert_eq!(
        store.delete("/memories/notes").unwrap(),
        "Successfully deleted /memories/notes"
    );
    assert_eq!(
        store
            .delete("/memories/nothing.md")
            .unwrap_err()
            .to_string(),
        "The path /memories/nothing.md does not exist. Please provide a valid path."
    );
    let files: Vec<String> = store.files().into_iter().map(|(p, _)| p).collect();
    assert_eq!(files, ["/memories/MEMORY.md", "/memories/db.md"]);
    // Private, like the sessions.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(store.dir()), 0o700);
    assert_eq!(mode(&store.dir().join("MEMORY.md")), 0o600);
}

#[test]
fn paths_outside_memories_are_refused() {
    let (dir, store) = store();
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    for path in [
        "/etc/passwd",
        "/memories/../../secret.txt",
        "memories/x",
        "/memoriesx/y",
        "/memories/a/../../b",
    ] {
        let error = store.create(path, "x").unwrap_err();
        assert!(matches!(error, MemoryError::Outside(_)), "{path}: {error}");
    }
    // A link planted in the folder is not followed.
    store.create("/memories/MEMORY.md", "x").unwrap();
    std::os::unix::fs::symlink(dir.path(), store.dir().join("out")).unwrap();
    assert!(matches!(
        store.view("/memories/out/secret.txt", None),
        Err(MemoryError::Outside(_))
    ));
}

#[test]
fn the_index_gives_its_first_two_hundred_lines() {
    let (_dir, store) = store();
    assert_eq!(store.index(), None);
    let lines: Vec<String> = (1..=250).map(|n| format!("fact {n}")).collect();
    store
        .create("/memories/MEMORY.md", &lines.join("\n"))
        .unwrap();
    let index = store.index().unwrap();
    assert_eq!(index.lines().count(), INDEX_LINES);
    assert!(index.ends_with("fact 200"));
}

#[test]
fn the_tools_definition_stays_small() {
    use rein_tools::Tool;
    let (_dir, store) = store();
    let bytes = serde_json::to_string(&MemoryTool(store).spec())
        .unwrap()
        .len();
    // Sent with every request: under 800 bytes (~200 tokens).
    assert!(bytes < 800, "{bytes} bytes");
}

#[test]
fn remembering_a_line_never_replaces_a_file_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("MEMORY.md");
    super::remember_line(&file, "first").unwrap();
    super::remember_line(&file, "second").unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "- first\n- second\n"
    );
    let bytes = b"notes \xff\xfe not text\n";
    std::fs::write(&file, bytes).unwrap();
    assert!(super::remember_line(&file, "third").is_err());
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
}

#[test]
fn an_index_planted_as_a_link_is_not_read_into_the_prompt() {
    let (dir, store) = store();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("id_rsa");
    std::fs::write(&secret, "PRIVATE KEY").unwrap();
    std::fs::create_dir_all(store.dir()).unwrap();
    std::os::unix::fs::symlink(&secret, store.dir().join(INDEX)).unwrap();
    assert_eq!(store.index(), None);
    assert!(store.view("/memories/MEMORY.md", None).is_err());
    // `#` in the TUI does not copy the link's target into the index either.
    assert!(super::remember_line(&store.dir().join(INDEX), "a fact").is_err());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "PRIVATE KEY");
    drop(dir);
}

#[test]
fn a_secret_written_in_two_halves_is_not_stored_whole() {
    let (_dir, store) = store();
    let key = "sk-ant-0123456789abcdef";
    let hidden = rein_tools::HiddenEnv::with_values(["ANTHROPIC_API_KEY".to_string()], |n| {
        (n == "ANTHROPIC_API_KEY").then(|| key.to_string())
    });
    let store = store.with_hidden(hidden);
    let (first, second) = key.split_at(10);
    store
        .create("/memories/MEMORY.md", &format!("- key: {first}HALF\n"))
        .unwrap();
    store
        .str_replace("/memories/MEMORY.md", "HALF", second)
        .unwrap();
    let stored = std::fs::read_to_string(store.dir().join(INDEX)).unwrap();
    assert!(!stored.contains(key), "{stored}");
    assert!(
        stored.contains("[redacted: $ANTHROPIC_API_KEY]"),
        "{stored}"
    );
    // A file that holds one already (written by hand) is not loaded whole into the prompt.
    std::fs::write(store.dir().join(INDEX), format!("- {key}\n")).unwrap();
    assert!(!store.index().unwrap().contains(key));
}
