//! `git` as a reader: a few subcommands with exact option tables, run only in a repository
//! whose own configuration sets nothing that makes git run a program.
//!
//! [`super::read_only_env`] disables the hook-like settings that can be named (fsmonitor,
//! hooks, pagers, editors…); per-driver settings (`diff.<driver>.textconv`, `filter.<driver>`)
//! cannot be, so the repository's configuration is read here and must hold only known-inert
//! keys. The user's global configuration is trusted: the attacker is the repository.

use super::options::{OptionSpec, Order, parse_options};
use super::reads::Reads;

const NONE: OptionSpec = OptionSpec::NONE;

/// Options shared by `diff`, `log` and `show` (no `--output`, `--ext-diff`, `--textconv`).
const DIFF_FLAGS: &[&str] = &[
    "--patch",
    "--no-patch",
    "--stat",
    "--shortstat",
    "--numstat",
    "--name-only",
    "--name-status",
    "--summary",
    "--raw",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-all-space",
    "--ignore-space-change",
    "--ignore-blank-lines",
    "--minimal",
    "--patience",
    "--histogram",
    "--full-index",
    "--binary",
    "--text",
    "--cached",
    "--staged",
    "--quiet",
    "--exit-code",
    "--check",
    "--no-renames",
    "--compact-summary",
];

const LOG_FLAGS: &[&str] = &[
    "--patch",
    "--no-patch",
    "--stat",
    "--shortstat",
    "--numstat",
    "--name-only",
    "--name-status",
    "--summary",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-all-space",
    "--oneline",
    "--graph",
    "--all",
    "--no-merges",
    "--merges",
    "--reverse",
    "--first-parent",
    "--abbrev-commit",
    "--follow",
    "--branches",
    "--tags",
    "--remotes",
    "--no-walk",
    "--topo-order",
    "--date-order",
    "--left-right",
    "--no-decorate",
    "--full-history",
];

const DIFF: OptionSpec = OptionSpec {
    flags: "pusRwbza",
    optional: "MCU",
    long_flags: DIFF_FLAGS,
    long_values: &[
        "--unified",
        "--diff-filter",
        "--diff-algorithm",
        "--inter-hunk-context",
    ],
    long_optional: &[
        "--color",
        "--word-diff",
        "--abbrev",
        "--relative",
        "--find-renames",
    ],
    ..NONE
};

const LOG: OptionSpec = OptionSpec {
    flags: "psuwz",
    values: "nSG",
    optional: "MCU",
    long_flags: LOG_FLAGS,
    long_values: &[
        "--date",
        "--format",
        "--max-count",
        "--since",
        "--until",
        "--after",
        "--before",
        "--author",
        "--committer",
        "--grep",
        "--skip",
        "--unified",
        "--diff-filter",
    ],
    long_optional: &["--pretty", "--decorate", "--color", "--abbrev"],
    numbers: true,
};

const STATUS: OptionSpec = OptionSpec {
    flags: "sbvz",
    optional: "u",
    long_flags: &[
        "--short",
        "--branch",
        "--long",
        "--verbose",
        "--show-stash",
        "--ahead-behind",
        "--no-ahead-behind",
        "--renames",
        "--no-renames",
        "--null",
    ],
    long_optional: &["--porcelain", "--untracked-files", "--ignored"],
    ..NONE
};

const LS_FILES: OptionSpec = OptionSpec {
    flags: "cmodsktvz",
    long_flags: &[
        "--cached",
        "--modified",
        "--others",
        "--deleted",
        "--stage",
        "--exclude-standard",
        "--full-name",
        "--error-unmatch",
        "--directory",
        "--no-empty-directory",
        "--killed",
        "--unmerged",
        "--eol",
        "--deduplicate",
    ],
    long_values: &["--format"],
    ..NONE
};

const REV_PARSE: OptionSpec = OptionSpec {
    flags: "q",
    long_flags: &[
        "--show-toplevel",
        "--verify",
        "--git-dir",
        "--absolute-git-dir",
        "--is-inside-work-tree",
        "--is-inside-git-dir",
        "--is-bare-repository",
        "--show-prefix",
        "--show-cdup",
        "--quiet",
        "--symbolic",
        "--symbolic-full-name",
    ],
    long_optional: &["--short", "--abbrev-ref"],
    ..NONE
};

const BRANCH: OptionSpec = OptionSpec {
    flags: "arvl",
    long_flags: &[
        "--all",
        "--remotes",
        "--verbose",
        "--list",
        "--show-current",
        "--no-color",
        "--ignore-case",
    ],
    long_values: &["--sort", "--format"],
    long_optional: &["--color", "--abbrev"],
    ..NONE
};

const GREP: OptionSpec = OptionSpec {
    flags: "nilLcvEFPIhHwoqz",
    values: "eABCm",
    long_flags: &[
        "--cached",
        "--line-number",
        "--ignore-case",
        "--files-with-matches",
        "--files-without-match",
        "--count",
        "--invert-match",
        "--extended-regexp",
        "--fixed-strings",
        "--perl-regexp",
        "--word-regexp",
        "--only-matching",
        "--quiet",
        "--heading",
        "--break",
        "--full-name",
        "--null",
        "--column",
    ],
    long_values: &[
        "--max-depth",
        "--after-context",
        "--before-context",
        "--context",
        "--max-count",
    ],
    long_optional: &["--color"],
    ..NONE
};

/// Whether `git ARGS…` only reads: no global option before the subcommand, a subcommand of
/// the small set with options from its table, operands that name readable paths, and a
/// repository whose configuration is inert.
pub(super) fn git_is_read_only(args: &[String], reads: &Reads) -> bool {
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    let spec = match sub.as_str() {
        "status" => STATUS,
        "diff" => DIFF,
        "log" | "show" => LOG,
        "ls-files" => LS_FILES,
        "rev-parse" => REV_PARSE,
        "branch" => BRANCH,
        "grep" => GREP,
        // Global options (`-C`, `-c`, `--git-dir`, `-p`…), aliases and everything else.
        _ => return false,
    };
    // Borrowed where it was parsed (the options are kept inline, and a move copies them).
    let parsed = parse_options(rest, &spec, Order::Gnu);
    let Some(parsed) = parsed.as_ref() else {
        return false;
    };
    let operands: &[&str] = match sub.as_str() {
        // `git branch NAME` creates a branch; only `--list` takes patterns.
        "branch" if parsed.has(&["-l", "--list"]) => &[],
        "branch" if !parsed.operands.is_empty() => return false,
        "grep" if !parsed.has(&["-e"]) => match parsed.operands.split_first() {
            Some((_pattern, rest)) => rest,
            None => return false,
        },
        _ => &parsed.operands,
    };
    let searched = sub == "grep" && !reads.tree(".");
    !searched
        && operands.iter().all(|o| operand_is_readable(o, reads))
        && reads.repository_is_inert()
}

/// A revision or a path: either way it must resolve to a readable path (`HEAD~1` resolves
/// inside the workspace); `REV:PATH` must name a readable `PATH`; pathspec magic (`:(top)`,
/// `:/`) is not proven.
fn operand_is_readable(operand: &str, reads: &Reads) -> bool {
    if operand.starts_with(':') {
        return false;
    }
    let blob_path_ok = match operand.split_once(':') {
        Some((_, path)) => path.is_empty() || reads.path(path),
        None => true,
    };
    reads.path(operand) && blob_path_ok
}
