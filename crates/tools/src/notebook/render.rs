//! A notebook as `read_file` shows it: each cell with its id, type and source, and what a
//! code cell printed (streams, results, errors); pictures it drew as images.

use rein_protocol::Media;
use serde_json::Value;

use super::{cell_id, joined};

/// Pictures shown per notebook at most (each costs as much as a page of text).
const MAX_PICTURES: usize = 8;
/// Characters of one output kept.
const MAX_OUTPUT_CHARS: usize = 4_000;

/// `text` (a notebook's JSON) rendered for the model, with its pictures; `None` when it is
/// not a notebook.
pub(crate) fn render(name: &str, text: &str) -> Option<(String, Vec<Media>)> {
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
            let shown = output_text(output, &mut media);
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
fn output_text(output: &Value, media: &mut Vec<Media>) -> String {
    let text = match output["output_type"].as_str().unwrap_or("") {
        "stream" => joined(&output["text"]),
        "error" => {
            let trace: Vec<String> = (output["traceback"].as_array().into_iter().flatten())
                .filter_map(Value::as_str)
                .map(strip_ansi)
                .collect();
            match trace.is_empty() {
                true => format!(
                    "{}: {}",
                    output["ename"].as_str().unwrap_or("Error"),
                    output["evalue"].as_str().unwrap_or("")
                ),
                false => trace.join("\n"),
            }
        }
        _ => {
            let data = &output["data"];
            if let Some(png) = data["image/png"].as_str().or(data["image/jpeg"].as_str())
                && media.len() < MAX_PICTURES
                && let Some(picture) = picture(png)
            {
                media.push(picture.media);
                return format!("[image {}×{}]", picture.sent.0, picture.sent.1);
            }
            joined(&data["text/plain"])
        }
    };
    match text.char_indices().nth(MAX_OUTPUT_CHARS) {
        Some((cut, _)) => format!("{}\n[… output cut]", &text[..cut]),
        None => text,
    }
}

/// A notebook's base64 picture (its lines may be split) fitted for the model.
fn picture(data: &str) -> Option<crate::media::Picture> {
    use base64::Engine as _;
    let clean: String = data.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(clean)
        .ok()?;
    crate::media::fit_picture(&bytes).ok()
}

/// `text` without terminal colour codes (tracebacks carry them).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
