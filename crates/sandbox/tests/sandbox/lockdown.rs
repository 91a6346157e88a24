//! What no command inside may do, whatever it runs as: undo the protected binds, see rein's
//! processes, or outlive the sandbox.

use std::time::Duration;

use rein_sandbox::Policy;

use crate::support::*;

#[test]
fn workspace_write_cannot_unmount_or_remount_the_protected_binds() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "workspace_write_cannot_unmount_the_protected_binds";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        std::fs::create_dir_all(fx.ws.join(".git/hooks")).unwrap();
        std::fs::write(fx.ws.join(".git/config"), "[core]\n").unwrap();
        // Every way back to the writable workspace under the binds, then a write through it;
        // in a nested user namespace too (where the binds are locked to its new mounts).
        let line = "umount .git/hooks; umount -l .git/hooks; umount -l .git/config; \
                    mount -o remount,rw .git/hooks; mount -o remount,bind,rw .git/hooks; \
                    mount --bind . .git/hooks; \
                    echo evil > .git/hooks/pre-commit; echo evil >> .git/config; \
                    unshare -Urm sh -c 'umount -l .git/hooks; mount -o remount,bind,rw \
                    .git/hooks; echo evil > .git/hooks/post-checkout'; \
                    grep CapEff /proc/self/status; true";
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
        let hooks: Vec<_> = std::fs::read_dir(fx.ws.join(".git/hooks"))
            .unwrap()
            .collect();
        assert!(hooks.is_empty(), "{launch:?}: {hooks:?}\n{said}");
        assert_eq!(
            std::fs::read_to_string(fx.ws.join(".git/config")).unwrap(),
            "[core]\n",
            "{launch:?}: {said}"
        );
        assert!(
            said.contains("CapEff:\t0000000000000000"),
            "{launch:?}: {said}"
        );
    }
}

#[test]
fn proc_shows_only_the_sandboxs_processes() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "proc_shows_only_the_sandboxs_processes";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        let line = format!(
            "echo count=$(ls /proc | grep -c '^[0-9]'); \
             test -e /proc/{pid}/environ && echo rein-visible; true",
            pid = std::process::id()
        );
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
        let count: usize = said
            .split("count=")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{launch:?}: {said}"));
        // bash, ls and grep (bubblewrap adds its own init).
        assert!(count <= 5, "{launch:?}: {count} processes\n{said}");
        assert!(!said.contains("rein-visible"), "{launch:?}: {said}");
    }
}

#[test]
fn a_background_process_stays_confined_and_ends_with_the_sandbox() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "a_background_process_stays_confined";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        // Left running by the command, out of its process group; it tries to write inside
        // the workspace and outside it.
        let line = format!(
            "setsid sh -c 'sleep 0.5; echo late > late.txt; echo escaped > {out}/late.txt' \
             >/dev/null 2>&1 < /dev/null & echo started",
            out = fx.outside.display()
        );
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
        assert!(said.contains("started"), "{launch:?}: {said}");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !fx.outside.join("late.txt").exists(),
            "{launch:?}: the background process wrote outside"
        );
        match launch {
            // Like an unconfined command's: it outlives the command, in the sandbox.
            Launch::Helper => assert!(fx.ws.join("late.txt").exists(), "{launch:?}"),
            // bubblewrap's PID namespace ends with the command.
            Launch::Bubblewrap => assert!(!fx.ws.join("late.txt").exists(), "{launch:?}"),
        }
        if let Launch::Helper = launch {
            // It ends when the sandbox does (rein exits).
            let line = "setsid sh -c 'sleep 0.5; echo late > later.txt' \
                        >/dev/null 2>&1 < /dev/null & echo started";
            let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
            assert!(said.contains("started"), "{launch:?}: {said}");
            drop(sandbox);
            std::thread::sleep(Duration::from_millis(1000));
            assert!(
                !fx.ws.join("later.txt").exists(),
                "{launch:?}: outlived the sandbox"
            );
        }
    }
}

#[test]
fn a_protected_path_through_a_symlink_shows_nothing_outside_the_view() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "a_protected_path_through_a_symlink_shows_nothing_outside";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        // A command of an earlier call pointed `.git` at a folder outside holding a `config`.
        let secrets = fx.outside.join("secrets");
        std::fs::create_dir_all(&secrets).unwrap();
        std::fs::write(secrets.join("config"), "SECRET TOKEN").unwrap();
        std::os::unix::fs::symlink("../outside/secrets", fx.ws.join(".git")).unwrap();
        // workspace-write refuses to run with a `.git` no mount can hold.
        let call = rein_sandbox::Call {
            policy: Policy::WorkspaceWrite,
            workspace: &fx.ws,
            cwd: &fx.ws,
            tmp: &fx.tmp,
            hidden: &[],
        };
        let why = sandbox.wrap(&call).unwrap_err().to_string();
        assert!(why.contains("symlink"), "{launch:?}: {why}");
        let line = format!("cat .git/config; cat {}/config; true", secrets.display());
        let said = text(&run(&sandbox, Policy::ReadOnly, &fx, &line));
        assert!(!said.contains("SECRET"), "{launch:?}: {said}");
    }
}

#[test]
fn a_read_only_command_cannot_see_a_workspace_write_one_left_running() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "a_read_only_command_cannot_see_a_workspace_write_one";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        let line = "REIN_TEST_MARK=left-behind setsid sleep 5 >/dev/null 2>&1 < /dev/null & \
                    echo started";
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
        assert!(said.contains("started"), "{launch:?}: {said}");
        // Seen by the next command of its own policy (helper), never by a read-only one.
        let look = "grep -l left-behind /proc/[0-9]*/environ 2>/dev/null | wc -l";
        let seen = |policy| {
            let out = text(&run(&sandbox, policy, &fx, look));
            out.trim()
                .parse::<usize>()
                .unwrap_or_else(|_| panic!("{out}"))
        };
        if let Launch::Helper = launch {
            assert_eq!(seen(Policy::WorkspaceWrite), 1, "{launch:?}");
        }
        assert_eq!(seen(Policy::ReadOnly), 0, "{launch:?}");
    }
}

#[test]
fn dev_has_the_usual_nodes_a_private_shm_and_nothing_writable_else() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "dev_has_the_usual_nodes";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        let line = "echo x > /dev/null && head -c 4 /dev/zero | wc -c && \
                    head -c 4 /dev/urandom | wc -c && ls /dev/pts/ptmx && readlink /dev/fd && \
                    echo shared > /dev/shm/mark && cat /dev/shm/mark; \
                    touch /dev/planted 2>/dev/null || echo dev-refused";
        for policy in [Policy::ReadOnly, Policy::WorkspaceWrite] {
            let said = text(&run(&sandbox, policy, &fx, line));
            for want in ["4\n4\n", "/dev/pts/ptmx", "/proc/self/fd", "shared"] {
                assert!(said.contains(want), "{launch:?} {policy}: {want}: {said}");
            }
            if let Launch::Helper = launch {
                // The holder's `/dev` is shared by its calls: read-only.
                assert!(said.contains("dev-refused"), "{launch:?} {policy}: {said}");
            }
            // Each call's `shm` is its own.
            let again = text(&run(&sandbox, policy, &fx, "ls /dev/shm | wc -l"));
            assert_eq!(again.trim(), "0", "{launch:?} {policy}");
        }
    }
}

#[test]
fn a_command_cannot_make_namespaces_of_its_own_but_threads_work() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "a_command_cannot_make_namespaces_of_its_own";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        // With a user namespace of its own it could make mount and PID namespaces, and leave
        // the ones rein finds a call's processes by.
        let line = "unshare --user --map-root-user true 2>/dev/null || echo userns-refused; \
                    python3 -c 'import threading; t = threading.Thread(target=print, \
                    args=(\"thread-ran\",)); t.start(); t.join()'";
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
        assert!(said.contains("thread-ran"), "{launch:?}: {said}");
        if let Launch::Helper = launch {
            assert!(said.contains("userns-refused"), "{launch:?}: {said}");
        }
    }
}
