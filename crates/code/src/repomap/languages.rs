//! The languages the map reads: each one's official tree-sitter grammar and the definitions
//! its grammar's own tags query names (`@definition.*` with its `@name`). TypeScript's query
//! covers only what TypeScript adds, so JavaScript's is read with it, as editors do.

use std::path::Path;

use tree_sitter::{Language, Query};

/// A language of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    C,
    Cpp,
    Ruby,
}

impl Lang {
    /// Every language.
    #[cfg(test)]
    pub(crate) const ALL: [Lang; 10] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
        Lang::Ruby,
    ];

    /// The language of a file, by its extension.
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "hh" | "hpp" | "hxx" => Lang::Cpp,
            "rb" => Lang::Ruby,
            _ => return None,
        })
    }

    pub(crate) fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
        }
    }

    /// The grammar's tags query (JavaScript's and TypeScript's together for TypeScript).
    fn tags_source(self) -> String {
        match self {
            Lang::Rust => tree_sitter_rust::TAGS_QUERY.to_string(),
            Lang::Python => tree_sitter_python::TAGS_QUERY.to_string(),
            Lang::JavaScript => tree_sitter_javascript::TAGS_QUERY.to_string(),
            Lang::TypeScript | Lang::Tsx => format!(
                "{}\n{}",
                tree_sitter_javascript::TAGS_QUERY,
                tree_sitter_typescript::TAGS_QUERY
            ),
            Lang::Go => tree_sitter_go::TAGS_QUERY.to_string(),
            Lang::Java => tree_sitter_java::TAGS_QUERY.to_string(),
            Lang::C => tree_sitter_c::TAGS_QUERY.to_string(),
            Lang::Cpp => tree_sitter_cpp::TAGS_QUERY.to_string(),
            Lang::Ruby => tree_sitter_ruby::TAGS_QUERY.to_string(),
        }
    }

    /// The compiled tags query (an error is a grammar and its query out of step, which a
    /// test catches for every language).
    pub(crate) fn tags_query(self) -> Result<Query, tree_sitter::QueryError> {
        Query::new(&self.grammar(), &self.tags_source())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammars_tags_query_compiles() {
        for lang in Lang::ALL {
            if let Err(e) = lang.tags_query() {
                panic!("{lang:?}: {e}");
            }
        }
    }
}
