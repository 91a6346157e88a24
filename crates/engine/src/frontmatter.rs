//! Markdown files with a `---` YAML frontmatter, as Claude Code writes agents, skills and
//! commands: the split, and a reading of the frontmatter that survives what strict YAML
//! refuses.

use serde::de::DeserializeOwned;

/// The frontmatter and the body of a `---`-fenced Markdown file; `None` without one.
pub(crate) fn split(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..at], &rest[at + line.len()..]));
        }
        at += line.len();
    }
    None
}

/// The frontmatter as `T`. Real files carry unquoted `: ` in descriptions and `[a] | [b]`
/// argument hints, which YAML refuses; Claude Code reads them anyway, so a frontmatter YAML
/// rejects is read as `key: value` lines (every value a string), and one that does not fit
/// `T` even so gives `T::default()`.
pub(crate) fn parse<T: DeserializeOwned + Default>(head: &str) -> T {
    if let Ok(front) = serde_yaml_ng::from_str::<Option<T>>(head) {
        return front.unwrap_or_default();
    }
    serde_yaml_ng::from_value(serde_yaml_ng::Value::Mapping(lenient(head))).unwrap_or_default()
}

/// `key: value` lines at the left margin; indented lines continue the previous value.
fn lenient(head: &str) -> serde_yaml_ng::Mapping {
    let mut map = serde_yaml_ng::Mapping::new();
    let mut current: Option<(String, String)> = None;
    let finish = |entry: Option<(String, String)>, map: &mut serde_yaml_ng::Mapping| {
        let Some((key, value)) = entry else { return };
        let value = value.trim().trim_matches(['"', '\'']).to_string();
        map.insert(key.into(), value.into());
    };
    for line in head.lines() {
        let starts_key = !line.starts_with([' ', '\t'])
            && line
                .split_once(':')
                .is_some_and(|(k, _)| !k.is_empty() && !k.contains(' '));
        if starts_key && let Some((key, value)) = line.split_once(':') {
            finish(current.take(), &mut map);
            current = Some((key.trim().to_string(), value.to_string()));
        } else if let Some((_, value)) = current.as_mut() {
            value.push('\n');
            value.push_str(line.trim());
        }
    }
    finish(current, &mut map);
    map
}

/// A list of names as frontmatter writes it: a comma string (commas inside parentheses, as in
/// `Agent(a, b)`, belong to the name), or a YAML list.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum NameList {
    /// `Read, Grep, Bash(git add:*)`.
    Text(String),
    /// `[Read, Grep]` or a block list.
    List(Vec<String>),
}

impl NameList {
    /// The names, trimmed, empty ones dropped.
    pub(crate) fn names(&self) -> Vec<String> {
        let raw: Vec<String> = match self {
            Self::Text(text) => split_top_level(text),
            Self::List(list) => list.clone(),
        };
        raw.into_iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    }
}

/// Splits at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, serde::Deserialize)]
    struct Front {
        description: Option<String>,
        #[serde(rename = "argument-hint")]
        argument_hint: Option<String>,
        #[serde(rename = "allowed-tools")]
        allowed_tools: Option<NameList>,
    }

    #[test]
    fn yaml_that_strict_parsers_refuse_is_read_as_lines() {
        let (head, body) = split(
            "---\ndescription: Clean up: caches and builds\nargument-hint: [all] | [npm]\n\
             allowed-tools: Bash(rm:*), Agent(a, b)\n---\nBody $ARGUMENTS\n",
        )
        .unwrap();
        let front: Front = parse(head);
        assert_eq!(front.description.unwrap(), "Clean up: caches and builds");
        assert_eq!(front.argument_hint.unwrap(), "[all] | [npm]");
        assert_eq!(
            front.allowed_tools.unwrap().names(),
            ["Bash(rm:*)", "Agent(a, b)"]
        );
        assert_eq!(body, "Body $ARGUMENTS\n");
    }

    #[test]
    fn lists_and_empty_frontmatter_are_read() {
        let front: Front = parse("allowed-tools:\n  - Read\n  - Grep\n");
        assert_eq!(front.allowed_tools.unwrap().names(), ["Read", "Grep"]);
        let empty: Front = parse("");
        assert!(empty.description.is_none());
        assert!(split("no frontmatter").is_none());
    }
}
