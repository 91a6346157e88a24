//! `@path` in a prompt: the file is attached to it, read through the `read_file` tool (the
//! guard, the sensitive list, its line limit, the note on where to go on in a long file); a
//! folder is listed; a file over 256 KiB is named with its size; `@server:uri` attaches an
//! MCP server's resource. A mention the guard refuses is said, not attached; a word that names no
//! file (`@here`) is left alone.

use rein_protocol::ContentBlock;
use serde_json::json;

use super::Agent;

/// Most files one prompt attaches.
const MAX_MENTIONS: usize = 10;
/// Most entries of a folder listed.
const MAX_ENTRIES: usize = 200;
/// A larger file is named with its size, not attached.
const MAX_ATTACHED_BYTES: u64 = 256 * 1024;
/// The MCP tool that reads a server's resource.
const READ_RESOURCE: &str = "read_mcp_resource";

/// The `@` mentions of `prompt`, in order, once each: a word starting with `@` (at the start
/// or after a space), its trailing punctuation dropped. An e-mail address is not one.
pub(crate) fn mentions(prompt: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'']);
        if !path.is_empty() && !found.contains(&path) && found.len() < MAX_MENTIONS {
            found.push(path);
        }
    }
    found
}

impl Agent {
    /// The attachments of `prompt`'s mentions, one block each.
    pub(super) async fn mentioned_files(&self, prompt: &str) -> Vec<ContentBlock> {
        let mut blocks = Vec::new();
        for path in mentions(prompt) {
            let Some((text, media)) = self.attachment(path).await else {
                continue;
            };
            blocks.push(ContentBlock::Text { text });
            // A picture mentioned is shown as one (to a model that reads images); a PDF as
            // its pages' text.
            let sees = rein_llm::models::sees_images(&self.config.model, &self.config.vision);
            for item in media {
                blocks.push(match item {
                    rein_protocol::Media::Image { source } if sees => {
                        ContentBlock::Image { source }
                    }
                    rein_protocol::Media::Image { .. } => ContentBlock::Text {
                        text: format!(
                            "(the picture {path} is not shown: this model does not read images)"
                        ),
                    },
                    rein_protocol::Media::Pdf { text, .. } => ContentBlock::Text { text },
                });
            }
        }
        blocks
    }

    /// What `@path` attaches: text, with the pictures (and PDFs) `read_file` shows.
    async fn attachment(&self, path: &str) -> Option<(String, Vec<rein_protocol::Media>)> {
        if let Some(resource) = self.resource(path).await {
            return Some((resource, Vec::new()));
        }
        let guard = &self.tool_ctx.guard;
        let resolved = match guard.resolve_read(path) {
            Ok(resolved) => resolved,
            Err(refused) => {
                // Said only when the path names something: `@here` is just a word.
                let exists = guard
                    .locate_anywhere(path)
                    .is_ok_and(|p| p.symlink_metadata().is_ok());
                return exists.then(|| {
                    let text =
                        format!("<attachment path=\"{path}\">not attached: {refused}</attachment>");
                    (text, Vec::new())
                });
            }
        };
        if resolved.is_dir() {
            let text = format!(
                "<attachment path=\"{path}\" kind=\"folder\">\n{}</attachment>",
                listing(&resolved)
            );
            return Some((text, Vec::new()));
        }
        if !resolved.is_file() {
            return None;
        }
        let size = resolved.metadata().map_or(0, |m| m.len());
        // A picture or a PDF is fitted by read_file, whatever its size on disk.
        if size > MAX_ATTACHED_BYTES && !rein_tools::media::is_media_path(&resolved) {
            let text = format!(
                "<attachment path=\"{path}\">not attached: {} bytes; read the parts you \
                 need with read_file (offset, limit) or grep</attachment>",
                size
            );
            return Some((text, Vec::new()));
        }
        let read = self
            .toolset
            .registry
            .call("read_file", json!({"path": path}), &self.tool_ctx)
            .await;
        Some(if read.is_error {
            let text = format!(
                "<attachment path=\"{path}\">not attached: {}</attachment>",
                read.text
            );
            (text, Vec::new())
        } else {
            let text = format!("<attachment path=\"{path}\">\n{}\n</attachment>", read.text);
            (text, read.media)
        })
    }
}

impl Agent {
    /// `@server:uri`: an MCP server's resource, read with `read_mcp_resource` (offered when
    /// a server has resources); `None` when the mention is not one.
    async fn resource(&self, mention: &str) -> Option<String> {
        let (server, uri) = mention.split_once(':')?;
        let named = !server.is_empty()
            && server
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !named
            || uri.is_empty()
            || !self
                .toolset
                .registry
                .names()
                .iter()
                .any(|n| n == READ_RESOURCE)
        {
            return None;
        }
        let read = self
            .toolset
            .registry
            .call(
                READ_RESOURCE,
                json!({"server": server, "uri": uri}),
                &self.tool_ctx,
            )
            .await;
        Some(if read.is_error {
            format!(
                "<attachment resource=\"{mention}\">not attached: {}</attachment>",
                read.text
            )
        } else {
            format!(
                "<attachment resource=\"{mention}\">\n{}\n</attachment>",
                read.text
            )
        })
    }
}

/// A folder's entries, sorted, folders marked with `/`, at most [`MAX_ENTRIES`].
fn listing(dir: &std::path::Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    match e.file_type().is_ok_and(|t| t.is_dir()) {
                        true => format!("{name}/"),
                        false => name,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let more = names.len().saturating_sub(MAX_ENTRIES);
    names.truncate(MAX_ENTRIES);
    let mut out: String = names.iter().map(|n| format!("{n}\n")).collect();
    if more > 0 {
        out.push_str(&format!("… and {more} more\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_words_starting_with_at() {
        assert_eq!(
            mentions("explain @src/lib.rs, then @docs/ and mail me@example.com or @src/lib.rs."),
            ["src/lib.rs", "docs/"]
        );
        assert!(mentions("no mentions @ here").is_empty());
    }
}
