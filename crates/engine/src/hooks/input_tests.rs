use pretty_assertions::assert_eq;
use rein_tools::{CommandRun, FileEdit, FileWrite};

use super::*;

#[test]
fn tool_input_uses_claude_codes_argument_names_and_absolute_paths() {
    let ws = Path::new("/home/user/project");
    let cases = [
        (
            "read_file",
            json!({"path": "notes.txt"}),
            json!({"file_path": "/home/user/project/notes.txt"}),
        ),
        (
            "read_file",
            json!({"path": "./src/../notes.txt", "offset": 3, "limit": 10}),
            json!({"file_path": "/home/user/project/notes.txt", "offset": 3, "limit": 10}),
        ),
        (
            "write_file",
            json!({"path": "/tmp/x.py", "content": "y = 1\n"}),
            json!({"file_path": "/tmp/x.py", "content": "y = 1\n"}),
        ),
        (
            "edit_file",
            json!({"path": "notes.txt", "old_string": "a", "new_string": "b"}),
            json!({"file_path": "/home/user/project/notes.txt", "old_string": "a",
                   "new_string": "b", "replace_all": false}),
        ),
        (
            "bash",
            json!({"command": "ls", "timeout_ms": 5000}),
            json!({"command": "ls", "timeout": 5000}),
        ),
        ("bash", json!({"command": "ls"}), json!({"command": "ls"})),
        (
            "grep",
            json!({"pattern": "fn", "path": "src", "case_insensitive": true, "context": 2}),
            json!({"pattern": "fn", "path": "/home/user/project/src", "-i": true, "-C": 2}),
        ),
        (
            "glob",
            json!({"pattern": "**/*.rs"}),
            json!({"pattern": "**/*.rs"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch"}),
            json!({"patch": "*** Begin Patch"}),
        ),
    ];
    for (tool, input, expected) in cases {
        assert_eq!(
            hook_tool_input(tool, &input, ws),
            expected,
            "{tool} {input}"
        );
    }
}

#[test]
fn bash_response_has_claude_codes_fields() {
    let output = ToolOutput::ok("hi\n").with_details(ToolDetails::Command(CommandRun {
        stdout: "hi\n".into(),
        stderr: String::new(),
        interrupted: false,
        exit_code: Some(0),
        sandbox: rein_sandbox::Policy::Off,
    }));
    assert_eq!(
        hook_tool_response(&output),
        json!({"stdout": "hi\n", "stderr": "", "interrupted": false, "isImage": false,
               "noOutputExpected": false})
    );
}

#[test]
fn edit_response_has_the_structured_patch() {
    let output = ToolOutput::ok("Edited").with_details(ToolDetails::Edit(FileEdit {
        path: "/ws/notes.txt".into(),
        old_string: "NOTES_4".into(),
        new_string: "EDITED_4".into(),
        original: "NOTES_4\n".into(),
        patch: vec![Hunk {
            old_start: 1,
            old_lines: 1,
            new_start: 1,
            new_lines: 1,
            lines: vec!["-NOTES_4".into(), "+EDITED_4".into()],
        }],
        replace_all: false,
    }));
    assert_eq!(
        hook_tool_response(&output),
        json!({
            "filePath": "/ws/notes.txt",
            "oldString": "NOTES_4",
            "newString": "EDITED_4",
            "originalFile": "NOTES_4\n",
            "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                 "lines": ["-NOTES_4", "+EDITED_4"]}],
            "userModified": false,
            "replaceAll": false,
        })
    );
}

#[test]
fn a_created_file_is_a_create_with_no_original() {
    let output = ToolOutput::ok("Created").with_details(ToolDetails::Write(FileWrite {
        path: "/ws/new.py".into(),
        content: "y = 1\n".into(),
        original: None,
        existed: false,
        patch: vec![],
    }));
    assert_eq!(
        hook_tool_response(&output),
        json!({"type": "create", "filePath": "/ws/new.py", "content": "y = 1\n",
               "structuredPatch": [], "originalFile": null, "userModified": false})
    );
}

#[test]
fn a_tool_without_a_claude_code_shape_gives_its_output() {
    assert_eq!(
        hook_tool_response(&ToolOutput::ok("Applied the patch")),
        json!({"output": "Applied the patch", "is_error": false})
    );
}
