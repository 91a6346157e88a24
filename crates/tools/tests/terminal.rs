//! Interactive commands on real programs in real pseudo-terminals: a REPL driven over several
//! calls, prompts answered, Ctrl-C, full-screen programs rendered as text, a password prompt
//! reported (and never typed into), lines typed into a shell checked like commands, the
//! sandbox holding inside a session, and a time limit killing a session's whole tree.

use rein_sandbox::{Policy, Settings};
use rein_tools::{CallKind, Effect, ToolRegistry};
use serde_json::json;

use crate::support::{Workspace, assert_all_die, pids};

fn session_id(text: &str) -> u64 {
    let at = text
        .find("write_stdin {\"id\": ")
        .unwrap_or_else(|| panic!("no session in {text:?}"));
    text[at + 19..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

async fn start(ws: &Workspace, command: &str) -> (u64, String) {
    let out = ws
        .call(
            "bash",
            json!({"command": command, "tty": true, "yield_ms": 3000}),
        )
        .await;
    assert!(!out.is_error, "{}", out.text);
    (session_id(&out.text), out.text)
}

async fn send(ws: &Workspace, id: u64, chars: &str) -> String {
    let out = ws
        .call(
            "write_stdin",
            json!({"id": id, "chars": chars, "yield_ms": 3000}),
        )
        .await;
    out.text
}

#[tokio::test]
async fn a_python_repl_is_driven_over_three_calls() {
    let ws = Workspace::new();
    let (id, first) = start(&ws, "python3 -q").await;
    assert_eq!(id, 1);
    assert!(first.starts_with(">>>"), "{first}");
    let out = send(&ws, id, "x = 6 * 7\n").await;
    assert!(out.contains(">>> x = 6 * 7"), "{out}");
    let out = send(&ws, id, "print(x, __import__('os').isatty(0))\n").await;
    assert!(out.contains("42 True"), "{out}");
    // The id in `kill_shell`'s and `/tasks`' spellings works too.
    for spelled in [json!(id.to_string()), json!(format!("tty_{id}"))] {
        let out = ws
            .call(
                "write_stdin",
                json!({"id": spelled, "chars": "", "yield_ms": 100}),
            )
            .await;
        assert!(!out.is_error, "{spelled}: {}", out.text);
    }
    let out = send(&ws, id, "exit()\n").await;
    assert!(out.contains("[session 1 ended: exit code 0]"), "{out}");
    // Typing into an ended session types nothing.
    let after = send(&ws, id, "1\n").await;
    assert!(after.contains("the command has ended"), "{after}");
}

#[tokio::test]
async fn read_p_and_a_yes_no_prompt_are_answered() {
    let ws = Workspace::new();
    let (id, first) = start(
        &ws,
        "read -p 'Name? ' name; read -p 'Proceed [y/N] ' ok; \
         [ \"$ok\" = y ] && echo \"hello $name, done\" > answered.txt; echo finished",
    )
    .await;
    assert!(first.contains("Name?"), "{first}");
    let out = send(&ws, id, "rein\n").await;
    assert!(out.contains("Proceed [y/N]"), "{out}");
    let out = send(&ws, id, "y\n").await;
    assert!(out.contains("finished"), "{out}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("answered.txt")).unwrap(),
        "hello rein, done\n"
    );
}

#[tokio::test]
async fn ctrl_c_interrupts_the_running_program() {
    let ws = Workspace::new();
    let (id, _) = start(&ws, "bash --norc --noprofile -i").await;
    let out = send(&ws, id, "sleep 30; echo after\n").await;
    assert!(out.contains("sleep 30"), "{out}");
    let out = send(&ws, id, "\u{3}").await;
    // The shell is back at its prompt: the next line runs, and `sleep`'s follower never did.
    let out2 = send(&ws, id, "echo alive\n").await;
    assert!(out2.contains("alive"), "{out}{out2}");
    assert!(!out2.contains("after"), "{out2}");
}

#[tokio::test]
async fn a_full_screen_program_is_rendered_as_text() {
    let ws = Workspace::new();
    let lines: String = (1..=100).map(|i| format!("line number {i}\n")).collect();
    ws.write("notes.txt", lines);
    let (id, screen) = start(&ws, "LESS= less notes.txt").await;
    assert!(screen.contains("line number 1\n"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen}");
    assert!(!screen.contains("line number 40"), "{screen}");
    let out = send(&ws, id, "G").await;
    assert!(out.contains("line number 100"), "{out}");
    let out = send(&ws, id, "q").await;
    assert!(out.contains("ended: exit code 0"), "{out}");

    let top = ws
        .call(
            "bash",
            json!({"command": "top -b -n1 | head -12", "tty": true}),
        )
        .await;
    assert!(top.text.contains("PID"), "{}", top.text);
}

#[tokio::test]
async fn git_rebase_runs_its_scripted_editor_in_the_terminal() {
    let ws = Workspace::new();
    let setup = ws
        .call(
            "bash",
            json!({"command": "git init -q . && git config user.email t@e && git config user.name t \
                   && for i in 1 2 3; do echo $i > f$i; git add f$i; git commit -qm c$i; done"}),
        )
        .await;
    assert!(!setup.is_error, "{}", setup.text);
    let out = ws
        .call(
            "bash",
            json!({"command": "GIT_SEQUENCE_EDITOR=\"sed -i '2s/^pick/squash/'\" GIT_EDITOR=true \
                   git rebase -i HEAD~2 && git log --oneline | wc -l",
                   "tty": true, "yield_ms": 10000}),
        )
        .await
        .text;
    assert!(out.contains("Successfully rebased"), "{out}");
    assert!(
        out.contains("\n2\n") || out.contains("2\n[session"),
        "{out}"
    );
}

#[tokio::test]
async fn a_password_prompt_is_reported_and_never_typed_into() {
    let ws = Workspace::new();
    // The program prints `late` 5 s after asking; a call that waited out its 20 s yield
    // would show it.
    let out = ws
        .call(
            "bash",
            json!({"command": "python3 -c \"import getpass, threading; \
                   threading.Timer(5, lambda: print('late', flush=True)).start(); \
                   getpass.getpass('Password: ')\"",
                   "tty": true, "yield_ms": 20000}),
        )
        .await;
    assert!(
        !out.text.contains("late"),
        "waited for the yield: {}",
        out.text
    );
    assert!(out.text.contains("asking for a secret"), "{}", out.text);
    assert!(out.text.contains("Password:"), "{}", out.text);
    let typed = ws
        .call("write_stdin", json!({"id": 1, "chars": "hunter2\n"}))
        .await;
    assert!(typed.is_error, "{}", typed.text);
    assert!(typed.text.contains("never types"), "{}", typed.text);
    let killed = ws.call("kill_shell", json!({"id": "1"})).await;
    assert_eq!(killed.text, "session 1 killed");
}

#[tokio::test]
async fn a_line_typed_into_a_shell_is_checked_like_a_command() {
    let ws = Workspace::new();
    let (id, _) = start(&ws, "bash --norc --noprofile -i").await;
    let facts = |chars: &str| {
        ws.registry.facts(
            "write_stdin",
            &json!({"id": id, "chars": chars}),
            &ws.ctx.guard,
        )
    };
    let typed = facts("rm -rf ~\n");
    assert_eq!(typed.kind, CallKind::Shell);
    assert_eq!(typed.effect, Effect::Mutating);
    let shell = typed.shell.clone().expect("shell facts");
    assert_eq!(shell.line, "rm -rf ~");
    // The same facts as the line sent to `bash`: the same rules and classifier see it.
    let as_bash = ws
        .registry
        .facts("bash", &json!({"command": "rm -rf ~"}), &ws.ctx.guard);
    assert_eq!(typed.shell, as_bash.shell);
    assert_eq!(typed.writes, as_bash.writes);
    // Half a line runs nothing; the rest completes it and the whole line is checked.
    assert_eq!(facts("rm -rf ").effect, Effect::ReadOnly);
    send(&ws, id, "rm -rf ").await;
    assert_eq!(facts("~\n").shell.expect("shell facts").line, "rm -rf ~");
    send(&ws, id, "\u{15}").await; // Ctrl-U: the half line is dropped in the shell too.
    // A line editor's keys make the line unknowable.
    let tab = facts("cat no\t\n");
    assert!(tab.shell.expect("facts").analysis.unanalysable.is_some());
    // A read-only line is proven as a bash call is.
    assert_eq!(facts("ls\n").effect, Effect::ReadOnly);
    // An interpreter's line is code for it.
    let mut shown = send(&ws, id, "python3 -q\n").await;
    // Its prompt shows once it reads (under load, later than the first output).
    for _ in 0..50 {
        if shown.contains(">>>") {
            break;
        }
        shown = send(&ws, id, "").await;
    }
    assert!(shown.contains(">>>"), "{shown}");
    let code = facts("import shutil; shutil.rmtree('/tmp/x')\n");
    assert_eq!(code.effect, Effect::Mutating);
    assert!(code.shell.expect("facts").line.starts_with("python3 -c "));
    // Keys for a program that is not a prompt (an answer) were approved with its command.
    let (asked, _) = start(&ws, "read -p 'Name? ' n; echo $n").await;
    let answer = ws.registry.facts(
        "write_stdin",
        &json!({"id": asked, "chars": "rm -rf ~\n"}),
        &ws.ctx.guard,
    );
    assert_eq!(answer.effect, Effect::ReadOnly);
}

/// Typed lines are judged as the shell that will read them: by what the foreground process
/// is, not by its name; behind a program that holds the terminal; after history expansion;
/// and a session outside the sandbox keeps that flag for every key typed into it.
#[tokio::test]
async fn typed_lines_are_judged_as_the_shell_that_reads_them() {
    let ws = Workspace::new();
    let facts = |id: u64, chars: &str| {
        ws.registry.facts(
            "write_stdin",
            &json!({"id": id, "chars": chars}),
            &ws.ctx.guard,
        )
    };
    let line_of = |f: &rein_tools::CallFacts| f.shell.as_ref().map(|s| s.line.clone());
    // A shell under another name is still a shell.
    let (renamed, _) = start(&ws, "exec -a notashell bash --norc --noprofile -i").await;
    let typed = facts(renamed, "touch CANARY\n");
    assert_eq!(line_of(&typed).as_deref(), Some("touch CANARY"));
    assert_eq!(typed.effect, Effect::Mutating);
    // A program holding the terminal in front of the shell: the keys reach the shell next.
    let (held, _) = start(&ws, "bash --norc --noprofile -i").await;
    send(&ws, held, "sleep 30\n").await;
    let behind = facts(held, "touch CANARY\n");
    assert_eq!(line_of(&behind).as_deref(), Some("touch CANARY"));
    assert_eq!(behind.effect, Effect::Mutating);
    send(&ws, held, "\u{3}").await;
    // History expansion runs something other than the line judged.
    for line in ["!!\n", "echo !$\n", "^ls^rm\n", "ls !-2\n"] {
        let expanded = facts(held, line);
        let shell = expanded.shell.expect("shell facts");
        assert!(
            shell
                .analysis
                .unanalysable
                .is_some_and(|w| w.contains("history")),
            "{line:?}"
        );
    }
    // Control: a plain read-only line is still proven read-only.
    assert_eq!(facts(held, "ls\n").effect, Effect::ReadOnly);
}

#[tokio::test]
async fn a_time_limit_kills_the_whole_tree_of_a_session() {
    let ws = Workspace::new();
    let out = ws
        .call(
            "bash",
            json!({"command": "sleep 60 & echo child=$!; sleep 60", "tty": true,
                   "timeout_ms": 1500, "yield_ms": 500}),
        )
        .await;
    let child = pids(&out.text, "child");
    assert_eq!(child.len(), 1, "{}", out.text);
    let out = ws
        .call(
            "write_stdin",
            json!({"id": 1, "chars": "", "yield_ms": 5000}),
        )
        .await;
    assert!(out.text.contains("limit and was killed"), "{}", out.text);
    assert_all_die(&child).await;
}

#[tokio::test]
async fn sessions_are_numbered_limited_and_end_with_the_registry() {
    let ws = Workspace::new();
    ws.registry.terminals().set_max_open(2);
    let (a, _) = start(&ws, "sleep 60 & echo child=$!; cat").await;
    let (b, _) = start(&ws, "cat").await;
    assert_eq!((a, b), (1, 2));
    let refused = ws
        .call("bash", json!({"command": "cat", "tty": true}))
        .await;
    assert!(
        refused.is_error && refused.text.contains("most allowed"),
        "{}",
        refused.text
    );
    let unknown = ws.call("write_stdin", json!({"id": 9, "chars": ""})).await;
    assert!(
        unknown.text.contains("the sessions are: 1, 2"),
        "{}",
        unknown.text
    );
    let listed = ws.registry.terminals().list();
    assert_eq!(listed.len(), 2);
    let text = ws
        .call("write_stdin", json!({"id": a, "chars": "", "yield_ms": 10}))
        .await
        .text;
    let _ = text;
    let children: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.starts_with("sleep\u{0}60"))
        })
        .collect();
    drop(ws);
    assert_all_die(&children).await;
}

#[tokio::test]
async fn gpt_models_get_codex_shapes_for_interactive_commands() {
    let registry = ToolRegistry::for_model("gpt-5");
    let names = registry.names();
    assert!(names.contains(&"exec_command".to_string()), "{names:?}");
    let specs = registry.specs();
    let write = specs.iter().find(|s| s.name == "write_stdin").unwrap();
    let properties = write.input_schema["properties"].as_object().unwrap();
    let mut keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["chars", "max_output_tokens", "session_id", "yield_time_ms"]
    );
    let claude = ToolRegistry::for_model("claude-sonnet-4-5");
    assert!(!claude.names().contains(&"exec_command".to_string()));

    let mut ws = Workspace::new();
    ws.registry = registry;
    let out = ws
        .call(
            "exec_command",
            json!({"cmd": "python3 -q", "yield_time_ms": 2000}),
        )
        .await;
    assert!(
        out.text.contains("Process running with session ID 1"),
        "{}",
        out.text
    );
    assert!(out.text.contains("Output:\n>>>"), "{}", out.text);
    let out = ws
        .call(
            "write_stdin",
            json!({"session_id": 1, "chars": "print(2 + 2)\n"}),
        )
        .await;
    assert!(out.text.contains("\n4\n"), "{}", out.text);
    let out = ws
        .call("exec_command", json!({"cmd": "echo done", "workdir": "."}))
        .await;
    assert!(
        out.text.contains("Process exited with code 0"),
        "{}",
        out.text
    );
    assert!(out.text.ends_with("Output:\ndone\n"), "{}", out.text);
}

#[tokio::test]
async fn the_sandbox_holds_inside_a_session() {
    let mut ws = Workspace::new();
    match crate::hiding::sandbox(Settings::default(), "the_sandbox_holds_inside_a_session") {
        Some(sandbox) => {
            ws.ctx.sandbox = Some(sandbox);
            ws.ctx.sandbox_policy = Policy::WorkspaceWrite;
        }
        None => return,
    }
    let (id, _) = start(&ws, "bash --norc --noprofile -i").await;
    let out = send(
        &ws,
        id,
        &format!(
            "echo in > in.txt; echo out > {}/escaped.txt\n",
            ws.outside.display()
        ),
    )
    .await;
    // The folder outside is not there at all, or not writable.
    assert!(
        ["Read-only file system", "denied", "No such file"]
            .iter()
            .any(|refusal| out.contains(refusal)),
        "{out}"
    );
    assert!(ws.root.join("in.txt").exists());
    assert!(!ws.outside.join("escaped.txt").exists());
}
