//! The repository map on real files: every language's definitions, the central type first,
//! the budget kept, the cache reparsing only what changed, the focus, and rein's own source.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rein_code::{MapOptions, RepoMap};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn map(root: &Path, budget: usize, focus: &[&str]) -> rein_code::Build {
    RepoMap::new(root, None)
        .build(&MapOptions {
            budget,
            focus: focus.iter().map(|f| f.to_string()).collect(),
            ..MapOptions::default()
        })
        .unwrap()
}

#[test]
fn every_language_gives_its_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = [
        (
            "a.rs",
            "pub struct RustThing { x: u32 }\nimpl RustThing {\n    pub fn rust_method(&self) {}\n}\n",
            "RustThing",
        ),
        (
            "b.py",
            "class PythonThing:\n    def python_method(self):\n        return 1\n",
            "PythonThing",
        ),
        (
            "c.js",
            "class JsThing {\n  jsMethod() { return 1; }\n}\nfunction jsFunction() {}\n",
            "JsThing",
        ),
        (
            "d.ts",
            "interface TsShape { x: number }\nexport class TsThing {}\nfunction tsFunction(s: TsShape) {}\n",
            "TsShape",
        ),
        (
            "e.tsx",
            "export function TsxView() { return <div/>; }\n",
            "TsxView",
        ),
        (
            "f.go",
            "package main\ntype GoThing struct{}\nfunc (g GoThing) GoMethod() {}\nfunc goFunction() {}\n",
            "GoThing",
        ),
        (
            "G.java",
            "public class JavaThing {\n  void javaMethod() {}\n}\n",
            "JavaThing",
        ),
        (
            "h.c",
            "struct c_thing { int x; };\nint c_function(struct c_thing *t) { return t->x; }\n",
            "c_function",
        ),
        (
            "i.cpp",
            "class CppThing {\n public:\n  int x;\n};\nint cpp_function() { return 0; }\n",
            "CppThing",
        ),
        (
            "j.rb",
            "class RubyThing\n  def ruby_method\n    1\n  end\nend\n",
            "RubyThing",
        ),
    ];
    for (path, text, _) in files {
        write(root, path, text);
    }
    let built = map(root, 10_000, &[]);
    assert_eq!(built.files, files.len());
    for (path, _, name) in files {
        assert!(
            built.text.contains(&format!("{path}:")) && built.text.contains(name),
            "{path} {name} missing from:\n{}",
            built.text
        );
    }
    assert!(
        built.text.contains("    3│pub fn rust_method(&self) {}"),
        "{}",
        built.text
    );
}

/// Ten small modules that all use `Registry`, and one more type used by two of them.
fn project(root: &Path) {
    write(
        root,
        "src/registry.rs",
        "pub struct Registry { tools: Vec<String> }\nimpl Registry {\n    pub fn register(&mut self, name: &str) {}\n}\n",
    );
    write(
        root,
        "src/helper.rs",
        "pub struct HelperKind;\npub fn rarely_used() {}\n",
    );
    for n in 0..10 {
        let extra = if n < 2 {
            "fn more(h: HelperKind) {}\n"
        } else {
            ""
        };
        write(
            root,
            &format!("src/module_{n}.rs"),
            &format!(
                "use crate::registry::Registry;\npub fn setup_{n}(registry: &mut Registry) {{\n    registry.register(\"tool_{n}\");\n}}\n{extra}"
            ),
        );
    }
}

#[test]
fn the_type_everything_uses_comes_first_and_the_budget_holds() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let built = map(dir.path(), 1000, &[]);
    let first = built.text.lines().next().unwrap();
    assert_eq!(first, "src/registry.rs:", "{}", built.text);
    assert!(
        built
            .text
            .lines()
            .nth(1)
            .unwrap()
            .contains("pub struct Registry")
    );
    let mut last_shown = 0;
    for budget in [20, 60, 200, 1000] {
        let built = map(dir.path(), budget, &[]);
        assert!(built.tokens <= budget, "{budget}: {}", built.tokens);
        assert!(built.shown >= last_shown);
        last_shown = built.shown;
    }
    assert_eq!(map(dir.path(), 0, &[]).text, "");
}

#[test]
fn a_focus_centres_the_map() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let by_file = map(dir.path(), 40, &["helper.rs"]);
    assert!(
        by_file.text.starts_with("src/helper.rs:"),
        "{}",
        by_file.text
    );
    let by_name = map(dir.path(), 40, &["HelperKind"]);
    assert!(by_name.text.contains("HelperKind"), "{}", by_name.text);
}

#[test]
fn a_second_build_reparses_only_the_file_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    project(dir.path());
    let repo = RepoMap::new(dir.path(), Some(cache.path()));
    let options = MapOptions::default();
    let first = repo.build(&options).unwrap();
    assert_eq!(first.parsed, first.files);
    let second = repo.build(&options).unwrap();
    assert_eq!(second.parsed, 0);
    assert_eq!(second.text, first.text);
    write(
        dir.path(),
        "src/helper.rs",
        "pub struct HelperKind;\npub fn rarely_used() {}\npub fn now_also_this() {}\n",
    );
    let third = repo.build(&options).unwrap();
    assert_eq!(third.parsed, 1);
    assert_eq!(third.files, first.files);
    // A cache file that is not one is rebuilt, not trusted.
    for entry in std::fs::read_dir(cache.path()).unwrap() {
        std::fs::write(entry.unwrap().path(), b"{not json").unwrap();
    }
    assert_eq!(repo.build(&options).unwrap().parsed, first.files);
}

#[test]
fn ignored_and_huge_files_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    write(root, ".gitignore", "target/\n");
    write(root, "target/gen.rs", "pub struct Generated;\n");
    write(root, "src/lib.rs", "pub struct Kept;\n");
    write(root, "big.rs", &"pub struct Big;\n".repeat(80_000));
    let built = map(root, 1000, &[]);
    assert_eq!(built.files, 1, "{}", built.text);
    assert!(built.text.contains("Kept"));
    assert!(!built.text.contains("Generated"));
}

#[test]
fn a_missing_root_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = RepoMap::new(&dir.path().join("nope"), None)
        .build(&MapOptions::default())
        .unwrap_err();
    assert!(error.to_string().contains("not a folder"), "{error}");
}

#[test]
fn on_reins_own_source_the_central_types_come_first() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let built = map(&root, 1000, &[]);
    assert!(built.files > 300, "{}", built.files);
    assert!(built.tokens <= 1000);
    let head: String = built.text.lines().take(40).collect::<Vec<_>>().join("\n");
    let central = [
        "WorkspaceGuard",
        "ToolContext",
        "ToolOutput",
        "ContentBlock",
        "PermissionMode",
        "ToolSpec",
        "CallFacts",
        "ToolRegistry",
    ];
    let seen: Vec<&str> = central
        .into_iter()
        .filter(|name| head.contains(&format!(" {name} ")))
        .collect();
    assert!(seen.len() >= 4, "{seen:?} in\n{}", built.text);
}

#[test]
fn only_kept_files_are_read_and_symlinks_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/lib.rs", "pub struct Public;\n");
    write(root, "src/secret.rs", "pub struct SecretThing;\n");
    write(outside.path(), "far.rs", "pub struct FarAway;\n");
    std::os::unix::fs::symlink(outside.path().join("far.rs"), root.join("src/link.rs")).unwrap();
    let keep: rein_code::Keep = std::sync::Arc::new(|p: &Path| !p.ends_with("secret.rs"));
    let built = RepoMap::new(root, None)
        .keeping(keep)
        .build(&MapOptions::default())
        .unwrap();
    assert_eq!(built.files, 1, "{}", built.text);
    assert!(built.text.contains("Public"));
    assert!(!built.text.contains("SecretThing") && !built.text.contains("FarAway"));
}
