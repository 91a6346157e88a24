//! Real processes under each policy, on real temp folders; every test checks the file system
//! afterwards, not only what the command said.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use command_fds::{CommandFdExt, FdMapping};
use rein_sandbox::{Call, Policy, Sandbox, Settings};

struct Fixture {
    _root: tempfile::TempDir,
    /// The workspace.
    ws: PathBuf,
    /// A folder beside it, outside.
    outside: PathBuf,
    /// The call's temp folder.
    tmp: PathBuf,
    /// A stand-in home with a secret.
    home: PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let [ws, outside, tmp, home] = ["ws", "outside", "tmp", "home"].map(|d| base.join(d));
    for dir in [
        &ws,
        &outside,
        &tmp,
        &home.join(".ssh"),
        &home.join(".cargo/registry"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(home.join(".ssh/id_ed25519"), "SECRET KEY").unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token = \"SECRET\"").unwrap();
    std::fs::write(home.join(".cargo/config.toml"), "# fine").unwrap();
    Fixture {
        _root: root,
        ws,
        outside,
        tmp,
        home,
    }
}

/// The sandbox with `fx`'s home as the only read root and its secrets hidden, or `None`
/// (skipped visibly; a failure under CI=true) when this machine has no bubblewrap.
fn sandbox(fx: &Fixture, writable: &[PathBuf], test: &str) -> Option<Sandbox> {
    let settings = Settings {
        read_roots: vec![fx.home.join(".cargo")],
        writable_roots: writable.to_vec(),
        hidden: vec![
            fx.home.join(".ssh"),
            fx.home.join(".cargo/credentials.toml"),
        ],
        ..Settings::default()
    };
    match Sandbox::detect(settings) {
        Ok(sandbox) => Some(sandbox),
        Err(why) => {
            rein_testkit::skip(test, &why.to_string());
            None
        }
    }
}

fn run(sandbox: &Sandbox, policy: Policy, fx: &Fixture, line: &str) -> Output {
    run_in(sandbox, policy, fx, &fx.ws, line)
}

fn run_in(sandbox: &Sandbox, policy: Policy, fx: &Fixture, cwd: &Path, line: &str) -> Output {
    run_with_home(sandbox, policy, fx, cwd, line, Some(&fx.home))
}

/// Runs `line` with `bash -c` under `policy`, `HOME` set to `home` (else the real one).
fn run_with_home(
    sandbox: &Sandbox,
    policy: Policy,
    fx: &Fixture,
    cwd: &Path,
    line: &str,
    home: Option<&Path>,
) -> Output {
    let call = Call {
        policy,
        workspace: &fx.ws,
        cwd,
        tmp: &fx.tmp,
        hidden: &[],
    };
    let wrapped = sandbox.wrap(&call).unwrap();
    let mut command = Command::new(&wrapped.program);
    command
        .args(&wrapped.args)
        .args(["bash", "-c", line])
        .env("TMPDIR", &fx.tmp)
        .stdin(Stdio::null());
    if let Some(home) = home {
        command.env("HOME", home);
    }
    if let Some(filter) = wrapped.filter {
        command
            .fd_mappings(vec![FdMapping {
                parent_fd: filter,
                child_fd: wrapped.filter_fd,
            }])
            .unwrap();
    }
    command.output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn workspace_write_writes_inside_and_nowhere_else() {
    let fx = fixture();
    let Some(sandbox) = sandbox(&fx, &[], "workspace_write_writes_inside_and_nowhere_else") else {
        return;
    };
    std::os::unix::fs::symlink(&fx.outside, fx.ws.join("link")).unwrap();
    let line = format!(
        "echo in > inside.txt; mkdir -p src && echo x > src/a.rs; echo tmp > \"$TMPDIR/t\"; \
         echo out > {out}/direct; echo out > ../outside/relative; echo out > link/through; \
         bash -c 'sh -c \"echo out > {out}/grandchild\"'; echo out > /tmp/anywhere; \
         echo out > /etc/rein-test; echo out > \"$HOME/x\"; true",
        out = fx.outside.display()
    );
    let output = run(&sandbox, Policy::WorkspaceWrite, &fx, &line);
    let said = text(&output);
    assert!(said.contains("Read-only file system"), "{said}");
    assert_eq!(
        std::fs::read_to_string(fx.ws.join("inside.txt")).unwrap(),
        "in\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.ws.join("src/a.rs")).unwrap(),
        "x\n"
    );
    assert_eq!(std::fs::read_to_string(fx.tmp.join("t")).unwrap(), "tmp\n");
    let escaped: Vec<_> = std::fs::read_dir(&fx.outside).unwrap().collect();
    assert!(escaped.is_empty(), "{escaped:?}\n{said}");
    assert!(!Path::new("/etc/rein-test").exists());
    assert!(!fx.home.join("x").exists());
}

#[test]
fn workspace_write_keeps_hooks_config_and_agent_settings_read_only() {
    let fx = fixture();
    let Some(sandbox) = sandbox(&fx, &[], "workspace_write_keeps_hooks_read_only") else {
        return;
    };
    for dir in [".git/hooks", ".rein", ".claude"] {
        std::fs::create_dir_all(fx.ws.join(dir)).unwrap();
    }
    std::fs::write(fx.ws.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(fx.ws.join(".mcp.json"), "{}").unwrap();
    let line = "echo evil > .git/hooks/pre-commit; echo '[core] fsmonitor = evil' >> .git/config; \
                echo '{}' > .rein/config.toml; echo '{}' > .claude/settings.json; \
                echo '{\"mcpServers\":{}}' > .mcp.json; echo ok > .git/HEAD; true";
    let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
    assert!(!fx.ws.join(".git/hooks/pre-commit").exists(), "{said}");
    assert_eq!(
        std::fs::read_to_string(fx.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!fx.ws.join(".rein/config.toml").exists());
    assert!(!fx.ws.join(".claude/settings.json").exists());
    assert_eq!(
        std::fs::read_to_string(fx.ws.join(".mcp.json")).unwrap(),
        "{}"
    );
    // The rest of .git stays writable (commits work).
    assert_eq!(
        std::fs::read_to_string(fx.ws.join(".git/HEAD")).unwrap(),
        "ok\n"
    );
}

#[test]
fn read_only_writes_nothing_and_hides_secrets() {
    let fx = fixture();
    let Some(sandbox) = sandbox(&fx, &[], "read_only_writes_nothing_and_hides_secrets") else {
        return;
    };
    std::fs::write(fx.ws.join("data.txt"), "visible").unwrap();
    let line = format!(
        "cat data.txt; echo; cat {home}/.cargo/config.toml; echo; \
         cat {home}/.ssh/id_ed25519; cat {home}/.cargo/credentials.toml; \
         echo x > new.txt; echo x >> data.txt; echo x > {out}/o; echo ok > /dev/null && echo devnull-ok; \
         echo t > \"$TMPDIR/t\" && echo tmp-ok; true",
        home = fx.home.display(),
        out = fx.outside.display()
    );
    let said = text(&run(&sandbox, Policy::ReadOnly, &fx, &line));
    assert!(said.contains("visible"), "{said}");
    assert!(said.contains("# fine"), "{said}");
    assert!(!said.contains("SECRET"), "{said}");
    assert!(
        said.contains("devnull-ok") && said.contains("tmp-ok"),
        "{said}"
    );
    assert!(!fx.ws.join("new.txt").exists(), "{said}");
    assert_eq!(
        std::fs::read_to_string(fx.ws.join("data.txt")).unwrap(),
        "visible"
    );
    assert!(std::fs::read_dir(&fx.outside).unwrap().next().is_none());
    // The secrets themselves are untouched.
    assert_eq!(
        std::fs::read_to_string(fx.home.join(".ssh/id_ed25519")).unwrap(),
        "SECRET KEY"
    );
}

#[test]
fn no_network_but_unix_sockets_inside_the_workspace() {
    let fx = fixture();
    let Some(sandbox) = sandbox(&fx, &[], "no_network_but_unix_sockets") else {
        return;
    };
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    // A daemon's socket outside the workspace (docker.sock-style) and one inside.
    let daemon = fx.outside.join("docker.sock");
    let _daemon = UnixListener::bind(&daemon).unwrap();
    let _local = UnixListener::bind(fx.ws.join("local.sock")).unwrap();
    let line = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port} && echo tcp-connected; \
         python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{daemon}\"); print(\"daemon-connected\")'; \
         python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"local.sock\"); print(\"local-connected\")'; true",
        daemon = daemon.display()
    );
    let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
    assert!(!said.contains("tcp-connected"), "{said}");
    assert!(said.contains("Operation not permitted"), "{said}");
    assert!(!said.contains("daemon-connected"), "{said}");
    assert!(said.contains("local-connected"), "{said}");
    server.set_nonblocking(true).unwrap();
    assert!(server.accept().is_err(), "a connection reached the server");
}

#[test]
fn network_setting_lets_connections_through() {
    let fx = fixture();
    let settings = Settings {
        network: true,
        ..Settings::default()
    };
    let sandbox = match Sandbox::detect(settings) {
        Ok(sandbox) => sandbox,
        Err(why) => {
            return rein_testkit::skip(
                "network_setting_lets_connections_through",
                &why.to_string(),
            );
        }
    };
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let line = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo tcp-connected");
    let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
    assert!(said.contains("tcp-connected"), "{said}");
}

/// The settings a real user gets: their home's toolchain folders readable, plus `writable`.
fn real_sandbox(writable: &[PathBuf], test: &str) -> Option<Sandbox> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut settings = Settings::with_home(home.as_deref());
    settings.writable_roots = writable.to_vec();
    match Sandbox::detect(settings) {
        Ok(sandbox) => Some(sandbox),
        Err(why) => {
            rein_testkit::skip(test, &why.to_string());
            None
        }
    }
}

/// Runs `line` like [`run`] but with the real home (toolchains need theirs).
fn run_real(sandbox: &Sandbox, policy: Policy, fx: &Fixture, line: &str) -> Output {
    run_with_home(sandbox, policy, fx, &fx.ws, line, None)
}

#[test]
fn git_python_and_cargo_work_in_workspace_write() {
    let test = "git_python_and_cargo_work_in_workspace_write";
    for program in ["git", "python3", "cargo"] {
        if !rein_testkit::require(program, "--version", test) {
            return;
        }
    }
    let fx = fixture();
    let target = fx.outside.join("target");
    std::fs::create_dir_all(&target).unwrap();
    let Some(sandbox) = real_sandbox(std::slice::from_ref(&target), test) else {
        return;
    };
    std::fs::write(
        fx.ws.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(fx.ws.join("src")).unwrap();
    std::fs::write(
        fx.ws.join("src/main.rs"),
        "fn main() { println!(\"tiny ran\"); }\n",
    )
    .unwrap();
    let line = format!(
        "set -e; git init -q . && git add Cargo.toml src && \
         git -c user.name=t -c user.email=t@t commit -qm first && echo committed; \
         python3 -c 'open(\"py.txt\", \"w\").write(\"from python\")'; \
         CARGO_TARGET_DIR={target} cargo run --offline -q",
        target = target.display()
    );
    let output = run_real(&sandbox, Policy::WorkspaceWrite, &fx, &line);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("committed") && said.contains("tiny ran"),
        "{said}"
    );
    let log = Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&fx.ws)
        .output()
        .unwrap();
    assert!(text(&log).contains("first"), "{}", text(&log));
    assert_eq!(
        std::fs::read_to_string(fx.ws.join("py.txt")).unwrap(),
        "from python"
    );
    assert!(
        target.join("debug").is_dir(),
        "no build in the writable target"
    );
}
