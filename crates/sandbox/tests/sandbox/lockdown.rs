//! What no command inside may do, whatever it runs as: undo the protected binds, see rein's
//! processes, or outlive its shell.

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
fn a_grandchild_left_running_is_killed_when_the_command_exits() {
    for launch in LAUNCHES {
        let fx = fixture();
        let test = "a_grandchild_left_running_is_killed";
        let Some(sandbox) = sandbox(&fx, &[], launch, test) else {
            continue;
        };
        let line = "setsid sh -c 'sleep 1; echo late > late.txt' >/dev/null 2>&1 < /dev/null & \
                    echo started";
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, line));
        assert!(said.contains("started"), "{launch:?}: {said}");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            !fx.ws.join("late.txt").exists(),
            "{launch:?}: the grandchild outlived the command"
        );
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
        let line = format!("cat .git/config; cat {}/config; true", secrets.display());
        let said = text(&run(&sandbox, Policy::WorkspaceWrite, &fx, &line));
        assert!(!said.contains("SECRET"), "{launch:?}: {said}");
    }
}
