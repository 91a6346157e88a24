//! Checking a call's arguments against its tool's JSON Schema before the tool runs.
//!
//! rein's own tools derive their schemas with schemars; MCP servers send theirs. The check
//! covers the keywords those use (types, required and additional properties, nested objects
//! and arrays, enums and consts, numeric and length bounds, patterns, `anyOf`/`oneOf`/`allOf`/
//! `not`, `if`/`then`/`else`, local `$ref`s) and lets anything else through: the tool, or the
//! MCP server behind it, checks its own arguments again, and the point here is an error the
//! model can act on before a call is made. A general validator (the `jsonschema` crate) was
//! 2.5 MB of the binary and compiled a meta-schema at the first call of every run.
//!
//! The messages follow the wording models have seen from Python's and Rust's `jsonschema`:
//! `"command" is a required property`, `42 is not of type "string"`.

mod walk;

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

/// Deepest schema nesting followed (a `$ref` that refers to itself stops here).
const MAX_DEPTH: usize = 64;

/// Why a tool's schema cannot be used to check arguments (a bug in the tool or server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SchemaError {
    /// The schema is neither an object nor a boolean.
    #[error("a schema must be an object or a boolean, not {0}")]
    NotASchema(String),
    /// `type` names something JSON Schema does not have.
    #[error("unknown type {0}")]
    UnknownType(String),
    /// `required` is not a list of property names.
    #[error("\"required\" must be a list of property names, not {0}")]
    Required(String),
}

/// One way the arguments break the schema: where (a JSON pointer, empty at the top level) and
/// what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// A JSON pointer to the offending value, e.g. `/offset`.
    pub at: String,
    /// What is wrong, e.g. `"ten" is not of type "integer"`.
    pub message: String,
}

/// A tool's schema, checked once and ready to check arguments against.
#[derive(Debug, Clone)]
pub(crate) struct Validator {
    root: Value,
    /// The schema's `pattern`s and `patternProperties` keys, compiled; one the `regex` crate
    /// cannot compile (ECMAScript look-arounds) is left unchecked.
    patterns: HashMap<String, Regex>,
}

impl Validator {
    /// Checks `schema`'s shape and compiles its patterns.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let mut patterns = HashMap::new();
        inspect(schema, &mut patterns, 0)?;
        Ok(Self {
            root: schema.clone(),
            patterns,
        })
    }

    /// Every way `instance` breaks the schema; empty when it conforms.
    pub fn problems(&self, instance: &Value) -> Vec<Problem> {
        walk::Walk::new(self).problems_of(instance)
    }

    /// Whether `instance` conforms.
    #[cfg(test)]
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.problems(instance).is_empty()
    }

    fn pattern(&self, source: &str) -> Option<&Regex> {
        self.patterns.get(source)
    }
}

/// Checks the keywords whose shape matters and collects the patterns, everywhere in `schema`.
fn inspect(
    schema: &Value,
    patterns: &mut HashMap<String, Regex>,
    depth: usize,
) -> Result<(), SchemaError> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => return Err(SchemaError::NotASchema(other.to_string())),
    };
    if depth > MAX_DEPTH {
        return Ok(());
    }
    for name in type_names(object) {
        if !KNOWN_TYPES.contains(&name) {
            return Err(SchemaError::UnknownType(format!("{name:?}")));
        }
    }
    if let Some(required) = object.get("required")
        && !required
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string))
    {
        return Err(SchemaError::Required(required.to_string()));
    }
    let mut compile = |source: &str| {
        if let Ok(regex) = Regex::new(source) {
            patterns.insert(source.to_string(), regex);
        }
    };
    if let Some(Value::String(source)) = object.get("pattern") {
        compile(source);
    }
    if let Some(Value::Object(by_pattern)) = object.get("patternProperties") {
        by_pattern.keys().for_each(|source| compile(source));
    }
    for sub in subschemas(object) {
        inspect(sub, patterns, depth + 1)?;
    }
    Ok(())
}

const KNOWN_TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// The names in a schema's `type` (a string or a list of them).
fn type_names(object: &Map<String, Value>) -> Vec<&str> {
    match object.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The schemas nested in `object`, whatever keyword holds them.
fn subschemas(object: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    const ONE: [&str; 8] = [
        "additionalProperties",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
    ];
    const MANY: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
    const BY_NAME: [&str; 5] = [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ];
    let one = ONE.iter().filter_map(|k| object.get(*k));
    let items = object
        .get("items")
        .into_iter()
        .flat_map(|items| match items {
            Value::Array(list) => list.iter().collect::<Vec<_>>(),
            schema => vec![schema],
        });
    let many = MANY
        .iter()
        .filter_map(|k| object.get(*k).and_then(Value::as_array))
        .flatten();
    let by_name = BY_NAME
        .iter()
        .filter_map(|k| object.get(*k).and_then(Value::as_object))
        .flat_map(Map::values);
    one.chain(items).chain(many).chain(by_name)
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
