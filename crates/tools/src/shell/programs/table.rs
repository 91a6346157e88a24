//! The option table of every program proven by its options and operands alone.

use super::{Operands, Program, program};
use crate::shell::options::OptionSpec;

pub(super) const NONE: OptionSpec = OptionSpec {
    flags: "",
    values: "",
    optional: "",
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
    numbers: false,
};

const CHECKSUM: OptionSpec = OptionSpec {
    flags: "btz",
    long_flags: &["--binary", "--text", "--tag", "--zero"],
    ..NONE
};

const HEAD_TAIL: OptionSpec = OptionSpec {
    flags: "qvz",
    values: "nc",
    long_flags: &["--quiet", "--silent", "--verbose", "--zero-terminated"],
    long_values: &["--lines", "--bytes"],
    numbers: true,
    ..NONE
};

/// The programs with a plain option table. `sed`, `find`, `test`, `echo`, `printf`, `date`
/// and `git` have checks of their own.
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
    program(
        "pwd",
        OptionSpec {
            flags: "LP",
            ..NONE
        },
        Operands::Nothing,
    ),
    program("true", NONE, Operands::Nothing),
    program("false", NONE, Operands::Nothing),
    program("whoami", NONE, Operands::Nothing),
    program(
        "uname",
        OptionSpec {
            flags: "asnrvmpio",
            long_flags: &["--all", "--kernel-name", "--kernel-release", "--machine"],
            ..NONE
        },
        Operands::Nothing,
    ),
    program(
        "sort",
        OptionSpec {
            flags: "bdfgiMhnRrsuVcCz",
            values: "kt",
            long_flags: &[
                "--numeric-sort",
                "--reverse",
                "--unique",
                "--human-numeric-sort",
                "--ignore-case",
                "--version-sort",
                "--stable",
                "--general-numeric-sort",
                "--month-sort",
                "--ignore-leading-blanks",
                "--dictionary-order",
                "--zero-terminated",
                "--check",
            ],
            long_values: &["--key", "--field-separator"],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "uniq",
        OptionSpec {
            flags: "cdDiuz",
            values: "fsw",
            long_flags: &["--count", "--repeated", "--unique", "--ignore-case"],
            ..NONE
        },
        Operands::AtMostPaths(1),
    ),
    program(
        "cut",
        OptionSpec {
            flags: "nsz",
            values: "bcdf",
            long_flags: &["--complement", "--only-delimited", "--zero-terminated"],
            long_values: &[
                "--bytes",
                "--characters",
                "--delimiter",
                "--fields",
                "--output-delimiter",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "tr",
        OptionSpec {
            flags: "cCdst",
            long_flags: &[
                "--complement",
                "--delete",
                "--squeeze-repeats",
                "--truncate-set1",
            ],
            ..NONE
        },
        Operands::Text,
    ),
    // Not `-r`: GNU diff follows symbolic links while recursing.
    program(
        "diff",
        OptionSpec {
            flags: "qsiwbBEaNTtupy",
            values: "UC",
            long_flags: &[
                "--brief",
                "--report-identical-files",
                "--ignore-case",
                "--ignore-all-space",
                "--ignore-space-change",
                "--ignore-blank-lines",
                "--new-file",
                "--text",
            ],
            long_optional: &["--color", "--unified", "--context"],
            ..NONE
        },
        Operands::AtMostTrees(2),
    ),
    program(
        "cmp",
        OptionSpec {
            flags: "bls",
            values: "in",
            long_flags: &["--print-bytes", "--verbose", "--quiet", "--silent"],
            ..NONE
        },
        Operands::AtMostPaths(2),
    ),
    program(
        "basename",
        OptionSpec {
            flags: "az",
            values: "s",
            long_flags: &["--multiple", "--zero"],
            long_values: &["--suffix"],
            ..NONE
        },
        Operands::Text,
    ),
    program("dirname", OptionSpec { flags: "z", ..NONE }, Operands::Text),
    program(
        "realpath",
        OptionSpec {
            flags: "eLmPqsz",
            long_flags: &[
                "--canonicalize-existing",
                "--canonicalize-missing",
                "--quiet",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "stat",
        OptionSpec {
            flags: "Ltf",
            values: "c",
            long_flags: &["--dereference", "--file-system", "--terse"],
            long_values: &["--format", "--printf"],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "file",
        OptionSpec {
            flags: "bhiLNk",
            long_flags: &[
                "--brief",
                "--mime",
                "--mime-type",
                "--mime-encoding",
                "--no-dereference",
                "--dereference",
                "--keep-going",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program("which", OptionSpec { flags: "a", ..NONE }, Operands::Text),
    program(
        "du",
        OptionSpec {
            flags: "ahscbkmxlS0",
            values: "d",
            long_flags: &[
                "--all",
                "--human-readable",
                "--summarize",
                "--total",
                "--bytes",
                "--apparent-size",
                "--one-file-system",
                "--separate-dirs",
                "--null",
            ],
            long_values: &["--max-depth", "--block-size", "--threshold"],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "df",
        OptionSpec {
            flags: "ahHiklPT",
            values: "tx",
            long_flags: &[
                "--all",
                "--human-readable",
                "--si",
                "--inodes",
                "--local",
                "--portability",
                "--print-type",
                "--total",
            ],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "nl",
        OptionSpec {
            flags: "p",
            values: "bnwsvi",
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "tac",
        OptionSpec {
            flags: "br",
            values: "s",
            ..NONE
        },
        Operands::Paths,
    ),
    program("rev", NONE, Operands::Paths),
    program(
        "od",
        OptionSpec {
            flags: "bcdfilosvx",
            values: "AjNtS",
            optional: "w",
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "hexdump",
        OptionSpec {
            flags: "bcCdovx",
            values: "nse",
            ..NONE
        },
        Operands::Paths,
    ),
    program("md5sum", CHECKSUM, Operands::Paths),
    program("sha1sum", CHECKSUM, Operands::Paths),
    program("sha256sum", CHECKSUM, Operands::Paths),
    program("sha512sum", CHECKSUM, Operands::Paths),
    program(
        "readlink",
        OptionSpec {
            flags: "efmnqsvz",
            long_flags: &["--canonicalize", "--canonicalize-existing", "--no-newline"],
            ..NONE
        },
        Operands::Paths,
    ),
    // Not `-f`: its format goes to printf.
    program(
        "seq",
        OptionSpec {
            flags: "w",
            values: "s",
            ..NONE
        },
        Operands::Text,
    ),
    program("sleep", NONE, Operands::Text),
    program(
        "nproc",
        OptionSpec {
            long_flags: &["--all"],
            ..NONE
        },
        Operands::Nothing,
    ),
    program(
        "comm",
        OptionSpec {
            flags: "123z",
            long_flags: &["--check-order", "--nocheck-order", "--total"],
            ..NONE
        },
        Operands::AtMostPaths(2),
    ),
    program(
        "paste",
        OptionSpec {
            flags: "sz",
            values: "d",
            long_values: &["--delimiters"],
            long_flags: &["--serial"],
            ..NONE
        },
        Operands::Paths,
    ),
    program(
        "fold",
        OptionSpec {
            flags: "bs",
            values: "w",
            long_values: &["--width"],
            ..NONE
        },
        Operands::Paths,
    ),
];
