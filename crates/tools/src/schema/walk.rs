//! One check of an instance against a [`Validator`]'s schema, keyword by keyword, with the
//! JSON Schema notions it needs (types, equality, pointers).

use serde_json::{Map, Value};

use super::{MAX_DEPTH, Problem, Validator, type_names};

/// One check of an instance, collecting problems.
pub(super) struct Walk<'v> {
    validator: &'v Validator,
    problems: Vec<Problem>,
    /// The `$ref` targets being applied, with the instance each is applied to (by address): a
    /// reference back to one of them for the same instance is a cycle and adds nothing.
    following: Vec<(usize, usize)>,
}

impl<'v> Walk<'v> {
    pub(super) fn new(validator: &'v Validator) -> Self {
        Self {
            validator,
            problems: Vec::new(),
            following: Vec::new(),
        }
    }

    /// Every way `instance` breaks the validator's schema.
    pub(super) fn problems_of(mut self, instance: &Value) -> Vec<Problem> {
        let root = &self.validator.root;
        self.check(root, instance, &mut String::new(), 0);
        self.problems
    }

    fn report(&mut self, at: &str, message: String) {
        self.problems.push(Problem {
            at: at.to_string(),
            message,
        });
    }

    /// Whether `instance` conforms to `schema`, without reporting.
    fn conforms(&self, schema: &Value, instance: &Value, depth: usize) -> bool {
        let mut quiet = Walk {
            validator: self.validator,
            problems: Vec::new(),
            following: self.following.clone(),
        };
        quiet.check(schema, instance, &mut String::new(), depth);
        quiet.problems.is_empty()
    }

    fn check(&mut self, schema: &Value, instance: &Value, at: &mut String, depth: usize) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                return self.report(at, format!("False schema does not allow {instance}"));
            }
            Value::Object(object) => object,
            _ => return,
        };
        if depth > MAX_DEPTH {
            return;
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && let Some(target) = self.resolve(reference)
        {
            let key = (
                std::ptr::from_ref(target) as usize,
                std::ptr::from_ref(instance) as usize,
            );
            if !self.following.contains(&key) {
                self.following.push(key);
                self.check(target, instance, at, depth + 1);
                self.following.pop();
            }
        }
        if !self.check_type(object, instance, at) {
            // Further keywords would only repeat the mismatch in other words.
            return;
        }
        self.check_values(object, instance, at);
        self.check_combinations(object, instance, at, depth);
        match instance {
            Value::Object(properties) => self.check_object(object, properties, at, depth),
            Value::Array(items) => self.check_array(object, items, at, depth),
            Value::String(text) => self.check_string(object, text, instance, at),
            Value::Number(_) => check_number(self, object, instance, at),
            Value::Null | Value::Bool(_) => {}
        }
    }

    /// A local reference (`#`, `#/$defs/Name`, any JSON pointer into the root schema); others
    /// are not followed.
    fn resolve(&self, reference: &str) -> Option<&'v Value> {
        let root: &'v Value = &self.validator.root;
        let pointer = reference.strip_prefix('#')?;
        root.pointer(&percent_decoded(pointer))
    }

    fn check_type(&mut self, object: &Map<String, Value>, instance: &Value, at: &str) -> bool {
        let names = type_names(object);
        if names.is_empty() || names.iter().any(|name| is_of_type(instance, name)) {
            return true;
        }
        let quoted: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
        let message = match quoted.as_slice() {
            [one] => format!("{instance} is not of type {one}"),
            many => format!("{instance} is not of types {}", many.join(", ")),
        };
        self.report(at, message);
        false
    }

    fn check_values(&mut self, object: &Map<String, Value>, instance: &Value, at: &str) {
        if let Some(Value::Array(allowed)) = object.get("enum")
            && !allowed.iter().any(|value| same(value, instance))
        {
            let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
            self.report(
                at,
                format!("{instance} is not one of {}", listed.join(", ")),
            );
        }
        if let Some(expected) = object.get("const")
            && !same(expected, instance)
        {
            self.report(at, format!("{expected} was expected"));
        }
    }

    fn check_combinations(
        &mut self,
        object: &Map<String, Value>,
        instance: &Value,
        at: &mut String,
        depth: usize,
    ) {
        if let Some(Value::Array(all)) = object.get("allOf") {
            for schema in all {
                self.check(schema, instance, at, depth + 1);
            }
        }
        if let Some(Value::Array(any)) = object.get("anyOf")
            && !any.iter().any(|s| self.conforms(s, instance, depth + 1))
        {
            self.report(at, not_valid_under(instance, "anyOf"));
        }
        if let Some(Value::Array(one)) = object.get("oneOf") {
            match one
                .iter()
                .filter(|s| self.conforms(s, instance, depth + 1))
                .count()
            {
                1 => {}
                0 => self.report(at, not_valid_under(instance, "oneOf")),
                _ => self.report(
                    at,
                    format!(
                        "{instance} is valid under more than one of the schemas listed in the \
                         'oneOf' keyword"
                    ),
                ),
            }
        }
        if let Some(not) = object.get("not")
            && self.conforms(not, instance, depth + 1)
        {
            self.report(at, format!("{instance} should not be valid under {not}"));
        }
        if let Some(condition) = object.get("if") {
            let branch = if self.conforms(condition, instance, depth + 1) {
                object.get("then")
            } else {
                object.get("else")
            };
            if let Some(branch) = branch {
                self.check(branch, instance, at, depth + 1);
            }
        }
    }

    fn check_object(
        &mut self,
        object: &Map<String, Value>,
        properties: &Map<String, Value>,
        at: &mut String,
        depth: usize,
    ) {
        if let Some(Value::Array(required)) = object.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !properties.contains_key(name) {
                    self.report(at, format!("{name:?} is a required property"));
                }
            }
        }
        bound(self, at, object, "minProperties", properties.len(), |n| {
            format!(
                "the object has fewer than {n} propert{}",
                if n == 1 { "y" } else { "ies" }
            )
        });
        bound(self, at, object, "maxProperties", properties.len(), |n| {
            format!(
                "the object has more than {n} propert{}",
                if n == 1 { "y" } else { "ies" }
            )
        });
        let declared = object.get("properties").and_then(Value::as_object);
        let by_pattern = object.get("patternProperties").and_then(Value::as_object);
        let mut unexpected = Vec::new();
        for (name, value) in properties {
            let len = at.len();
            push_segment(at, name);
            let mut matched = false;
            if let Some(schema) = declared.and_then(|d| d.get(name)) {
                matched = true;
                self.check(schema, value, at, depth + 1);
            }
            for (source, schema) in by_pattern.into_iter().flatten() {
                if self
                    .validator
                    .pattern(source)
                    .is_some_and(|regex| regex.is_match(name))
                {
                    matched = true;
                    self.check(schema, value, at, depth + 1);
                }
            }
            if let Some(names) = object.get("propertyNames") {
                self.check(names, &Value::String(name.clone()), at, depth + 1);
            }
            match object.get("additionalProperties") {
                Some(Value::Bool(false)) if !matched => unexpected.push(format!("{name:?}")),
                Some(schema) if !matched => self.check(schema, value, at, depth + 1),
                _ => {}
            }
            at.truncate(len);
        }
        if !unexpected.is_empty() {
            self.report(
                at,
                format!(
                    "Additional properties are not allowed ({} {} unexpected)",
                    unexpected.join(", "),
                    if unexpected.len() == 1 { "was" } else { "were" }
                ),
            );
        }
    }

    fn check_array(
        &mut self,
        object: &Map<String, Value>,
        items: &[Value],
        at: &mut String,
        depth: usize,
    ) {
        let value = || Value::Array(items.to_vec());
        bound(self, at, object, "minItems", items.len(), |n| {
            format!("{} has fewer than {n} item{}", value(), plural(n))
        });
        bound(self, at, object, "maxItems", items.len(), |n| {
            format!("{} has more than {n} item{}", value(), plural(n))
        });
        if object.get("uniqueItems") == Some(&Value::Bool(true))
            && items
                .iter()
                .enumerate()
                .any(|(i, a)| items[i + 1..].iter().any(|b| same(a, b)))
        {
            self.report(at, format!("{} has non-unique elements", value()));
        }
        // Draft 7's tuple form (`items` as a list) and 2020-12's `prefixItems`.
        let (prefix, rest) = match (object.get("prefixItems"), object.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (_, Some(Value::Array(prefix))) => (prefix.as_slice(), object.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (index, item) in items.iter().enumerate() {
            let schema = prefix.get(index).or(rest);
            if let Some(schema) = schema {
                let len = at.len();
                push_segment(at, &index.to_string());
                self.check(schema, item, at, depth + 1);
                at.truncate(len);
            }
        }
        if let Some(contains) = object.get("contains")
            && !items
                .iter()
                .any(|item| self.conforms(contains, item, depth + 1))
        {
            self.report(
                at,
                format!("None of {} are valid under the given schema", value()),
            );
        }
    }

    fn check_string(
        &mut self,
        object: &Map<String, Value>,
        text: &str,
        instance: &Value,
        at: &str,
    ) {
        let chars = text.chars().count();
        bound(self, at, object, "minLength", chars, |n| {
            format!("{instance} is shorter than {n} character{}", plural(n))
        });
        bound(self, at, object, "maxLength", chars, |n| {
            format!("{instance} is longer than {n} character{}", plural(n))
        });
        if let Some(Value::String(source)) = object.get("pattern")
            && let Some(regex) = self.validator.pattern(source)
            && !regex.is_match(text)
        {
            self.report(at, format!("{instance} does not match {source:?}"));
        }
    }
}

/// Reports `message(limit)` when `count` falls outside the `min…`/`max…` keyword `keyword`.
fn bound(
    walk: &mut Walk<'_>,
    at: &str,
    object: &Map<String, Value>,
    keyword: &str,
    count: usize,
    message: impl Fn(u64) -> String,
) {
    let Some(limit) = object.get(keyword).and_then(Value::as_u64) else {
        return;
    };
    let count = count as u64;
    let broken = if keyword.starts_with("min") {
        count < limit
    } else {
        count > limit
    };
    if broken {
        walk.report(at, message(limit));
    }
}

fn check_number(walk: &mut Walk<'_>, object: &Map<String, Value>, instance: &Value, at: &str) {
    let Some(n) = instance.as_f64() else {
        return;
    };
    let limit = |keyword: &str| object.get(keyword).and_then(Value::as_f64);
    let shown = |keyword: &str| {
        object
            .get(keyword)
            .map(Value::to_string)
            .unwrap_or_default()
    };
    if limit("minimum").is_some_and(|m| n < m) {
        walk.report(
            at,
            format!(
                "{instance} is less than the minimum of {}",
                shown("minimum")
            ),
        );
    }
    if limit("maximum").is_some_and(|m| n > m) {
        walk.report(
            at,
            format!(
                "{instance} is greater than the maximum of {}",
                shown("maximum")
            ),
        );
    }
    if limit("exclusiveMinimum").is_some_and(|m| n <= m) {
        walk.report(
            at,
            format!(
                "{instance} is less than or equal to the minimum of {}",
                shown("exclusiveMinimum")
            ),
        );
    }
    if limit("exclusiveMaximum").is_some_and(|m| n >= m) {
        walk.report(
            at,
            format!(
                "{instance} is greater than or equal to the maximum of {}",
                shown("exclusiveMaximum")
            ),
        );
    }
    if let Some(step) = limit("multipleOf").filter(|step| *step > 0.0)
        && ((n / step).round() * step - n).abs() > f64::EPSILON * n.abs().max(1.0)
    {
        walk.report(
            at,
            format!("{instance} is not a multiple of {}", shown("multipleOf")),
        );
    }
}

fn not_valid_under(instance: &Value, keyword: &str) -> String {
    format!("{instance} is not valid under any of the schemas listed in the '{keyword}' keyword")
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether `instance` is a JSON value of type `name`; `1.0` is an integer, as JSON Schema says.
fn is_of_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON Schema's equality: numbers by value (`1` equals `1.0`), the rest structurally.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Appends `segment` to a JSON pointer, escaped (`~` as `~0`, `/` as `~1`).
fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// A `$ref`'s fragment with `%XX` escapes decoded (a malformed escape is kept as written).
fn percent_decoded(fragment: &str) -> String {
    percent_encoding::percent_decode_str(fragment)
        .decode_utf8_lossy()
        .into_owned()
}
