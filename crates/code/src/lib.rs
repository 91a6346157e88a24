//! rein's code intelligence: the language servers ([`lsp`]: diagnostics after each change,
//! definitions, references, hover) and the repository map ([`repomap`]) — every source file's
//! definitions and references from tree-sitter, the files ranked by how the code refers to
//! itself (PageRank over references, centred on what the caller names), rendered as a compact
//! outline within a token budget, and cached on disk so a second build reparses only what
//! changed.

pub mod lsp;
pub mod repomap;

pub use repomap::{Build, Keep, MapError, MapOptions, RepoMap};
