//! The text side of expanding a command: arguments substituted, and where its shell snippets
//! (`` !`git status` ``) and file references (`@CHANGELOG.md`) are. Running the snippets and
//! reading the files is the agent's (through the permission gate and the workspace guard).

use std::ops::Range;
use std::path::Path;

/// `body` with `$ARGUMENTS` replaced by `args`, `$1`…`$9` by its words (quotes group words;
/// a missing one is empty) and `${CLAUDE_SKILL_DIR}` by the skill's folder. A body with no
/// placeholder gets the arguments appended, as Claude Code does.
pub(crate) fn substitute(body: &str, args: &str, skill_dir: Option<&Path>) -> String {
    let args = args.trim();
    let words = split_words(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut placeholder = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            placeholder = true;
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c))
            && !after[1..].starts_with(|c: char| c.is_ascii_digit())
        {
            let n = digit as usize - '1' as usize;
            out.push_str(words.get(n).map_or("", String::as_str));
            placeholder = true;
            rest = &after[1..];
        } else if let (Some(tail), Some(dir)) =
            (after.strip_prefix("{CLAUDE_SKILL_DIR}"), skill_dir)
        {
            out.push_str(&dir.display().to_string());
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !placeholder && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

/// Words of `args`; `"a b"` and `'a b'` are one word.
fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(current);
    }
    words
}

/// Each `` !`command` `` of `text` (the `!` at a line's start or after a space or
/// punctuation), as its byte range and the command.
pub(crate) fn shell_snippets(text: &str) -> Vec<(Range<usize>, String)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find("!`") {
        let start = from + offset;
        let open = start + 2;
        let before_ok = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '`');
        match text[open..].find('`') {
            Some(len) if before_ok && len > 0 && !text[open..open + len].contains('\n') => {
                let end = open + len + 1;
                found.push((start..end, text[open..open + len].trim().to_string()));
                from = end;
            }
            _ => from = open,
        }
    }
    found
}

/// Each `@path` of `text` outside fenced blocks and code spans (the `@` at a line's start or
/// after a space or an opening bracket; trailing punctuation is not part of the path), as its
/// byte range and the path.
pub(crate) fn at_references(text: &str) -> Vec<(Range<usize>, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced {
            let mut in_span = false;
            let mut previous: Option<char> = None;
            for (i, c) in line.char_indices() {
                if c == '`' {
                    in_span = !in_span;
                } else if c == '@'
                    && !in_span
                    && previous.is_none_or(|p| p.is_whitespace() || "([{\"'".contains(p))
                {
                    let rest = &line[i + 1..];
                    let len = rest
                        .find(|ch: char| ch.is_whitespace() || "`\"'<>()[]{},;|".contains(ch))
                        .unwrap_or(rest.len());
                    let path = rest[..len].trim_end_matches(['.', ':', '!', '?']);
                    if !path.is_empty() && !path.starts_with('@') {
                        let start = line_start + i;
                        found.push((start..start + 1 + path.len(), path.to_string()));
                    }
                }
                previous = Some(c);
            }
        }
        line_start += line.len();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_positions_are_substituted_and_dollars_kept() {
        let body = "Fix $ARGUMENTS: first $1, second $2, none $3. Costs $$ and $100 and $x.";
        assert_eq!(
            substitute(body, r#"bug "in parser""#, None),
            r#"Fix bug "in parser": first bug, second in parser, none . Costs $$ and $100 and $x."#
        );
        assert_eq!(
            substitute("Review the code.", "src/main.rs", None),
            "Review the code.\n\nARGUMENTS: src/main.rs"
        );
        assert_eq!(substitute("Just this.", "", None), "Just this.");
        assert_eq!(
            substitute("run ${CLAUDE_SKILL_DIR}/x.sh", "", Some(Path::new("/s"))),
            "run /s/x.sh"
        );
    }

    #[test]
    fn shell_snippets_are_found_where_claude_code_runs_them() {
        let text = "- Status: !`git status`\n!`git diff HEAD`\nnot this: a!`b` or !`` or `!`x`";
        let found: Vec<String> = shell_snippets(text).into_iter().map(|(_, c)| c).collect();
        assert_eq!(found, ["git status", "git diff HEAD"]);
        let (range, _) = &shell_snippets(text)[0];
        assert_eq!(&text[range.clone()], "!`git status`");
    }

    #[test]
    fn at_references_skip_code_emails_and_punctuation() {
        let text = "See @CHANGELOG.md (if exists), and @src/app.\nMail a@b.com\n\
                    `@types/node` stays\n```\n@inside fenced\n```\n(@docs/)";
        let found: Vec<String> = at_references(text).into_iter().map(|(_, p)| p).collect();
        assert_eq!(found, ["CHANGELOG.md", "src/app", "docs/"]);
    }
}
