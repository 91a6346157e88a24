//! What `read_file` shows besides text: pictures fitted to what the model APIs accept.

mod picture;
mod view_image;

pub use picture::{MAX_IMAGE_BYTES, MAX_SIDE, Picture, PictureError, fit_picture};
pub use view_image::{ViewImage, ViewImageArgs};
