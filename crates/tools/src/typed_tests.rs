use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::{Bash, ReadFile};

/// Arguments of a test tool.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct SampleArgs {
    /// Where to look.
    path: String,
    /// How many, at most.
    count: Option<u32>,
    /// Nested items.
    items: Vec<Item>,
}

/// An item.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Item {
    /// Its name.
    name: String,
    /// Its weight.
    weight: f64,
}

#[test]
fn schema_is_a_lean_inline_object_schema_with_field_descriptions() {
    assert_eq!(
        schema_for::<SampleArgs>(),
        json!({
            "type": "object",
            "properties": {
                "path": {"description": "Where to look.", "type": "string"},
                "count": {"description": "How many, at most.", "type": ["integer", "null"], "minimum": 0},
                "items": {
                    "description": "Nested items.",
                    "type": "array",
                    "items": {
                        "description": "An item.",
                        "type": "object",
                        "properties": {
                            "name": {"description": "Its name.", "type": "string"},
                            "weight": {"description": "Its weight.", "type": "number"}
                        },
                        "required": ["name", "weight"]
                    }
                }
            },
            "required": ["path", "items"]
        })
    );
}

#[test]
fn schema_of_a_struct_without_fields_still_has_properties_and_required() {
    /// Nothing.
    #[derive(serde::Deserialize, JsonSchema)]
    struct NoArgs {}
    let schema = schema_for::<NoArgs>();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"], json!({}));
    assert_eq!(schema["required"], json!([]));
}

#[test]
fn builtin_schemas_are_small() {
    for tool in [typed(Bash::new()), typed(ReadFile)] {
        let spec = tool.spec();
        let schema = serde_json::to_string(&spec.input_schema).unwrap();
        println!("{}: schema {} bytes: {schema}", spec.name, schema.len());
        assert!(!schema.contains("$schema") && !schema.contains("title"));
        assert!(schema.len() < 600, "{schema}");
    }
}
