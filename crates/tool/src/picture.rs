//! A picture for the model as the bounded parsers give it back: what a tool (a built-in's
//! `view_image`, an MCP server's image result) receives, without decoding anything itself.
//! The decoding runs in a child under limits (`rein_tools::media`'s parser of this kind).

use rein_protocol::Media;
use rein_sandbox::bounded::{BoundedError, ParseFn, Parsers};

/// The bounded parser's kind that fits pictures.
pub const KIND: &str = "picture";

/// A picture ready for the model, with what it was.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Picture {
    /// The image block.
    pub media: Media,
    /// Its format's name (`PNG`).
    pub format: String,
    /// Its size as read.
    pub original: (u32, u32),
    /// Its size as sent.
    pub sent: (u32, u32),
    /// Bytes of the picture as sent (before base64).
    pub bytes: usize,
}

impl Picture {
    /// One line for the model: what the picture is, and how it was fitted.
    pub fn describe(&self, name: &str) -> String {
        let (w, h) = self.original;
        if self.original == self.sent {
            return format!("{name}: {} image, {w}×{h} pixels.", self.format);
        }
        let (sw, sh) = self.sent;
        format!(
            "{name}: {} image, {w}×{h} pixels, shown scaled down to {sw}×{sh}.",
            self.format
        )
    }
}

/// What fits pictures for the model: the bounded parser of kind [`KIND`] (its function is
/// `rein_tools::media::PICTURE_PARSER`, which decodes), as a service a tool that receives
/// pictures from elsewhere (an MCP server's image result) takes from its context. A context
/// nobody gave one shows no picture.
#[derive(Clone, Copy, Default)]
pub struct Pictures(Option<(&'static str, ParseFn)>);

impl Pictures {
    /// Pictures fitted by `parser` (kind and function).
    pub fn new(parser: (&'static str, ParseFn)) -> Self {
        Self(Some(parser))
    }

    /// The picture `bytes` hold, fitted for the model through `parsers` (in a child under
    /// limits in rein).
    pub fn fit(&self, parsers: &Parsers, bytes: &[u8]) -> Result<Picture, BoundedError> {
        let Some(parser) = self.0 else {
            return Err(BoundedError::Start {
                kind: KIND.into(),
                message: "no picture parser in this context".into(),
            });
        };
        let out = parsers.run(parser, bytes, &[])?;
        serde_json::from_slice(&out).map_err(|e| BoundedError::Start {
            kind: KIND.into(),
            message: format!("its answer was not a picture ({e})"),
        })
    }
}

impl std::fmt::Debug for Pictures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Pictures"
        } else {
            "Pictures(none)"
        })
    }
}
