//! What `read_file` shows besides text: pictures fitted to what the model APIs accept.

mod pdf;
mod picture;
mod view_image;

pub use pdf::{MAX_PDF_BYTES, MAX_PDF_PAGES, PdfError, PdfPages, WHOLE_PDF_PAGES, read_pdf};
pub use picture::{MAX_IMAGE_BYTES, MAX_SIDE, Picture, PictureError, fit_picture};
pub use view_image::{ViewImage, ViewImageArgs};
