//! What `read_file` shows besides text: pictures fitted to what the model APIs accept.

mod pdf;
mod picture;
mod view_image;

pub use pdf::{
    MAX_PDF_BYTES, MAX_PDF_PAGES, PDF_PARSER, PdfError, PdfPages, WHOLE_PDF_PAGES, read_pdf,
    read_pdf_bounded,
};
pub use picture::{
    MAX_IMAGE_BYTES, MAX_SIDE, PICTURE_PARSER, Picture, PictureError, fit_picture,
    fit_picture_bounded,
};
pub use view_image::{ViewImage, ViewImageArgs};

/// Whether `path` names a file `read_file` shows as media (a picture or a PDF), fitted to
/// what the APIs accept whatever its size on disk: by its extension, as a mention sees it
/// before reading.
pub fn is_media_path(path: &std::path::Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["png", "jpg", "jpeg", "gif", "webp", "pdf"].contains(&e.to_ascii_lowercase().as_str())
    })
}
