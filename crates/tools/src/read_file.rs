//! The `read_file` tool: a page of a text file's lines, numbered like `cat -n`.
//!
//! The file is streamed, not loaded: only the requested page is kept, the rest is counted so
//! the result can state the total and the offset to continue from.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{
    CallFacts, CallKind, Effect, FileRead, ToolContext, ToolDetails, ToolOutput, TypedTool,
    WorkspaceGuard,
};
use rein_fs::checked::Access;

/// Lines returned when the call gives no `limit`.
pub const DEFAULT_LINE_LIMIT: u64 = 2000;
/// Characters kept of one line; the rest is cut with a marker.
pub const MAX_LINE_CHARS: usize = 2000;
/// The largest picture file read_file decodes.
const MAX_PICTURE_FILE: u64 = 50 * 1024 * 1024;
/// Bytes inspected to tell text from binary.
const SNIFF_BYTES: usize = 8 * 1024;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Path of the file, relative to the workspace root.
    pub path: String,
    /// 1-based line number to start at (default 1).
    pub offset: Option<u64>,
    /// Most lines to return (default 2000).
    pub limit: Option<u64>,
    /// Pages of a PDF, such as "1-5" (at most 20 per call; needed over 10 pages).
    pub pages: Option<String>,
}

/// The `read_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadFile;

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;
    const NAME: &'static str = "read_file";
    const CLAUDE_NAME: &'static str = "Read";
    const KIND: CallKind = CallKind::Read;
    const LEAN: crate::Lean = crate::Lean::Short {
        description: "Reads a text file as numbered lines (`cat -n`): 2000 lines from `offset` \
                      (1-based) unless `limit` says fewer; the result says where to go on.",
        arguments: &[("path", ""), ("offset", ""), ("limit", "")],
    };

    fn description(&self) -> String {
        format!(
            "Reads a text file in the workspace. Returns its lines numbered like `cat -n` \
             (line number, tab, line): up to {DEFAULT_LINE_LIMIT} lines starting at `offset` \
             (1-based). When the file has more, the result states the total and the offset to \
             continue from. Lines over {MAX_LINE_CHARS} characters are cut. Pictures (PNG, \
             JPEG, GIF, WebP) are shown as images; PDFs as documents (`pages` such as \"1-5\", \
             needed over 10 pages). Other binary files are refused; to list a directory use \
             glob or bash `ls`."
        )
    }

    fn effect(&self, _args: &ReadFileArgs) -> Effect {
        Effect::ReadOnly
    }

    fn describe(&self, args: &ReadFileArgs, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        facts
            .reads
            .push(crate::resolve_for_rules(&args.path, guard.root(), guard));
        let range = match (args.offset, args.limit) {
            (Some(from), Some(limit)) => {
                format!(" ({from}-{})", from.saturating_add(limit.saturating_sub(1)))
            }
            (Some(from), None) => format!(" ({from}-)"),
            (None, Some(limit)) => format!(" (1-{limit})"),
            (None, None) => String::new(),
        };
        facts.summary = format!("{}{range}", args.path);
    }

    async fn run(&self, args: ReadFileArgs, ctx: &ToolContext) -> ToolOutput {
        let path = match ctx.guard.resolve_read(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        let guard = ctx.guard.clone();
        let request = Page {
            shown_as: ctx.guard.display(&path),
            path,
            offset: args.offset.unwrap_or(1).max(1),
            limit: args.limit.unwrap_or(DEFAULT_LINE_LIMIT).max(1),
            max_bytes: ctx.budget.content_room(),
            pages: args.pages,
            parsers: ctx.parsers.clone(),
        };
        if let Some(editor) = ctx.services.get::<crate::Editor>().reading()
            && crate::editor::holds(&request.path)
            && let Some(output) = request.read_in_editor(editor, &guard).await
        {
            return output;
        }
        match tokio::task::spawn_blocking(move || request.read(&guard)).await {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("read_file failed: {e}")),
        }
    }
}

/// One read request, resolved.
struct Page {
    path: PathBuf,
    /// The path as the model should see it (relative to the workspace).
    shown_as: String,
    offset: u64,
    limit: u64,
    /// Bytes of numbered lines in one result (the output budget's room): a page stops early
    /// rather than exceed it, so a read is never cut in the middle.
    max_bytes: usize,
    /// The pages of a PDF asked for.
    pages: Option<String>,
    /// Where a PDF or picture is parsed.
    parsers: rein_sandbox::bounded::Parsers,
}

impl Page {
    /// The result for an empty file.
    fn empty(&self) -> ToolOutput {
        ToolOutput::ok(format!("(the file {} is empty)", self.shown_as)).with_details(
            ToolDetails::Read(FileRead {
                path: self.path.clone(),
                content: String::new(),
                start_line: 1,
                num_lines: 0,
                total_lines: 0,
            }),
        )
    }

    /// Reads the page from the file the guard checked, opened through descriptors (so a
    /// symlink swapped in after the check is not followed).
    fn read(&self, guard: &WorkspaceGuard) -> ToolOutput {
        let name = &self.shown_as;
        let opened = guard
            .open_checked(&self.path, Access::Read)
            .and_then(|checked| checked.open_read())
            .and_then(|file| Ok((file.metadata()?, file)));
        let (meta, file) = match opened {
            Ok(opened) => opened,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return ToolOutput::error(format!("file not found: {name}"));
            }
            Err(e) => return ToolOutput::error(format!("cannot read {name}: {e}")),
        };
        if meta.is_dir() {
            return ToolOutput::error(format!(
                "{name} is a directory, not a file; to list it use glob or bash `ls {name}`"
            ));
        }
        if !meta.is_file() {
            return ToolOutput::error(format!("{name} is not a regular file"));
        }
        if meta.len() == 0 {
            return self.empty();
        }
        match self.read_text(file, meta.len()) {
            Ok(output) => output,
            Err(e) => ToolOutput::error(format!("cannot read {name}: {e}")),
        }
    }

    fn read_text(&self, mut file: File, size: u64) -> io::Result<ToolOutput> {
        let name = &self.shown_as;
        let mut sniff = Vec::with_capacity(SNIFF_BYTES);
        (&mut file)
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut sniff)?;
        if let Some(kind) = image_kind(&self.path, &sniff) {
            return Ok(self.picture(kind, sniff, file, size));
        }
        if sniff.starts_with(b"%PDF-") {
            return Ok(self.pdf(sniff, file, size));
        }
        if self.path.extension().is_some_and(|e| e == "ipynb")
            && let Some(output) = self.notebook(&mut sniff, &mut file, size)?
        {
            return Ok(output);
        }
        if looks_binary(&sniff) {
            return Ok(ToolOutput::error(format!(
                "{name} looks like a binary file ({size} bytes); read_file shows text files only \
                 (bash `file {name}` or `xxd {name} | head` can inspect it)"
            )));
        }
        self.lines(&mut BufReader::new(io::Cursor::new(sniff).chain(file)))
    }

    /// The page of text `reader` holds from its start, with the file's line count.
    fn lines(&self, reader: &mut impl BufRead) -> io::Result<ToolOutput> {
        let page = self.collect_page(reader)?;
        let total = page.lines_read + count_lines(reader)?;
        Ok(self.render(page, total))
    }

    /// A picture: fitted for the model and shown, or why it cannot be.
    fn picture(&self, kind: &str, mut head: Vec<u8>, file: File, size: u64) -> ToolOutput {
        let name = &self.shown_as;
        if size > MAX_PICTURE_FILE {
            return ToolOutput::error(format!(
                "{name} is a {kind} image of {size} bytes, over the {MAX_PICTURE_FILE} bytes \
                 read_file decodes"
            ));
        }
        if let Err(e) = file.take(MAX_PICTURE_FILE).read_to_end(&mut head) {
            return ToolOutput::error(format!("cannot read {name}: {e}"));
        }
        match crate::media::fit_picture_bounded(&self.parsers, &head) {
            Ok(picture) => ToolOutput::ok(picture.describe(name)).with_media(vec![picture.media]),
            Err(e) => ToolOutput::error(format!("{name} is a {kind} file, but {e}")),
        }
    }

    /// A PDF's pages: the document and its text, or why they cannot be shown.
    fn pdf(&self, mut head: Vec<u8>, file: File, size: u64) -> ToolOutput {
        use crate::media::MAX_PDF_BYTES;
        let name = &self.shown_as;
        if size > MAX_PDF_BYTES {
            return ToolOutput::error(format!(
                "{name} is a PDF of {size} bytes, over the {MAX_PDF_BYTES} bytes a model reads"
            ));
        }
        if let Err(e) = file.take(MAX_PDF_BYTES).read_to_end(&mut head) {
            return ToolOutput::error(format!("cannot read {name}: {e}"));
        }
        match crate::media::read_pdf_bounded(&self.parsers, &head, self.pages.as_deref()) {
            Ok(pages) => ToolOutput::ok(pages.describe(name)).with_media(vec![pages.media]),
            Err(e) => ToolOutput::error(format!("{name}: {e}")),
        }
    }

    /// A notebook's cells and outputs; `None` (the file read as text, from `head`, which
    /// then holds all of it) when it is not one.
    fn notebook(
        &self,
        head: &mut Vec<u8>,
        file: &mut File,
        size: u64,
    ) -> io::Result<Option<ToolOutput>> {
        if size > MAX_PICTURE_FILE {
            return Ok(None);
        }
        file.read_to_end(head)?;
        let text = String::from_utf8_lossy(head);
        Ok(
            crate::notebook::render(&self.shown_as, &text, &self.parsers)
                .map(|(text, media)| ToolOutput::ok(text).with_media(media)),
        )
    }

    /// Reads lines up to the end of the page.
    fn collect_page(&self, reader: &mut impl BufRead) -> io::Result<Collected> {
        let mut page = Collected {
            body: String::new(),
            content: String::new(),
            shown: Shown {
                first: self.offset,
                count: 0,
            },
            lines_read: 0,
            stopped_early: false,
        };
        let mut line = Vec::new();
        while page.shown.count < self.limit {
            line.clear();
            let read = read_line_capped(reader, &mut line, LINE_BYTES_CAP)?;
            if read.bytes == 0 {
                break;
            }
            page.lines_read += 1;
            if page.lines_read < self.offset {
                continue;
            }
            let capped = (read.bytes > line.len() as u64).then_some(read.bytes);
            let shown_line = display_line(&line, capped);
            let numbered = format!("{:>6}\t{shown_line}\n", page.lines_read);
            if !page.body.is_empty() && page.body.len() + numbered.len() > self.max_bytes {
                page.stopped_early = true;
                break;
            }
            page.body.push_str(&numbered);
            page.content.push_str(&shown_line);
            if line.ends_with(b"\n") {
                page.content.push('\n');
            }
            page.shown.count += 1;
        }
        Ok(page)
    }

    fn render(&self, page: Collected, total: u64) -> ToolOutput {
        let name = &self.shown_as;
        let Collected {
            body,
            content,
            shown,
            stopped_early,
            ..
        } = page;
        if shown.count == 0 {
            return ToolOutput::error(format!(
                "offset {} is past the end of {name}, which has {total} lines",
                self.offset
            ));
        }
        let last = shown.first + shown.count - 1;
        let mut text = body;
        if last < total {
            let why = if stopped_early {
                format!(" (the page stopped at {} bytes)", self.max_bytes)
            } else {
                String::new()
            };
            text.push_str(&format!(
                "\n[showing lines {}-{last} of {total}{why}; call read_file with offset={} to \
                 read more]",
                shown.first,
                last + 1
            ));
        } else if shown.first > 1 {
            text.push_str(&format!(
                "\n[showing lines {}-{last} of {total}; end of file]",
                shown.first
            ));
        }
        ToolOutput::ok(text).with_details(ToolDetails::Read(FileRead {
            path: self.path.clone(),
            content,
            start_line: shown.first,
            num_lines: shown.count,
            total_lines: total,
        }))
    }
}

/// What [`Page::collect_page`] gathered.
struct Collected {
    /// The numbered lines.
    body: String,
    /// The same lines without numbers.
    content: String,
    shown: Shown,
    /// Lines consumed from the file, shown or not.
    lines_read: u64,
    /// Whether the byte budget ended the page before `limit`.
    stopped_early: bool,
}

/// The lines a page shows: `count` lines from line `first`.
#[derive(Debug, Clone, Copy)]
struct Shown {
    first: u64,
    count: u64,
}

/// Most bytes of one line kept in memory: enough for [`MAX_LINE_CHARS`] characters of any
/// width; the rest of a longer line is skipped as it is read, never buffered (a minified file
/// or a log with a multi-gigabyte line costs this much, not the line).
const LINE_BYTES_CAP: usize = MAX_LINE_CHARS * 4 + 8;

/// What [`read_line_capped`] consumed.
struct LineRead {
    /// Bytes of the line in the file, its newline included (0 at the end of the file).
    bytes: u64,
}

/// Reads one line into `line`, keeping at most `cap` bytes of it (the newline, if kept, last)
/// and skipping the rest up to and including its newline.
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<LineRead> {
    let mut bytes = 0u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(LineRead { bytes });
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len();
        bytes += used as u64;
        reader.consume(used);
        if done {
            return Ok(LineRead { bytes });
        }
    }
}

/// A line without its line ending, invalid UTF-8 replaced, cut at [`MAX_LINE_CHARS`];
/// `capped_bytes` is the whole line's size when only its start was read.
fn display_line(raw: &[u8], capped_bytes: Option<u64>) -> String {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let text = String::from_utf8_lossy(raw);
    let cut = text
        .char_indices()
        .nth(MAX_LINE_CHARS)
        .map_or(text.len(), |(cut, _)| cut);
    match capped_bytes {
        Some(bytes) => format!("{} [... line cut: {bytes} bytes in all]", &text[..cut]),
        None if cut < text.len() => format!(
            "{} [... line cut: {} characters in all]",
            &text[..cut],
            text.chars().count()
        ),
        None => text.into_owned(),
    }
}

/// Counts the remaining lines (a last line without a newline counts).
fn count_lines(reader: &mut impl BufRead) -> io::Result<u64> {
    let mut lines = 0u64;
    let mut ends_open = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        lines += buf.iter().filter(|b| **b == b'\n').count() as u64;
        ends_open = buf.last() != Some(&b'\n');
        let len = buf.len();
        reader.consume(len);
    }
    Ok(lines + u64::from(ends_open))
}

/// Binary when the sample has a NUL byte or more than a tenth of it is invalid UTF-8.
fn looks_binary(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return true;
    }
    let mut invalid = 0usize;
    let mut rest = sample;
    while let Err(e) = std::str::from_utf8(rest) {
        match e.error_len() {
            Some(len) => {
                invalid += len;
                rest = &rest[e.valid_up_to() + len..];
            }
            None => break, // cut mid-character at the end of the sample
        }
    }
    invalid * 10 > sample.len()
}

/// The image format of a file, from its extension or its first bytes.
fn image_kind(path: &Path, head: &[u8]) -> Option<&'static str> {
    let magic: [(&[u8], &str); 5] = [
        (b"\x89PNG\r\n\x1a\n", "PNG"),
        (b"\xff\xd8\xff", "JPEG"),
        (b"GIF87a", "GIF"),
        (b"GIF89a", "GIF"),
        (b"\x00\x00\x01\x00", "ICO"),
    ];
    if let Some((_, kind)) = magic.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(kind);
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        return Some("WebP");
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "png" => Some("PNG"),
        "jpg" | "jpeg" => Some("JPEG"),
        "gif" => Some("GIF"),
        "webp" => Some("WebP"),
        "bmp" => Some("BMP"),
        "ico" => Some("ICO"),
        "tif" | "tiff" => Some("TIFF"),
        "heic" | "avif" => Some("HEIC/AVIF"),
        _ => None,
    }
}

#[path = "read_file_editor.rs"]
mod editor;

#[cfg(test)]
#[path = "read_file_tests.rs"]
mod tests;
