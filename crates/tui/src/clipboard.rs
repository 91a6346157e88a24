//! The clipboard's picture (Ctrl-V): read with the platform's own tool — `wl-paste` on
//! Wayland, `xclip` on X11, `pngpaste` on macOS — and saved where the session's `@`
//! mentions reach, so the prompt attaches it as `[Image #1]`.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longest a clipboard tool may take.
const TIMEOUT: Duration = Duration::from_secs(3);
/// The largest picture taken from the clipboard.
const MAX_BYTES: usize = 50 * 1024 * 1024;

/// Why no picture was pasted, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotPasted(String);

impl From<&str> for NotPasted {
    fn from(why: &str) -> Self {
        Self(why.to_string())
    }
}

impl From<String> for NotPasted {
    fn from(why: String) -> Self {
        Self(why)
    }
}

/// The clipboard's PNG picture saved as a new file in `dir`.
pub(crate) async fn save_image(dir: Option<&Path>) -> Result<PathBuf, NotPasted> {
    let dir = dir.ok_or("this session keeps no files, so a picture cannot be pasted")?;
    let bytes = read_image().await?;
    std::fs::create_dir_all(dir).map_err(|e| NotPasted(format!("cannot save the picture: {e}")))?;
    let taken = std::fs::read_dir(dir).map_or(0, |d| d.count());
    let path = dir.join(format!("pasted-image-{}.png", taken + 1));
    rein_fs::write_atomic_private(&path, &bytes)
        .map_err(|e| NotPasted(format!("cannot save the picture: {e}")))?;
    Ok(path)
}

/// The clipboard's picture as PNG bytes, from the first tool that has one.
#[allow(clippy::disallowed_methods)] // the clipboard programs of the user's desktop, given text only
async fn read_image() -> Result<Vec<u8>, NotPasted> {
    let mut tried = Vec::new();
    for (program, args) in tools() {
        tried.push(program);
        let run = tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let Ok(Ok(output)) = tokio::time::timeout(TIMEOUT, run).await else {
            continue;
        };
        let png = output.stdout.starts_with(b"\x89PNG\r\n\x1a\n");
        if output.status.success() && png && output.stdout.len() <= MAX_BYTES {
            return Ok(output.stdout);
        }
    }
    if tried.is_empty() {
        return Err(
            "no clipboard to read here (rein reads it with wl-paste on Wayland, xclip \
                    on X11, pngpaste on macOS); paste or drop the picture's file instead"
                .into(),
        );
    }
    Err(NotPasted(format!(
        "no picture in the clipboard (asked {}); paste or drop the picture's file instead",
        tried.join(", ")
    )))
}

/// The tools to ask, by what this session runs in.
#[allow(clippy::disallowed_methods)] // the desktop session's variables choose the clipboard program
fn tools() -> Vec<(&'static str, &'static [&'static str])> {
    let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    let mut tools: Vec<(&'static str, &'static [&'static str])> = Vec::new();
    if set("WAYLAND_DISPLAY") {
        tools.push(("wl-paste", &["--no-newline", "--type", "image/png"]));
    }
    if set("DISPLAY") {
        tools.push((
            "xclip",
            &["-selection", "clipboard", "-t", "image/png", "-o"],
        ));
    }
    if cfg!(target_os = "macos") {
        tools.push(("pngpaste", &["-"]));
    }
    tools
}
