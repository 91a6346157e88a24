//! Ranking, after aider's repository map: a graph of files where a file that uses a name
//! points at the files defining it (weighted by the square root of the uses, and by how telling
//! the name is), PageRank over it (centred on the focus files when there are any), and each
//! file's rank shared out among the definitions it points at. The definitions of the
//! repository's central types come first.

use std::collections::{HashMap, HashSet};

use super::tags::FileTags;

/// PageRank's damping factor.
const DAMPING: f64 = 0.85;
/// Iterations (the ranks settle well before).
const ITERATIONS: usize = 40;
/// A name defined in more files than this (`new`, `run`, `Error`) says nothing about which
/// file a use means: it makes no edges (in a large repository they would be most of them).
const MOST_DEFINERS: usize = 20;

/// What to centre the ranking on.
#[derive(Debug, Default)]
pub(crate) struct Centre {
    /// Files (indexes into the file list).
    pub files: HashSet<usize>,
    /// Names.
    pub names: HashSet<String>,
}

/// A ranked definition: the file (an index) and the name it defines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    pub file: usize,
    pub name: String,
    pub rank: f64,
}

/// How much a use of `name` says about the code's shape.
fn weight(name: &str, definers: usize, centre: &Centre) -> f64 {
    let mut weight = 1.0;
    if centre.names.contains(name) {
        weight *= 10.0;
    }
    let telling = name.len() >= 8
        && (name.contains('_') || name.chars().skip(1).any(|c| c.is_ascii_uppercase()));
    if telling {
        weight *= 10.0;
    }
    if name.starts_with('_') {
        weight *= 0.1;
    }
    // `new`, `run`, `get`: defined all over, they say little.
    if definers > 5 {
        weight *= 0.1;
    }
    weight
}

/// The definitions of `files`, best first.
pub(crate) fn rank(files: &[&FileTags], centre: &Centre) -> Vec<Ranked> {
    let n = files.len();
    if n == 0 {
        return Vec::new();
    }
    let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, tags) in files.iter().enumerate() {
        for def in &tags.defs {
            let list = definers.entry(def.name.as_str()).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    // Edges from a user of a name to each file defining it (not to itself), the weight split
    // among the definers; a use after a `.` counts a tenth (its receiver is unknown).
    let mut edges: Vec<(usize, usize, &str, f64)> = Vec::new();
    for (i, tags) in files.iter().enumerate() {
        let plain = tags.refs.iter().map(|(name, n)| (name, f64::from(*n)));
        let members = (tags.members.iter()).map(|(name, n)| (name, f64::from(*n) / 10.0));
        for (name, uses) in plain.chain(members) {
            let Some(targets) = (definers.get(name.as_str())).filter(|t| t.len() <= MOST_DEFINERS)
            else {
                continue;
            };
            let w = weight(name, targets.len(), centre) * uses.sqrt() / targets.len() as f64;
            for &j in targets.iter().filter(|&&j| j != i) {
                edges.push((i, j, name.as_str(), w));
            }
        }
    }
    let mut out_weight = vec![0.0; n];
    for &(i, _, _, w) in &edges {
        out_weight[i] += w;
    }
    let ranks = pagerank(&edges, &out_weight, centre);
    let mut by_def: HashMap<(usize, &str), f64> = HashMap::new();
    for &(i, j, name, w) in &edges {
        *by_def.entry((j, name)).or_default() += ranks[i] * w / out_weight[i];
    }
    // Definitions nobody else uses still order by their file's rank, after the used ones.
    for (i, tags) in files.iter().enumerate() {
        for def in &tags.defs {
            by_def
                .entry((i, def.name.as_str()))
                .or_insert(ranks[i] * 1e-6);
        }
    }
    let mut ranked: Vec<Ranked> = by_def
        .into_iter()
        .map(|((file, name), rank)| Ranked {
            file,
            name: name.to_string(),
            rank,
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.rank
            .total_cmp(&a.rank)
            .then(a.file.cmp(&b.file))
            .then_with(|| a.name.cmp(&b.name))
    });
    ranked
}

/// Weighted PageRank; the random jumps (and the rank of files that point nowhere) land on the
/// centre's files when there are any, else anywhere.
fn pagerank(edges: &[(usize, usize, &str, f64)], out_weight: &[f64], centre: &Centre) -> Vec<f64> {
    let n = out_weight.len();
    let jump: Vec<f64> = if centre.files.is_empty() {
        vec![1.0 / n as f64; n]
    } else {
        let share = 1.0 / centre.files.len() as f64;
        (0..n)
            .map(|i| {
                if centre.files.contains(&i) {
                    share
                } else {
                    0.0
                }
            })
            .collect()
    };
    let mut ranks = jump.clone();
    for _ in 0..ITERATIONS {
        let dangling: f64 = (0..n)
            .filter(|&i| out_weight[i] == 0.0)
            .map(|i| ranks[i])
            .sum();
        let mut next: Vec<f64> = jump
            .iter()
            .map(|p| (1.0 - DAMPING) * p + DAMPING * dangling * p)
            .collect();
        for &(i, j, _, w) in edges {
            next[j] += DAMPING * ranks[i] * w / out_weight[i];
        }
        ranks = next;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repomap::tags::Def;

    fn file(defs: &[&str], refs: &[(&str, u32)]) -> FileTags {
        FileTags {
            defs: defs
                .iter()
                .enumerate()
                .map(|(line, name)| Def {
                    name: name.to_string(),
                    kind: "class".into(),
                    line: line as u32 + 1,
                    signature: format!("struct {name}"),
                })
                .collect(),
            refs: refs.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            members: Vec::new(),
        }
    }

    #[test]
    fn the_type_every_file_uses_comes_first() {
        let core = file(&["Registry", "helper_fn"], &[]);
        let a = file(&["Alpha"], &[("Registry", 3)]);
        let b = file(&["Beta"], &[("Registry", 2), ("Alpha", 1)]);
        let c = file(&["Gamma"], &[("Registry", 1)]);
        let files = [&core, &a, &b, &c];
        let ranked = rank(&files, &Centre::default());
        assert_eq!((ranked[0].file, ranked[0].name.as_str()), (0, "Registry"));
        assert_eq!(ranked[1].name, "Alpha");
        // Every definition is listed, the unused ones last.
        assert_eq!(ranked.len(), 5);
    }

    #[test]
    fn a_focus_file_pulls_what_it_uses_up() {
        let core = file(&["Registry"], &[]);
        let a = file(&["Alpha"], &[("Registry", 1)]);
        let b = file(&["Beta"], &[("Registry", 1)]);
        let lonely = file(&["Lonely"], &[]);
        let user = file(&["User"], &[("Lonely", 1)]);
        let files = [&core, &a, &b, &lonely, &user];
        let plain = rank(&files, &Centre::default());
        assert_eq!(plain[0].name, "Registry");
        let centre = Centre {
            files: [4].into(),
            names: HashSet::new(),
        };
        let focused = rank(&files, &centre);
        assert_eq!(focused[0].name, "Lonely");
    }
}
