//! The programs rein proves read-only, each with its exact option table.
//!
//! The set is small on purpose ("prove or ask"): a program is here only when none of the
//! options listed for it writes a file, runs another program or prints the environment.
//! Options missing from a table are not proven; adding one is a decision, not a fix.

use super::options::{OptionSpec, Order, Parsed, parse_options};
use super::reads::Reads;

mod reading;
mod table;
use super::scripts::{find_is_read_only, sed_is_read_only, test_is_read_only};

/// What a program's operands are.
#[derive(Debug, Clone, Copy)]
enum Operands {
    /// Files to read (`-` is standard input).
    Paths,
    /// At most this many files (`uniq IN OUT` writes OUT).
    AtMostPaths(usize),
    /// At most this many files or directories whose files are read (`diff DIR1 DIR2`).
    AtMostTrees(usize),
    /// Text that names no file.
    Text,
    /// None at all.
    Nothing,
    /// A pattern (unless given with `-e`/`--regexp`), then files.
    PatternThenPaths,
    /// Like `PatternThenPaths`, but directories are searched recursively (always for `rg`,
    /// with `-r` for `grep`), so every file below them is checked; no file means `.`.
    Search,
}

/// One program: its options and operands.
struct Program {
    name: &'static str,
    spec: OptionSpec,
    operands: Operands,
}

const fn program(name: &'static str, spec: OptionSpec, operands: Operands) -> Program {
    Program {
        name,
        spec,
        operands,
    }
}

/// Whether `name args…` only reads (`git` excepted: see [`super::git`]).
pub(super) fn program_is_read_only(name: &str, args: &[String], reads: &Reads) -> bool {
    match name {
        "echo" => true,
        // `printf -v VAR` assigns a variable (with array subscripts evaluated).
        "printf" => args
            .first()
            .is_some_and(|a| !a.starts_with('-') || a == "--"),
        "test" => test_is_read_only(args, reads),
        "[" => {
            args.last().is_some_and(|a| a == "]")
                && test_is_read_only(&args[..args.len() - 1], reads)
        }
        "sed" => sed_is_read_only(args, reads),
        "find" => find_is_read_only(args, reads),
        "date" => date_is_read_only(args),
        _ => {
            let Some(program) = reading::PROGRAMS
                .iter()
                .chain(table::PROGRAMS)
                .find(|p| p.name == name)
            else {
                return false;
            };
            // Borrowed where it was parsed: the options are kept inline, and moving them
            // copies a few hundred bytes.
            parse_options(args, &program.spec, Order::Gnu)
                .as_ref()
                .is_some_and(|parsed| operands_ok(program.operands, parsed, reads))
        }
    }
}

fn operands_ok(operands: Operands, parsed: &Parsed, reads: &Reads) -> bool {
    let files = |ops: &[&str]| ops.iter().all(|p| reads.path(p));
    let search = |ops: &[&str]| {
        if ops.is_empty() {
            reads.tree(".")
        } else {
            ops.iter().all(|p| reads.tree(p))
        }
    };
    let recursive = parsed.has(&["-r", "--recursive"]);
    match operands {
        Operands::Paths => files(&parsed.operands),
        Operands::AtMostPaths(n) => parsed.operands.len() <= n && files(&parsed.operands),
        Operands::AtMostTrees(n) => {
            parsed.operands.len() <= n && parsed.operands.iter().all(|p| reads.tree(p))
        }
        Operands::Text => true,
        Operands::Nothing => parsed.operands.is_empty(),
        Operands::PatternThenPaths | Operands::Search => {
            let given = if parsed.has(&["-e", "--regexp"]) {
                &parsed.operands[..]
            } else if let Some((_pattern, rest)) = parsed.operands.split_first() {
                rest
            } else {
                return false;
            };
            match operands {
                Operands::Search => search(given),
                _ if recursive => search(given),
                _ => files(given),
            }
        }
    }
}

/// `date [-u] [-d STRING] [+FORMAT]`: never `-s`/`--set`, a date operand, or `-f`/`-r` files.
fn date_is_read_only(args: &[String]) -> bool {
    let spec = OptionSpec {
        flags: "uR",
        values: "d",
        optional: "I",
        long_flags: &["--utc", "--universal", "--rfc-email"],
        long_values: &["--date"],
        long_optional: &["--iso-8601"],
        ..OptionSpec::NONE
    };
    parse_options(args, &spec, Order::Gnu).is_some_and(|parsed| {
        parsed.operands.len() <= 1 && parsed.operands.iter().all(|o| o.starts_with('+'))
    })
}
