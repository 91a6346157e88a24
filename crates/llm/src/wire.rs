//! Pieces of request bodies the protocols share, serialised without building their text
//! first.

use rein_protocol::ImageSource;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A JSON value sent as a string of its compact text (a tool call's `arguments`).
pub(crate) struct JsonText<'a>(pub(crate) &'a Value);

impl Serialize for JsonText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

/// An image as a `data:` URL.
pub(crate) struct DataUrl<'a>(pub(crate) &'a ImageSource);

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ImageSource { media_type, data } = self.0;
        serializer.collect_str(&format_args!("data:{media_type};base64,{data}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_and_data_urls_are_the_strings_they_stand_for() {
        let input = json!({"path": "a \"b\".txt", "n": [1, 2.5, null], "s": "é\n"});
        assert_eq!(
            serde_json::to_string(&JsonText(&input)).unwrap(),
            serde_json::to_string(&input.to_string()).unwrap()
        );
        let image = ImageSource {
            media_type: "image/png".into(),
            data: "iVBO".into(),
        };
        assert_eq!(
            serde_json::to_string(&DataUrl(&image)).unwrap(),
            "\"data:image/png;base64,iVBO\""
        );
    }
}
