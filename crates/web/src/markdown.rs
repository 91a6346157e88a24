//! HTML as Markdown, with what a reader does not need (scripts, styles, navigation chrome,
//! inline SVG and forms) left out.

/// [`html_to_markdown`] as a bounded child runs it ([`rein_sandbox::bounded`]): the page's
/// bytes in, the Markdown out. The page's main part is found and converted there, so neither
/// a page nested thousands deep (htmd recurses) nor one full of `<main` markers can stop the
/// session.
pub const HTML_PARSER: (&str, rein_sandbox::bounded::ParseFn) = ("html", |input, _| {
    Ok(html_to_markdown(&String::from_utf8_lossy(input)).into_bytes())
});

/// `html` as Markdown: its main part (`<main>`, `<article>`, `role="main"`) when it marks
/// one, else the whole page; the page's text when the converter fails.
pub fn html_to_markdown(html: &str) -> String {
    let html = fenced_pre(main_part(html));
    let html = html.as_str();
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "head", "nav", "footer", "form",
            "iframe", "button",
        ])
        .build();
    let markdown = converter.convert(html).unwrap_or_else(|_| strip_tags(html));
    collapse_blank_lines(&strip_permalinks(&markdown))
}

/// The element a page marks as its main content, or the whole page. Documentation sites mark
/// it (Sphinx's `role="main"`, mdBook's `<main>`); the navigation around it is what a reader
/// skips.
fn main_part(html: &str) -> &str {
    let lower = html.to_ascii_lowercase();
    let start = ["<main", "<article", "role=\"main\""]
        .iter()
        .find_map(|marker| {
            let at = lower.find(marker)?;
            if marker.starts_with('<') {
                Some(at)
            } else {
                lower[..at].rfind('<')
            }
        });
    let Some(start) = start else {
        return html;
    };
    let name: String = lower[start + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    match closing(&lower, start, &name) {
        // Too little left means the marker was not the page's content.
        Some(end) if end - start > html.len() / 20 => &html[start..end],
        _ => html,
    }
}

/// The end (after `</name>`) of the element of tag `name` opening at `start`, counting nested
/// elements of the same tag.
fn closing(lower: &str, start: usize, name: &str) -> Option<usize> {
    let open = format!("<{name}");
    let close = format!("</{name}");
    let mut depth = 0usize;
    let mut at = start;
    loop {
        let next_open = lower[at..].find(&open).map(|i| at + i);
        let next_close = lower[at..].find(&close).map(|i| at + i)?;
        match next_open {
            Some(o) if o < next_close => {
                depth += 1;
                at = o + open.len();
            }
            _ => {
                depth = depth.saturating_sub(1);
                at = next_close + close.len();
                if depth == 0 {
                    return Some(lower[at..].find('>').map_or(lower.len(), |i| at + i + 1));
                }
            }
        }
    }
}

/// `<pre>` blocks without a `<code>` inside (Sphinx's highlighted examples) given one, so
/// they become fenced code rather than loose lines.
fn fenced_pre(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(at) = rest.find("<pre") {
        let Some(end) = rest[at..].find('>').map(|i| at + i + 1) else {
            break;
        };
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        let inner_has_code = rest.trim_start().starts_with("<code");
        let Some(close) = rest.find("</pre>") else {
            break;
        };
        if inner_has_code {
            out.push_str(&rest[..close]);
        } else {
            out.push_str("<code>");
            out.push_str(&rest[..close]);
            out.push_str("</code>");
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Sphinx's and mkdocs' heading permalinks (`[¶](#id)`), which say nothing to a reader.
fn strip_permalinks(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(at) = rest.find("[¶](") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match rest.find(')') {
            Some(end) => rest = &rest[end + 1..],
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// At most one blank line in a row, no trailing spaces.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// The text between tags, for a page the converter cannot read.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_links_and_code_survive_and_scripts_do_not() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\
                    <nav><a href=\"/\">Home</a></nav><h1>Title</h1>\
                    <p>See <a href=\"https://docs.rs\">docs</a>.</p>\
                    <script>alert(1)</script><pre><code>let x = 1;</code></pre>\
                    </body></html>";
        let md = html_to_markdown(html);
        assert!(md.starts_with("# Title"), "{md}");
        assert!(md.contains("[docs](https://docs.rs)"), "{md}");
        assert!(md.contains("let x = 1;"), "{md}");
        assert!(!md.contains("alert"), "{md}");
        assert!(!md.contains("Home"), "{md}");
    }
}
