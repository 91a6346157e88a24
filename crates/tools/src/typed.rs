//! Writing a tool against a typed argument struct: the schema comes from the type, the JSON is
//! deserialized before the tool sees it.
//!
//! ```
//! use rein_tools::{Effect, ToolContext, ToolOutput, TypedTool, typed};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! /// Arguments of `echo`.
//! #[derive(Deserialize, JsonSchema)]
//! struct EchoArgs {
//!     /// The text to send back.
//!     text: String,
//! }
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl TypedTool for Echo {
//!     type Args = EchoArgs;
//!     const NAME: &'static str = "echo";
//!     fn description(&self) -> String {
//!         "Sends the text back.".into()
//!     }
//!     fn effect(&self, _args: &EchoArgs) -> Effect {
//!         Effect::ReadOnly
//!     }
//!     async fn run(&self, args: EchoArgs, _ctx: &ToolContext) -> ToolOutput {
//!         ToolOutput::ok(args.text)
//!     }
//! }
//!
//! let tool = typed(Echo);
//! let schema = &tool.spec().input_schema;
//! assert_eq!(schema["required"], serde_json::json!(["text"]));
//! assert_eq!(schema["properties"]["text"]["description"], "The text to send back.");
//! ```

use std::sync::Arc;

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};

/// A tool whose arguments are a Rust type. Wrap it with [`typed`] (or [`Typed::new`]) to get a
/// [`Tool`]; the argument schema is derived from `Args` (doc comments on fields become
/// descriptions).
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments, as the model sends them.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// Name the model calls the tool by.
    const NAME: &'static str;
    /// Claude Code's name for the tool, which hooks and settings files use.
    const CLAUDE_NAME: &'static str = Self::NAME;
    /// What sort of call it is, for rules and modes.
    const KIND: CallKind = CallKind::Other;
    /// What the tool does and when to use it.
    fn description(&self) -> String;
    /// How it appears in the lean profile (see [`crate::Lean`]); the default: as in the full.
    const LEAN: crate::Lean = crate::Lean::Same;
    /// The effect of a call with these arguments.
    fn effect(&self, args: &Self::Args) -> Effect;
    /// The argument schema sent to the model; the default derives it from `Args`
    /// ([`schema_for`]).
    fn schema(&self) -> Value {
        schema_for::<Self::Args>()
    }
    /// Adds what a call touches to `facts` (which already hold the names, kind and effect):
    /// the paths read and written, the shell line, a summary. The default adds nothing.
    fn describe(&self, args: &Self::Args, guard: &WorkspaceGuard, facts: &mut CallFacts) {
        let _ = (args, guard, facts);
    }
    /// The change a call would make to files, without making it (see [`Tool::preview`]).
    fn preview(&self, args: &Self::Args, guard: &WorkspaceGuard) -> Vec<crate::FileChange> {
        let _ = (args, guard);
        Vec::new()
    }
    /// Runs the call; failures the model can act on are [`ToolOutput::error`] results.
    async fn run(&self, args: Self::Args, ctx: &ToolContext) -> ToolOutput;
}

/// A [`TypedTool`] as a [`Tool`]: builds the spec once, deserializes arguments per call.
#[derive(Debug)]
pub struct Typed<T> {
    tool: T,
    spec: ToolSpec,
}

impl<T: TypedTool> Typed<T> {
    /// Wraps `tool`, deriving its spec.
    pub fn new(tool: T) -> Self {
        let spec = ToolSpec {
            name: T::NAME.to_string(),
            description: tool.description(),
            input_schema: tool.schema().into(),
        };
        Self { tool, spec }
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.tool
    }

    fn parse(args: Value) -> Result<T::Args, ToolOutput> {
        serde_json::from_value(args)
            .map_err(|e| ToolOutput::error(format!("invalid arguments for {}: {e}", T::NAME)))
    }
}

/// Wraps a [`TypedTool`] for a [`crate::ToolRegistry`].
pub fn typed<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(Typed::new(tool))
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn spec(&self) -> ToolSpec {
        self.spec.clone()
    }

    fn lean(&self) -> crate::Lean {
        T::LEAN
    }

    fn effect(&self, args: &Value) -> Effect {
        // Arguments that do not parse never run, but assume the worst anyway.
        match Self::parse(args.clone()) {
            Ok(args) => self.tool.effect(&args),
            Err(_) => Effect::Mutating,
        }
    }

    fn facts(&self, args: &Value, guard: &WorkspaceGuard) -> CallFacts {
        let mut facts = CallFacts::new(T::NAME, T::CLAUDE_NAME, T::KIND, Effect::Mutating);
        match Self::parse(args.clone()) {
            Ok(parsed) => {
                facts.effect = self.tool.effect(&parsed);
                self.tool.describe(&parsed, guard, &mut facts);
            }
            // Never runs (the registry refuses it), but assume the worst anyway.
            Err(_) => facts.summary = "(invalid arguments)".to_string(),
        }
        facts
    }

    fn preview(&self, args: &Value, guard: &WorkspaceGuard) -> Vec<crate::FileChange> {
        match Self::parse(args.clone()) {
            Ok(parsed) => self.tool.preview(&parsed, guard),
            Err(_) => Vec::new(),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        match Self::parse(args) {
            Ok(args) => self.tool.run(args, ctx).await,
            Err(output) => output,
        }
    }
}

/// The lean argument schema of `A`: an inline object schema (`type`, `properties`,
/// `required`) without `$schema`, `title`s, the type's own description or number `format`
/// annotations, since it is sent with every request.
pub fn schema_for<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Value::Object(map) = &mut schema {
        // The tool's description says what the arguments are for.
        map.remove("title");
        map.remove("description");
        map.entry("type").or_insert_with(|| "object".into());
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        map.entry("required")
            .or_insert_with(|| Value::Array(vec![]));
    }
    strip_noise(&mut schema);
    schema
}

/// `schema` with its optional arguments written as plain types, as Claude Code's tools send
/// them: `"type": ["string", "null"]` becomes `"type": "string"`, `"default": null`,
/// `{"type": "null"}` alternatives and `null` in an `enum` go. Shorter, and a model never needs to send `null`.
pub fn without_nulls(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if map.get("default") == Some(&Value::Null) {
                    map.remove("default");
                }
                if let Some(Value::Array(values)) = map.get_mut("enum") {
                    values.retain(|v| !v.is_null());
                }
                if let Some(Value::Array(types)) = map.get_mut("type") {
                    types.retain(|t| t != "null");
                    if types.len() == 1 {
                        let only = types.remove(0);
                        map.insert("type".into(), only);
                    }
                }
                let single = match map.get_mut("anyOf") {
                    Some(Value::Array(options)) => {
                        options.retain(|o| o.get("type").is_none_or(|t| t != "null"));
                        (options.len() == 1).then(|| options.remove(0))
                    }
                    _ => None,
                };
                if let (Some(Value::Object(inner)), Some(_)) = (single, map.remove("anyOf")) {
                    for (key, value) in inner {
                        map.entry(key).or_insert(value);
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// Removes annotations providers ignore or reject: `format` on numbers (`uint64`, `double`…)
/// and `title`s of nested schemas. Descriptions stay: they are what the model reads.
fn strip_noise(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let numeric = matches!(
                map.get("type"),
                Some(Value::String(t)) if t == "integer" || t == "number"
            ) || matches!(
                map.get("type"),
                Some(Value::Array(ts)) if ts.iter().any(|t| t == "integer" || t == "number")
            );
            if numeric {
                map.remove("format");
            }
            for (key, child) in map.iter_mut() {
                if key == "properties" {
                    // Keys here are field names, not keywords: descend into each field's schema.
                    if let Value::Object(fields) = child {
                        for field in fields.values_mut() {
                            if let Value::Object(f) = field {
                                f.remove("title");
                            }
                            strip_noise(field);
                        }
                    }
                } else {
                    strip_noise(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_noise),
        _ => {}
    }
}

#[cfg(test)]
#[path = "typed_tests.rs"]
mod tests;
