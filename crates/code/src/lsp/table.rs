//! Which language server reads which files: the built-in table (rust-analyzer, pyright or
//! basedpyright, typescript-language-server, gopls, clangd) and the configured entries that
//! add to it or change it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One language server: how to start it, the files it reads, and how to find the folder it
/// works on.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// Its name (`pyright`), as messages and the configuration name it.
    pub name: String,
    /// The program and its arguments (speaking LSP on standard input and output).
    pub command: Vec<String>,
    /// File extensions it reads, without the dot.
    pub extensions: Vec<String>,
    /// Files whose folder is a project root (`pyproject.toml`): the nearest one above a file,
    /// inside the workspace, is the root the server works on; the workspace when none is.
    pub root_markers: Vec<String>,
    /// Sent as `initializationOptions`.
    pub init_options: Option<Value>,
    /// Works only inside a project (rust-analyzer needs a `Cargo.toml`, gopls a `go.mod`): a
    /// file with no root marker above it is left alone.
    pub needs_root: NeedsRoot,
}

/// Whether a server works on a file outside any project.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NeedsRoot {
    /// Anywhere: the workspace is the root when no marker is found.
    #[default]
    No,
    /// Only below one of its root markers.
    Yes,
}

impl ServerSpec {
    fn builtin(name: &str, command: &[&str], extensions: &[&str], markers: &[&str]) -> Self {
        let owned = |items: &[&str]| items.iter().map(|s| (*s).to_string()).collect();
        Self {
            name: name.to_string(),
            command: owned(command),
            extensions: owned(extensions),
            root_markers: owned(markers),
            init_options: None,
            needs_root: NeedsRoot::No,
        }
    }

    fn in_projects_only(mut self) -> Self {
        self.needs_root = NeedsRoot::Yes;
        self
    }

    /// Whether it reads `path` (by extension).
    pub fn reads(&self, path: &Path) -> bool {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|ext| self.extensions.iter().any(|x| x.eq_ignore_ascii_case(ext)))
    }

    /// The folder it works on for `file`: the nearest folder at or above the file's with one
    /// of the root markers, not above `workspace`; else `workspace`, or `None` for a server
    /// that works only inside a project.
    pub fn root_for(&self, file: &Path, workspace: &Path) -> Option<PathBuf> {
        let mut dir = file.parent();
        while let Some(here) = dir.filter(|d| d.starts_with(workspace)) {
            if self.root_markers.iter().any(|m| here.join(m).exists()) {
                return Some(here.to_path_buf());
            }
            dir = here.parent();
        }
        (self.needs_root == NeedsRoot::No).then(|| workspace.to_path_buf())
    }

    /// Its program as found: an absolute or relative path as given, else the first match in
    /// `path` (the `PATH` variable's value) among its **absolute** entries outside
    /// `workspace`: a repository that ships `node_modules/.bin/pyright-langserver`, with `.`,
    /// an empty entry or `node_modules/.bin` on `PATH`, does not get its own program run as
    /// the language server. `None` when it is nowhere.
    pub fn find_program(
        &self,
        path: Option<&std::ffi::OsStr>,
        workspace: &Path,
    ) -> Option<PathBuf> {
        let program = Path::new(self.command.first()?);
        if program.components().count() > 1 {
            return is_executable(program).then(|| program.to_path_buf());
        }
        let workspace = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        std::env::split_paths(path?)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(program))
            .filter(|candidate| {
                let real = candidate
                    .canonicalize()
                    .unwrap_or_else(|_| candidate.clone());
                !real.starts_with(&workspace) && !candidate.starts_with(&workspace)
            })
            .find(|candidate| is_executable(candidate))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The built-in servers, in the order they are preferred (pyright before basedpyright for
/// Python files when both are installed).
pub fn builtin() -> Vec<ServerSpec> {
    vec![
        ServerSpec::builtin(
            "rust-analyzer",
            &["rust-analyzer"],
            &["rs"],
            &["Cargo.toml", "rust-project.json"],
        )
        .in_projects_only(),
        ServerSpec::builtin(
            "pyright",
            &["pyright-langserver", "--stdio"],
            &["py", "pyi"],
            PYTHON_MARKERS,
        ),
        ServerSpec::builtin(
            "basedpyright",
            &["basedpyright-langserver", "--stdio"],
            &["py", "pyi"],
            PYTHON_MARKERS,
        ),
        ServerSpec::builtin(
            "typescript-language-server",
            &["typescript-language-server", "--stdio"],
            &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
            &["tsconfig.json", "jsconfig.json", "package.json"],
        ),
        ServerSpec::builtin("gopls", &["gopls"], &["go"], &["go.work", "go.mod"])
            .in_projects_only(),
        ServerSpec::builtin(
            "clangd",
            &["clangd"],
            &["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"],
            &["compile_commands.json", "compile_flags.txt", ".clangd"],
        ),
    ]
}

const PYTHON_MARKERS: &[&str] = &[
    "pyrightconfig.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
];

/// The language id LSP names `path`'s language by.
pub fn language_id(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "java" => "java",
        "rb" => "ruby",
        _ => "plaintext",
    }
}

/// A configured server: a new one, or changes to a built-in one of the same name (unset
/// fields keep the built-in's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerEntry {
    /// Its name (the configuration table's).
    pub name: String,
    /// The program and its arguments.
    pub command: Option<Vec<String>>,
    /// File extensions, without the dot.
    pub extensions: Option<Vec<String>>,
    /// Root marker files.
    pub root_markers: Option<Vec<String>>,
    /// `initializationOptions`.
    pub init_options: Option<Value>,
    /// Leaves the server out.
    pub disabled: bool,
}

/// A configured entry that cannot make a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("language server {name:?}: {problem}")]
pub struct BadEntry {
    /// The entry's name.
    pub name: String,
    /// What is missing or wrong.
    pub problem: String,
}

/// The built-in table with `entries` applied in order: a built-in's name changes it (or with
/// `disabled` removes it), another name adds a server (which needs a command and extensions);
/// configured servers come first, so they are preferred for the files they read.
pub fn with_entries(entries: &[ServerEntry]) -> Result<Vec<ServerSpec>, BadEntry> {
    let mut table = builtin();
    let mut added = Vec::new();
    for entry in entries {
        let bad = |problem: &str| BadEntry {
            name: entry.name.clone(),
            problem: problem.to_string(),
        };
        if entry.command.as_ref().is_some_and(|c| c.is_empty()) {
            return Err(bad("the command is empty"));
        }
        let position = table.iter().position(|s| s.name == entry.name);
        if entry.disabled {
            if let Some(at) = position {
                table.remove(at);
            }
            continue;
        }
        let mut spec = match position {
            Some(at) => table.remove(at),
            None => ServerSpec {
                name: entry.name.clone(),
                command: entry
                    .command
                    .clone()
                    .ok_or_else(|| bad("a new server needs a command"))?,
                extensions: entry
                    .extensions
                    .clone()
                    .ok_or_else(|| bad("a new server needs its file extensions"))?,
                root_markers: Vec::new(),
                init_options: None,
                needs_root: NeedsRoot::No,
            },
        };
        if let Some(command) = &entry.command {
            spec.command.clone_from(command);
        }
        if let Some(extensions) = &entry.extensions {
            spec.extensions = extensions
                .iter()
                .map(|e| e.trim_start_matches('.').to_string())
                .collect();
        }
        if let Some(markers) = &entry.root_markers {
            spec.root_markers.clone_from(markers);
        }
        if entry.init_options.is_some() {
            spec.init_options.clone_from(&entry.init_options);
        }
        added.push(spec);
    }
    added.extend(table);
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_change_add_and_remove_servers_and_come_first() {
        let entries = [
            ServerEntry {
                name: "pyright".into(),
                command: Some(vec!["/opt/pyright-langserver".into(), "--stdio".into()]),
                ..ServerEntry::default()
            },
            ServerEntry {
                name: "clangd".into(),
                disabled: true,
                ..ServerEntry::default()
            },
            ServerEntry {
                name: "zls".into(),
                command: Some(vec!["zls".into()]),
                extensions: Some(vec![".zig".into()]),
                ..ServerEntry::default()
            },
        ];
        let table = with_entries(&entries).unwrap();
        let names: Vec<&str> = table.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pyright",
                "zls",
                "rust-analyzer",
                "basedpyright",
                "typescript-language-server",
                "gopls"
            ]
        );
        assert_eq!(table[0].command[0], "/opt/pyright-langserver");
        assert_eq!(table[0].extensions, ["py", "pyi"]);
        assert!(table[1].reads(Path::new("src/main.zig")));
        let lacking = ServerEntry {
            name: "new".into(),
            command: Some(vec!["x".into()]),
            ..ServerEntry::default()
        };
        let err = with_entries(&[lacking]).unwrap_err();
        assert!(err.to_string().contains("file extensions"), "{err}");
    }

    #[test]
    fn a_program_is_found_only_on_absolute_path_entries_outside_the_workspace() {
        use std::os::unix::fs::PermissionsExt;
        let top = tempfile::tempdir().unwrap();
        let top = top.path().canonicalize().unwrap();
        let (ws, bin) = (top.join("ws"), top.join("bin"));
        let shipped = ws.join("node_modules/.bin");
        for dir in [&shipped, &bin] {
            std::fs::create_dir_all(dir).unwrap();
            let program = dir.join("pyright-langserver");
            std::fs::write(&program, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::os::unix::fs::symlink(&shipped, top.join("linked-bin")).unwrap();
        let spec = builtin().into_iter().find(|s| s.name == "pyright").unwrap();
        let shipped_text = shipped.display().to_string();
        let linked = top.join("linked-bin").display().to_string();
        let bin_text = bin.display().to_string();
        // Attacks: PATH entries that reach the repository's own copy.
        for path in [
            "node_modules/.bin".to_string(),
            ":".to_string(),
            ".".to_string(),
            shipped_text.clone(),
            linked.clone(),
        ] {
            // (the process runs from anywhere; a relative entry is never taken)
            assert_eq!(
                spec.find_program(Some(path.as_ref()), &ws),
                None,
                "PATH={path}"
            );
        }
        // Control: the same folder is found when it is not the workspace's.
        assert_eq!(
            spec.find_program(Some(shipped_text.as_ref()), &bin),
            Some(shipped.join("pyright-langserver"))
        );
        // The user's own installation is found after the refused entries.
        let mixed = format!("node_modules/.bin:{shipped_text}::{bin_text}");
        assert_eq!(
            spec.find_program(Some(mixed.as_ref()), &ws),
            Some(bin.join("pyright-langserver"))
        );
    }

    #[test]
    fn the_root_is_the_nearest_marked_folder_inside_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        std::fs::create_dir_all(ws.join("svc/app")).unwrap();
        std::fs::write(ws.join("svc/pyproject.toml"), "").unwrap();
        let pyright = &builtin()[1];
        assert_eq!(
            pyright.root_for(&ws.join("svc/app/m.py"), ws),
            Some(ws.join("svc"))
        );
        assert_eq!(
            pyright.root_for(&ws.join("top.py"), ws),
            Some(ws.to_path_buf())
        );
        // rust-analyzer leaves a file outside any Cargo project alone.
        let rust_analyzer = &builtin()[0];
        assert_eq!(rust_analyzer.root_for(&ws.join("loose.rs"), ws), None);
        std::fs::write(ws.join("Cargo.toml"), "").unwrap();
        assert_eq!(
            rust_analyzer.root_for(&ws.join("src/main.rs"), ws),
            Some(ws.to_path_buf())
        );
        assert_eq!(language_id(Path::new("a/B.TSX")), "typescriptreact");
    }
}
