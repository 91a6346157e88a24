//! The paths a shell word can name, as bash would expand it: brace expansion, then globs
//! matched against the file system. Deny rules and the sensitive list check every path a
//! word can become, so `cat s*/key` is judged as `cat secrets/key`.

use std::path::{Path, PathBuf};

use globset::GlobBuilder;

/// Most names one word may expand to before rein gives up (and treats it as unresolved).
const MAX_EXPANSIONS: usize = 256;
/// Most directory entries looked at while expanding one word.
const MAX_VISITED: usize = 20_000;

/// What a word names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expansion {
    /// These paths (relative words joined to the base later).
    Paths(Vec<String>),
    /// Something rein cannot know (`$VAR`, a command substitution, too many names).
    Unknown,
}

/// Expands `word` as bash would for a command run in `cwd`.
pub fn expand(word: &str, cwd: &Path) -> Expansion {
    if word.contains(['$', '`']) {
        return Expansion::Unknown;
    }
    let Some(braced) = expand_braces(word) else {
        return Expansion::Unknown;
    };
    let mut out = Vec::new();
    for word in braced {
        if !word.contains(['*', '?', '[']) {
            out.push(word);
            continue;
        }
        match expand_glob(&word, cwd) {
            Some(matches) if matches.is_empty() => out.push(word),
            Some(matches) => out.extend(matches),
            None => return Expansion::Unknown,
        }
        if out.len() > MAX_EXPANSIONS {
            return Expansion::Unknown;
        }
    }
    Expansion::Paths(out)
}

/// `a{b,c}d` → `abd`, `acd`; `x{1..3}` → `x1`, `x2`, `x3`. `None` when it would be too many.
fn expand_braces(word: &str) -> Option<Vec<String>> {
    let Some((open, close)) = brace_pair(word) else {
        return Some(vec![word.to_string()]);
    };
    let (head, body, tail) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
    let alternatives: Vec<String> = if let Some((from, to)) = body.split_once("..") {
        range(from, to)?
    } else {
        split_top_level(body)
    };
    let mut out = Vec::new();
    for alternative in alternatives {
        for expanded in expand_braces(&format!("{head}{alternative}{tail}"))? {
            out.push(expanded);
            if out.len() > MAX_EXPANSIONS {
                return None;
            }
        }
    }
    Some(out)
}

/// The first `{…}` holding a comma or `..` at its top level.
fn brace_pair(word: &str) -> Option<(usize, usize)> {
    let bytes = word.as_bytes();
    for (open, _) in word.match_indices('{') {
        let mut depth = 0;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let body = &word[open + 1..i];
                        if body.contains(',') || body.contains("..") {
                            return Some((open, i));
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    None
}

fn split_top_level(body: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
}

fn range(from: &str, to: &str) -> Option<Vec<String>> {
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        if a.abs_diff(b) as usize > MAX_EXPANSIONS {
            return None;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        return Some((lo..=hi).map(|n| n.to_string()).collect());
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(x), None, Some(y), None) => {
            let (lo, hi) = (x.min(y), x.max(y));
            Some((lo..=hi).map(String::from).collect())
        }
        // Not a range bash knows: the braces stay as written.
        _ => Some(vec![format!("{{{from}..{to}}}")]),
    }
}

/// The names a glob word matches, relative words kept relative; `None` past the limits.
fn expand_glob(word: &str, cwd: &Path) -> Option<Vec<String>> {
    let (mut bases, rest) = if let Some(rest) = word.strip_prefix('/') {
        (vec![(PathBuf::from("/"), "/".to_string())], rest)
    } else {
        (vec![(cwd.to_path_buf(), String::new())], word)
    };
    let mut visited = 0;
    let components: Vec<&str> = rest.split('/').filter(|c| !c.is_empty()).collect();
    for component in components {
        let mut next = Vec::new();
        if !component.contains(['*', '?', '[']) {
            for (dir, shown) in bases {
                next.push((dir.join(component), join_shown(&shown, component)));
            }
            bases = next;
            continue;
        }
        let matcher = GlobBuilder::new(component)
            .literal_separator(true)
            .build()
            .ok()?
            .compile_matcher();
        for (dir, shown) in bases {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                visited += 1;
                if visited > MAX_VISITED {
                    return None;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') && !component.starts_with('.') {
                    continue;
                }
                if matcher.is_match(&name) {
                    next.push((dir.join(&name), join_shown(&shown, &name)));
                }
            }
        }
        if next.len() > MAX_EXPANSIONS {
            return None;
        }
        bases = next;
    }
    Some(
        bases
            .into_iter()
            .filter(|(path, _)| path.symlink_metadata().is_ok())
            .map(|(_, shown)| shown)
            .collect(),
    )
}

fn join_shown(shown: &str, name: &str) -> String {
    match shown {
        "" => name.to_string(),
        "/" => format!("/{name}"),
        _ => format!("{shown}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_expand_as_bash_expands_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("secrets")).unwrap();
        std::fs::write(dir.path().join("secrets/key"), "k").unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        std::fs::write(dir.path().join(".hidden"), "").unwrap();
        let paths = |v: &[&str]| Expansion::Paths(v.iter().map(|s| s.to_string()).collect());
        let cases: &[(&str, Expansion)] = &[
            ("plain.txt", paths(&["plain.txt"])),
            ("s*/key", paths(&["secrets/key"])),
            ("se?rets/k*", paths(&["secrets/key"])),
            ("[s]ecrets/key", paths(&["secrets/key"])),
            ("{secrets,x}/key", paths(&["secrets/key", "x/key"])),
            ("f{1..3}", paths(&["f1", "f2", "f3"])),
            ("*.md", paths(&["*.md"])),
            ("*", paths(&["a.txt", "secrets"])),
            (".h*", paths(&[".hidden"])),
            ("$HOME/x", Expansion::Unknown),
            ("`id`", Expansion::Unknown),
            ("{1..100000}", Expansion::Unknown),
        ];
        for (word, expected) in cases {
            let mut got = expand(word, dir.path());
            if let Expansion::Paths(p) = &mut got {
                p.sort();
            }
            assert_eq!(&got, expected, "{word}");
        }
    }
}
