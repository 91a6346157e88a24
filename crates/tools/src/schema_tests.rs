use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{Problem, SchemaError, Validator};

fn problems(schema: Value, instance: Value) -> Vec<(String, String)> {
    let validator = match Validator::new(&schema) {
        Ok(validator) => validator,
        Err(error) => panic!("{schema}: {error}"),
    };
    validator
        .problems(&instance)
        .into_iter()
        .map(|Problem { at, message }| (at, message))
        .collect()
}

fn one(at: &str, message: &str) -> Vec<(String, String)> {
    vec![(at.to_string(), message.to_string())]
}

#[test]
fn each_keyword_names_the_value_and_the_rule() {
    let cases = [
        (
            json!({"required": ["a"]}),
            json!({}),
            one("", "\"a\" is a required property"),
        ),
        (
            json!({"type": "string"}),
            json!(42),
            one("", "42 is not of type \"string\""),
        ),
        (
            json!({"type": ["null", "integer"]}),
            json!("ten"),
            one("", "\"ten\" is not of types \"null\", \"integer\""),
        ),
        (
            json!({"type": "integer"}),
            json!(1.5),
            one("", "1.5 is not of type \"integer\""),
        ),
        (
            json!({"enum": ["a", "b"]}),
            json!("c"),
            one("", "\"c\" is not one of \"a\", \"b\""),
        ),
        (
            json!({"const": "a"}),
            json!("b"),
            one("", "\"a\" was expected"),
        ),
        (
            json!({"maximum": 3}),
            json!(9),
            one("", "9 is greater than the maximum of 3"),
        ),
        (
            json!({"minimum": 0}),
            json!(-1),
            one("", "-1 is less than the minimum of 0"),
        ),
        (
            json!({"exclusiveMaximum": 3}),
            json!(3),
            one("", "3 is greater than or equal to the maximum of 3"),
        ),
        (
            json!({"multipleOf": 0.5}),
            json!(1.25),
            one("", "1.25 is not a multiple of 0.5"),
        ),
        (
            json!({"minLength": 2}),
            json!("é"),
            one("", "\"é\" is shorter than 2 characters"),
        ),
        (
            json!({"maxLength": 1}),
            json!("ab"),
            one("", "\"ab\" is longer than 1 character"),
        ),
        (
            json!({"pattern": "^a+$"}),
            json!("ab"),
            one("", "\"ab\" does not match \"^a+$\""),
        ),
        (
            json!({"minItems": 1}),
            json!([]),
            one("", "[] has fewer than 1 item"),
        ),
        (
            json!({"uniqueItems": true}),
            json!([1, 1.0]),
            one("", "[1,1.0] has non-unique elements"),
        ),
        (
            json!({"properties": {"a": {}}, "additionalProperties": false}),
            json!({"a": 1, "b": 2, "c": 3}),
            one(
                "",
                "Additional properties are not allowed (\"b\", \"c\" were unexpected)",
            ),
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!(1),
            one(
                "",
                "1 is not valid under any of the schemas listed in the 'anyOf' keyword",
            ),
        ),
        (
            json!({"oneOf": [{"minimum": 0}, {"maximum": 10}]}),
            json!(5),
            one(
                "",
                "5 is valid under more than one of the schemas listed in the 'oneOf' keyword",
            ),
        ),
        (
            json!({"not": {"type": "null"}}),
            json!(null),
            one("", "null should not be valid under {\"type\":\"null\"}"),
        ),
        (
            json!(false),
            json!(1),
            one("", "False schema does not allow 1"),
        ),
    ];
    for (schema, instance, expected) in cases {
        assert_eq!(
            problems(schema.clone(), instance.clone()),
            expected,
            "{schema} {instance}"
        );
    }
}

#[test]
fn a_ref_with_percent_escapes_finds_its_definition() {
    let schema = json!({
        "type": "object",
        "properties": {"when": {"$ref": "#/$defs/a%20date"}},
        "$defs": {"a date": {"type": "string"}}
    });
    assert_eq!(
        problems(schema, json!({"when": 3})),
        vec![(
            "/when".to_string(),
            "3 is not of type \"string\"".to_string()
        )]
    );
}

#[test]
fn nested_problems_point_at_the_value() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a/b~": {"type": "string"},
            "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}
        },
        "$defs": {"Edit": {"type": "object", "required": ["old"], "properties": {"old": {"type": "string"}}}}
    });
    // Keys in sorted order, so the problems come in one order whether or not serde_json keeps
    // insertion order (a feature another crate of the build may turn on).
    let instance = json!({"a/b~": 2, "edits": [{"old": "x"}, {"old": 1}, {}]});
    assert_eq!(
        problems(schema, instance),
        vec![
            (
                "/a~1b~0".to_string(),
                "2 is not of type \"string\"".to_string()
            ),
            (
                "/edits/1/old".to_string(),
                "1 is not of type \"string\"".to_string()
            ),
            (
                "/edits/2".to_string(),
                "\"old\" is a required property".to_string()
            ),
        ]
    );
}

#[test]
fn conditional_and_pattern_keywords_apply() {
    let schema = json!({
        "if": {"properties": {"kind": {"const": "file"}}, "required": ["kind"]},
        "then": {"required": ["path"]},
        "else": {"required": ["url"]},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": {"type": "integer"}
    });
    assert_eq!(
        problems(schema.clone(), json!({"kind": "file", "path": 1})),
        vec![(
            "/kind".to_string(),
            "\"file\" is not of type \"integer\"".to_string()
        ),]
    );
    assert_eq!(
        problems(schema.clone(), json!({"x-a": 1, "n": 2})),
        vec![
            (String::new(), "\"url\" is a required property".to_string()),
            (
                "/x-a".to_string(),
                "1 is not of type \"string\"".to_string()
            ),
        ]
    );
}

#[test]
fn a_schema_that_refers_to_itself_ends() {
    let schema = json!({"$ref": "#", "properties": {"next": {"$ref": "#"}}});
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!({"next": deep});
    }
    // Nothing to report and nothing to loop on: the check returns.
    assert_eq!(problems(schema, deep), vec![]);
}

#[test]
fn broken_schemas_are_named_and_unknown_keywords_pass() {
    assert_eq!(
        Validator::new(&json!({"type": "text"})).err(),
        Some(SchemaError::UnknownType("\"text\"".into()))
    );
    assert_eq!(
        Validator::new(&json!({"required": "a"})).err(),
        Some(SchemaError::Required("\"a\"".into()))
    );
    assert_eq!(
        Validator::new(&json!([1])).err(),
        Some(SchemaError::NotASchema("[1]".into()))
    );
    // An ECMAScript look-ahead the regex crate lacks, a format and a remote reference are
    // left to the tool.
    let lenient = json!({
        "properties": {
            "p": {"pattern": "^(?=a)"},
            "f": {"format": "email"},
            "r": {"$ref": "https://example.com/s.json"}
        }
    });
    assert_eq!(
        problems(lenient, json!({"p": "b", "f": "x", "r": 1})),
        vec![]
    );
}

/// The built-in tools' schemas, as the model sees them.
fn builtin_schemas() -> Vec<Value> {
    crate::ToolRegistry::builtin()
        .specs()
        .into_iter()
        .map(|spec| (*spec.input_schema).clone())
        .collect()
}

/// Values built from the pieces tool arguments are made of.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..300_000).prop_map(Value::from),
        (-2.0f64..2.0).prop_map(Value::from),
        "[a-z./ ]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("command".to_string()),
                    Just("path".to_string()),
                    Just("offset".to_string()),
                    Just("todos".to_string()),
                    Just("content".to_string()),
                    Just("old_string".to_string()),
                    Just("new_string".to_string()),
                    Just("pattern".to_string()),
                    Just("limit".to_string()),
                    Just("status".to_string()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// On rein's own schemas the check agrees with a full JSON Schema validator.
    #[test]
    fn agrees_with_a_full_validator_on_the_builtin_schemas(instance in any_json()) {
        for schema in builtin_schemas() {
            let ours = Validator::new(&schema).map(|v| v.is_valid(&instance));
            let full = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft7)
                .build(&schema)
                .map(|v| v.is_valid(&instance));
            prop_assert_eq!(ours.ok(), full.ok(), "{} {}", schema, instance);
        }
    }
}
