//! The option tables of the text tools and system-information programs proven by their
//! options and operands alone.

use super::{Operands, Program, program};
use crate::shell::options::OptionSpec;

const NONE: OptionSpec = OptionSpec::NONE;

const CHECKSUM: OptionSpec = OptionSpec {
    flags: "btz",
    long_flags: &["--binary", "--text", "--tag", "--zero"],
    ..NONE
};

/// Text tools and system information with a plain option table (the programs that list, read
/// and search files are in [`super::reading`]).
pub(super) const PROGRAMS: &[Program] = &[
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
