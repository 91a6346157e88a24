//! An ACP prompt (text, resource links, embedded resources, images) as the one text rein's
//! prompt is: a link to a workspace file becomes an `@` mention (attached as `read_file`
//! would read it, through the guard), an embedded resource is quoted with its URI (the
//! editor's own copy: unsaved changes included), a picture is saved into the session's
//! outputs folder and mentioned there.

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};
use base64::Engine;

/// The largest picture taken from a prompt.
const MAX_IMAGE: usize = 20 * 1024 * 1024;

/// Where the prompt's pictures go, and the number each next one takes.
pub struct Pictures<'a> {
    pub dir: Option<&'a Path>,
    pub next: &'a (dyn Fn() -> u32 + Sync),
}

/// Why a prompt could not be taken: which part, and why.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadPrompt(String);

/// The prompt as text; an error says which part could not be taken.
pub fn text(
    blocks: &[ContentBlock],
    workspace: &Path,
    pictures: Pictures<'_>,
) -> Result<String, BadPrompt> {
    text_of(blocks, workspace, &pictures).map_err(BadPrompt)
}

fn text_of(
    blocks: &[ContentBlock],
    workspace: &Path,
    pictures: &Pictures<'_>,
) -> Result<String, String> {
    let mut parts: Vec<String> = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(text) => parts.push(text.text.clone()),
            ContentBlock::ResourceLink(link) => {
                parts.push(link_text(&link.uri, &link.name, workspace))
            }
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(resource) => parts.push(format!(
                    "<context ref=\"{}\">\n{}\n</context>",
                    resource.uri, resource.text
                )),
                EmbeddedResourceResource::BlobResourceContents(resource) => parts.push(format!(
                    "(a binary resource was attached, {}, which rein cannot read)",
                    resource.uri
                )),
                _ => {}
            },
            ContentBlock::Image(image) => {
                let path = save_picture(&image.data, &image.mime_type, pictures)?;
                parts.push(format!("@{}", path.display()));
            }
            ContentBlock::Audio(_) => {
                return Err("rein does not take audio".to_string());
            }
            _ => {}
        }
    }
    let prompt = parts.join("\n");
    if prompt.trim().is_empty() {
        return Err("the prompt is empty".to_string());
    }
    Ok(prompt)
}

/// A link as the prompt says it: `@relative/path` for a file in the workspace whose path has
/// no space (so it is attached), else the link as Markdown.
fn link_text(uri: &str, name: &str, workspace: &Path) -> String {
    if let Some(path) = file_path(uri)
        && let Ok(relative) = path.strip_prefix(workspace)
        && let Some(relative) = relative.to_str()
        && !relative.is_empty()
        && !relative.chars().any(char::is_whitespace)
    {
        return format!("@{relative}");
    }
    format!("[{name}]({uri})")
}

/// The path of a `file://` URI (percent-escapes decoded).
fn file_path(uri: &str) -> Option<PathBuf> {
    let url = url::Url::parse(uri).ok()?;
    (url.scheme() == "file").then(|| url.to_file_path().ok())?
}

/// Saves a base64 picture of the prompt into the outputs folder; its path.
fn save_picture(data: &str, mime: &str, pictures: &Pictures<'_>) -> Result<PathBuf, String> {
    let extension = match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        other => {
            return Err(format!(
                "a picture of type {other} (rein reads PNG, JPEG, GIF and WebP)"
            ));
        }
    };
    let Some(dir) = pictures.dir else {
        return Err("this session keeps no files, so it cannot take a picture".to_string());
    };
    if data.len() > MAX_IMAGE * 4 / 3 + 4 {
        return Err("the picture is over 20 MB".to_string());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| format!("the picture is not base64: {e}"))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot save the picture: {e}"))?;
    let path = dir.join(format!("prompt-image-{}.{extension}", (pictures.next)()));
    std::fs::write(&path, bytes).map_err(|e| format!("cannot save the picture: {e}"))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        EmbeddedResource, ImageContent, ResourceLink, TextContent, TextResourceContents,
    };

    use super::*;

    #[test]
    fn text_links_resources_and_pictures_make_one_prompt() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let workspace = dir.path().join("work space");
        let outputs = dir.path().join("outputs");
        let inside = format!(
            "file://{}/src/main%2Ers",
            workspace.display().to_string().replace(' ', "%20")
        );
        let blocks = vec![
            ContentBlock::Text(TextContent::new("Explain")),
            ContentBlock::ResourceLink(ResourceLink::new("main.rs", inside)),
            ContentBlock::ResourceLink(ResourceLink::new("docs", "https://example.com/docs")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "fn main() {}",
                    "file:///elsewhere/unsaved.rs",
                )),
            )),
            ContentBlock::Image(ImageContent::new("aGk=", "image/png")),
        ];
        let prompt = text(
            &blocks,
            &workspace,
            Pictures {
                dir: Some(&outputs),
                next: &|| 1,
            },
        );
        let picture = outputs.join("prompt-image-1.png");
        assert_eq!(
            prompt,
            Ok(format!(
                "Explain\n@src/main.rs\n[docs](https://example.com/docs)\n<context \
                 ref=\"file:///elsewhere/unsaved.rs\">\nfn main() {{}}\n</context>\n@{}",
                picture.display()
            ))
        );
        assert_eq!(std::fs::read(&picture).unwrap_or_default(), b"hi");
    }

    #[test]
    fn an_empty_prompt_or_a_strange_picture_is_refused() {
        let none = Pictures {
            dir: None,
            next: &|| 1,
        };
        assert_eq!(
            text(
                &[ContentBlock::Text(TextContent::new("  "))],
                Path::new("/w"),
                none
            ),
            Err(BadPrompt("the prompt is empty".to_string()))
        );
        let none = Pictures {
            dir: None,
            next: &|| 1,
        };
        let tiff = ContentBlock::Image(ImageContent::new("aGk=", "image/tiff"));
        assert!(text(&[tiff], Path::new("/w"), none).is_err_and(|e| e.0.contains("image/tiff")),);
    }
}
