//! The option tables of the programs that list, read and search files (`ls`, `cat`, `head`,
//! `tail`, `wc`, `grep`, `rg`), proven by their options and operands alone.

use super::{Operands, Program, program};
use crate::shell::options::OptionSpec;

const NONE: OptionSpec = OptionSpec::NONE;

const HEAD_TAIL: OptionSpec = OptionSpec {
    flags: "qvz",
    values: "nc",
    long_flags: &["--quiet", "--silent", "--verbose", "--zero-terminated"],
    long_values: &["--lines", "--bytes"],
    numbers: true,
    ..NONE
};

/// The programs that list, read and search files. `sed`, `find`, `test`, `echo`, `printf`,
/// `date` and `git` have checks of their own.
pub(super) const PROGRAMS: &[Program] = &[
    program(
        "ls",
        OptionSpec {
            flags: "1aAbBcCdfFghiklmnNopqQrRsStuUvxXZ",
            values: "ITw",
            long_flags: &[
                "--all",
                "--almost-all",
                "--classify",
                "--directory",
                "--human-readable",
                "--inode",
                "--recursive",
                "--reverse",
                "--size",
                "--numeric-uid-gid",
                "--group-directories-first",
                "--full-time",
                "--no-group",
                "--literal",
            ],
            long_values: &[
                "--sort",
                "--format",
                "--time-style",
                "--width",
                "--ignore",
                "--hide",
            ],
            long_optional: &["--color", "--colour"],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "cat",
        OptionSpec {
            flags: "AbeEnstTuv",
            long_flags: &[
                "--number",
                "--number-nonblank",
                "--show-all",
                "--show-ends",
                "--show-tabs",
                "--squeeze-blank",
                "--show-nonprinting",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program("head", HEAD_TAIL, Operands::Paths),
    program("tail", HEAD_TAIL, Operands::Paths),
    program(
        "wc",
        OptionSpec {
            flags: "clmwL",
            long_flags: &[
                "--lines",
                "--words",
                "--bytes",
                "--chars",
                "--max-line-length",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "grep",
        OptionSpec {
            flags: "EFGPiyvwxcLloqsbHhnTZzaIUr",
            values: "eABCm",
            long_flags: &[
                "--recursive",
                "--line-number",
                "--ignore-case",
                "--count",
                "--files-with-matches",
                "--files-without-match",
                "--invert-match",
                "--word-regexp",
                "--line-regexp",
                "--fixed-strings",
                "--extended-regexp",
                "--perl-regexp",
                "--only-matching",
                "--quiet",
                "--silent",
                "--no-filename",
                "--with-filename",
                "--no-messages",
                "--null",
                "--text",
            ],
            long_values: &[
                "--regexp",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--include",
                "--exclude",
                "--exclude-dir",
            ],
            long_optional: &["--color", "--colour"],
            ..NONE
        },
        Operands::PatternThenPaths,
    ),
    program(
        "rg",
        OptionSpec {
            flags: "iSsnNlcvwxFoqHIauU0",
            values: "eABCmgtTjM",
            long_flags: &[
                "--line-number",
                "--no-line-number",
                "--ignore-case",
                "--smart-case",
                "--case-sensitive",
                "--files-with-matches",
                "--files-without-match",
                "--count",
                "--count-matches",
                "--invert-match",
                "--word-regexp",
                "--line-regexp",
                "--fixed-strings",
                "--only-matching",
                "--hidden",
                "--no-ignore",
                "--no-heading",
                "--heading",
                "--with-filename",
                "--no-filename",
                "--json",
                "--vimgrep",
                "--multiline",
                "--quiet",
                "--null",
                "--column",
                "--no-messages",
                "--stats",
                "--trim",
            ],
            long_values: &[
                "--type",
                "--type-not",
                "--glob",
                "--iglob",
                "--max-count",
                "--context",
                "--after-context",
                "--before-context",
                "--regexp",
                "--max-depth",
                "--sort",
                "--sortr",
                "--max-columns",
                "--threads",
                "--color",
            ],
            ..NONE
        },
        Operands::Search,
    ),
];
