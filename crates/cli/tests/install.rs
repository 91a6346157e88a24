//! `install.sh` end to end: a folder of release artefacts (an archive of this build's `rein` and
//! its `SHA256SUMS`, as `scripts/release` writes them) served on 127.0.0.1, the installer run in
//! a fresh `HOME`.
#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use sha2::{Digest, Sha256};

use crate::support::{output, text};

/// The archive name `install.sh` asks for on this machine.
pub fn target() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-musl",
        _ => "x86_64-unknown-linux-musl",
    }
}

/// A release folder: `rein-<target>.tar.gz` holding `rein-<target>/rein`, and `SHA256SUMS`.
pub fn release(dir: &Path) -> PathBuf {
    let folder = dir.join("release");
    let staged = dir.join("stage").join(format!("rein-{}", target()));
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    // Stripped, as a release is (and a third of the debug build's size, so packing is quick).
    let stripped = Command::new("strip")
        .arg("-o")
        .arg(staged.join("rein"))
        .arg(env!("CARGO_BIN_EXE_rein"))
        .status()
        .is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(env!("CARGO_BIN_EXE_rein"), staged.join("rein")).unwrap();
    }
    let archive = folder.join(format!("rein-{}.tar.gz", target()));
    let tar = Command::new("sh")
        .arg("-c")
        .arg("tar -cf - -C \"$1\" \"$2\" | gzip -1 > \"$3\"")
        .arg("pack")
        .arg(dir.join("stage"))
        .arg(format!("rein-{}", target()))
        .arg(&archive)
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = Sha256::digest(std::fs::read(&archive).unwrap());
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(
        folder.join("SHA256SUMS"),
        format!("{hex}  rein-{}.tar.gz\n0000  rein-other.tar.gz\n", target()),
    )
    .unwrap();
    folder
}

/// Serves `folder`'s files on 127.0.0.1; its URL.
async fn serve(folder: PathBuf) -> String {
    let app = axum::Router::new()
        .route(
            "/{file}",
            axum::routing::get(
                |State(folder): State<PathBuf>, UrlPath(file): UrlPath<String>| async move {
                    match std::fs::read(folder.join(file)) {
                        Ok(bytes) => Ok(bytes),
                        Err(_) => Err(StatusCode::NOT_FOUND),
                    }
                },
            ),
        )
        .with_state(folder);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// `sh install.sh` with a fresh `HOME` and the release at `url`.
async fn install(home: &Path, url: &str, into: Option<&Path>) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../install.sh"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("REIN_RELEASE_URL", url);
    if let Some(into) = into {
        cmd.env("REIN_INSTALL", into);
    }
    output(cmd).await
}

#[tokio::test]
async fn the_installer_checks_the_archive_installs_it_and_says_how_to_reach_it() {
    if std::env::consts::OS != "linux" {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let url = serve(release(dir.path())).await;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let out = install(&home, &url, None).await;
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    let installed = home.join(".local/bin/rein");
    let version = Command::new(&installed).arg("--version").output().unwrap();
    assert!(text(&version.stdout).starts_with("rein "), "{version:?}");
    assert!(
        said.contains(&format!(
            "installed {} to {}",
            text(&version.stdout).trim(),
            installed.display()
        )),
        "{said}"
    );
    assert!(
        said.contains(".local/bin is not on your PATH; add it"),
        "{said}"
    );

    let elsewhere = dir.path().join("tools/bin");
    let out = install(&home, &url, Some(&elsewhere)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(elsewhere.join("rein").is_file());
}

#[tokio::test]
async fn a_tampered_archive_or_a_missing_sum_installs_nothing() {
    if std::env::consts::OS != "linux" {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = release(dir.path());
    let archive = folder.join(format!("rein-{}.tar.gz", target()));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&archive, bytes).unwrap();
    let url = serve(folder.clone()).await;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let out = install(&home, &url, None).await;
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("checksum mismatch for rein-{}.tar.gz", target()))
            && said.contains("nothing installed"),
        "{said}"
    );
    assert!(!home.join(".local/bin/rein").exists());

    std::fs::write(folder.join("SHA256SUMS"), "0000  rein-other.tar.gz\n").unwrap();
    let out = install(&home, &url, None).await;
    assert!(
        text(&out.stderr).contains(&format!("SHA256SUMS names no rein-{}.tar.gz", target())),
        "{}",
        text(&out.stderr)
    );
    assert!(!home.join(".local/bin/rein").exists());
}
