//! Conjunction of schemas (rule 13 `allOf` merge, and 2020-12 `$ref` siblings).
//!
//! Soundness argument, keyword by keyword: an instance valid against both parts satisfies every
//! keyword of either, so a keyword only one part has may stay, and bounds combine to the
//! tighter one (that is still exactly the conjunction). `properties`, `patternProperties`,
//! `items` and friends merge entry-wise; an entry both parts constrain becomes the conjunction
//! of the two (merged, or `allOf` when they clash). Moving a property out from under another
//! part's `additionalProperties` only removes a constraint. Anything else that differs is
//! dropped, which only ever accepts more.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::engine::Engine;
use super::out::{Notes, Out, Scope};
use super::trace::{Detail, Rule};
use crate::pointer;
use crate::schema::{KindSet, keywords::is_annotation};

/// Map-valued keywords whose entries are schemas applied to the same member.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
/// Schema-valued keywords where both constraints apply to the same members.
const SCHEMA_SLOTS: &[&str] = &["additionalProperties", "propertyNames", "items"];
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
const OBJECT_SHAPE: &[&str] = &["properties", "patternProperties", "additionalProperties"];
const ARRAY_SHAPE: &[&str] = &["items", "prefixItems", "additionalItems"];

/// Keywords that only mean something together: taking `if` from one part and `then` from the
/// other would build a conditional neither part has. Each group comes from a single part.
const GROUPS: &[&[&str]] = &[
    &["if", "then", "else"],
    &["contains", "minContains", "maxContains"],
    &["items", "additionalItems"],
];

/// Keywords of `b` that must yield to `a` because a group they belong to is split between both.
fn yielding_groups(a: &Map<String, Value>, b: &Map<String, Value>) -> Vec<&'static str> {
    let mut out = Vec::new();
    for group in GROUPS {
        let in_a = group.iter().any(|k| a.contains_key(*k));
        let in_b = group.iter().any(|k| b.contains_key(*k));
        let same = group.iter().all(|k| a.get(*k) == b.get(*k));
        // `items` alone merges entry-wise; only draft-07 tuples tie it to `additionalItems`.
        let tuple_free = group[0] == "items"
            && !a.contains_key("additionalItems")
            && !b.contains_key("additionalItems");
        if in_a && in_b && !same && !tuple_free {
            out.extend(group.iter().copied().filter(|k| b.contains_key(*k)));
        }
    }
    out
}

pub(crate) struct Conj {
    pub(crate) out: Out,
    pub(crate) dropped: Vec<String>,
}

/// How one keyword present in both parts combines.
enum Combine {
    Same,
    Value(Value),
    Entrywise,
    Concat,
    Drop,
}

fn combine(key: &str, a: &Value, b: &Value) -> Combine {
    if a == b {
        return Combine::Same;
    }
    if is_annotation(key) {
        // The later part is the more specific one (a subtype's own description).
        return Combine::Value(b.clone());
    }
    if SCHEMA_MAPS.contains(&key) && a.is_object() && b.is_object() {
        return Combine::Entrywise;
    }
    if SCHEMA_SLOTS.contains(&key) && is_schema(a) && is_schema(b) {
        return Combine::Entrywise;
    }
    if key == "prefixItems" && a.is_array() && b.is_array() {
        return Combine::Entrywise;
    }
    if key == "allOf" && a.is_array() && b.is_array() {
        return Combine::Concat;
    }
    match key {
        "type" => match (KindSet::from_type_value(a), KindSet::from_type_value(b)) {
            (Some(x), Some(y)) if !x.intersect(&y).is_empty() => {
                Combine::Value(x.intersect(&y).to_type_value())
            }
            _ => Combine::Drop,
        },
        "required" => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => {
                let in_x = Listed::new(x);
                let mut all = x.clone();
                all.extend(y.iter().filter(|v| !in_x.contains(v)).cloned());
                Combine::Value(Value::Array(all))
            }
            _ => Combine::Drop,
        },
        "enum" => match (a.as_array(), b.as_array()) {
            (Some(x), Some(y)) => {
                let in_y = Listed::new(y);
                Combine::Value(Value::Array(
                    x.iter().filter(|v| in_y.contains(v)).cloned().collect(),
                ))
            }
            _ => Combine::Drop,
        },
        k if LOWER_BOUNDS.contains(&k) => bound(a, b, f64::max),
        k if UPPER_BOUNDS.contains(&k) => bound(a, b, f64::min),
        _ => Combine::Drop,
    }
}

/// A JSON array's values, for asking whether one is among them: `required` lists and enums can
/// hold thousands, and a scan per value made combining two of them quadratic. Strings are
/// looked up by text; other values (rare here) are compared one by one.
struct Listed<'a> {
    strings: std::collections::HashSet<&'a str>,
    others: Vec<&'a Value>,
}

impl<'a> Listed<'a> {
    fn new(values: &'a [Value]) -> Listed<'a> {
        let mut listed = Listed {
            strings: std::collections::HashSet::new(),
            others: Vec::new(),
        };
        for v in values {
            match v {
                Value::String(s) => {
                    listed.strings.insert(s);
                }
                other => listed.others.push(other),
            }
        }
        listed
    }

    fn contains(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => self.strings.contains(s.as_str()),
            other => self.others.contains(&other),
        }
    }
}

fn bound(a: &Value, b: &Value, pick: fn(f64, f64) -> f64) -> Combine {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => Combine::Value(if pick(x, y) == x {
            a.clone()
        } else {
            b.clone()
        }),
        _ => Combine::Drop,
    }
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

/// Would [`conjoin`] have to drop a keyword of `a` or `b`?
fn clashes(a: &Value, b: &Value) -> bool {
    if !is_schema(a) || !is_schema(b) {
        return true;
    }
    let (Value::Object(a), Value::Object(b)) = (a, b) else {
        return false;
    };
    if !yielding_groups(a, b).is_empty() {
        return true;
    }
    a.iter().any(|(k, va)| {
        b.get(k)
            .is_some_and(|vb| matches!(combine(k, va, vb), Combine::Drop))
    })
}

/// Both constraints on one position: merged when nothing clashes, else `allOf` of both.
/// The flag tells whether it had to wrap.
pub(crate) fn conjoin_or_wrap(a: Out, b: Out) -> (Out, bool) {
    if clashes(&a.value, &b.value) {
        (under_all_of(a, b), true)
    } else {
        (conjoin(a, b).out, false)
    }
}

/// Both schemas kept as they are, as the two parts of an `allOf`.
fn under_all_of(a: Out, b: Out) -> Out {
    let exact = a.exact && b.exact;
    let mut out = Out::new(Value::Null, exact);
    out.adopt(&["allOf", "0"], a.notes);
    out.adopt(&["allOf", "1"], b.notes);
    let mut m = Map::new();
    m.insert("allOf".to_owned(), Value::Array(vec![a.value, b.value]));
    out.value = Value::Object(m);
    out
}

/// The conjunction of two schemas, dropping what cannot be combined.
pub(crate) fn conjoin(mut a: Out, mut b: Out) -> Conj {
    // A malformed document (a number where a schema belongs) has nothing to merge: both parts
    // stay, whatever a validator makes of them.
    if !is_schema(&a.value) || !is_schema(&b.value) {
        return Conj {
            out: under_all_of(a, b),
            dropped: Vec::new(),
        };
    }
    match (&a.value, &b.value) {
        (Value::Bool(true), _) => return keep_notes(b, a),
        (_, Value::Bool(true)) => return keep_notes(a, b),
        (Value::Bool(false), _) => return keep_notes(a, b),
        (_, Value::Bool(false)) => return keep_notes(b, a),
        _ => {}
    }
    let (Value::Object(mut am), Value::Object(bm)) =
        (std::mem::take(&mut a.value), std::mem::take(&mut b.value))
    else {
        unreachable!("schemas that are not booleans are objects")
    };
    let shape_overlap = |keys: &[&str]| {
        keys.iter().any(|k| am.contains_key(*k)) && keys.iter().any(|k| bm.contains_key(*k))
    };
    let mut exact =
        a.exact && b.exact && !shape_overlap(OBJECT_SHAPE) && !shape_overlap(ARRAY_SHAPE);
    let yielding = yielding_groups(&am, &bm);
    let mut dropped: Vec<String> = Vec::new();
    let mut bm = bm;
    for k in &yielding {
        bm.remove(*k);
        b.forget_under(&[k]);
        dropped.push((*k).to_owned());
        exact = false;
    }
    let mut out = Out::new(Value::Null, true);
    let mut merged = Map::new();
    let keys: Vec<String> = am
        .keys()
        .chain(bm.keys().filter(|k| !am.contains_key(*k)))
        .cloned()
        .collect();
    for key in keys {
        let a_notes = a.take_notes_under(&[&key]);
        let b_notes = b.take_notes_under(&[&key]);
        // Moved out, not copied (the maps' order no longer matters: `keys` holds it).
        let (va, vb) = (am.swap_remove(&key), bm.swap_remove(&key));
        let (value, notes) = match (va, vb) {
            (Some(v), None) => (v, a_notes),
            (None, Some(v)) => (v, b_notes),
            (Some(x), Some(y)) => match combine(&key, &x, &y) {
                Combine::Same => (x, both_notes(a_notes, b_notes)),
                Combine::Value(v) => (v, both_notes(a_notes, b_notes)),
                Combine::Concat => concat(&x, &y, a_notes, b_notes),
                Combine::Entrywise => {
                    let (v, n, e) = entrywise(&key, &x, &y, a_notes, b_notes);
                    exact &= e;
                    (v, n)
                }
                Combine::Drop => {
                    exact = false;
                    dropped.push(key.clone());
                    continue;
                }
            },
            (None, None) => continue,
        };
        out.adopt(&[&key], notes);
        merged.insert(key, value);
    }
    out.adopt(&[], a.notes);
    out.adopt(&[], b.notes);
    out.value = Value::Object(merged);
    out.exact = exact;
    Conj { out, dropped }
}

/// Both sides' notes at one entry, taken out of what [`Notes::take_children`] gave.
fn notes_at(
    (a, b): &mut (HashMap<String, Notes>, HashMap<String, Notes>),
    token: &str,
) -> (Notes, Notes) {
    (
        a.remove(token).unwrap_or_default(),
        b.remove(token).unwrap_or_default(),
    )
}

fn both_notes(mut a: super::out::Notes, b: super::out::Notes) -> super::out::Notes {
    a.adopt(&[], b);
    a
}

fn keep_notes(mut kept: Out, other: Out) -> Conj {
    kept.exact &= other.exact;
    let roots: Vec<_> = other.root_originals();
    if !roots.is_empty() {
        kept.link(roots);
    }
    Conj {
        out: kept,
        dropped: Vec::new(),
    }
}

fn concat(
    x: &Value,
    y: &Value,
    a_notes: super::out::Notes,
    b_notes: super::out::Notes,
) -> (Value, super::out::Notes) {
    let (xs, ys) = (x.as_array().unwrap(), y.as_array().unwrap());
    let mut holder = Out::new(Value::Null, true);
    holder.adopt(&[], a_notes);
    let offset = xs.len();
    let mut b_holder = Out::new(Value::Null, true);
    b_holder.notes = b_notes;
    for i in 0..ys.len() {
        let moved = b_holder.take_notes_under(&[&i.to_string()]);
        holder.adopt(&[&(i + offset).to_string()], moved);
    }
    let mut all = xs.clone();
    all.extend(ys.iter().cloned());
    (Value::Array(all), holder.notes)
}

/// Entry-wise conjunction of two schema maps, schema slots or tuples.
fn entrywise(
    key: &str,
    x: &Value,
    y: &Value,
    a_notes: super::out::Notes,
    b_notes: super::out::Notes,
) -> (Value, super::out::Notes, bool) {
    let mut holder = Out::new(Value::Null, true);
    let mut exact = true;
    let mut pair = |tokens: &[&str],
                    (an, bn): (Notes, Notes),
                    va: Option<&Value>,
                    vb: Option<&Value>|
     -> Option<Value> {
        let part = |v: &Value, notes| Out {
            value: v.clone(),
            exact: true,
            notes,
        };
        let result = match (va, vb) {
            (Some(v), None) => part(v, an),
            (None, Some(v)) => part(v, bn),
            (Some(p), Some(q)) => {
                let (o, _) = conjoin_or_wrap(part(p, an), part(q, bn));
                exact &= o.exact;
                o
            }
            (None, None) => return None,
        };
        holder.adopt(tokens, result.notes);
        Some(result.value)
    };
    // Each entry's notes are taken from both sides at once (a wide `properties` has
    // thousands of entries).
    let (mut a_notes, mut b_notes) = (a_notes, b_notes);
    let value = match (key, x, y) {
        (_, Value::Object(xm), Value::Object(ym))
            if key != "items" && key != "additionalProperties" && key != "propertyNames" =>
        {
            let mut each = (a_notes.take_children(), b_notes.take_children());
            let names: Vec<String> = xm
                .keys()
                .chain(ym.keys().filter(|k| !xm.contains_key(*k)))
                .cloned()
                .collect();
            let mut m = Map::new();
            for n in names {
                if let Some(v) = pair(&[&n], notes_at(&mut each, &n), xm.get(&n), ym.get(&n)) {
                    m.insert(n, v);
                }
            }
            Value::Object(m)
        }
        (_, Value::Array(xs), Value::Array(ys)) => {
            let mut each = (a_notes.take_children(), b_notes.take_children());
            let len = xs.len().max(ys.len());
            let items = (0..len)
                .filter_map(|i| {
                    let token = i.to_string();
                    pair(&[&token], notes_at(&mut each, &token), xs.get(i), ys.get(i))
                })
                .collect();
            Value::Array(items)
        }
        _ => pair(&[], (a_notes, b_notes), Some(x), Some(y)).unwrap_or(Value::Bool(true)),
    };
    (value, holder.notes, exact)
}

/// Rule 13: an `allOf` of schema objects becomes one schema (flat mode).
pub(crate) fn merge_all_of(_engine: &Engine<'_>, mut node: Out, orig: &str) -> Out {
    if !node.value.get("allOf").is_some_and(Value::is_array) {
        return node;
    }
    // The merge reads the parts and the node's other keywords through and through.
    node.materialize(Scope::All);
    let Some(Value::Array(parts)) = node.value.get("allOf").cloned() else {
        return node;
    };
    if let Some(reason) = unmergeable(&parts) {
        node.trace(
            Rule::AllofMerge,
            vec![pointer::push(orig, "allOf")],
            Detail::AllOfKept { reason },
        );
        return node;
    }
    let mut part_notes = node.take_notes_under(&["allOf"]);
    let Value::Object(mut rest) = std::mem::take(&mut node.value) else {
        unreachable!("merge_all_of runs on schema objects")
    };
    let order: Vec<String> = rest.keys().cloned().collect();
    rest.remove("allOf");
    let mut acc: Option<Out> = None;
    let mut dropped = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let mut holder = Out::new(Value::Null, true);
        holder.notes = std::mem::take(&mut part_notes);
        let notes = holder.take_notes_under(&[&i.to_string()]);
        part_notes = holder.notes;
        let p = Out {
            value: part.clone(),
            exact: true,
            notes,
        };
        acc = Some(match acc {
            None => p,
            Some(a) => {
                let c = conjoin(a, p);
                dropped.extend(c.dropped);
                c.out
            }
        });
    }
    let merged_parts = acc.expect("allOf has at least one part");
    let rest_out = Out {
        value: Value::Object(rest),
        exact: node.exact,
        notes: std::mem::take(&mut node.notes),
    };
    let c = conjoin(merged_parts, rest_out);
    dropped.extend(c.dropped);
    let mut out = c.out;
    out.exact = false;
    if !dropped.is_empty() {
        drop_unevaluated(&mut out, orig);
    }
    reorder_like(&mut out.value, &order, "allOf");
    out.trace(
        Rule::AllofMerge,
        vec![pointer::push(orig, "allOf")],
        Detail::AllOfMerged {
            parts: parts.len(),
            dropped,
        },
    );
    out
}

/// A dropped part keyword may have evaluated properties or items that `unevaluated*` beside
/// the `allOf` relied on; without it they would be rejected.
fn drop_unevaluated(out: &mut Out, orig: &str) {
    for key in ["unevaluatedProperties", "unevaluatedItems"] {
        let removed = out
            .value
            .as_object_mut()
            .and_then(|m| m.shift_remove(key))
            .is_some();
        if removed {
            out.forget_under(&[key]);
            out.trace(
                Rule::SoundnessGuard,
                vec![pointer::push(orig, key)],
                Detail::KeywordDropped {
                    keyword: key.to_owned(),
                    reason: "the allOf merge dropped a keyword that may have evaluated properties or items".into(),
                },
            );
        }
    }
}

fn unmergeable(parts: &[Value]) -> Option<String> {
    if parts.is_empty() {
        return Some("it has no parts".into());
    }
    if let Some(i) = parts
        .iter()
        .position(|p| !p.is_object() && *p != Value::Bool(true))
    {
        return Some(format!(
            "part {i} is not a schema object (a `false` part rejects everything)"
        ));
    }
    None
}

/// Puts the node's own keys back in their original order, the merged parts where `allOf` was.
fn reorder_like(value: &mut Value, order: &[String], splice_at: &str) {
    let Value::Object(map) = value else { return };
    let mut old = std::mem::take(map);
    for key in order {
        if key == splice_at {
            let spliced: Vec<String> = old.keys().filter(|k| !order.contains(k)).cloned().collect();
            for k in spliced {
                if let Some(v) = old.remove(&k) {
                    map.insert(k, v);
                }
            }
        } else if let Some(v) = old.remove(key) {
            map.insert(key.clone(), v);
        }
    }
    map.extend(old);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn required_lists_join_and_enums_meet_with_strings_and_other_values() {
        let (v, _) = c(
            json!({"required": ["a", "b"], "enum": ["x", 1, 1.5, {"k": 1}, "y"]}),
            json!({"required": ["b", "c", "c"], "enum": [{"k": 1}, "y", 1, "z"]}),
        );
        assert_eq!(v["required"], json!(["a", "b", "c", "c"]));
        assert_eq!(v["enum"], json!([1, {"k": 1}, "y"]));
    }

    fn c(a: Value, b: Value) -> (Value, Vec<String>) {
        let r = conjoin(Out::new(a, true), Out::new(b, true));
        (r.out.value, r.dropped)
    }

    #[test]
    fn merges_properties_and_required() {
        let (v, dropped) = c(
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!({"properties": {"b": {"type": "integer"}, "a": {"maxLength": 3}}, "required": ["b"]}),
        );
        assert!(dropped.is_empty());
        assert_eq!(
            v,
            json!({"type": "object",
                "properties": {"a": {"type": "string", "maxLength": 3}, "b": {"type": "integer"}},
                "required": ["a", "b"]})
        );
    }

    #[test]
    fn clashing_property_becomes_all_of_and_bounds_tighten() {
        let (v, _) = c(
            json!({"properties": {"a": {"pattern": "x"}}, "minimum": 1, "maximum": 9}),
            json!({"properties": {"a": {"pattern": "y"}}, "minimum": 3, "maximum": 20}),
        );
        assert_eq!(
            v,
            json!({"properties": {"a": {"allOf": [{"pattern": "x"}, {"pattern": "y"}]}},
                "minimum": 3, "maximum": 9})
        );
    }

    #[test]
    fn conditionals_are_never_assembled_from_two_parts() {
        let (v, dropped) = c(json!({"if": {"minimum": 0}}), json!({"then": {"const": 0}}));
        assert_eq!(v, json!({"if": {"minimum": 0}}));
        assert_eq!(dropped, vec!["then"]);
    }

    #[test]
    fn top_level_clash_is_dropped_and_types_intersect() {
        let (v, dropped) = c(
            json!({"type": ["number", "string"], "pattern": "a"}),
            json!({"type": "integer", "pattern": "b"}),
        );
        assert_eq!(v, json!({"type": "integer"}));
        assert_eq!(dropped, vec!["pattern"]);
    }
}
