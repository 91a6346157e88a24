//! What the model is told about a tool.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

use serde_json::Value;

/// A tool as presented to the model: name, description and JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// JSON schema (an object schema) of the arguments; shared, since every request carries
    /// every tool's spec.
    pub input_schema: Arc<Value>,
}

/// The key of the one field a tool call's input holds when the model's arguments were not
/// valid JSON: what was wrong, and the start of the text. The call is answered with an error
/// result instead of running, and the input stays a valid object for the provider.
pub const INVALID_ARGUMENTS: &str = "__rein_invalid_arguments";
