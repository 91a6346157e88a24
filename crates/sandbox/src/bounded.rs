//! Parsing outside input — web pages, PDFs, pictures — in a child process under limits.
//!
//! The parsers rein uses (htmd, lopdf, image) recurse on nesting and decompress what they are
//! given; a 30 KB page of 5,000 nested `<div>`s or a PDF of 20,000 nested arrays overflows
//! the stack, which ends the whole process whatever the panic strategy, and a small flate or
//! PNG bomb takes gigabytes. Bounding each parser would mean forking it. Instead the parse
//! runs in rein's own binary started again ([`SUBCOMMAND`], as the sandbox helper is), with an
//! address-space limit, a CPU-time limit and a stack of known size, and a wall-clock limit
//! kept by the parent: when the child dies, the caller gets [`BoundedError::Limit`] naming
//! the limits, for the model to read, and the session goes on.
//!
//! [`Parsers`] is what callers hold: the program to start, or none (then the parse runs in
//! this process, as in the library's own tests, where no binary serves [`SUBCOMMAND`]).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The first argument that makes rein's binary a parser ([`main`]).
pub const SUBCOMMAND: &str = "__parse";

/// A parser: the input's bytes and the call's arguments in, the result's bytes out, or a
/// message saying why the input cannot be parsed.
pub type ParseFn = fn(&[u8], &[String]) -> Result<Vec<u8>, String>;

/// The most a parse may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Address space of the child, in bytes.
    pub memory: u64,
    /// CPU time of the child.
    pub cpu: Duration,
    /// Wall-clock time, kept by the parent.
    pub wall: Duration,
    /// Stack of the thread that parses, in bytes.
    pub stack: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory: 1024 * 1024 * 1024,
            cpu: Duration::from_secs(10),
            wall: Duration::from_secs(15),
            stack: 64 * 1024 * 1024,
        }
    }
}

impl std::fmt::Display for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} MiB of memory, {} MiB of stack, {} s of CPU, {} s in all",
            self.memory / (1024 * 1024),
            self.stack / (1024 * 1024),
            self.cpu.as_secs(),
            self.wall.as_secs()
        )
    }
}

/// Why a bounded parse gave no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoundedError {
    /// The parser refused the input (its own message).
    #[error("{0}")]
    Refused(String),
    /// The child went over a limit and was ended (or died of it).
    #[error(
        "the {kind} parser was stopped at its limits ({limits}): the input is nested too \
         deeply, too large once decompressed, or too slow to parse; nothing of it is shown"
    )]
    Limit {
        /// What was parsed (`html`, `pdf`, `picture`).
        kind: String,
        /// The limits, in words.
        limits: String,
    },
    /// The child could not be started or spoken to.
    #[error("the {kind} parser could not run: {message}")]
    Start {
        /// What was to be parsed.
        kind: String,
        /// What failed.
        message: String,
    },
}

/// Where parses run. Clones share their children's slots: at most [`AT_ONCE`] parse at a
/// time, so a reply reading eight picture bombs at once takes two children's memory, not
/// eight.
#[derive(Debug, Clone, Default)]
pub struct Parsers {
    program: Option<PathBuf>,
    limits: Limits,
    slots: Arc<Slots>,
}

/// Children that may run at once.
pub const AT_ONCE: usize = 2;

/// The children running now.
#[derive(Debug, Default)]
struct Slots {
    running: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    /// Waits for a free slot; it is given back when the guard drops.
    fn take(&self) -> SlotGuard<'_> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        while *running >= AT_ONCE {
            running = self.freed.wait(running).unwrap_or_else(|p| p.into_inner());
        }
        *running += 1;
        SlotGuard(self)
    }
}

struct SlotGuard<'a>(&'a Slots);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|p| p.into_inner());
        *running = running.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

impl Parsers {
    /// Parses in this process (a library's tests; nothing bounds them).
    pub fn in_process() -> Self {
        Self::default()
    }

    /// Parses in children of `program`, which must call [`main`] when its first argument is
    /// [`SUBCOMMAND`] (rein's binary).
    pub fn child(program: PathBuf) -> Self {
        Self {
            program: Some(program),
            ..Self::default()
        }
    }

    /// The same, with other limits.
    pub fn with_limits(self, limits: Limits) -> Self {
        Self { limits, ..self }
    }

    /// `parse` (known to the child as `kind`) of `input` with `args`: in a child under the
    /// limits, or here when there is no program. Blocks: call it off the async runtime.
    pub fn run(
        &self,
        (kind, parse): (&str, ParseFn),
        input: &[u8],
        args: &[String],
    ) -> Result<Vec<u8>, BoundedError> {
        match &self.program {
            None => parse(input, args).map_err(BoundedError::Refused),
            Some(program) => self.in_child(program, kind, input, args),
        }
    }

    #[allow(clippy::disallowed_methods)] // the launch path of bounded parsers: rein's own binary under limits
    fn in_child(
        &self,
        program: &PathBuf,
        kind: &str,
        input: &[u8],
        args: &[String],
    ) -> Result<Vec<u8>, BoundedError> {
        let start = |message: String| BoundedError::Start {
            kind: kind.to_string(),
            message,
        };
        let _slot = self.slots.take();
        let limits = self.limits;
        let mut child = Command::new(program)
            .arg(SUBCOMMAND)
            .arg(kind)
            .arg(limits.memory.to_string())
            .arg(limits.cpu.as_secs().max(1).to_string())
            .arg(limits.stack.to_string())
            .args(args)
            // A parser needs nothing of rein's environment (no key, no home).
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| start(e.to_string()))?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(start("no pipes to the child".into()));
        };
        let owned = input.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&owned);
        });
        let out = std::thread::spawn(move || read_capped(stdout, OUTPUT_CAP));
        let err = std::thread::spawn(move || read_capped(stderr, 64 * 1024));
        let deadline = Instant::now() + limits.wall;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(start(e.to_string())),
            }
        };
        let _ = writer.join();
        let output = out.join().unwrap_or_default();
        let said = err.join().unwrap_or_default();
        let limit = || BoundedError::Limit {
            kind: kind.to_string(),
            limits: limits.to_string(),
        };
        match status.and_then(|s| s.code()) {
            Some(0) => Ok(output),
            Some(REFUSED) => Err(BoundedError::Refused(
                String::from_utf8_lossy(&said).trim().to_string(),
            )),
            // Killed at the wall-clock limit, by a signal (a stack overflow aborts, the CPU
            // limit sends SIGXCPU), or out of memory (an allocation failure aborts).
            _ => Err(limit()),
        }
    }
}

/// The most a child's result may be.
const OUTPUT_CAP: usize = 256 * 1024 * 1024;
/// The exit code of a parser that refused its input (its message on stderr).
const REFUSED: i32 = 3;
/// The exit code of a child started wrongly.
const USAGE: u8 = 2;

fn read_capped(reader: impl Read, cap: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = reader.take(cap as u64).read_to_end(&mut bytes);
    bytes
}

/// The child: `args` are what follows [`SUBCOMMAND`] (the kind, the limits, the parser's
/// arguments); the input is read from stdin, the result written to stdout. The limits are
/// set on this process before the input is read; the parse runs on a thread with the stack
/// asked for.
pub fn main(args: impl IntoIterator<Item = OsString>, parsers: &[(&str, ParseFn)]) -> ExitCode {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let [kind, memory, cpu, stack, rest @ ..] = args.as_slice() else {
        eprintln!("{SUBCOMMAND}: KIND MEMORY CPU STACK [ARGS…]");
        return ExitCode::from(USAGE);
    };
    let (Ok(memory), Ok(cpu), Ok(stack)) = (
        memory.parse::<u64>(),
        cpu.parse::<u64>(),
        stack.parse::<usize>(),
    ) else {
        eprintln!("{SUBCOMMAND}: the limits are numbers");
        return ExitCode::from(USAGE);
    };
    let Some((_, parse)) = parsers.iter().find(|(name, _)| name == kind) else {
        eprintln!("{SUBCOMMAND}: no parser `{kind}`");
        return ExitCode::from(USAGE);
    };
    use nix::sys::resource::{Resource, setrlimit};
    if setrlimit(Resource::RLIMIT_AS, memory, memory).is_err()
        || setrlimit(Resource::RLIMIT_CPU, cpu, cpu.saturating_add(1)).is_err()
    {
        eprintln!("{SUBCOMMAND}: the limits could not be set");
        return ExitCode::from(USAGE);
    }
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return ExitCode::from(USAGE);
    }
    let parse = *parse;
    let rest = rest.to_vec();
    let parsed = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || parse(&input, &rest))
        .map(|thread| thread.join());
    match parsed {
        Ok(Ok(Ok(bytes))) => match std::io::stdout().write_all(&bytes) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(USAGE),
        },
        Ok(Ok(Err(message))) => {
            eprintln!("{message}");
            ExitCode::from(REFUSED as u8)
        }
        // The thread could not start within the limits, or panicked.
        _ => ExitCode::from(101),
    }
}
