//! Building a witness payload: a value the OLD schema accepts, steered along the route the
//! comparison took to a changed node, with the change's candidate value put there.
//!
//! The generator reads the schema as the skeleton generator does (required properties get
//! typed placeholders, a `const` its value, bounds are respected) and borrows its leaf
//! generators; what it adds is steering. `route` holds the document pointers (through `$ref`s)
//! of every node on the way down: an optional property on the route is generated, the
//! alternative on the route is chosen, an array gets an item, `additionalProperties` on the
//! route gets an extra key. Whatever it builds is only a candidate: the validator decides.

use std::cell::Cell;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::pointer;
use crate::schema::Draft;
use crate::schema::resolve::RefIndex;
use crate::validate::skeleton::{merge, number, pattern_example, string, type_of};

/// Past this many nested schemas the generator writes `null` (recursive definitions).
const MAX_DEPTH: usize = 64;
/// Past this many generated values it writes `null` too.
const MAX_VALUES: usize = 20_000;

/// A name for the extra key that `additionalProperties` on the route asks for.
pub const EXTRA_KEY: &str = "unlisted_property";

/// What to put at the changed node.
#[derive(Debug, Clone, PartialEq)]
pub enum Injection {
    /// Generate as usual (the route alone makes the difference, e.g. a removed alternative).
    Generate,
    /// This value, as it is.
    Value(Value),
    /// The value generated from this schema (a modified copy of the node, in its document).
    Schema(Value),
    /// The node's own value, plus this key (an object is made if the node gives none).
    Key(String, Box<Injection>),
    /// The inner injection, with the witness also routed through this node (an alternative
    /// to take on the way).
    Through(String, Box<Injection>),
}

impl Injection {
    /// The extra nodes to route through, and the injection itself.
    pub fn unwrap_through(&self) -> (Vec<String>, &Injection) {
        let mut through = Vec::new();
        let mut inner = self;
        while let Injection::Through(at, next) = inner {
            through.push(at.clone());
            inner = next;
        }
        (through, inner)
    }
}

/// Where the injection goes and how to get there.
#[derive(Debug, Clone)]
pub struct Steer {
    pub route: HashSet<String>,
    pub target: String,
    pub injection: Injection,
}

pub struct Generator<'a> {
    root: &'a Value,
    index: RefIndex,
    steer: &'a Steer,
    generated: Cell<usize>,
}

impl<'a> Generator<'a> {
    pub fn new(root: &'a Value, draft: Draft, steer: &'a Steer) -> Generator<'a> {
        Generator {
            root,
            index: RefIndex::build(root, draft),
            steer,
            generated: Cell::new(0),
        }
    }

    /// The payload for the whole document.
    pub fn payload(&self) -> Value {
        crate::validate::with_stack(|| self.value(self.root, "", 0))
    }

    fn on_route(&self, at: &str) -> bool {
        self.steer.route.contains(at)
    }

    fn value(&self, schema: &Value, at: &str, depth: usize) -> Value {
        self.generated.set(self.generated.get() + 1);
        if depth > MAX_DEPTH || self.generated.get() > MAX_VALUES {
            return Value::Null;
        }
        if at == self.steer.target {
            return self.inject(&self.steer.injection, schema, at, depth);
        }
        self.own(schema, at, depth)
    }

    fn inject(&self, injection: &Injection, schema: &Value, at: &str, depth: usize) -> Value {
        match injection {
            Injection::Generate | Injection::Through(..) => self.own(schema, at, depth),
            Injection::Value(v) => v.clone(),
            Injection::Schema(s) => self.own(s, at, depth),
            Injection::Key(key, inner) => {
                let mut base = self.own(schema, at, depth);
                if !base.is_object() {
                    base = Value::Object(Map::new());
                }
                let v = self.inject(inner, &Value::Bool(true), at, depth + 1);
                if let Value::Object(map) = &mut base {
                    map.insert(key.clone(), v);
                }
                base
            }
        }
    }

    /// The value the schema asks for, ignoring the target check at this node.
    fn own(&self, schema: &Value, at: &str, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            return Value::Null;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && let Ok(target) = self
                .index
                .resolve(self.root, self.index.base_at(at), reference)
            && let Some(resolved) = self.root.pointer(&target)
        {
            let inner = self.value(resolved, &target, depth + 1);
            let rest: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| k.as_str() != "$ref")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if rest
                .keys()
                .all(|k| crate::schema::keywords::is_annotation(k))
            {
                return inner;
            }
            let siblings = self.own(&Value::Object(rest), at, depth);
            return merge(Some(inner), siblings).unwrap_or(Value::Null);
        }
        if let Some(c) = map.get("const") {
            return c.clone();
        }
        if let Some(first) = map
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            return first.clone();
        }
        let mut combined = type_of(map).map(|kind| self.typed(kind, map, at, depth));
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let Some(Value::Array(parts)) = map.get(keyword) else {
                continue;
            };
            let here = pointer::push(at, keyword);
            let chosen: Vec<usize> = if keyword == "allOf" {
                (0..parts.len()).collect()
            } else {
                let routed =
                    (0..parts.len()).find(|i| self.on_route(&pointer::push_index(&here, *i)));
                vec![routed.unwrap_or(0)]
            };
            for i in chosen {
                if let Some(part) = parts.get(i) {
                    let v = self.value(part, &pointer::push_index(&here, i), depth + 1);
                    combined = merge(combined, v);
                }
            }
        }
        // Conditional and negated parts are only visited when the route goes through them.
        for keyword in ["then", "else", "not", "if"] {
            let child = pointer::push(at, keyword);
            if self.on_route(&child)
                && let Some(s) = map.get(keyword)
            {
                let v = self.value(s, &child, depth + 1);
                combined = merge(combined, v);
            }
        }
        combined.unwrap_or(Value::Null)
    }

    fn typed(&self, kind: &str, map: &Map<String, Value>, at: &str, depth: usize) -> Value {
        match kind {
            "object" => self.object(map, at, depth),
            "array" => self.array(map, at, depth),
            "string" => string(map),
            "integer" => number(map, true),
            "number" => number(map, false),
            "boolean" => Value::Bool(false),
            _ => Value::Null,
        }
    }

    fn object(&self, map: &Map<String, Value>, at: &str, depth: usize) -> Value {
        let properties = map.get("properties").and_then(Value::as_object);
        let props_at = pointer::push(at, "properties");
        let mut wanted: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(props) = properties {
            for name in props.keys() {
                if !wanted.contains(name) && self.on_route(&pointer::push(&props_at, name)) {
                    wanted.push(name.clone());
                }
            }
        }
        for keyword in ["dependentSchemas", "dependentRequired", "dependencies"] {
            if let Some(Value::Object(deps)) = map.get(keyword) {
                let here = pointer::push(at, keyword);
                for name in deps.keys() {
                    if !wanted.contains(name) && self.on_route(&pointer::push(&here, name)) {
                        wanted.push(name.clone());
                    }
                }
            }
        }
        let min = map
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        if let Some(props) = properties {
            for name in props.keys() {
                if wanted.len() >= min {
                    break;
                }
                if !wanted.contains(name) {
                    wanted.push(name.clone());
                }
            }
        }
        let mut out = Map::new();
        for name in &wanted {
            let (schema, child) = match properties.and_then(|p| p.get(name)) {
                Some(s) => (s, pointer::push(&props_at, name)),
                None => match map.get("additionalProperties") {
                    Some(s) => (s, pointer::push(at, "additionalProperties")),
                    None => (&Value::Bool(true), String::from("\u{0}")),
                },
            };
            out.insert(name.clone(), self.value(schema, &child, depth + 1));
        }
        let extra_at = pointer::push(at, "additionalProperties");
        if self.on_route(&extra_at) {
            let mut key = EXTRA_KEY.to_owned();
            while properties.is_some_and(|p| p.contains_key(&key)) || out.contains_key(&key) {
                key.push('_');
            }
            let schema = map
                .get("additionalProperties")
                .unwrap_or(&Value::Bool(true));
            out.insert(key, self.value(schema, &extra_at, depth + 1));
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            let here = pointer::push(at, "patternProperties");
            for (pattern, schema) in patterns {
                let child = pointer::push(&here, pattern);
                if self.on_route(&child) {
                    let key = pattern_example(pattern).unwrap_or_else(|| "a".to_owned());
                    out.insert(key, self.value(schema, &child, depth + 1));
                }
            }
        }
        Value::Object(out)
    }

    fn array(&self, map: &Map<String, Value>, at: &str, depth: usize) -> Value {
        let mut out = Vec::new();
        let (prefix_key, prefix) = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(p)), _) => ("prefixItems", Some(p)),
            (None, Some(Value::Array(p))) => ("items", Some(p)),
            _ => ("prefixItems", None),
        };
        let mut min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let prefix_at = pointer::push(at, prefix_key);
        if let Some(items) = prefix {
            for i in 0..items.len() {
                if self.on_route(&pointer::push_index(&prefix_at, i)) {
                    min = min.max(i + 1);
                }
            }
        }
        let rest = match map.get("items") {
            Some(s) if !s.is_array() => Some((s, "items")),
            _ => map.get("additionalItems").map(|s| (s, "additionalItems")),
        };
        if let Some((_, key)) = rest
            && self.on_route(&pointer::push(at, key))
        {
            min = min.max(prefix.map_or(0, Vec::len) + 1);
        }
        if let Some(items) = prefix {
            for (i, s) in items.iter().enumerate().take(min) {
                out.push(self.value(s, &pointer::push_index(&prefix_at, i), depth + 1));
            }
        }
        let contains_at = pointer::push(at, "contains");
        if let Some(contains) = map.get("contains")
            && (out.is_empty() || self.on_route(&contains_at))
        {
            out.push(self.value(contains, &contains_at, depth + 1));
            min = min.max(out.len());
        }
        while out.len() < min {
            out.push(match rest {
                Some((s, key)) => self.value(s, &pointer::push(at, key), depth + 1),
                None => Value::Null,
            });
        }
        Value::Array(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn steer(route: &[&str], target: &str, injection: Injection) -> Steer {
        Steer {
            route: route.iter().map(|s| (*s).to_owned()).collect(),
            target: target.to_owned(),
            injection,
        }
    }

    #[test]
    fn the_route_includes_optional_properties_through_refs() {
        let s = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"type": "string"}},
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}}}
        });
        let st = steer(
            &["", "/properties/a", "/$defs/A", "/$defs/A/properties/x"],
            "/$defs/A/properties/x",
            Injection::Value(json!(7)),
        );
        let v = Generator::new(&s, Draft::Draft2020, &st).payload();
        assert_eq!(v, json!({"a": {"x": 7}}));
    }

    #[test]
    fn the_routed_alternative_is_chosen_and_extra_keys_added() {
        let s = json!({"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]});
        let st = steer(
            &["", "/anyOf/1", "/anyOf/1/additionalProperties"],
            "/anyOf/1/additionalProperties",
            Injection::Generate,
        );
        let v = Generator::new(&s, Draft::Draft2020, &st).payload();
        assert_eq!(v, json!({"k": "b", "unlisted_property": null}));
    }

    #[test]
    fn a_key_is_added_to_the_target_object() {
        let s = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 2}}, "required": ["n"]});
        let st = steer(
            &[""],
            "",
            Injection::Key("extra".into(), Box::new(Injection::Value(json!([1])))),
        );
        let v = Generator::new(&s, Draft::Draft2020, &st).payload();
        assert_eq!(v, json!({"n": 2, "extra": [1]}));
    }
}
