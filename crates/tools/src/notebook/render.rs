//! A notebook as `read_file` shows it: each cell with its id, type and source, and what a
//! code cell printed (streams, results, errors); pictures it drew as images.

use rein_protocol::Media;
use serde_json::Value;

use super::{cell_id, joined};

/// Pictures shown per notebook at most (each costs as much as a page of text).
const MAX_PICTURES: usize = 8;
/// Characters of one output kept.
const MAX_OUTPUT_CHARS: usize = 4_000;

/// `text` (a notebook's JSON) rendered for the model, with its pictures (decoded through
/// `parsers`: in a child under limits in rein); `None` when it is not a notebook.
pub(crate) fn render(
    name: &str,
    text: &str,
    parsers: &rein_sandbox::bounded::Parsers,
) -> Option<(String, Vec<Media>)> {
    let notebook: Value = serde_json::from_str(text).ok()?;
    let cells = notebook["cells"].as_array()?;
    let language = notebook["metadata"]["language_info"]["name"]
        .as_str()
        .or(notebook["metadata"]["kernelspec"]["language"].as_str())
        .unwrap_or("python");
    let mut out = format!(
        "{name}: Jupyter notebook, {} cells ({language}).\n",
        cells.len()
    );
    let mut media = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let id = cell_id(cell, index);
        let kind = cell["cell_type"].as_str().unwrap_or("code");
        out.push_str(&format!("<cell id=\"{id}\" type=\"{kind}\">\n"));
        out.push_str(joined(&cell["source"]).trim_end());
        out.push_str("\n</cell>\n");
        for output in cell["outputs"].as_array().into_iter().flatten() {
            let shown = output_text(output, &mut media, parsers);
            if !shown.trim().is_empty() {
                out.push_str(&format!(
                    "<output cell=\"{id}\">\n{}\n</output>\n",
                    shown.trim_end()
                ));
            }
        }
    }
    Some((out, media))
}

/// One output's text; its pictures go to `media` (up to [`MAX_PICTURES`]).
fn output_text(
    output: &Value,
    media: &mut Vec<Media>,
    parsers: &rein_sandbox::bounded::Parsers,
) -> String {
    let text = match output["output_type"].as_str().unwrap_or("") {
        "stream" => strip_ansi(&joined(&output["text"])),
        "error" => {
            let trace: Vec<String> = (output["traceback"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .map(strip_ansi)
                .collect();
            match trace.is_empty() {
                true => strip_ansi(&format!(
                    "{}: {}",
                    output["ename"].as_str().unwrap_or("Error"),
                    output["evalue"].as_str().unwrap_or("")
                )),
                false => trace.join("\n"),
            }
        }
        _ => {
            let data = &output["data"];
            if let Some(png) = data["image/png"].as_str().or(data["image/jpeg"].as_str())
                && media.len() < MAX_PICTURES
                && let Some(picture) = picture(png, parsers)
            {
                media.push(picture.media);
                return format!("[image {}×{}]", picture.sent.0, picture.sent.1);
            }
            strip_ansi(&joined(&data["text/plain"]))
        }
    };
    match text.char_indices().nth(MAX_OUTPUT_CHARS) {
        Some((cut, _)) => format!("{}\n[… output cut]", &text[..cut]),
        None => text,
    }
}

/// A notebook's base64 picture (its lines may be split) fitted for the model.
fn picture(data: &str, parsers: &rein_sandbox::bounded::Parsers) -> Option<crate::media::Picture> {
    use base64::Engine as _;
    let clean: String = data.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(clean)
        .ok()?;
    crate::media::fit_picture_bounded(parsers, &bytes).ok()
}

/// `text` without terminal escapes: colour codes (tracebacks carry them) and every other
/// control sequence a notebook's output may hold — OSC 52 (set the clipboard), OSC 8 links,
/// title changes — and without control characters other than newline and tab. What the model
/// reads of an output is its text, and nothing of it can drive a terminal it is shown in.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then a final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \).
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                // A two-character sequence (ESC 7, ESC c…).
                _ => {}
            },
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_keep_their_text_and_no_terminal_escape() {
        let cases = [
            ("\u{1b}[31mred\u{1b}[0m text", "red text"),
            ("copy\u{1b}]52;c;ZXZpbA==\u{7} me", "copy me"),
            (
                "link \u{1b}]8;;http://x\u{1b}\\here\u{1b}]8;;\u{1b}\\",
                "link here",
            ),
            ("title\u{1b}]0;pwned\u{7}", "title"),
            ("bell\u{7} and\rcarriage", "bell andcarriage"),
            ("keep\ttabs\nand lines", "keep\ttabs\nand lines"),
            ("\u{1b}7saved\u{1b}8", "saved"),
        ];
        for (raw, clean) in cases {
            assert_eq!(strip_ansi(raw), clean, "{raw:?}");
        }
        let stream = serde_json::json!({"output_type": "stream",
            "text": ["ok\u{1b}]52;c;ZXZpbA==\u{7}\n"]});
        let mut media = Vec::new();
        assert_eq!(
            output_text(&stream, &mut media, &Default::default()),
            "ok\n"
        );
        let plain = serde_json::json!({"output_type": "execute_result",
            "data": {"text/plain": "\u{1b}[1m42\u{1b}[0m"}});
        assert_eq!(output_text(&plain, &mut media, &Default::default()), "42");
    }
}
