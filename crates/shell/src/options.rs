//! Exact option parsing for the programs rein reads: clustered short options (`-la`), values
//! attached or in the next word (`-n5`, `-n 5`), long options matched whole (`--output` is
//! never `--out`), `--opt=value`, and `--` ending the options. An option a table does not list
//! is a parse failure: the caller cannot prove anything about it.

use smallvec::SmallVec;

/// The options one program accepts.
#[derive(Debug, Clone, Copy, Default)]
pub struct OptionSpec {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options with a value, attached (`-n5`) or in the next word (`-n 5`).
    pub values: &'static str,
    /// Short options whose value is optional and can only be attached (`-U3`, `-i{}`).
    pub optional: &'static str,
    /// Long options without a value.
    pub long_flags: &'static [&'static str],
    /// Long options with a value, `--opt=value` or `--opt value`.
    pub long_values: &'static [&'static str],
    /// Long options with an optional value, only as `--opt=value`.
    pub long_optional: &'static [&'static str],
    /// Whether `-NUM` is an option (`head -20`, `git log -5`).
    pub numbers: bool,
}

impl OptionSpec {
    /// No options at all; the base other tables extend (`OptionSpec { flags: "a", ..NONE }`).
    pub const NONE: Self = Self {
        flags: "",
        values: "",
        optional: "",
        long_flags: &[],
        long_values: &[],
        long_optional: &[],
        numbers: false,
    };
}

/// Where options may appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Options stop at the first operand (`env`, `sudo`, `xargs`: the rest is a command).
    Posix,
    /// Options may follow operands, as GNU getopt permutes them.
    Gnu,
}

/// The result of parsing a program's arguments, borrowing their text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// Options in order, with their values (a command rarely gives more than four: kept
    /// inline, as the operands are, since every command of a line is parsed).
    pub options: SmallVec<[(Opt<'a>, Option<&'a str>); 4]>,
    /// The operands, in order.
    pub operands: SmallVec<[&'a str; 4]>,
    /// For [`Order::Posix`]: the index in the arguments of the first operand (or their
    /// length).
    pub end: usize,
}

/// One option as given: a short one out of its cluster, a long one without its `--`, or a
/// number (`-20`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt<'a> {
    /// `-c`.
    Short(char),
    /// `--name`, held as `name`.
    Long(&'a str),
    /// `-NUM`.
    Number,
}

impl Opt<'_> {
    /// Whether this is the option spelt `spelling` (`-n`, `--lines`, `-NUM`).
    fn is(&self, spelling: &str) -> bool {
        match self {
            Opt::Short(c) => {
                let mut chars = spelling.chars();
                chars.next() == Some('-') && chars.next() == Some(*c) && chars.next().is_none()
            }
            Opt::Long(name) => spelling.strip_prefix("--") == Some(*name),
            Opt::Number => spelling == "-NUM",
        }
    }
}

impl<'a> Parsed<'a> {
    /// Whether one of `names` was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(o, _)| names.iter().any(|n| o.is(n)))
    }

    /// The values given to any of `names`.
    pub fn values<'n>(&'n self, names: &'n [&'n str]) -> impl Iterator<Item = &'a str> + 'n {
        self.options
            .iter()
            .filter(move |(o, _)| names.iter().any(|n| o.is(n)))
            .filter_map(|(_, v)| *v)
    }
}

/// Parses `args` (the program excluded) with `spec`, or `None` when an option is unknown or
/// lacks its value.
pub fn parse_options<'a>(
    args: &'a [String],
    spec: &OptionSpec,
    order: Order,
) -> Option<Parsed<'a>> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            if parsed.operands.is_empty() {
                parsed.end = i;
            }
            parsed.operands.extend(args[i..].iter().map(String::as_str));
            return Some(parsed);
        }
        if arg == "-" || !arg.starts_with('-') {
            if order == Order::Posix {
                parsed.end = i - 1;
                parsed
                    .operands
                    .extend(args[i - 1..].iter().map(String::as_str));
                return Some(parsed);
            }
            parsed.operands.push(arg);
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            i = parse_long(long, args, i, spec, &mut parsed)?;
        } else {
            i = parse_short(&arg[1..], args, i, spec, &mut parsed)?;
        }
    }
    parsed.end = args.len();
    Some(parsed)
}

fn parse_long<'a>(
    long: &'a str,
    args: &'a [String],
    mut i: usize,
    spec: &OptionSpec,
    parsed: &mut Parsed<'a>,
) -> Option<usize> {
    let (name, value) = match long.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (long, None),
    };
    let known = |list: &[&str]| list.iter().any(|l| l.strip_prefix("--") == Some(name));
    let value = if known(spec.long_flags) {
        if value.is_some() {
            return None;
        }
        None
    } else if known(spec.long_optional) {
        value
    } else if known(spec.long_values) {
        match value {
            Some(value) => Some(value),
            None => {
                let next = args.get(i)?.as_str();
                i += 1;
                Some(next)
            }
        }
    } else {
        return None;
    };
    parsed.options.push((Opt::Long(name), value));
    Some(i)
}

fn parse_short<'a>(
    cluster: &'a str,
    args: &'a [String],
    mut i: usize,
    spec: &OptionSpec,
    parsed: &mut Parsed<'a>,
) -> Option<usize> {
    if spec.numbers && !cluster.is_empty() && cluster.chars().all(|c| c.is_ascii_digit()) {
        parsed.options.push((Opt::Number, Some(cluster)));
        return Some(i);
    }
    for (at, c) in cluster.char_indices() {
        let name = Opt::Short(c);
        let rest = &cluster[at + c.len_utf8()..];
        if spec.flags.contains(c) {
            parsed.options.push((name, None));
        } else if spec.optional.contains(c) {
            let value = (!rest.is_empty()).then_some(rest);
            parsed.options.push((name, value));
            return Some(i);
        } else if spec.values.contains(c) {
            let value = if rest.is_empty() {
                let next = args.get(i)?.as_str();
                i += 1;
                next
            } else {
                rest
            };
            parsed.options.push((name, Some(value)));
            return Some(i);
        } else {
            return None;
        }
    }
    if cluster.is_empty() {
        return None;
    }
    Some(i)
}
