//! Telling the model that the sandbox, not the command, refused something.

use std::path::Path;

use crate::Policy;

/// What failing programs print when the sandbox refuses a write or a connection.
const SIGNS: &[&str] = &[
    "Read-only file system",
    "Operation not permitted",
    "Permission denied",
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    // With the network off every connection fails, whatever the program says about it.
    "Couldn't connect to server",
    "Failed to connect",
    "Connection refused",
];

/// What programs print for a path that is not there: under a sandbox, a path outside the
/// view is not there.
const MISSING: &[&str] = &["No such file or directory", "Directory nonexistent"];

/// A note for a command that failed under `policy` with `output` (started in `cwd` of
/// `workspace`) when the failure looks like the sandbox's doing: a refusal the kernel names, or
/// a "missing" path outside the workspace that exists outside the sandbox. It says what the
/// sandbox allows and how to ask for more.
pub fn refusal_note(policy: Policy, output: &str, cwd: &Path, workspace: &Path) -> Option<String> {
    if policy == Policy::Off {
        return None;
    }
    let sign = SIGNS
        .iter()
        .find(|sign| output.contains(*sign))
        .map(|sign| format!("\"{sign}\""))
        .or_else(|| hidden_path(output, cwd, workspace))?;
    let allows = match policy {
        Policy::ReadOnly => "it may write only in its temp folder and /dev/null",
        _ => {
            "it may write only inside the workspace (not what git runs or trusts: .git's \
             hooks, config, info, commondir; nor .rein, .claude or .mcp.json; and `git init` \
             where there is no .git) and its temp folder"
        }
    };
    Some(format!(
        "[sandbox: this command ran in the {policy} sandbox, which likely caused {sign}: \
         {allows}, has no network, and sees only system folders, the workspace and toolchain \
         folders. Do not retry it as is. If it truly needs more, call bash again with \
         `unsandboxed` set to a one-line reason; the user is asked to approve.]"
    ))
}

/// A path a "missing" line names that exists (or whose folder exists) outside the sandbox
/// and lies outside the workspace, described.
fn hidden_path(output: &str, cwd: &Path, workspace: &Path) -> Option<String> {
    output
        .lines()
        .filter(|line| MISSING.iter().any(|m| line.contains(m)))
        .flat_map(|line| line.split(|c: char| c.is_whitespace() || "'\"`:,()".contains(c)))
        .filter(|word| word.starts_with('/') || word.starts_with("../"))
        .map(|word| cwd.join(word))
        .find(|path| {
            let outside = !crate::view::lexically_inside(path, workspace);
            outside && (path.exists() || path.parent().is_some_and(Path::exists))
        })
        .map(|path| {
            format!(
                "\"{}\" to be missing (it is outside the sandbox's view)",
                path.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_gets_a_note_only_under_a_sandbox() {
        let ws = Path::new("/nonexistent-ws");
        let output = "touch: cannot touch '../x': Read-only file system";
        assert!(refusal_note(Policy::Off, output, ws, ws).is_none());
        let note = refusal_note(Policy::WorkspaceWrite, output, ws, ws).unwrap();
        assert!(note.contains("workspace-write sandbox"), "{note}");
        assert!(note.contains("Read-only file system"), "{note}");
        assert!(refusal_note(Policy::ReadOnly, "error: tests failed", ws, ws).is_none());
    }

    #[test]
    fn a_missing_path_is_the_sandbox_only_when_it_exists_outside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let hidden = format!("bash: {}/new: No such file or directory", outside.display());
        let note = refusal_note(Policy::WorkspaceWrite, &hidden, &ws, &ws).unwrap();
        assert!(note.contains("outside the sandbox's view"), "{note}");
        let relative = "sh: 1: cannot create ../outside/x: Directory nonexistent";
        assert!(refusal_note(Policy::WorkspaceWrite, relative, &ws, &ws).is_some());
        // Truly missing, or missing inside the workspace: the command's own problem.
        let missing = "cat: /nonexistent-dir/file: No such file or directory";
        assert!(refusal_note(Policy::WorkspaceWrite, missing, &ws, &ws).is_none());
        let inside = format!("cat: {}/gone.txt: No such file or directory", ws.display());
        assert!(refusal_note(Policy::WorkspaceWrite, &inside, &ws, &ws).is_none());
    }
}
