//! The terminal's modes while the UI owns it: raw input, bracketed paste and (where the
//! terminal has it) Shift+Enter told apart from Enter; restored however the UI ends (a panic
//! included: release builds abort on panic, so no destructor would run), and around a
//! suspension (Ctrl-Z).

use crate::TuiError;
use crate::screen::Screen;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};

/// Whether the modes are on with keyboard enhancement, for the panic hook.
static ENHANCED: AtomicBool = AtomicBool::new(false);

/// Whether the modes are on at all, for the panic hook.
static ON: AtomicBool = AtomicBool::new(false);

/// The session on screen, for the panic hook's hint.
static SESSION: Mutex<String> = Mutex::new(String::new());

/// The line that tells the user how to come back to `session`.
pub fn resume_hint(session: &str) -> String {
    format!("rein: session saved; continue it with `rein --resume {session}`")
}

/// Remembers the session on screen, so that a panic can say how to resume it (its file is
/// complete up to the last message boundary).
pub fn note_session(session: &str) {
    if let Ok(mut noted) = SESSION.try_lock()
        && noted.as_str() != session
    {
        session.clone_into(&mut noted);
    }
}

/// Puts the terminal back as the shell had it.
fn restore(enhanced: bool) {
    let mut out = std::io::stdout();
    if enhanced {
        let _ = crossterm::execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = crossterm::execute!(out, DisableBracketedPaste, crossterm::cursor::Show);
    let _ = crossterm::terminal::disable_raw_mode();
}

/// Before a panic's message is printed, the terminal is put back (once the modes are on);
/// after it, the user is told how to resume the session.
fn restore_on_panic() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ON.swap(false, Ordering::SeqCst) {
                restore(ENHANCED.load(Ordering::SeqCst));
                // The message goes over the live area, from the cursor's row down.
                let _ = crossterm::execute!(
                    std::io::stdout(),
                    crossterm::cursor::MoveToColumn(0),
                    crossterm::terminal::Clear(crossterm::terminal::ClearType::FromCursorDown)
                );
            }
            previous(info);
            // `try_lock`: the panic may have struck while the lock was held.
            if let Ok(session) = SESSION.try_lock()
                && !session.is_empty()
            {
                eprintln!("{}", resume_hint(&session));
            }
        }));
    });
}

/// The UI's terminal modes, on while this lives.
pub struct RawMode {
    enhanced: bool,
}

impl RawMode {
    /// Turns the modes on.
    pub fn enable() -> std::io::Result<Self> {
        crossterm::terminal::enable_raw_mode()?;
        // Where the terminal can tell Shift+Enter from Enter, ask it to.
        let enhanced = crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
        Self::modes(enhanced)
    }

    /// Turns the modes on, keyboard enhancement as `enhanced` says (without asking the
    /// terminal again).
    fn modes(enhanced: bool) -> std::io::Result<Self> {
        restore_on_panic();
        crossterm::terminal::enable_raw_mode()?;
        ENHANCED.store(enhanced, Ordering::SeqCst);
        ON.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        crossterm::execute!(out, EnableBracketedPaste)?;
        if enhanced {
            crossterm::execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
        }
        Ok(Self { enhanced })
    }

    /// Stops this process group as a shell's Ctrl-Z would (raw mode makes Ctrl-Z a key, so
    /// the terminal no longer sends the signal itself), with the terminal as the shell left
    /// it, and turns the modes back on when the shell continues us (`fg`). Where nobody could
    /// continue us (no job control), the kernel ignores the stop and this returns at once.
    pub fn suspend(self) -> std::io::Result<Self> {
        let enhanced = self.enhanced;
        drop(self);
        #[cfg(unix)]
        {
            use nix::sys::signal::{Signal, kill};
            use nix::unistd::Pid;
            // The whole group, like the terminal's own Ctrl-Z: a wrapper script that started
            // us must stop too, or the shell would not see its job stop.
            kill(Pid::from_raw(0), Signal::SIGTSTP).map_err(std::io::Error::from)?;
        }
        Self::modes(enhanced)
    }
}

impl RawMode {
    /// Gives the terminal to `program` (an editor) until it exits, then takes it back: the
    /// modes off while it runs, on again after, whatever it did.
    pub fn hand_over(self, program: &mut std::process::Command) -> (Self, std::io::Result<()>) {
        let enhanced = self.enhanced;
        drop(self);
        let ran = program.status().and_then(|status| {
            if status.success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "the editor exited with {status}"
                )))
            }
        });
        match Self::modes(enhanced) {
            Ok(raw) => (raw, ran),
            // The modes could not be turned on again: the error says so, and the next draw
            // runs in whatever mode the terminal is in.
            Err(e) => (Self { enhanced }, Err(e)),
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if ON.swap(false, Ordering::SeqCst) {
            restore(self.enhanced);
        }
    }
}

/// Ctrl-Z: the terminal is given back to the shell until `fg`. It came from the input
/// reader, which, having given an event, reads no more until polled again: the screen may
/// ask the terminal where the cursor is on the way back. (Should the reader still hold the
/// input, the question times out and the screen stops asking.)
pub(crate) fn suspend<B: ratatui::backend::Backend>(
    screen: &mut Screen<B>,
    raw: RawMode,
) -> Result<RawMode, TuiError> {
    screen.finish()?;
    let raw = raw
        .suspend()
        .map_err(|e| TuiError::Terminal(e.to_string()))?;
    screen.resume()?;
    Ok(raw)
}

/// Opens `path` in the user's editor (`$VISUAL`, `$EDITOR`, else `vi`), the terminal handed
/// over until it exits.
#[allow(clippy::disallowed_methods)] // the user's $VISUAL/$EDITOR, started on the prompt file at their request
pub(crate) fn edit<B: ratatui::backend::Backend>(
    screen: &mut Screen<B>,
    raw: RawMode,
    path: &std::path::Path,
) -> Result<(RawMode, std::io::Result<()>), TuiError> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string());
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Through the shell: `code --wait` and other editors with arguments work.
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path);
    screen.finish()?;
    let (raw, edited) = raw.hand_over(&mut command);
    screen.resume()?;
    Ok((raw, edited))
}
