//! What each policy lets a command see and change.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::Command;

use rein_sandbox::{Policy, Settings};

use crate::support::*;

#[test]
fn workspace_write_writes_inside_and_nowhere_else() {
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(
            &fx,
            &[],
            launch,
            "workspace_write_writes_inside_and_nowhere_else",
        ) else {
            continue;
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
}

#[test]
fn workspace_write_keeps_hooks_config_and_agent_settings_read_only() {
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(&fx, &[], launch, "workspace_write_keeps_hooks_read_only")
        else {
            continue;
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
}

#[test]
fn read_only_writes_nothing_and_hides_secrets() {
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(
            &fx,
            &[],
            launch,
            "read_only_writes_nothing_and_hides_secrets",
        ) else {
            continue;
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
}

#[test]
fn no_network_but_unix_sockets_inside_the_workspace() {
    for launch in LAUNCHES {
        let fx = fixture();
        let Some(sandbox) = sandbox(&fx, &[], launch, "no_network_but_unix_sockets") else {
            continue;
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
}

#[test]
fn network_setting_lets_connections_through() {
    for launch in LAUNCHES {
        let fx = fixture();
        let settings = Settings {
            network: true,
            ..Settings::default()
        };
        let test = "network_setting_lets_connections_through";
        let Some(sandbox) = detect(settings, launch, test) else {
            continue;
        };
        let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = server.local_addr().unwrap().port();
        let line = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo tcp-connected");
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
        assert!(said.contains("tcp-connected"), "{said}");
    }
}

#[test]
fn git_python_and_cargo_work_in_workspace_write() {
    let test = "git_python_and_cargo_work_in_workspace_write";
    for program in ["git", "python3", "cargo"] {
        if !rein_testkit::require(program, "--version", test) {
            return;
        }
    }
    for launch in LAUNCHES {
        let fx = fixture();
        let target = fx.outside.join("target");
        std::fs::create_dir_all(&target).unwrap();
        let Some(sandbox) = real_sandbox(std::slice::from_ref(&target), launch, test) else {
            continue;
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
        // `git init` itself is refused inside: the workspace's empty `.git` is read-only.
        let init = Command::new("git")
            .args(["init", "-q", "."])
            .current_dir(&fx.ws)
            .output()
            .unwrap();
        assert!(init.status.success(), "{}", text(&init));
        let line = format!(
            "set -e; git add Cargo.toml src && \
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
}
