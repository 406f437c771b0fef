//! A starting payload generated from a projection: what the inspector offers for "new payload".
//!
//! Required properties get typed placeholders (`""`, `0`, `false`, `[]`, `{}`, `null`), a `const`
//! its value, an `enum` its first value, a union its first alternative. A flattened union also
//! gets the properties its first tag requires — read from the trace's `required-intersection`
//! entries — and, where `collision-join` merged a property, the value that tag's own
//! alternative in the original asks for ([`skeleton_for_both`]); so the skeleton
//! usually satisfies the original too, not only the projection. Bounds (`minimum`, `minLength`, `minItems`, `multipleOf`, a few `format`s, `pattern` by trial)
//! are respected so that the projection accepts the result.

use serde_json::{Map, Number, Value, json};

use crate::pointer;
use crate::projection::{Detail, Projection, TraceEntry};
use crate::schema::Draft;
use crate::schema::resolve::RefIndex;

use super::verdict::with_stack;

/// Past this many nested schemas the generator writes `null`: a required recursive property
/// (kept as `$ref` by `--recursion keep`) must not make it loop.
const MAX_DEPTH: usize = 48;

/// Past this many generated values the generator writes `null` too: a kept recursive definition
/// that requires two copies of itself would otherwise double at every level.
const MAX_VALUES: usize = 10_000;

static ANYTHING: Value = Value::Bool(true);

/// A payload skeleton for a projection.
pub fn skeleton(projection: &Projection) -> Value {
    let generator = Generator::new(&projection.schema, projection.draft, &projection.trace);
    with_stack(|| generator.value(&projection.schema, "", 0))
}

/// A skeleton for a projection that also reads `original` (the tool's schema, in `draft`) where
/// the projection cannot say what a tag's alternative wants: a joined property.
pub fn skeleton_for_both(projection: &Projection, original: &Value, draft: Draft) -> Value {
    let mut generator = Generator::new(&projection.schema, projection.draft, &projection.trace);
    generator.original = Some(Box::new(Generator::new(original, draft, &[])));
    with_stack(|| generator.value(&projection.schema, "", 0))
}

struct Generator<'a> {
    root: &'a Value,
    /// The projection's trace; empty while generating from the original.
    trace: &'a [TraceEntry],
    index: RefIndex,
    original: Option<Box<Generator<'a>>>,
    generated: std::cell::Cell<usize>,
}

impl<'a> Generator<'a> {
    fn new(root: &'a Value, draft: Draft, trace: &'a [TraceEntry]) -> Generator<'a> {
        Generator {
            root,
            trace,
            index: RefIndex::build(root, draft),
            original: None,
            generated: std::cell::Cell::new(0),
        }
    }

    fn value(&self, schema: &Value, at: &str, depth: usize) -> Value {
        self.value_beside(schema, at, depth, &[])
    }

    /// `present`: keys that other parts of an `allOf` (or the node beside its first
    /// alternative) already put in the object. A part that declares one of them generates it
    /// too, so that its `const` can replace the other part's placeholder.
    fn value_beside(&self, schema: &Value, at: &str, depth: usize, present: &[String]) -> Value {
        let Value::Object(map) = schema else {
            return Value::Null;
        };
        self.generated.set(self.generated.get() + 1);
        if depth > MAX_DEPTH || self.generated.get() > MAX_VALUES {
            return Value::Null;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && let Ok(target) = self
                .index
                .resolve(self.root, self.index.base_at(at), reference)
            && let Some(resolved) = self.root.pointer(&target)
        {
            return self.value_beside(resolved, &target, depth + 1, present);
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
        let mut combined = self.own_value(map, at, depth, present);
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let Some(Value::Array(parts)) = map.get(keyword) else {
                continue;
            };
            // allOf: every part must hold; anyOf/oneOf: the first alternative is enough.
            let take = if keyword == "allOf" { parts.len() } else { 1 };
            for (i, part) in parts.iter().enumerate().take(take) {
                let at = pointer::push_index(&pointer::push(at, keyword), i);
                let mut keys: Vec<String> = present.to_vec();
                if let Some(Value::Object(o)) = &combined {
                    keys.extend(o.keys().cloned());
                }
                let v = self.value_beside(part, &at, depth + 1, &keys);
                combined = merge(combined, v);
            }
        }
        combined.unwrap_or(Value::Null)
    }

    /// The value the node's own keywords ask for; `None` when they say nothing about the type
    /// (the combinators then decide).
    fn own_value(
        &self,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
        present: &[String],
    ) -> Option<Value> {
        let kind = type_of(map)?;
        Some(match kind {
            "object" => self.object(map, at, depth, present),
            "array" => self.array(map, at, depth),
            "string" => string(map),
            "integer" => number(map, true),
            "number" => number(map, false),
            "boolean" => Value::Bool(false),
            _ => Value::Null,
        })
    }

    fn object(
        &self,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
        present: &[String],
    ) -> Value {
        let properties = map.get("properties").and_then(Value::as_object);
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
        for p in present {
            if properties.is_some_and(|props| props.contains_key(p)) && !wanted.contains(p) {
                wanted.push(p.clone());
            }
        }
        let mut out = Map::new();
        let mut chosen_tag = None;
        // A flattened union: settle the tag first, then add what that tag's alternative
        // requires, as the trace recorded it.
        if let Some(d) = self.discriminator_at(at) {
            let d_at = pointer::push(&pointer::push(at, "properties"), d);
            let tag = properties
                .and_then(|p| p.get(d))
                .map(|s| self.value(s, &d_at, depth + 1))
                .unwrap_or(Value::Null);
            for e in self.trace {
                if let Detail::RequiredDropped {
                    property,
                    discriminator,
                    required_when,
                    ..
                } = &e.detail
                    && discriminator == d
                    && required_when.contains(&tag)
                    && pointer::parent(&e.at).and_then(pointer::parent) == Some(at)
                    && !wanted.contains(property)
                {
                    wanted.push(property.clone());
                }
            }
            out.insert(d.to_owned(), tag.clone());
            chosen_tag = Some(tag);
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
        // Declared properties first, in the schema's order, then any required ones it does not
        // declare.
        let mut order: Vec<&String> = properties
            .map(|p| p.keys().filter(|k| wanted.contains(k)).collect())
            .unwrap_or_default();
        for w in &wanted {
            if !order.contains(&w) {
                order.push(w);
            }
        }
        for name in order {
            if out.contains_key(name.as_str()) {
                continue;
            }
            let p_at = pointer::push(&pointer::push(at, "properties"), name);
            if let Some(tag) = &chosen_tag
                && let Some(v) = self.original_alternative_value(
                    &p_at,
                    properties.and_then(|p| p.get(name)),
                    name,
                    tag,
                    depth,
                )
            {
                out.insert(name.clone(), v);
                continue;
            }
            let (schema, at) = match properties.and_then(|p| p.get(name)) {
                Some(s) => (s, pointer::push(&pointer::push(at, "properties"), name)),
                None => match map.get("additionalProperties") {
                    Some(s) => (s, pointer::push(at, "additionalProperties")),
                    None => (&ANYTHING, String::new()),
                },
            };
            out.insert(name.clone(), self.value(schema, &at, depth + 1));
        }
        Value::Object(out)
    }

    /// A property `collision-join` built from several alternatives: the value the tag's own
    /// alternative in the original asks for, when the projected property accepts it too (it
    /// should: a join only loosens). The projection alone cannot know that `code` must match the
    /// card alternative's `pattern` once the join dropped it, or what `{}` should hold.
    fn original_alternative_value(
        &self,
        at: &str,
        schema: Option<&Value>,
        property: &str,
        tag: &Value,
        depth: usize,
    ) -> Option<Value> {
        let original = self.original.as_deref()?;
        let suffix = format!("/properties/{}", pointer::escape(property));
        let value = self
            .trace
            .iter()
            .filter(|e| e.at == at)
            .find_map(|e| match &e.detail {
                Detail::Joined { alternatives, .. } => {
                    let from = &alternatives
                        .iter()
                        .find(|a| a.tags.contains(tag) && a.from.ends_with(&suffix))?
                        .from;
                    let node = original.root.pointer(from)?;
                    Some(original.value(node, from, depth + 1))
                }
                _ => None,
            })?;
        let accepted = match schema {
            None => true,
            Some(s) => jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(s)
                .is_ok_and(|v| v.is_valid(&value)),
        };
        accepted.then_some(value)
    }

    fn discriminator_at(&self, at: &str) -> Option<&'a str> {
        let trace: &'a [TraceEntry] = self.trace;
        trace
            .iter()
            .filter(|e| e.at == at)
            .find_map(|e| match &e.detail {
                Detail::UnionFlattened { property, .. } => Some(property.as_str()),
                _ => None,
            })
    }

    fn array(&self, map: &Map<String, Value>, at: &str, depth: usize) -> Value {
        let mut out = Vec::new();
        let prefix = map
            .get("prefixItems")
            .or_else(|| map.get("items").filter(|i| i.is_array()));
        let prefix_key = if map.contains_key("prefixItems") {
            "prefixItems"
        } else {
            "items"
        };
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        if let Some(Value::Array(items)) = prefix {
            for (i, s) in items.iter().enumerate().take(min) {
                let at = pointer::push_index(&pointer::push(at, prefix_key), i);
                out.push(self.value(s, &at, depth + 1));
            }
        }
        if out.is_empty()
            && let Some(contains) = map.get("contains")
        {
            out.push(self.value(contains, &pointer::push(at, "contains"), depth + 1));
        }
        let rest = map
            .get("items")
            .filter(|i| !i.is_array())
            .map(|s| (s, "items"))
            .or_else(|| map.get("additionalItems").map(|s| (s, "additionalItems")));
        while out.len() < min {
            let v = match rest {
                Some((s, key)) => self.value(s, &pointer::push(at, key), depth + 1),
                None => Value::Null,
            };
            out.push(v);
        }
        Value::Array(out)
    }
}

/// The type to generate: the first non-null one listed, else what the keywords imply.
pub(crate) fn type_of(map: &Map<String, Value>) -> Option<&'static str> {
    const TYPES: [&str; 7] = [
        "object", "array", "string", "integer", "number", "boolean", "null",
    ];
    let named = |s: &str| TYPES.iter().copied().find(|t| t.eq_ignore_ascii_case(s));
    match map.get("type") {
        Some(Value::String(t)) => return named(t),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter_map(named)
                .collect();
            return names
                .iter()
                .copied()
                .find(|t| *t != "null")
                .or(names.first().copied());
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
    ]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "contains"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// Two values that must both describe the payload (the parts of an `allOf`, a node and its
/// first alternative): objects are united key by key; otherwise a definite value (a `const`, an
/// `enum` member) wins over a typed placeholder, and the first definite one over later ones.
pub(crate) fn merge(a: Option<Value>, b: Value) -> Option<Value> {
    match (a, b) {
        (Some(Value::Object(mut x)), Value::Object(y)) => {
            for (k, v) in y {
                let merged = merge(x.remove(&k), v);
                x.insert(k, merged.unwrap_or(Value::Null));
            }
            Some(Value::Object(x))
        }
        (None | Some(Value::Null), b) => Some(b),
        (Some(a), b) if is_placeholder(&a) && !is_placeholder(&b) => Some(b),
        (Some(a), _) => Some(a),
    }
}

fn is_placeholder(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(true) => false,
    }
}

pub(crate) fn string(map: &Map<String, Value>) -> Value {
    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let formatted = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_example);
    let base = formatted.map_or_else(String::new, str::to_owned);
    let fit = |s: String| -> String {
        let mut s = s;
        let len = s.chars().count();
        if len < min {
            s.extend(std::iter::repeat_n('x', min - len));
        }
        if let Some(max) = max
            && s.chars().count() > max
        {
            s = s.chars().take(max).collect();
        }
        s
    };
    if !map.contains_key("pattern") {
        return Value::String(fit(base));
    }
    // A pattern cannot be inverted in general: an example read off a simple pattern, then a few
    // common shapes, and the validator itself says which one fits.
    let mut check = Map::new();
    for k in ["pattern", "minLength", "maxLength", "format"] {
        if let Some(v) = map.get(k) {
            check.insert(k.to_owned(), v.clone());
        }
    }
    let Ok(validator) = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&Value::Object(check))
    else {
        return Value::String(fit(base));
    };
    let n = min.max(1);
    let mut candidates = vec![fit(base.clone())];
    if let Some(example) = map
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(pattern_example)
    {
        candidates.push(example.clone());
        candidates.push(fit(example));
    }
    for unit in ["a", "A", "0", "x", "A0", "a0", "a-0", "a_0", "Aa0"] {
        for count in [n, 1, 2, 3, 4, 6, 8] {
            candidates.push(unit.repeat(count));
        }
    }
    candidates
        .into_iter()
        .find(|c| validator.is_valid(&Value::String(c.clone())))
        .map_or_else(|| Value::String(fit(base)), Value::String)
}

/// A string matching a simple pattern: literals, escapes, classes, `.` and quantifiers, with
/// `^`/`$` anchors. Groups and alternation give `None`; the caller tries other candidates.
pub(crate) fn pattern_example(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (atom, next) = match chars[i] {
            '^' if i == 0 => {
                i += 1;
                continue;
            }
            '$' if i + 1 == chars.len() => break,
            '(' | ')' | '|' => return None,
            '.' => ('a', i + 1),
            '\\' => {
                let c = *chars.get(i + 1)?;
                let atom = match c {
                    'd' => '0',
                    'w' | 'D' | 'S' => 'a',
                    's' => ' ',
                    'W' => '-',
                    c if c.is_ascii_alphanumeric() => return None,
                    c => c,
                };
                (atom, i + 2)
            }
            '[' => {
                let close =
                    (i + 1..chars.len()).find(|&j| chars[j] == ']' && chars[j - 1] != '\\')?;
                let class = &chars[i + 1..close];
                let atom = match class {
                    ['^', ..] => return None,
                    ['\\', 'd', ..] => '0',
                    ['\\', 'w', ..] => 'a',
                    ['\\', c, ..] => *c,
                    [c, ..] => *c,
                    [] => return None,
                };
                (atom, close + 1)
            }
            c => (c, i + 1),
        };
        let (count, after) = match chars.get(next) {
            Some('*' | '?') => (0, next + 1),
            Some('+') => (1, next + 1),
            Some('{') => {
                let close = (next..chars.len()).find(|&j| chars[j] == '}')?;
                let inside: String = chars[next + 1..close].iter().collect();
                let low = inside.split(',').next()?.trim().parse::<usize>().ok()?;
                (low, close + 1)
            }
            _ => (1, next),
        };
        // A lazy or possessive marker changes nothing about what matches.
        let after = if matches!(chars.get(after), Some('?' | '+')) && after > next {
            after + 1
        } else {
            after
        };
        out.extend(std::iter::repeat_n(atom, count.min(64)));
        i = after;
    }
    Some(out)
}

fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "1970-01-01T00:00:00Z",
        "date" => "1970-01-01",
        "time" => "00:00:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/",
        "uuid" => "00000000-0000-0000-0000-000000000000",
        "json-pointer" => "/",
        "regex" => ".*",
        _ => return None,
    })
}

pub(crate) fn number(map: &Map<String, Value>, integer: bool) -> Value {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    // Draft 4 / OpenAPI 3.0 spell exclusivity as a boolean beside `minimum`/`maximum`.
    let flag = |k: &str| map.get(k) == Some(&Value::Bool(true));
    let low = match (get("minimum"), get("exclusiveMinimum")) {
        (Some(m), Some(x)) if x >= m => Some((x, true)),
        (Some(m), _) => Some((m, flag("exclusiveMinimum"))),
        (None, Some(x)) => Some((x, true)),
        (None, None) => None,
    };
    let high = match (get("maximum"), get("exclusiveMaximum")) {
        (Some(m), Some(x)) if x <= m => Some((x, true)),
        (Some(m), _) => Some((m, flag("exclusiveMaximum"))),
        (None, Some(x)) => Some((x, true)),
        (None, None) => None,
    };
    let step = get("multipleOf").filter(|s| *s > 0.0);
    let fits = |v: f64| {
        low.is_none_or(|(l, ex)| if ex { v > l } else { v >= l })
            && high.is_none_or(|(h, ex)| if ex { v < h } else { v <= h })
            && (!integer || v.fract() == 0.0)
            && step.is_none_or(|s| ((v / s) - (v / s).round()).abs() < 1e-9)
    };
    // Zero when allowed, else the edges of the range and its middle; then the multiples of
    // `multipleOf` next to each.
    let mut candidates = vec![0.0];
    if let Some((l, _)) = low {
        candidates.extend([l, l.floor() + 1.0, l + 1.0]);
    }
    if let Some((h, _)) = high {
        candidates.extend([h, h.ceil() - 1.0, h - 1.0]);
    }
    if let (Some((l, _)), Some((h, _))) = (low, high) {
        candidates.push((l + h) / 2.0);
    }
    if let Some(s) = step {
        let around: Vec<f64> = candidates
            .iter()
            .flat_map(|c| {
                [
                    (c / s).ceil() * s,
                    (c / s).floor() * s,
                    ((c / s).ceil() + 1.0) * s,
                ]
            })
            .collect();
        candidates.extend(around);
    }
    let v = candidates
        .into_iter()
        .find(|v| fits(*v))
        .unwrap_or_else(|| low.map_or(0.0, |(l, _)| l));
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        json!(v as i64)
    } else {
        Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, project};

    fn skeleton_of(schema: Value) -> Value {
        skeleton(&project(&schema, &Options::inline()).unwrap())
    }

    #[test]
    fn typed_placeholders_for_required_properties() {
        let s = json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": ["null", "number"]},
                "b": {"type": "boolean"}, "a": {"type": "array"}, "o": {"type": "object"},
                "e": {"enum": ["x", "y"]}, "c": {"const": 7}, "optional": {"type": "string"}
            },
            "required": ["c", "e", "o", "a", "b", "n", "i", "s"]
        });
        assert_eq!(
            skeleton_of(s),
            json!({"s": "", "i": 0, "n": 0, "b": false, "a": [], "o": {}, "e": "x", "c": 7})
        );
    }

    #[test]
    fn bounds_are_respected() {
        assert_eq!(
            skeleton_of(json!({"type": "integer", "minimum": 3})),
            json!(3)
        );
        assert_eq!(
            skeleton_of(json!({"type": "integer", "exclusiveMinimum": 3})),
            json!(4)
        );
        assert_eq!(
            skeleton_of(json!({"type": "number", "minimum": 0.5})),
            json!(0.5)
        );
        assert_eq!(
            skeleton_of(json!({"type": "integer", "minimum": 1, "multipleOf": 5})),
            json!(5)
        );
        assert_eq!(
            skeleton_of(json!({"type": "integer", "maximum": -2})),
            json!(-2)
        );
        // Found by the generator: the upper edge minus one fell below the lower bound.
        assert_eq!(
            skeleton_of(json!({"type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 0})),
            json!(-0.5)
        );
        assert_eq!(
            skeleton_of(json!({"type": "string", "minLength": 3})),
            json!("xxx")
        );
        assert_eq!(
            skeleton_of(json!({"type": "string", "pattern": "^[A-Z0-9]+$"})),
            json!("A")
        );
        assert_eq!(
            skeleton_of(json!({"type": "string", "format": "date"})),
            json!("1970-01-01")
        );
        assert_eq!(
            skeleton_of(json!({"type": "string", "pattern": "^id_[0-9]+$"})),
            json!("id_0")
        );
        assert_eq!(
            skeleton_of(json!({"type": "string", "pattern": "^\\d{4}-\\d{2}$"})),
            json!("0000-00")
        );
        assert_eq!(
            skeleton_of(json!({"type": "array", "items": {"type": "integer"}, "minItems": 2})),
            json!([0, 0])
        );
    }

    #[test]
    fn a_self_doubling_definition_ends() {
        // Kept as `$defs` + `$ref`, each `Node` requires two more: unbounded, it would double
        // at every level.
        let s = json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "l": {"$ref": "#/$defs/Node"}, "r": {"$ref": "#/$defs/Node"}
            }, "required": ["l", "r"]}},
            "$ref": "#/$defs/Node"
        });
        let options = Options {
            recursion: crate::Recursion::Keep,
            ..Options::inline()
        };
        let started = std::time::Instant::now();
        let v = skeleton(&project(&s, &options).unwrap());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(v.is_object());
    }

    #[test]
    fn first_alternative_and_first_enum_value() {
        assert_eq!(
            skeleton_of(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
            json!("")
        );
        assert_eq!(
            skeleton_of(json!({"allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"const": true}}, "required": ["b"]}
            ]})),
            json!({"a": 0, "b": true})
        );
    }

    fn user_op(closed: bool) -> Value {
        json!({
            "type": "object",
            "properties": {"op": {"oneOf": [
                {"type": "object", "properties": {"action": {"const": "create"}, "name": {"type": "string"}},
                 "required": ["action", "name"], "additionalProperties": !closed},
                {"type": "object", "properties": {"action": {"const": "delete"}, "id": {"type": "integer"}},
                 "required": ["action", "id"], "additionalProperties": !closed}
            ]}},
            "required": ["op"]
        })
    }

    #[test]
    fn a_flattened_union_gets_what_its_first_tag_requires() {
        let p = project(&user_op(true), &Options::flat()).unwrap();
        // The projection itself only requires `action`; `name` comes from the trace.
        assert_eq!(
            p.schema.pointer("/properties/op/required"),
            Some(&json!(["action"]))
        );
        assert_eq!(
            skeleton(&p),
            json!({"op": {"action": "create", "name": ""}})
        );
    }

    #[test]
    fn an_open_alternative_keeps_the_declared_shape_by_default() {
        let p = project(&user_op(false), &Options::flat()).unwrap();
        assert_eq!(
            skeleton(&p),
            json!({"op": {"action": "create", "name": ""}})
        );
    }

    #[test]
    fn an_unconstrained_join_asks_the_original() {
        // Open alternatives under `strict`: `delete` accepts any `name`, so the join leaves
        // it `{}`.
        let original = user_op(false);
        let options = Options {
            open_branches: crate::OpenBranches::Strict,
            ..Options::flat()
        };
        let p = project(&original, &options).unwrap();
        assert_eq!(
            p.schema.pointer("/properties/op/properties/name/type"),
            None,
            "{:#}",
            p.schema
        );
        assert_eq!(
            skeleton(&p),
            json!({"op": {"action": "create", "name": null}})
        );
        assert_eq!(
            skeleton_for_both(&p, &original, Draft::Draft2020),
            json!({"op": {"action": "create", "name": ""}})
        );
    }
}
