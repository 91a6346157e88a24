//! The map as text: the best definitions grouped by file (files in the order of their best
//! definition, definitions in line order), each as its line number and signature, as many as
//! fit the token budget.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use super::rank::Ranked;
use super::tags::FileTags;

/// Tokens in `text`, estimated as rein estimates them elsewhere (four bytes a token).
pub(crate) fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The outline of the first `count` of `ranked`.
pub(crate) fn outline(
    paths: &[String],
    files: &[&FileTags],
    ranked: &[Ranked],
    count: usize,
) -> String {
    let mut order: Vec<usize> = Vec::new();
    let mut wanted: HashMap<usize, BTreeSet<&str>> = HashMap::new();
    for item in ranked.iter().take(count) {
        let names = wanted.entry(item.file).or_insert_with(|| {
            order.push(item.file);
            BTreeSet::new()
        });
        names.insert(item.name.as_str());
    }
    let mut text = String::new();
    for file in order {
        let names = &wanted[&file];
        let _ = writeln!(text, "{}:", paths[file]);
        // One line a name: the first of its definitions in the file (the others are
        // mostly the same method in other impls).
        let mut shown: BTreeSet<&str> = BTreeSet::new();
        for def in &files[file].defs {
            if names.contains(def.name.as_str()) && shown.insert(def.name.as_str()) {
                let _ = writeln!(text, "{:>5}│{}", def.line, def.signature);
            }
        }
    }
    text
}

/// The largest outline of `ranked` within `budget` tokens (binary search on how many
/// definitions it holds), with the count it holds.
pub(crate) fn fitted(
    paths: &[String],
    files: &[&FileTags],
    ranked: &[Ranked],
    budget: usize,
) -> (String, usize) {
    let (mut low, mut high) = (0, ranked.len());
    while low < high {
        let middle = (low + high).div_ceil(2);
        if tokens(&outline(paths, files, ranked, middle)) <= budget {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    (outline(paths, files, ranked, low), low)
}
