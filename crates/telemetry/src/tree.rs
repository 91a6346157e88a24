//! `rein trace FILE`: a trace file's spans as a tree, each with its duration and what says
//! most about it (tokens and cost of a request, the decision and exit code of a tool call).

use std::collections::HashMap;
use std::fmt::Write;

use crate::file::SpanLine;

/// A line of a trace file that is not a span.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: not a span: {error}")]
pub struct NotASpan {
    /// 1-based.
    pub line: usize,
    /// What serde said.
    pub error: serde_json::Error,
}

/// Reads a trace file's lines; a line that is not a span is an error naming it.
pub fn read(text: &str) -> Result<Vec<SpanLine>, NotASpan> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|error| NotASpan { line: n + 1, error })
        })
        .collect()
}

/// The spans as trees (one per root), children in start order.
pub fn render(spans: &[SpanLine]) -> String {
    let ids: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (i, span) in spans.iter().enumerate() {
        // A parent missing from the file (dropped, or outside it) makes a root.
        let parent = span
            .parent_span_id
            .as_deref()
            .and_then(|p| ids.get(p).copied());
        children.entry(parent).or_default().push(i);
    }
    for list in children.values_mut() {
        list.sort_by_key(|&i| (spans[i].start_unix_nano, spans[i].end_unix_nano));
    }
    let mut out = String::new();
    for &root in children.get(&None).into_iter().flatten() {
        let first = spans[root].start_unix_nano;
        draw(spans, &children, root, first, "", "", &mut out);
    }
    out
}

fn draw(
    spans: &[SpanLine],
    children: &HashMap<Option<usize>, Vec<usize>>,
    at: usize,
    origin: u64,
    lead: &str,
    branch: &str,
    out: &mut String,
) {
    let span = &spans[at];
    let offset = span.start_unix_nano.saturating_sub(origin) as f64 / 1e6;
    let took = span.end_unix_nano.saturating_sub(span.start_unix_nano) as f64 / 1e6;
    let _ = write!(out, "{lead}{branch}{}  {}", span.name, millis(took));
    if !branch.is_empty() || !lead.is_empty() {
        let _ = write!(out, " (+{})", millis(offset));
    }
    let details = details(span);
    if !details.is_empty() {
        let _ = write!(out, "  {details}");
    }
    out.push('\n');
    let kids = children.get(&Some(at)).map(Vec::as_slice).unwrap_or(&[]);
    let next_lead = match branch {
        "├─ " => format!("{lead}│  "),
        "└─ " => format!("{lead}   "),
        _ => lead.to_string(),
    };
    for (n, &kid) in kids.iter().enumerate() {
        let branch = if n + 1 == kids.len() {
            "└─ "
        } else {
            "├─ "
        };
        draw(spans, children, kid, origin, &next_lead, branch, out);
    }
}

fn millis(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// The attributes worth a glance, in a fixed order.
fn details(span: &SpanLine) -> String {
    let a = &span.attributes;
    let text = |key: &str| {
        a.get(key)
            .map(|v| v.as_str().map_or(v.to_string(), str::to_string))
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(id) = text("rein.session.id").filter(|_| span.parent_span_id.is_none()) {
        parts.push(format!("session {id}"));
    }
    if let (Some(input), Some(output)) = (
        text("gen_ai.usage.input_tokens"),
        text("gen_ai.usage.output_tokens"),
    ) {
        parts.push(format!("in {input} out {output}"));
    }
    if let Some(read) = text("gen_ai.usage.cache_read.input_tokens").filter(|r| r != "0") {
        parts.push(format!("cached {read}"));
    }
    if let Some(cost) = a.get("rein.cost_usd").and_then(|v| v.as_f64()) {
        parts.push(format!("${cost:.4}"));
    }
    if let Some(ms) = a
        .get("rein.time_to_first_token_ms")
        .and_then(|v| v.as_f64())
    {
        parts.push(format!("first token {}", millis(ms)));
    }
    if let Some(reasons) = a
        .get("gen_ai.response.finish_reasons")
        .and_then(|v| v.as_array())
    {
        let words: Vec<&str> = reasons.iter().filter_map(|r| r.as_str()).collect();
        parts.push(words.join(","));
    }
    for (key, label) in [
        ("rein.permission.decision", ""),
        ("rein.tool.exit_code", "exit "),
        ("rein.tool.sandbox", "sandbox "),
        ("rein.outcome", ""),
        ("rein.compaction.trigger", ""),
        ("rein.hook.exit_code", "exit "),
    ] {
        if let Some(value) = text(key) {
            parts.push(format!("{label}{value}"));
        }
    }
    if let (Some(before), Some(after)) = (
        text("rein.compaction.tokens_before"),
        text("rein.compaction.tokens_after"),
    ) {
        parts.push(format!("{before} → {after} tokens"));
    }
    if span.status.as_deref() == Some("error") {
        parts.push("ERROR".to_string());
    }
    parts.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(id: &str, parent: Option<&str>, name: &str, start: u64, end: u64) -> SpanLine {
        SpanLine {
            trace_id: "t".into(),
            span_id: id.into(),
            parent_span_id: parent.map(str::to_string),
            name: name.into(),
            start_unix_nano: start,
            end_unix_nano: end,
            attributes: serde_json::Map::new(),
            events: Vec::new(),
            status: None,
        }
    }

    #[test]
    fn children_hang_under_their_parents_in_start_order() {
        let mut request = span("c", Some("b"), "chat m", 2_000_000, 5_000_000);
        request
            .attributes
            .insert("gen_ai.usage.input_tokens".into(), 100.into());
        request
            .attributes
            .insert("gen_ai.usage.output_tokens".into(), 7.into());
        let spans = vec![
            span("d", Some("b"), "execute_tool bash", 6_000_000, 7_000_000),
            request,
            span("a", None, "rein.session", 0, 10_000_000),
            span("b", Some("a"), "invoke_agent rein", 1_000_000, 9_000_000),
        ];
        let text = render(&spans);
        let expected = "rein.session  10.0 ms\n\
                        └─ invoke_agent rein  8.0 ms (+1.0 ms)\n   \
                        ├─ chat m  3.0 ms (+2.0 ms)  in 100 out 7\n   \
                        └─ execute_tool bash  1.0 ms (+6.0 ms)\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn a_line_that_is_not_a_span_is_named() {
        let err = read("{\"x\": 1}\n").unwrap_err().to_string();
        assert!(err.starts_with("line 1: not a span"), "{err}");
    }
}
