//! Exact option parsing for the programs rein reads: clustered short options (`-la`), values
//! attached or in the next word (`-n5`, `-n 5`), long options matched whole (`--output` is
//! never `--out`), `--opt=value`, and `--` ending the options. An option a table does not list
//! is a parse failure: the caller cannot prove anything about it.

/// The options one program accepts.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct OptionSpec {
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
    pub(super) const NONE: Self = Self {
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
pub(super) enum Order {
    /// Options stop at the first operand (`env`, `sudo`, `xargs`: the rest is a command).
    Posix,
    /// Options may follow operands, as GNU getopt permutes them.
    Gnu,
}

/// The result of parsing a program's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Parsed {
    /// Options in order, by spelling (`-n`, `--lines`) with their values.
    pub options: Vec<(String, Option<String>)>,
    /// The operands, in order.
    pub operands: Vec<String>,
    /// For [`Order::Posix`]: the index in the arguments of the first operand (or their
    /// length).
    pub end: usize,
}

impl Parsed {
    /// Whether one of `names` was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(n, _)| names.contains(&n.as_str()))
    }

    /// The values given to any of `names`.
    pub fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
        self.options
            .iter()
            .filter(move |(n, _)| names.contains(&n.as_str()))
            .filter_map(|(_, v)| v.as_deref())
    }
}

/// Parses `args` (the program excluded) with `spec`, or `None` when an option is unknown or
/// lacks its value.
pub(super) fn parse_options(args: &[String], spec: &OptionSpec, order: Order) -> Option<Parsed> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            if parsed.operands.is_empty() {
                parsed.end = i;
            }
            parsed.operands.extend(args[i..].iter().cloned());
            return Some(parsed);
        }
        if arg == "-" || !arg.starts_with('-') {
            if order == Order::Posix {
                parsed.end = i - 1;
                parsed.operands.extend(args[i - 1..].iter().cloned());
                return Some(parsed);
            }
            parsed.operands.push(arg.clone());
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

fn parse_long(
    long: &str,
    args: &[String],
    mut i: usize,
    spec: &OptionSpec,
    parsed: &mut Parsed,
) -> Option<usize> {
    let (name, value) = match long.split_once('=') {
        Some((name, value)) => (format!("--{name}"), Some(value.to_string())),
        None => (format!("--{long}"), None),
    };
    let known = |list: &[&str]| list.contains(&name.as_str());
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
                let next = args.get(i)?.clone();
                i += 1;
                Some(next)
            }
        }
    } else {
        return None;
    };
    parsed.options.push((name, value));
    Some(i)
}

fn parse_short(
    cluster: &str,
    args: &[String],
    mut i: usize,
    spec: &OptionSpec,
    parsed: &mut Parsed,
) -> Option<usize> {
    if spec.numbers && !cluster.is_empty() && cluster.chars().all(|c| c.is_ascii_digit()) {
        parsed
            .options
            .push(("-NUM".to_string(), Some(cluster.to_string())));
        return Some(i);
    }
    for (at, c) in cluster.char_indices() {
        let name = format!("-{c}");
        let rest = &cluster[at + c.len_utf8()..];
        if spec.flags.contains(c) {
            parsed.options.push((name, None));
        } else if spec.optional.contains(c) {
            let value = (!rest.is_empty()).then(|| rest.to_string());
            parsed.options.push((name, value));
            return Some(i);
        } else if spec.values.contains(c) {
            let value = if rest.is_empty() {
                let next = args.get(i)?.clone();
                i += 1;
                next
            } else {
                rest.to_string()
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
