//! Pictures for the model: PNG, JPEG, GIF and WebP decoded, scaled so the long side is at most
//! [`MAX_SIDE`] pixels and the encoded file at most [`MAX_IMAGE_BYTES`], and encoded as base64.
//! A picture that already fits is sent as it is, byte for byte.

use std::io::Cursor;

use base64::Engine as _;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use rein_protocol::{ImageSource, Media};

/// The long side of a picture sent to a model, in pixels: Anthropic scales anything larger
/// down to this itself (at the cost of the upload and latency), and OpenAI's high detail
/// tiles stay within it.
pub const MAX_SIDE: u32 = 1568;

/// The most bytes of one encoded picture: its base64 then stays under the 5 MB the Messages
/// API accepts per image.
pub const MAX_IMAGE_BYTES: usize = 3_750_000;

/// Pixels a picture may have before decoding is refused (a decompression bomb).
const MAX_PIXELS_SIDE: u32 = 20_000;
/// Memory decoding one picture may take.
const MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;
/// Quality of a re-encoded picture without transparency.
const JPEG_QUALITY: u8 = 85;

/// Why a file could not be shown as a picture.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// Not PNG, JPEG, GIF or WebP.
    #[error("{0} pictures cannot be sent to a model (PNG, JPEG, GIF and WebP can)")]
    Unsupported(String),
    /// The bytes are not a picture of their format.
    #[error("the picture cannot be decoded ({0}); the file may be damaged or truncated")]
    Corrupt(String),
    /// Too many pixels to decode safely.
    #[error("the picture is too large to decode ({0})")]
    TooLarge(String),
}

pub use rein_tool::picture::Picture;

/// Decodes `bytes` and fits them for a model: unchanged when they already fit, else scaled
/// down (PNG when the picture has transparency, JPEG otherwise) until they do.
pub fn fit_picture(bytes: &[u8]) -> Result<Picture, PictureError> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| PictureError::Corrupt(e.to_string()))?;
    let format = match reader.format() {
        Some(format) => format,
        None => return Err(PictureError::Unsupported("unrecognised".into())),
    };
    let (name, mime) = sendable(format)?;
    let mut reader = reader;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_PIXELS_SIDE);
    limits.max_image_height = Some(MAX_PIXELS_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(e) => PictureError::TooLarge(e.to_string()),
        e => PictureError::Corrupt(e.to_string()),
    })?;
    let original = (decoded.width(), decoded.height());
    if original.0.max(original.1) <= MAX_SIDE && bytes.len() <= MAX_IMAGE_BYTES {
        return Ok(Picture {
            media: image_media(mime, bytes),
            format: name.to_string(),
            original,
            sent: original,
            bytes: bytes.len(),
        });
    }
    let (encoded, mime, sent) = shrink(&decoded)?;
    Ok(Picture {
        media: image_media(mime, &encoded),
        format: name.to_string(),
        original,
        sent,
        bytes: encoded.len(),
    })
}

/// [`fit_picture`] as a bounded child runs it ([`rein_sandbox::bounded`]): the picture's
/// bytes in, the [`Picture`] out as JSON.
pub const PICTURE_PARSER: (&str, rein_sandbox::bounded::ParseFn) =
    (rein_tool::picture::KIND, |input, _| {
        let picture = fit_picture(input).map_err(|e| e.to_string())?;
        serde_json::to_vec(&picture).map_err(|e| e.to_string())
    });

/// [`fit_picture`] through `parsers`: in a child under limits in rein.
pub fn fit_picture_bounded(
    parsers: &rein_sandbox::bounded::Parsers,
    bytes: &[u8],
) -> Result<Picture, rein_sandbox::bounded::BoundedError> {
    rein_tool::picture::Pictures::new(PICTURE_PARSER).fit(parsers, bytes)
}

/// The format's name and media type, when the model APIs accept it.
fn sendable(format: ImageFormat) -> Result<(&'static str, &'static str), PictureError> {
    match format {
        ImageFormat::Png => Ok(("PNG", "image/png")),
        ImageFormat::Jpeg => Ok(("JPEG", "image/jpeg")),
        ImageFormat::Gif => Ok(("GIF", "image/gif")),
        ImageFormat::WebP => Ok(("WebP", "image/webp")),
        other => Err(PictureError::Unsupported(format!("{other:?}"))),
    }
}

/// An encoded picture: its bytes, media type and size.
type Encoded = (Vec<u8>, &'static str, (u32, u32));

/// The picture scaled to [`MAX_SIDE`] and encoded, smaller again while the file is over
/// [`MAX_IMAGE_BYTES`].
fn shrink(image: &DynamicImage) -> Result<Encoded, PictureError> {
    let alpha = image.color().has_alpha();
    let mut side = MAX_SIDE;
    loop {
        let scaled = image.thumbnail(side, side);
        let mut out = Vec::new();
        let mime = if alpha {
            scaled
                .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
                .map_err(|e| PictureError::Corrupt(e.to_string()))?;
            "image/png"
        } else {
            let rgb = DynamicImage::ImageRgb8(scaled.to_rgb8());
            let encoder =
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY);
            rgb.write_with_encoder(encoder)
                .map_err(|e| PictureError::Corrupt(e.to_string()))?;
            "image/jpeg"
        };
        if out.len() <= MAX_IMAGE_BYTES || side <= 64 {
            return Ok((out, mime, (scaled.width(), scaled.height())));
        }
        side = side * 3 / 4;
    }
}

/// An image block of `bytes`.
fn image_media(media_type: &str, bytes: &[u8]) -> Media {
    Media::Image {
        source: ImageSource {
            media_type: media_type.to_string(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage, Rgba, RgbaImage};

    fn png(image: DynamicImage) -> Vec<u8> {
        let mut out = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn decoded(media: &Media) -> DynamicImage {
        let Media::Image { source } = media else {
            panic!("not an image: {media:?}")
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&source.data)
            .unwrap();
        image::load_from_memory(&bytes).unwrap()
    }

    #[test]
    fn a_large_photo_is_scaled_to_the_long_side_and_sent_as_jpeg() {
        let photo = RgbImage::from_fn(4000, 3000, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, 90])
        });
        let picture = fit_picture(&png(DynamicImage::ImageRgb8(photo))).unwrap();
        assert_eq!(picture.original, (4000, 3000));
        assert_eq!(picture.sent, (1568, 1176));
        assert!(picture.bytes <= MAX_IMAGE_BYTES);
        let Media::Image { source } = &picture.media else {
            panic!()
        };
        assert_eq!(source.media_type, "image/jpeg");
        let back = decoded(&picture.media);
        assert_eq!((back.width(), back.height()), (1568, 1176));
        assert!(
            picture
                .describe("a.png")
                .contains("4000×3000 pixels, shown scaled down to 1568×1176")
        );
    }

    #[test]
    fn transparency_keeps_png_and_a_small_picture_goes_unchanged() {
        let clear = RgbaImage::from_fn(2000, 100, |x, _| Rgba([0, 0, 0, (x % 256) as u8]));
        let picture = fit_picture(&png(DynamicImage::ImageRgba8(clear))).unwrap();
        let Media::Image { source } = &picture.media else {
            panic!()
        };
        assert_eq!(source.media_type, "image/png");
        assert_eq!(picture.sent, (1568, 78));

        let small = png(DynamicImage::ImageRgb8(RgbImage::new(10, 20)));
        let picture = fit_picture(&small).unwrap();
        let Media::Image { source } = &picture.media else {
            panic!()
        };
        let sent = base64::engine::general_purpose::STANDARD
            .decode(&source.data)
            .unwrap();
        assert_eq!(sent, small, "a picture that fits is sent byte for byte");
        assert_eq!(picture.describe("s.png"), "s.png: PNG image, 10×20 pixels.");
    }

    #[test]
    fn a_corrupt_or_foreign_file_is_a_clear_error() {
        let mut broken = png(DynamicImage::ImageRgb8(RgbImage::new(300, 300)));
        broken.truncate(60);
        let error = fit_picture(&broken).unwrap_err().to_string();
        assert!(error.contains("cannot be decoded"), "{error}");
        let bmp = b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0";
        let error = fit_picture(bmp).unwrap_err().to_string();
        assert!(error.contains("cannot be sent to a model"), "{error}");
    }
}
