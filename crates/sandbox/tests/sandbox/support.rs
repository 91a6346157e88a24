//! The fixture: a workspace, a folder outside it, a temp folder and a home with secrets, and
//! running a line under a policy.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use command_fds::{CommandFdExt, FdMapping};
use rein_sandbox::{Call, Launcher, Policy, Sandbox, Settings};

/// What builds the namespaces: every test runs under both.
#[derive(Debug, Clone, Copy)]
pub enum Launch {
    /// The crate's native helper binary.
    Helper,
    /// bubblewrap, the fallback.
    Bubblewrap,
}

pub const LAUNCHES: [Launch; 2] = [Launch::Helper, Launch::Bubblewrap];

/// The sandbox of `launch` with `settings`, or `None` (skipped visibly; a failure under
/// CI=true) when this machine cannot build it.
pub fn detect(settings: Settings, launch: Launch, test: &str) -> Option<Sandbox> {
    let test = format!("{test} ({launch:?})");
    let found = match launch {
        Launch::Helper => {
            let helper = Path::new(env!("CARGO_BIN_EXE_rein-sandbox-helper"));
            Sandbox::detect_with_helper(settings, helper)
        }
        Launch::Bubblewrap => Sandbox::detect(settings),
    };
    match found {
        Ok(sandbox) => match (launch, sandbox.launcher()) {
            (Launch::Helper, Launcher::Bubblewrap(_)) => {
                rein_testkit::skip(&test, "the native helper fails here (bubblewrap works)");
                None
            }
            _ => Some(sandbox),
        },
        Err(why) => {
            rein_testkit::skip(&test, &why.to_string());
            None
        }
    }
}

pub struct Fixture {
    _root: tempfile::TempDir,
    /// The workspace.
    pub ws: PathBuf,
    /// A folder beside it, outside.
    pub outside: PathBuf,
    /// The call's temp folder.
    pub tmp: PathBuf,
    /// A stand-in home with a secret.
    pub home: PathBuf,
}

pub fn fixture() -> Fixture {
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
/// (skipped visibly; a failure under CI=true) when this machine cannot build it.
pub fn sandbox(fx: &Fixture, writable: &[PathBuf], launch: Launch, test: &str) -> Option<Sandbox> {
    let settings = Settings {
        read_roots: vec![fx.home.join(".cargo")],
        writable_roots: writable.to_vec(),
        hidden: vec![
            fx.home.join(".ssh"),
            fx.home.join(".cargo/credentials.toml"),
        ],
        git_configs: vec![fx.home.join(".gitconfig")],
        ..Settings::default()
    };
    detect(settings, launch, test)
}

pub fn run(sandbox: &Sandbox, policy: Policy, fx: &Fixture, line: &str) -> Output {
    run_in(sandbox, policy, fx, &fx.ws, line)
}

pub fn run_in(sandbox: &Sandbox, policy: Policy, fx: &Fixture, cwd: &Path, line: &str) -> Output {
    run_with_home(sandbox, policy, fx, cwd, line, Some(&fx.home))
}

/// Runs `line` with `bash -c` under `policy`, `HOME` set to `home` (else the real one).
pub fn run_with_home(
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
    run_call(sandbox, &call, line, home)
}

/// Runs `line` with `bash -c` for `call`, `HOME` set to `home` (else the real one).
pub fn run_call(sandbox: &Sandbox, call: &Call<'_>, line: &str, home: Option<&Path>) -> Output {
    let wrapped = sandbox.wrap(call).unwrap();
    let mut command = Command::new(&wrapped.program);
    command
        .args(&wrapped.args)
        .args(["bash", "-c", line])
        .env("TMPDIR", call.tmp)
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

pub fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The settings a real user gets: their home's toolchain folders readable, plus `writable`.
pub fn real_sandbox(writable: &[PathBuf], launch: Launch, test: &str) -> Option<Sandbox> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut settings = Settings::with_home(home.as_deref());
    settings.writable_roots = writable.to_vec();
    detect(settings, launch, test)
}

/// Runs `line` like [`run`] but with the real home (toolchains need theirs).
pub fn run_real(sandbox: &Sandbox, policy: Policy, fx: &Fixture, line: &str) -> Output {
    run_with_home(sandbox, policy, fx, &fx.ws, line, None)
}
