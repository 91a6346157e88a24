//! rein's npm packages (`scripts/npm-packages`) from a release folder holding this build's Linux
//! archive: packed, installed from the tarballs into a scratch folder with no registry, and run
//! with `npx`.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::Path;
use std::process::Command;

use crate::install::release;
use crate::support::{output, text};

/// `npm …` in `dir`, offline, with its own home and no update check.
fn npm(dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new("npm");
    cmd.current_dir(dir)
        .env("HOME", home)
        .env("NPM_CONFIG_UPDATE_NOTIFIER", "false")
        .env("NPM_CONFIG_FUND", "false")
        .env("NPM_CONFIG_AUDIT", "false");
    cmd
}

#[tokio::test]
async fn the_npm_package_installs_from_its_tarballs_and_runs_this_platforms_binary() {
    let test = "the_npm_package_installs_from_its_tarballs_and_runs_this_platforms_binary";
    if std::env::consts::OS != "linux" || !rein_testkit::require("npm", "--version", test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = release(dir.path());
    let mut packages = Command::new("python3");
    packages
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/npm-packages"))
        .arg(&folder)
        .env("HOME", dir.path())
        .env("NPM_CONFIG_UPDATE_NOTIFIER", "false");
    let packed = output(packages).await;
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    let tarballs: Vec<String> = text(&packed.stdout).lines().map(str::to_string).collect();
    let version = env!("CARGO_PKG_VERSION");
    let platform = match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    };
    assert_eq!(
        tarballs,
        [
            folder
                .join(format!("npm/rein-linux-{platform}-{version}.tgz"))
                .display()
                .to_string(),
            folder
                .join(format!("npm/rein-{version}.tgz"))
                .display()
                .to_string(),
        ]
    );

    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let home = dir.path().join("home");
    let mut init = npm(&scratch, &home);
    init.args(["init", "-y"]);
    assert!(output(init).await.status.success());
    let mut install = npm(&scratch, &home);
    install.args(["install", "--offline"]).args(&tarballs);
    let installed = output(install).await;
    assert!(installed.status.success(), "{}", text(&installed.stderr));

    let mut npx = Command::new("npx");
    npx.current_dir(&scratch)
        .env("HOME", &home)
        .env("NPM_CONFIG_UPDATE_NOTIFIER", "false")
        .args(["--offline", "rein", "--version"]);
    let ran = output(npx).await;
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(
        text(&ran.stdout).starts_with(&format!("rein {version} (")),
        "{}",
        text(&ran.stdout)
    );
    // A failing run's exit code comes through the launcher.
    let mut bad = Command::new("npx");
    bad.current_dir(&scratch)
        .env("HOME", &home)
        .env("NPM_CONFIG_UPDATE_NOTIFIER", "false")
        .args(["--offline", "rein", "--no-such-flag"]);
    assert_eq!(output(bad).await.status.code(), Some(2));
}
