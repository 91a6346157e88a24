use std::sync::Arc;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use rein_protocol::ToolSpec;
use rein_tools::{Effect, Tool, ToolContext, ToolOutput, ToolRegistry};
use serde_json::{Value, json};

use crate::support::Workspace;

#[test]
fn builtin_tools_have_object_schemas_and_descriptions() {
    let registry = ToolRegistry::builtin();
    let names = registry.names();
    for expected in ["bash", "read_file", "write_file"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let specs = registry.specs();
    assert_eq!(specs.len(), names.len());
    for spec in &specs {
        assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
        assert!(!spec.description.is_empty());
    }
    let required = |name: &str| {
        let spec = specs.iter().find(|s| s.name == name).unwrap();
        spec.input_schema["required"].clone()
    };
    assert_eq!(required("bash"), json!(["command"]));
    assert_eq!(required("read_file"), json!(["path"]));
    assert_eq!(required("write_file"), json!(["path", "content"]));
}

#[test]
fn facts_give_the_effect_and_unknown_tools_are_mutating() {
    let ws = Workspace::new();
    let guard = &ws.ctx.guard;
    let effect =
        |name: &str, input: serde_json::Value| ws.registry.facts(name, &input, guard).effect;
    let read = json!({"path": "a"});
    assert_eq!(effect("read_file", read.clone()), Effect::ReadOnly);
    assert_eq!(effect("bash", json!({"command": "ls"})), Effect::ReadOnly);
    assert_eq!(
        effect("bash", json!({"command": "ls > listing.txt"})),
        Effect::Mutating
    );
    assert_eq!(effect("bash", json!({"nope": 1})), Effect::Mutating);
    assert_eq!(effect("nope", read.clone()), Effect::Mutating);
    // Without the workspace, only the conservative answer.
    assert_eq!(
        ws.registry.effect("bash", &json!({"command": "ls"})),
        Effect::Mutating
    );
    assert_eq!(ws.registry.effect("read_file", &read), Effect::ReadOnly);
}

#[test]
fn facts_name_what_a_call_touches() {
    let ws = Workspace::new();
    let guard = &ws.ctx.guard;
    let facts = |name: &str, input: serde_json::Value| ws.registry.facts(name, &input, guard);
    let read = facts(
        "read_file",
        json!({"path": "src/a.rs", "offset": 3, "limit": 2}),
    );
    assert_eq!(
        (read.claude_name.as_str(), read.summary.as_str()),
        ("Read", "src/a.rs (3-4)")
    );
    assert_eq!(read.reads, [ws.root.join("src/a.rs")]);
    let patch = facts(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-a\n+b\n*** End Patch"}),
    );
    assert_eq!(
        patch.writes,
        [
            ws.root.join("a.txt"),
            ws.root.join("b.txt"),
            ws.root.join("c.txt")
        ]
    );
    let bash = facts(
        "bash",
        json!({"command": "cat notes.txt > ../out.txt && sudo rm -rf x"}),
    );
    assert_eq!(bash.claude_name, "Bash");
    assert_eq!(bash.writes, [ws.root.parent().unwrap().join("out.txt")]);
    let shell = bash.shell.unwrap();
    let effective: Vec<String> = shell
        .analysis
        .effective
        .iter()
        .map(|c| c.argv.join(" "))
        .collect();
    assert!(effective.contains(&"rm -rf x".to_string()), "{effective:?}");
}

#[tokio::test]
async fn unknown_tool_is_an_error_naming_the_available_tools() {
    let ws = Workspace::new();
    let out = ws.call("edit", json!({})).await;
    let available = ws.registry.names().join(", ");
    assert_eq!(
        out,
        ToolOutput::error(format!(
            "unknown tool \"edit\"; available tools: {available}"
        ))
    );
    assert!(available.starts_with("bash, read_file"), "{available}");
}

#[tokio::test]
async fn schema_violations_name_the_field_and_the_problem() {
    let ws = Workspace::new();
    let cases = [
        (
            "bash",
            json!({}),
            "invalid arguments for bash: \"command\" is a required property",
        ),
        (
            "bash",
            json!({"command": 42}),
            "invalid arguments for bash: at /command: 42 is not of type \"string\"",
        ),
        (
            "read_file",
            json!({"path": "a", "offset": "ten"}),
            "invalid arguments for read_file: at /offset: \"ten\" is not of types \"integer\", \"null\"",
        ),
        (
            "read_file",
            json!(null),
            "invalid arguments for read_file: null is not of type \"object\"",
        ),
    ];
    for (tool, args, expected) in cases {
        let out = ws.call(tool, args.clone()).await;
        assert_eq!(out, ToolOutput::error(expected), "{tool} {args}");
    }
}

/// Records the arguments it was called with.
struct Probe;

#[async_trait]
impl Tool for Probe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "probe".into(),
            description: "test".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 3}},
                "required": ["n"]
            })
            .into(),
        }
    }
    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }
    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        ToolOutput::ok(format!("called with {args}"))
    }
}

#[tokio::test]
async fn valid_arguments_reach_the_tool_and_invalid_ones_do_not() {
    let ws = Workspace::new();
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Probe));
    let ok = registry.call("probe", json!({"n": 2}), &ws.ctx).await;
    assert_eq!(ok, ToolOutput::ok("called with {\"n\":2}"));
    let bad = registry.call("probe", json!({"n": 9}), &ws.ctx).await;
    assert_eq!(
        bad,
        ToolOutput::error("invalid arguments for probe: at /n: 9 is greater than the maximum of 3")
    );
}

#[test]
fn registering_a_tool_twice_replaces_it_in_place() {
    let mut registry = ToolRegistry::builtin();
    registry.register(Arc::new(Probe));
    let before = registry.names();
    registry.register(rein_tools::typed(rein_tools::Bash::new()));
    assert_eq!(
        registry.names(),
        before,
        "bash keeps its place, probe stays last"
    );
    assert_eq!(registry.names().last().map(String::as_str), Some("probe"));
}

#[test]
fn models_get_the_edit_tools_they_were_trained_on() {
    let names = |model: &str| ToolRegistry::for_model(model).names();
    for model in [
        "gpt-5",
        "gpt-4.1-mini",
        "o3",
        "o4-mini",
        "codex-mini-latest",
        "openai/gpt-5",
    ] {
        let tools = names(model);
        assert!(
            tools.contains(&"apply_patch".to_string()),
            "{model}: {tools:?}"
        );
        assert!(
            !tools.contains(&"edit_file".to_string()),
            "{model}: {tools:?}"
        );
    }
    for model in [
        "claude-sonnet-4-5",
        "qwen3-coder-plus",
        "deepseek-chat",
        "kimi-k2",
        "olmo",
    ] {
        let tools = names(model);
        assert!(
            tools.contains(&"edit_file".to_string()) && tools.contains(&"write_file".to_string()),
            "{model}"
        );
        assert!(
            !tools.contains(&"apply_patch".to_string()),
            "{model}: {tools:?}"
        );
    }
}

#[test]
fn builtin_names_are_known_without_building_the_tools() {
    let built = ToolRegistry::builtin().names();
    let named: Vec<String> = ToolRegistry::builtin_names().map(String::from).collect();
    assert_eq!(named, built);
    let one = ToolRegistry::builtin_only(|name| name == "grep");
    assert_eq!(one.names(), ["grep"]);
    assert_eq!(
        one.specs(),
        ToolRegistry::builtin().subset(|n| n == "grep").specs()
    );
}
