use super::*;

#[test]
fn home_folders_and_env_files_are_sensitive() {
    let home = Path::new("/home/u");
    let list = SensitivePaths::new(DEFAULT_SENSITIVE.iter().copied(), Some(home)).unwrap();
    let root = Path::new("/home/u/proj");
    let cases = [
        ("/home/u/.ssh/id_ed25519", Some("~/.ssh")),
        ("/home/u/.ssh", Some("~/.ssh")),
        ("/home/u/.aws/credentials", Some("~/.aws")),
        ("/home/u/.netrc", Some("~/.netrc")),
        ("/home/u/.config/gcloud/x.json", Some("~/.config/gcloud")),
        ("/home/u/proj/.env", Some(".env*")),
        ("/home/u/proj/app/.env.local", Some(".env*")),
        ("/home/u/proj/.envrc", Some(".env*")),
        ("/home/u/proj/src/env.rs", None),
        ("/home/u/.config/rein/config.toml", Some("~/.config/rein")),
        (
            "/home/u/.local/share/rein/trust.json",
            Some("~/.local/share/rein"),
        ),
        ("/home/u/.claude/.credentials.json", Some("~/.claude")),
        ("/home/u/.codex/auth.json", Some("~/.codex")),
        ("/home/u/.git-credentials", Some("~/.git-credentials")),
        ("/home/u/.config/gh/hosts.yml", Some("~/.config/gh")),
        ("/home/u/.bashrc", Some("~/.bashrc")),
        ("/home/u/.config/nvim/init.lua", None),
        ("/home/u/.claude-notes.md", None),
        ("/home/u/.sshd_config_notes", None),
        ("/home/u/proj/.ssh-notes.md", None),
    ];
    for (path, expected) in cases {
        assert_eq!(list.matching(Path::new(path), root), expected, "{path}");
    }
}

#[test]
fn env_files_that_document_a_shape_are_not_secrets_unless_named() {
    let home = Path::new("/home/u");
    let list = SensitivePaths::new(DEFAULT_SENSITIVE.iter().copied(), Some(home)).unwrap();
    let root = Path::new("/home/u/proj");
    for name in DOCUMENTATION_NAMES {
        let path = format!("/home/u/proj/app/{name}");
        assert_eq!(list.matching(Path::new(&path), root), None, "{path}");
    }
    for path in [
        "/home/u/proj/.env.example.local",
        "/home/u/proj/.env.examples",
        "/home/u/.ssh/.env.example",
    ] {
        assert!(list.matching(Path::new(path), root).is_some(), "{path}");
    }
    // A list that names the file still refuses it; wildcards never do.
    let named = SensitivePaths::new([".env*", ".env.sample"], None).unwrap();
    assert_eq!(
        named.matching(Path::new("/w/.env.sample"), Path::new("/w")),
        Some(".env.sample")
    );
    let other = SensitivePaths::new([".env*", "*.sample"], None).unwrap();
    assert_eq!(
        other.matching(Path::new("/w/.env.sample"), Path::new("/w")),
        None
    );
}

#[test]
fn looking_up_ancestors_finds_what_comparing_every_prefix_finds() {
    let home = Path::new("/home/u");
    let list = SensitivePaths::new(
        DEFAULT_SENSITIVE
            .iter()
            .copied()
            .chain(["/srv/keys", "/home/u/.config", "/"]),
        Some(home),
    )
    .unwrap();
    let paths = [
        "/home/u/.ssh/id",
        "/home/u/.sshx",
        "/home/u/.config/gh/hosts.yml",
        "/home/u/.config",
        "/home/u/.configs/x",
        "/home/u/proj/src/main.rs",
        "/srv/keys",
        "/srv/keys/a/b",
        "/srv/keysx",
        "/",
        "/etc/passwd",
        "/home/u/.local/share/rein/x",
    ];
    let granted = [None, Some(Path::new("/home/u/.config/gh"))];
    for path in paths {
        for granted in granted {
            let linear = list
                .prefixes
                .iter()
                .find(|(p, _)| {
                    Path::new(path).starts_with(p) && !granted.is_some_and(|g| g.starts_with(p))
                })
                .map(|(_, pattern)| pattern.as_str());
            let indexed = list.prefix_of(Path::new(path), Spelling::Clean, granted);
            assert_eq!(indexed, linear, "{path} granted {granted:?}");
        }
    }
}

#[test]
fn name_patterns_only_apply_below_the_root() {
    let list = SensitivePaths::new([".env*"], None).unwrap();
    let root = Path::new("/srv/.envs/proj");
    assert_eq!(
        list.matching(Path::new("/srv/.envs/proj/main.rs"), root),
        None
    );
    assert_eq!(
        list.matching(Path::new("/srv/.envs/proj/.env"), root),
        Some(".env*")
    );
}

#[test]
fn extra_globs_are_reported_by_their_label() {
    let list = SensitivePaths::empty()
        .with_glob("/ws/secrets/**", "deny rule Read(./secrets/**)")
        .unwrap();
    let root = Path::new("/ws");
    assert_eq!(
        list.matching(Path::new("/ws/secrets/a/key.pem"), root),
        Some("deny rule Read(./secrets/**)")
    );
    assert_eq!(list.matching(Path::new("/ws/src/main.rs"), root), None);
}

#[test]
fn prefixes_match_by_component_however_the_path_is_spelled() {
    let list = SensitivePaths::new(["/home/u/.ssh"], None).unwrap();
    let root = Path::new("/work");
    let cases = [
        ("/home/u/.ssh", true),
        ("/home/u/.ssh/id_rsa", true),
        ("/home/u/.sshx", false),
        ("/home/u/.ss", false),
        ("/home//u/.ssh/key", true),
        ("/home/u/./.ssh", true),
        ("/home/u/.ssh/", true),
        ("/home/u/.ssh/.", true),
        ("/home/u", false),
    ];
    for (path, sensitive) in cases {
        assert_eq!(
            list.matching(Path::new(path), root).is_some(),
            sensitive,
            "{path}"
        );
        assert_eq!(
            Path::new(path).starts_with("/home/u/.ssh"),
            sensitive,
            "{path}"
        );
    }
}

#[test]
fn bad_globs_are_errors_naming_them() {
    let err = SensitivePaths::new(["a[b"], None).unwrap_err();
    assert!(err.to_string().contains("a[b"), "{err}");
}

#[test]
fn only_patterns_starting_with_a_literal_give_their_first_bytes() {
    let cases: &[(&[&str], Option<&[u8]>)] = &[
        (&[".env*"], Some(b".")),
        (&[".env*", "id_rsa*", "é*"], Some(&[b'.', b'i', 0xc3])),
        (&[".env*", "*.pem"], None),
        (&["?x"], None),
        (&["[ab]x"], None),
        (&["{a,b}"], None),
        (&["\\*x"], None),
        (&[], Some(b"")),
    ];
    for (patterns, expected) in cases {
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            literal_starts(&patterns).as_deref(),
            *expected,
            "{patterns:?}"
        );
    }
}

#[test]
fn name_patterns_match_what_matching_each_component_finds() {
    let lists: &[&[&str]] = &[
        &[".env*"],
        &[".env*", "id_*"],
        &["*.pem", ".env*"],
        &["..", "src"],
    ];
    let roots = ["/w", "/", "/w/", "/w/./x"];
    let paths = [
        "/w/.env",
        "/w/src/.env.local",
        "/w/src/main.rs",
        "/w/keys/id_rsa",
        "/w/a/b.pem",
        "/w",
        "/w/..",
        "/w//src/x",
        "/w/./.env",
        "/elsewhere/.env",
        "/elsewhere/src",
        "/",
    ];
    for patterns in lists {
        let list = SensitivePaths::new(patterns.iter().copied(), None).unwrap();
        let mut set = GlobSetBuilder::new();
        for pattern in *patterns {
            set.add(Glob::new(pattern).unwrap());
        }
        let set = set.build().unwrap();
        for root in roots {
            for path in paths {
                let path = Path::new(path);
                let relative = path.strip_prefix(root).unwrap_or(path);
                let expected = relative
                    .components()
                    .find_map(|c| set.matches(c.as_os_str()).first().copied())
                    .map(|i| patterns[i]);
                assert_eq!(
                    list.matching(path, Path::new(root)),
                    expected,
                    "{patterns:?} {root} {}",
                    path.display()
                );
            }
        }
    }
}
