//! When `old_string` is not found: the region of the file most like it, so the model can copy
//! the real text.

use std::collections::HashSet;

/// The best window of the quote's line count, as (first line index, line count, similarity
/// 0–1), or `None` for an empty file or quote.
pub fn closest_region(lines: &[&str], quote: &str) -> Option<(usize, usize, f32)> {
    let quote_lines: Vec<&str> = quote.trim_matches('\n').split('\n').collect();
    let height = quote_lines.len().clamp(1, 40);
    if lines.is_empty() || quote.trim().is_empty() {
        return None;
    }
    // Cheap pass: score each line by the quote's words it contains, then slide a window.
    let words: HashSet<&str> = quote
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.len() > 1)
        .collect();
    if words.is_empty() {
        return None;
    }
    let scores: Vec<u32> = lines
        .iter()
        .map(|line| {
            let seen: HashSet<&str> = line
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| words.contains(w))
                .collect();
            u32::try_from(seen.len()).unwrap_or(u32::MAX)
        })
        .collect();
    let height = height.min(lines.len());
    let mut sums = Vec::with_capacity(lines.len() - height + 1);
    let mut sum: u32 = scores[..height].iter().sum();
    sums.push(sum);
    for start in 1..=lines.len() - height {
        sum = sum - scores[start - 1] + scores[start + height - 1];
        sums.push(sum);
    }
    // Precise similarity for the few best windows only.
    let mut order: Vec<usize> = (0..sums.len()).filter(|&i| sums[i] > 0).collect();
    order.sort_by(|a, b| sums[*b].cmp(&sums[*a]).then(a.cmp(b)));
    let quote = quote.trim_matches('\n');
    order
        .into_iter()
        .take(8)
        .map(|start| {
            let region = lines[start..start + height].join("\n");
            let ratio = similar::TextDiff::from_chars(region.as_str(), quote).ratio();
            (start, height, ratio)
        })
        .fold(
            None,
            |best: Option<(usize, usize, f32)>, candidate| match best {
                Some(b) if b.2 >= candidate.2 => Some(b),
                _ => Some(candidate),
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_most_similar_window() {
        let file =
            "fn a() {}\nfn parse(input: &str) -> Result<Config> {\n    let x = 1;\n}\nfn b() {}\n";
        let lines: Vec<&str> = file.lines().collect();
        let (start, height, ratio) = closest_region(
            &lines,
            "fn parse(input: &str) -> Result<Settings> {\n    let x = 2;",
        )
        .unwrap();
        assert_eq!((start, height), (1, 2));
        assert!(ratio > 0.8, "{ratio}");
    }

    #[test]
    fn nothing_alike_gives_none() {
        let lines = ["alpha", "beta"];
        assert_eq!(closest_region(&lines, "zzz qqq"), None);
    }
}
