//! What a file tool changes, as front ends show it: each file's hunks, and one unified diff
//! for the lot. The same description serves the permission prompt (the change a call *would*
//! make, from [`crate::Tool::preview`]) and the transcript (the change it made, from its
//! [`ToolDetails`]), so what the user approved and what they see afterwards read alike.

use crate::details::{Hunk, ToolDetails};
use rein_fs::WorkspaceGuard;

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The file, as shown (relative to the workspace when inside it).
    pub path: String,
    /// The file did not exist before.
    pub created: bool,
    /// The file is removed.
    pub deleted: bool,
    /// The change, numbered like a unified diff's hunks.
    pub hunks: Vec<Hunk>,
}

impl FileChange {
    /// Lines added and removed.
    pub fn counts(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for line in self.hunks.iter().flat_map(|h| &h.lines) {
            match line.as_bytes().first() {
                Some(b'+') => counts.0 += 1,
                Some(b'-') => counts.1 += 1,
                _ => {}
            }
        }
        counts
    }
}

/// The changes a finished call's details record, paths shown by `guard`.
pub fn of_details(details: &ToolDetails, guard: &WorkspaceGuard) -> Vec<FileChange> {
    match details {
        ToolDetails::Edit(edit) => vec![FileChange {
            path: guard.display(&edit.path),
            created: edit.old_string.is_empty() && edit.original.is_empty(),
            deleted: false,
            hunks: edit.patch.clone(),
        }],
        ToolDetails::Write(write) => vec![FileChange {
            path: guard.display(&write.path),
            created: !write.existed,
            deleted: false,
            hunks: match &write.original {
                Some(_) => write.patch.clone(),
                None => crate::hunks::between("", &write.content),
            },
        }],
        ToolDetails::Patch(changes) => changes.clone(),
        ToolDetails::Command(_) | ToolDetails::Read(_) => Vec::new(),
    }
}

/// `changes` as one unified diff (`--- a/x`, `+++ b/x`, `@@ -1,3 +1,4 @@` and the lines);
/// `None` when there is nothing to show.
pub fn unified(changes: &[FileChange]) -> Option<String> {
    if changes.is_empty() {
        return None;
    }
    let mut out = String::new();
    for change in changes {
        let old = if change.created {
            "/dev/null".to_string()
        } else {
            format!("a/{}", change.path)
        };
        let new = if change.deleted {
            "/dev/null".to_string()
        } else {
            format!("b/{}", change.path)
        };
        out.push_str(&format!("--- {old}\n+++ {new}\n"));
        for hunk in &change.hunks {
            out.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ));
            for line in &hunk.lines {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_written_as_a_unified_diff_with_numbered_hunks() {
        let change = FileChange {
            path: "src/a.rs".into(),
            created: false,
            deleted: false,
            hunks: crate::hunks::between("a\nb\nc\n", "a\nB\nc\nd\n"),
        };
        assert_eq!(change.counts(), (2, 1));
        assert_eq!(
            unified(&[change]).unwrap(),
            "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
        );
        let created = FileChange {
            path: "new.txt".into(),
            created: true,
            deleted: false,
            hunks: crate::hunks::between("", "x\n"),
        };
        assert_eq!(
            unified(&[created]).unwrap(),
            "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+x\n"
        );
        assert_eq!(unified(&[]), None);
    }
}
