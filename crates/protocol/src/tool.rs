//! What the model is told about a tool.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool as presented to the model: name, description and JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// JSON schema (an object schema) of the arguments.
    pub input_schema: Value,
}
