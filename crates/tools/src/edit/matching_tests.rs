#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
use pretty_assertions::assert_eq;

use super::*;

/// Runs the pipeline and applies the result: (tier, new text) or the failure.
fn edit(text: &str, old: &str, new: &str) -> Result<(Tier, String), Found> {
    edit_all(text, old, new, false)
}

fn edit_all(text: &str, old: &str, new: &str, all: bool) -> Result<(Tier, String), Found> {
    let occurrences = if all {
        Occurrences::All
    } else {
        Occurrences::One
    };
    let in_original = if text.contains(old) {
        InOriginal::Verbatim
    } else {
        InOriginal::Folded
    };
    match find(text, old, new, occurrences, in_original) {
        Found::Matches(tier, replacements) => {
            let mut out = String::new();
            let mut at = 0;
            for r in &replacements {
                out.push_str(&text[at..r.range.start]);
                out.push_str(&r.text);
                at = r.range.end;
            }
            out.push_str(&text[at..]);
            Ok((tier, out))
        }
        other => Err(other),
    }
}

#[test]
fn each_tier_finds_what_the_looser_quote_means() {
    let cases: &[(&str, &str, &str, &str, Tier, &str)] = &[
        (
            "exact",
            "fn a() {\n    one();\n}\n",
            "one();",
            "two();",
            Tier::Exact,
            "fn a() {\n    two();\n}\n",
        ),
        (
            "trailing whitespace in the file",
            "fn a() {   \n    one();  \n}\n",
            "fn a() {\n    one();\n",
            "fn a() {\n    two();\n",
            Tier::TrailingWhitespace,
            "fn a() {\n    two();\n}\n",
        ),
        (
            "blank lines around the quote",
            "a\nb\nc\n",
            "\n\nb\n\n",
            "B",
            Tier::BlankLinesAround,
            "a\nB\nc\n",
        ),
        (
            "indentation differs: new_string re-indented",
            "impl X {\n        fn f() {\n            go();\n        }\n}\n",
            "fn f() {\n    go();\n}",
            "fn f() {\n    stop();\n    go();\n}",
            Tier::Indentation,
            "impl X {\n        fn f() {\n            stop();\n            go();\n        }\n}\n",
        ),
        (
            "whitespace collapsed",
            "let  x  =  1;\nlet y = 2;\n",
            "let x = 1;\nlet y = 2;",
            "let x = 3;\nlet y = 2;",
            Tier::Whitespace,
            "let x = 3;\nlet y = 2;\n",
        ),
        (
            "escapes typed literally",
            "a\n\tb \"q\"\nc\n",
            "a\\n\\tb \\\"q\\\"",
            "a\\n\\tB",
            Tier::Unescaped,
            "a\n\tB\nc\n",
        ),
        (
            "line numbers copied from read_file",
            "x\nfoo()\nbar()\ny\n",
            "     2\tfoo()\n     3\tbar()",
            "     2\tbaz()",
            Tier::LineNumbers,
            "x\nbaz()\ny\n",
        ),
        (
            "typographic quotes and dashes",
            "say(\u{201C}hi\u{201D}) \u{2014} done\n",
            "say(\"hi\") - done",
            "say(\"bye\") - done",
            Tier::Typography,
            "say(\"bye\") - done\n",
        ),
    ];
    for (name, text, old, new, tier, expected) in cases {
        let got = edit(text, old, new);
        assert_eq!(got, Ok((*tier, expected.to_string())), "{name}");
    }
}

#[test]
fn ambiguity_lists_candidates_and_stops_the_search() {
    let text = "x = 1\ny = 2\nx = 1\n";
    assert_eq!(
        edit(text, "x = 1", "x = 9"),
        Err(Found::Ambiguous(Tier::Exact, vec![1, 3]))
    );
    // Two lines match ignoring indentation and an exact-but-partial match does not exist: the
    // indentation tier reports both instead of a looser tier picking one.
    let text = "  go()\n    go()\n";
    assert_eq!(
        edit(text, "go() ", "stop()"),
        Err(Found::Ambiguous(Tier::Indentation, vec![1, 2]))
    );
}

#[test]
fn replace_all_replaces_every_match_of_the_first_tier_that_matches() {
    let got = edit_all("a1\nb\na1\n", "a1", "a2", true);
    assert_eq!(got, Ok((Tier::Exact, "a2\nb\na2\n".to_string())));
}

#[test]
fn overlapping_occurrences_count_once_as_claude_code_counts_them() {
    // `"aaa".split("aa")` has two parts: one occurrence, the first.
    assert_eq!(edit("aaa", "aa", "X"), Ok((Tier::Exact, "Xa".to_string())));
}

#[test]
fn not_found_is_reported() {
    assert_eq!(edit("abc\n", "xyz", "q"), Err(Found::Nothing));
}

#[test]
fn tolerant_edits_keep_a_missing_final_newline() {
    let got = edit("a\n  b  ", "b", "c");
    assert_eq!(got, Ok((Tier::Exact, "a\n  c  ".to_string())));
    let got = edit("a\n  b  ", "  b", "  c");
    assert_eq!(got, Ok((Tier::Exact, "a\n  c  ".to_string())));
    let got = edit("a\n    b  ", "  b\n", "  c\n");
    assert_eq!(got, Ok((Tier::Indentation, "a\n    c".to_string())));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn file() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec("[ a-z(){};=]{0,12}", 3..30)
    }

    proptest! {
        // `bench/fuzz` raises the count through PROPTEST_CASES.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
            // Long runs reject many generated files (no unique match): not a failure.
            max_global_rejects: u32::MAX,
            ..ProptestConfig::default()
        })]

        /// An exact edit of a unique substring changes only that span.
        #[test]
        fn fuzz_exact_edits_change_only_the_span(lines in file(), start in 0usize..400, len in 1usize..30, new in "[A-Z]{0,10}") {
            let text = lines.join("\n");
            prop_assume!(!text.is_empty());
            let start = start % text.len();
            let end = (start + len).min(text.len());
            let old = &text[start..end];
            // Unique even counting overlaps: in `aaa`, the `aa` at 1 is found at 0 first.
            let occurrences = (0..text.len()).filter(|&i| text[i..].starts_with(old)).count();
            prop_assume!(occurrences == 1 && old != new);
            let (tier, out) = edit(&text, old, &new).unwrap();
            prop_assert_eq!(tier, Tier::Exact);
            prop_assert_eq!(&out[..start], &text[..start]);
            prop_assert_eq!(&out[start + new.len()..], &text[end..]);
        }

        /// A tolerant edit never changes bytes outside the matched lines.
        #[test]
        fn fuzz_tolerant_edits_stay_inside_the_matched_lines(lines in file(), at in 0usize..30, height in 1usize..4, indent in "[ \t]{1,4}") {
            let at = at % lines.len();
            let height = height.min(lines.len() - at);
            // Quote the lines with different indentation so only tolerant tiers can match.
            let quote: Vec<String> = lines[at..at + height].iter().map(|l| format!("{indent}{}", l.trim())).collect();
            let quote = quote.join("\n");
            prop_assume!(!quote.trim().is_empty());
            let text = lines.join("\n") + "\n";
            match edit(&text, &quote, "REPLACED") {
                // The re-indented quote may still occur verbatim elsewhere (inside a longer
                // line): that is an exact edit, covered by the property above.
                Ok((Tier::Exact, _)) => {}
                Ok((tier, out)) => {
                    let before: Vec<&str> = text.split('\n').collect();
                    let after: Vec<&str> = out.split('\n').collect();
                    // Blank quote lines at the edges are not part of what that tier matched
                    // (fuzzing found a quote whose inner line matched another place).
                    let height = if tier == Tier::BlankLinesAround {
                        let lines: Vec<&str> = quote.split('\n').collect();
                        let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
                        let last = lines.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(0);
                        last + 1 - first
                    } else {
                        height
                    };
                    // Exactly the matched lines became the one replacement line; every other
                    // line is byte-identical.
                    prop_assert_eq!(after.len() + height, before.len() + 1);
                    let p = before.iter().zip(&after).take_while(|(a, b)| a == b).count();
                    prop_assert_eq!(after[p].trim(), "REPLACED");
                    prop_assert_eq!(&after[p + 1..], &before[p + height..]);
                }
                Err(Found::Ambiguous(..) | Found::Nothing) => {}
                Err(other) => prop_assert!(false, "{other:?}"),
            }
        }
    }
}

#[test]
fn regression_blank_lines_quoted_with_indentation() {
    let got = edit("\n;\n\n", "\t\n\t;\n\t", "REPLACED");
    assert_eq!(got, Ok((Tier::Indentation, "REPLACED\n".to_string())));
}

#[test]
fn spaces_quoted_from_a_tab_indented_file_become_tabs_at_every_level() {
    let file = "func f() {\n\tif ok {\n\t\treturn 1\n\t}\n}\n";
    // The model quotes with 4 spaces a level and adds deeper lines.
    let old = "    if ok {\n        return 1\n    }";
    let new =
        "    if ok {\n        if more {\n            return 2\n        }\n        return 1\n    }";
    let (tier, got) = edit(file, old, new).unwrap();
    assert_eq!(tier, Tier::Indentation);
    assert_eq!(
        got,
        "func f() {\n\tif ok {\n\t\tif more {\n\t\t\treturn 2\n\t\t}\n\t\treturn 1\n\t}\n}\n"
    );
    assert!(
        !got.contains(' ') || !got.lines().any(|l| l.starts_with("\t ")),
        "{got:?}"
    );
}

#[test]
fn tabs_quoted_from_a_space_indented_file_become_its_spaces() {
    let file = "def f():\n  if ok:\n    return 1\n";
    let (tier, got) = edit(
        file,
        "\tif ok:\n\t\treturn 1",
        "\tif ok:\n\t\tif more:\n\t\t\treturn 2\n\t\treturn 1",
    )
    .unwrap();
    assert_eq!(tier, Tier::Indentation);
    assert_eq!(
        got,
        "def f():\n  if ok:\n    if more:\n      return 2\n    return 1\n"
    );
}
