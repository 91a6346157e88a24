//! File paths as the `file:` URIs LSP names documents by, and back.

use std::path::{Path, PathBuf};

/// `path`'s `file:` URI (percent-encoded); a relative path is taken as it is.
pub fn from_path(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()))
}

/// The path a `file:` URI names; `None` for another scheme or a malformed URI.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok()?.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_non_ascii_round_trip() {
        let path = Path::new("/tmp/a dir/é#1.py");
        let uri = from_path(path);
        assert_eq!(uri, "file:///tmp/a%20dir/%C3%A9%231.py");
        assert_eq!(to_path(&uri).as_deref(), Some(path));
        assert_eq!(to_path("untitled:Untitled-1"), None);
    }
}
