//! One file's tags: the definitions its grammar's tags query finds (name, kind, line, the
//! line's text as its signature) and every identifier it uses, counted — the references the
//! ranking follows. Identifiers rather than the queries' `@reference.*` captures: those name
//! calls only (and nothing at all in C and C++), while a repository's central types are
//! mostly used in signatures and fields.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{
    Node, ParseOptions, ParseState, Parser, Query, QueryCursor, QueryCursorOptions,
    QueryCursorState, Tree,
};

use super::languages::Lang;

/// The longest signature kept, in bytes.
const SIGNATURE: usize = 120;

/// The most time one file's parse and query may take: a file made to be slow to parse
/// (thousands of nested calls) is left out of the map instead of delaying the session.
pub(crate) const FILE_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// A definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    /// The defined name.
    pub name: String,
    /// What the query calls it: `function`, `method`, `class`, `interface`, `module`…
    pub kind: String,
    /// Its first line, from 1.
    pub line: u32,
    /// That line's text, trimmed (and cut at 120 bytes).
    pub signature: String,
}

/// Names and how often they are used.
pub type Uses = Vec<(String, u32)>;

/// What one file defines and uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTags {
    /// Its definitions, in file order.
    pub defs: Vec<Def>,
    /// The identifiers it uses (three characters or more) and how often, but for those in
    /// member position.
    pub refs: Uses,
    /// The identifiers it uses after a `.` (`x.len()`, `self.path`): the receiver is unknown,
    /// so a use says less about which definition is meant.
    pub members: Uses,
}

/// Reads files of one language after another with one parser and compiled queries.
pub(crate) struct Tagger {
    parser: Parser,
    queries: HashMap<Lang, Query>,
}

impl Tagger {
    pub(crate) fn new() -> Self {
        Self {
            parser: Parser::new(),
            queries: HashMap::new(),
        }
    }

    /// The tags of `source` in `lang`; a file the grammar cannot read, or cannot read within
    /// [`FILE_TIME`], has none.
    pub(crate) fn tags(&mut self, lang: Lang, source: &[u8]) -> FileTags {
        self.tags_within(lang, source, FILE_TIME)
    }

    /// [`Tagger::tags`] with the time `limit` for the parse and the query together.
    pub(crate) fn tags_within(
        &mut self,
        lang: Lang,
        source: &[u8],
        limit: std::time::Duration,
    ) -> FileTags {
        let deadline = std::time::Instant::now() + limit;
        if self.parser.set_language(&lang.grammar()).is_err() {
            return FileTags::default();
        }
        let mut over = |_: &ParseState| std::time::Instant::now() >= deadline;
        let mut read = |at: usize, _| source.get(at..).unwrap_or_default();
        let options = ParseOptions::new().progress_callback(&mut over);
        let Some(tree) = self
            .parser
            .parse_with_options(&mut read, None, Some(options))
        else {
            // Cancelled at the deadline (the parser keeps its half-made state): start afresh.
            self.parser.reset();
            return FileTags::default();
        };
        let query = match self.queries.entry(lang) {
            std::collections::hash_map::Entry::Occupied(q) => q.into_mut(),
            std::collections::hash_map::Entry::Vacant(slot) => match lang.tags_query() {
                Ok(query) => slot.insert(query),
                Err(_) => return FileTags::default(),
            },
        };
        let Some((defs, names)) = definitions(query, &tree, source, deadline) else {
            return FileTags::default();
        };
        if std::time::Instant::now() >= deadline {
            return FileTags::default();
        }
        let (refs, members) = identifiers(&tree, source, &names);
        FileTags {
            defs,
            refs,
            members,
        }
    }
}

/// The definitions, and where their names stand (byte offsets: a definition's own name is
/// not a use of it); `None` when the query ran past `deadline`.
fn definitions(
    query: &Query,
    tree: &Tree,
    source: &[u8],
    deadline: std::time::Instant,
) -> Option<(Vec<Def>, HashSet<usize>)> {
    let names = query.capture_names();
    let mut cursor = QueryCursor::new();
    let mut over = |_: &QueryCursorState| std::time::Instant::now() >= deadline;
    let options = QueryCursorOptions::new().progress_callback(&mut over);
    let mut matches = cursor.matches_with_options(query, tree.root_node(), source, options);
    let mut defs: Vec<Def> = Vec::new();
    let mut named_at = HashSet::new();
    while let Some(found) = matches.next() {
        let mut name = None;
        let mut definition = None;
        for capture in found.captures {
            let label = names[capture.index as usize];
            if label == "name" {
                name = Some(capture.node);
            } else if let Some(kind) = label.strip_prefix("definition.")
                // A module is the code's layout, not something it uses by name.
                && kind != "module"
            {
                definition = Some((kind, capture.node));
            }
        }
        let (Some(name), Some((kind, node))) = (name, definition) else {
            continue;
        };
        let Ok(text) = name.utf8_text(source) else {
            continue;
        };
        named_at.insert(name.start_byte());
        let line = node.start_position().row as u32 + 1;
        // Two patterns may find the same definition (a method is a function too).
        if defs.iter().any(|d| d.line == line && d.name == text) {
            continue;
        }
        defs.push(Def {
            name: text.to_string(),
            kind: kind.to_string(),
            line,
            signature: signature(source, node),
        });
    }
    if std::time::Instant::now() >= deadline {
        return None;
    }
    defs.sort_by_key(|d| d.line);
    Some((defs, named_at))
}

/// The first line of `node`, trimmed and cut.
fn signature(source: &[u8], node: Node<'_>) -> String {
    let start = node.start_byte();
    let line_start = source[..start]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = source[start..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(source.len(), |i| start + i);
    let text = String::from_utf8_lossy(&source[line_start..line_end]);
    let text = text.trim();
    if text.len() <= SIGNATURE {
        return text.to_string();
    }
    let mut cut = SIGNATURE;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

/// Every identifier-like leaf (`identifier`, `type_identifier`, Ruby's `constant`…) of three
/// characters or more (`i`, `io`, `fs` are mostly local names), counted, in name order: those in member position (`field_identifier`,
/// `property_identifier`, the attribute of a Python attribute) apart. Definitions' own names
/// (at the offsets in `defined`) and Rust attributes (`#[derive(Debug)]` names no definition
/// of the repository) are left out.
fn identifiers(tree: &Tree, source: &[u8], defined: &HashSet<usize>) -> (Uses, Uses) {
    let mut plain: HashMap<&str, u32> = HashMap::new();
    let mut members: HashMap<&str, u32> = HashMap::new();
    let mut cursor = tree.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        let attribute = matches!(node.kind(), "attribute_item" | "inner_attribute_item");
        if descend && node.child_count() == 0 && !defined.contains(&node.start_byte()) {
            let kind = node.kind();
            if (kind.ends_with("identifier") || kind == "constant")
                && let Ok(text) = node.utf8_text(source)
                && text.len() >= 3
            {
                let counts = if is_member(node, kind) {
                    &mut members
                } else {
                    &mut plain
                };
                *counts.entry(text).or_default() += 1;
            }
        }
        if descend && !attribute && cursor.goto_first_child() {
            continue;
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        if !cursor.goto_parent() {
            break;
        }
        descend = false;
    }
    (sorted(plain), sorted(members))
}

/// Whether an identifier names a member of something else.
fn is_member(node: Node<'_>, kind: &str) -> bool {
    if kind == "field_identifier" || kind == "property_identifier" {
        return true;
    }
    let Some(parent) = node.parent() else {
        return false;
    };
    let field = match parent.kind() {
        // Python's `x.name`, Go's and Java's `x.Name`, Ruby's `x.name`.
        "attribute" => "attribute",
        "selector_expression" => "field",
        "field_access" | "method_invocation" => "name",
        "call" => "method",
        _ => return false,
    };
    parent
        .child_by_field_name(field)
        .is_some_and(|child| child.id() == node.id())
}

fn sorted(counts: HashMap<&str, u32>) -> Uses {
    let mut list: Uses = counts
        .into_iter()
        .map(|(name, n)| (name.to_string(), n))
        .collect();
    list.sort();
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file made to be slow (tens of thousands of nested calls) gets no tags once its time
    /// is up, and the tagger reads the next file as before.
    #[test]
    fn a_file_over_its_time_is_left_out_and_the_next_is_read() {
        let nested = |depth: usize| {
            format!(
                "def outer():\n    pass\n\nx = {}1{}\n",
                "outer(".repeat(depth),
                ")".repeat(depth)
            )
        };
        let mut tagger = Tagger::new();
        let slow = nested(20_000);
        let none = tagger.tags_within(Lang::Python, slow.as_bytes(), std::time::Duration::ZERO);
        assert!(none.defs.is_empty(), "{:?}", none.defs);
        let plain = b"def helper():\n    return 1\n";
        let read = tagger.tags(Lang::Python, plain);
        assert_eq!(read.defs.len(), 1, "{:?}", read.defs);
        assert_eq!(read.defs[0].name, "helper");
        // Control: a file of the same shape, read in its time, has its definition.
        let fine = tagger.tags(Lang::Python, nested(50).as_bytes());
        assert!(
            fine.defs.iter().any(|d| d.name == "outer"),
            "{:?}",
            fine.defs
        );
    }
}
