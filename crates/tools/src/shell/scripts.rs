//! Programs whose arguments are a small language of their own: `sed` scripts, `find`
//! expressions and `test` expressions. Each is read exactly; anything else is not proven.

use super::options::{OptionSpec, Order, parse_options};
use super::reads::Reads;

/// `sed -n` with print-only scripts (`-e SCRIPT` or the first operand), then files.
pub(super) fn sed_is_read_only(args: &[String], reads: &Reads) -> bool {
    let spec = OptionSpec {
        flags: "nEr",
        values: "e",
        long_flags: &["--quiet", "--silent", "--regexp-extended"],
        long_values: &["--expression"],
        ..OptionSpec::default()
    };
    let Some(parsed) = parse_options(args, &spec, Order::Gnu) else {
        return false;
    };
    if !parsed.has(&["-n", "--quiet", "--silent"]) {
        return false;
    }
    let given: Vec<&str> = parsed.values(&["-e", "--expression"]).collect();
    let (scripts, files): (Vec<&str>, &[&str]) = if given.is_empty() {
        match parsed.operands.split_first() {
            Some((script, files)) => (vec![*script], files),
            None => return false,
        }
    } else {
        (given, &parsed.operands)
    };
    scripts.iter().all(|s| sed_script_prints_only(s)) && files.iter().all(|f| reads.path(f))
}

/// Whether a sed script has only addresses and the commands `p`, `=`, `l`, `d`, `n`, `q`,
/// `Q`, `{`, `}` and `!` (no `s`, `w`, `r`, `e`, `a`, `i`, `c`, `y`, …).
pub(super) fn sed_script_prints_only(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ';') {
            i += 1;
        }
        if i >= chars.len() {
            return true;
        }
        let Some(next) = address(&chars, i) else {
            return false;
        };
        i = next;
        if chars.get(i) == Some(&',') {
            let Some(next) = address(&chars, i + 1).filter(|n| *n > i + 1) else {
                return false;
            };
            i = next;
        }
        while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == '!') {
            i += 1;
        }
        match chars.get(i) {
            Some('{') => {
                i += 1;
                continue;
            }
            Some('p' | '=' | 'l' | 'd' | 'n' | '}') => i += 1,
            Some('q' | 'Q') => {
                i += 1;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
                {
                    i += 1;
                }
            }
            _ => return false,
        }
        if !matches!(chars.get(i), None | Some(';' | '\n' | '}' | ' ' | '\t')) {
            return false;
        }
    }
}

/// Reads an optional address at `i` (`12`, `$`, `3~2`, `+4`, `/regex/I`); the index after it.
fn address(chars: &[char], mut i: usize) -> Option<usize> {
    match chars.get(i) {
        Some('$') => Some(i + 1),
        Some('/') => {
            i += 1;
            loop {
                match chars.get(i)? {
                    '\\' => i += 2,
                    '/' => break,
                    '\n' => return None,
                    _ => i += 1,
                }
            }
            i += 1;
            while matches!(chars.get(i), Some('I' | 'M')) {
                i += 1;
            }
            Some(i)
        }
        Some(c) if c.is_ascii_digit() || matches!(c, '+' | '~') => {
            i += 1;
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_digit() || *c == '~')
            {
                i += 1;
            }
            Some(i)
        }
        _ => Some(i),
    }
}

/// `find` tests and operators without a value.
const FIND_FLAGS: &[&str] = &[
    "-print",
    "-print0",
    "-ls",
    "-empty",
    "-prune",
    "-quit",
    "-depth",
    "-true",
    "-false",
    "-readable",
    "-writable",
    "-executable",
    "-nouser",
    "-nogroup",
    "-xdev",
    "-mount",
    "-and",
    "-a",
    "-or",
    "-o",
    "-not",
    "!",
    "(",
    ")",
    ",",
    "-daystart",
    "-noleaf",
];

/// `find` tests with one value (not a file).
const FIND_VALUES: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-maxdepth",
    "-mindepth",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-printf",
    "-lname",
    "-ilname",
    "-fstype",
];

/// `find` tests whose value is a file.
const FIND_FILES: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile"];

/// `find [-P] START… EXPRESSION` with only the tests above: no `-exec`, `-delete`, `-fprint`,
/// `-fls`, no `-L`/`-H`/`-follow` (which leave the workspace through links).
pub(super) fn find_is_read_only(args: &[String], reads: &Reads) -> bool {
    let mut i = 0;
    while args.get(i).is_some_and(|a| a == "-P") {
        i += 1;
    }
    while let Some(start) = args.get(i) {
        if start.starts_with('-') || matches!(start.as_str(), "(" | "!" | ")" | ",") {
            break;
        }
        if !reads.path(start) {
            return false;
        }
        i += 1;
    }
    while let Some(arg) = args.get(i) {
        let arg = arg.as_str();
        i += 1;
        if FIND_FLAGS.contains(&arg) {
            continue;
        }
        let value = args.get(i);
        i += 1;
        let ok = match value {
            Some(value) if FIND_FILES.contains(&arg) => reads.path(value),
            Some(_) => FIND_VALUES.contains(&arg),
            None => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// `test` unary operators whose operand is a file.
const TEST_FILE_OPS: &[&str] = &[
    "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-b", "-c", "-p", "-S", "-g", "-u", "-k",
    "-O", "-G", "-N",
];

/// `test` operators that read nothing.
const TEST_OPS: &[&str] = &[
    "-z", "-n", "!", "(", ")", "-a", "-o", "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le",
    "-gt", "-ge",
];

/// `test EXPR`: file tests on readable paths, string and integer comparisons. Not `-v`
/// (which evaluates array subscripts), `-t`, `-R`, `-nt`/`-ot`/`-ef` or any other `-X`.
pub(super) fn test_is_read_only(args: &[String], reads: &Reads) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if TEST_FILE_OPS.contains(&arg.as_str()) {
            if let Some(file) = args.get(i)
                && !reads.path(file)
            {
                return false;
            }
            i += 1;
        } else if arg.starts_with('-') && arg.len() > 1 && !TEST_OPS.contains(&arg.as_str()) {
            return false;
        }
    }
    true
}
