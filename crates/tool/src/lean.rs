//! How a tool appears in the lean tools profile (small context windows): as in the full one,
//! shorter, or left out.

use rein_protocol::ToolSpec;
use serde_json::{Map, Value};

/// How a tool appears in the lean profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lean {
    /// As in the full profile.
    Same,
    /// With this description and only these arguments, each `(name, description)`; an empty
    /// description leaves the argument undescribed (its name says it). Arguments left out
    /// stay valid: only their definitions are not sent.
    Short {
        /// What the tool does, in a sentence or two.
        description: &'static str,
        /// The arguments offered.
        arguments: &'static [(&'static str, &'static str)],
    },
    /// Not offered.
    LeftOut,
}

impl Lean {
    /// `full` as this profile entry offers it; `None` when the tool is left out.
    pub fn apply(self, full: &ToolSpec) -> Option<ToolSpec> {
        match self {
            Self::Same => Some(full.clone()),
            Self::LeftOut => None,
            Self::Short {
                description,
                arguments,
            } => Some(ToolSpec {
                name: full.name.clone(),
                description: description.to_string(),
                input_schema: short_schema(&full.input_schema, arguments).into(),
            }),
        }
    }
}

/// `schema` with only `arguments`, their descriptions replaced (nested ones dropped), and
/// `required` narrowed to them.
fn short_schema(schema: &Value, arguments: &[(&str, &str)]) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let mut properties = Map::new();
    for (name, description) in arguments {
        let Some(Value::Object(full)) = schema["properties"].get(*name) else {
            continue;
        };
        let mut property = Value::Object(full.clone());
        drop_descriptions(&mut property);
        let Value::Object(mut property) = property else {
            continue;
        };
        if !description.is_empty() {
            property.insert("description".into(), (*description).into());
        }
        properties.insert((*name).to_string(), Value::Object(property));
    }
    let required: Vec<Value> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r.as_str().is_some_and(|r| properties.contains_key(r)))
        .cloned()
        .collect();
    out.insert("properties".into(), Value::Object(properties));
    out.insert("required".into(), Value::Array(required));
    if let Some(extra) = schema.get("additionalProperties") {
        out.insert("additionalProperties".into(), extra.clone());
    }
    Value::Object(out)
}

/// Removes every `description` from `schema` (an enum's variants' too).
fn drop_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.remove("description");
            map.values_mut().for_each(drop_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_descriptions),
        _ => {}
    }
}
