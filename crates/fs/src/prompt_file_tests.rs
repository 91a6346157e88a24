use std::os::unix::fs::symlink;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;

/// A root with a secret beside it (in a sensitive folder), and the files to read.
struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    secrets: PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    std::fs::write(secrets.path().join("id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(root.path().join("rules.md"), "Use tabs.").unwrap();
    Fixture {
        root: root.path().to_path_buf(),
        secrets: secrets.path().to_path_buf(),
        _dirs: (root, secrets),
    }
}

fn files(f: &Fixture) -> PromptFiles {
    let secrets = f.secrets.to_string_lossy().into_owned();
    let sensitive = SensitivePaths::new([secrets.as_str(), ".env*"], None).unwrap();
    PromptFiles::new([f.root.clone()], sensitive)
}

/// What reading `rel` below the root gives: the text, `missing`, or the refusal's kind.
fn outcome(files: &PromptFiles, path: &Path) -> String {
    match files.read(path, 1024) {
        Ok(Some(text)) => text,
        Ok(None) => "missing".into(),
        Err(ReadRefusal::Outside { .. }) => "outside".into(),
        Err(ReadRefusal::Sensitive { how, .. }) => format!("sensitive: {how}"),
        Err(ReadRefusal::NotRegular { kind, .. }) => format!("not regular: {kind}"),
        Err(other) => format!("other: {other}"),
    }
}

#[test]
fn a_prompt_file_is_read_only_when_it_stays_inside_its_root_and_is_not_secret() {
    let f = fixture();
    let root = &f.root;
    let outside_dir = f.secrets.clone();
    std::fs::create_dir(root.join("inner")).unwrap();
    std::fs::write(root.join("inner/notes.md"), "Inner notes.").unwrap();
    std::fs::write(root.join(".env"), "TOKEN=1").unwrap();
    symlink(f.secrets.join("id_rsa"), root.join("linked_out.md")).unwrap();
    symlink(&outside_dir, root.join("folder_out")).unwrap();
    symlink("inner/notes.md", root.join("linked_in.md")).unwrap();
    symlink("inner", root.join("folder_in")).unwrap();
    symlink(".env", root.join("linked_env.md")).unwrap();
    std::fs::hard_link(f.secrets.join("id_rsa"), root.join("hard.md")).unwrap();
    symlink("/dev/zero", root.join("zero.md")).unwrap();
    let files = files(&f);
    let cases = [
        ("rules.md", "Use tabs."),
        ("inner/notes.md", "Inner notes."),
        ("linked_in.md", "Inner notes."),
        ("folder_in/notes.md", "Inner notes."),
        ("missing.md", "missing"),
        ("linked_out.md", "outside"),
        ("folder_out/id_rsa", "outside"),
        ("linked_env.md", "sensitive: matches"),
        (".env", "sensitive: matches"),
        ("hard.md", "sensitive: is a hard link to a file in"),
        ("zero.md", "outside"),
        ("inner", "not regular: a directory"),
    ];
    let got: Vec<(&str, String)> = cases
        .iter()
        .map(|(rel, _)| (*rel, outcome(&files, &root.join(rel))))
        .collect();
    let want: Vec<(&str, String)> = cases.iter().map(|(r, w)| (*r, w.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_root_that_is_itself_a_link_is_followed_and_its_own_sensitive_folder_allowed() {
    // `~/.claude` linked to a dotfiles folder, and listed as sensitive as `~/.claude` is.
    let f = fixture();
    let home = tempfile::tempdir().unwrap();
    symlink(&f.root, home.path().join(".claude")).unwrap();
    let claude = home.path().join(".claude");
    let sensitive = SensitivePaths::new([f.root.to_string_lossy().as_ref()], None).unwrap();
    let files = PromptFiles::new([claude.clone()], sensitive);
    assert_eq!(outcome(&files, &claude.join("rules.md")), "Use tabs.");
}

#[test]
fn a_path_under_no_root_is_refused_and_the_refusal_names_it() {
    let f = fixture();
    let files = files(&f);
    let path = f.secrets.join("id_rsa");
    let refused = files.read(&path, 1024).unwrap_err();
    assert_eq!(refused.path(), path);
    let linked = f.root.join("linked.md");
    symlink(&path, &linked).unwrap();
    let message = files.read(&linked, 1024).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!(
            "{} leads outside {}",
            linked.display(),
            f.root.display()
        )),
        "{message}"
    );
}
