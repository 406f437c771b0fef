//! `allOf` of plain objects (inline mode keeps `allOf`; GitHub's org ruleset `conditions`:
//! each alternative is `allOf: [ref names, repository names]`). OpenAI strict and Gemini have
//! no `allOf`, and dropping it leaves a free-form object they refuse; OpenAI and Anthropic
//! strict close every object, which no part can be alone (each would refuse the other's keys).
//! Where the parts only declare properties, the object they make together is one plain object
//! with all their properties and required names: the same values. A part may also be closed
//! (`additionalProperties: false`), or be a record of any values (Zod's `a.and(z.record(z.string(),
//! z.unknown()))`: `propertyNames: {type: string}`, which every key of a JSON object passes): the
//! merged object is then closed to the names every closed part declares.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::{ANNOTATIONS, Walk, required_names};
use crate::pointer;
use crate::projection::Rule;
use crate::projection::tailor::Tailoring;

impl Walk<'_> {
    /// An object whose `allOf` parts are plain object schemas (properties, `required`, `type:
    /// object`, annotations) written as one object: their properties and required names
    /// together (exact: a value satisfies every part exactly when it satisfies the merged
    /// object, a name two parts declare having the same schema in both). A provider without
    /// `allOf` (OpenAI strict, Gemini) would drop the parts and leave a free-form object; one
    /// that closes every object (OpenAI and Anthropic strict) could close no part alone. The
    /// merged properties keep their links to the parts they came from.
    pub(super) fn merge_all_of(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        let Some(merged) = merged_all_of(m) else {
            return;
        };
        let parts_at = pointer::push(from, "allOf");
        if self.referenced_within(&parts_at) {
            // A `$ref` into a part would point at nothing once the parts are gone. Projections
            // keep references to `$defs` only, so this is a guard, not a case seen.
            return;
        }
        let sources = merged
            .sources
            .iter()
            .map(|(name, part)| {
                let part_at = pointer::push_index(&parts_at, *part);
                let was = pointer::push(&pointer::push(&part_at, "properties"), name);
                (name.clone(), was)
            })
            .collect();
        self.merges.by_object.insert(out.to_owned(), sources);
        m.shift_remove("allOf");
        if merged.object && !m.contains_key("type") {
            // A part's `type: object` applies to the whole value.
            super::encode::insert_front(m, "type", json!("object"));
        }
        m.insert("properties".into(), Value::Object(merged.properties));
        if !merged.required.is_empty() {
            m.insert("required".into(), json!(merged.required));
        }
        m.shift_remove("propertyNames");
        if merged.closed {
            m.insert("additionalProperties".into(), Value::Bool(false));
        }
        self.record(
            Rule::AllofMerge,
            out,
            from,
            Tailoring::AllOfMerged {
                profile: self.profile,
                parts: merged.parts,
                closed: merged.closed,
                never_present: merged.never_present,
            },
        );
    }

    /// Whether a local `$ref` of the projection targets `at` or a place inside it. The
    /// projection is scanned once, when the first `allOf` could be merged.
    fn referenced_within(&mut self, at: &str) -> bool {
        let schema = self.projection_schema;
        self.merges
            .ref_targets
            .get_or_insert_with(|| super::fit::ref_targets(schema))
            .iter()
            .any(|t| pointer::is_within(t, at))
    }
}

/// What the walk must remember of the merges it made.
#[derive(Default)]
pub(super) struct Merges {
    /// By tailored object pointer: each property merged out of an `allOf` part → its
    /// projection pointer in that part, where its subtree is walked from.
    by_object: BTreeMap<String, BTreeMap<String, String>>,
    /// Every local `$ref` target of the projection, once needed.
    ref_targets: Option<BTreeSet<String>>,
}

impl Merges {
    /// The projection pointer of the property `name` of the tailored object at `out`, when
    /// `keyword` is `properties` and the property came out of an `allOf` part.
    pub(super) fn source(&self, keyword: &str, out: &str, name: &str) -> Option<&str> {
        (keyword == "properties")
            .then(|| self.by_object.get(out)?.get(name))
            .flatten()
            .map(String::as_str)
    }
}

/// Keywords an object schema may have to be merged with its `allOf` parts (besides
/// annotations): nothing else judges the object.
const MERGEABLE: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
];

/// An object and its `allOf` parts as one object (see [`Walk::merge_all_of`]).
struct MergedAllOf {
    properties: Map<String, Value>,
    required: Vec<String>,
    /// Some part says `type: object`.
    object: bool,
    parts: usize,
    /// The properties that came from a part: name, part index.
    sources: Vec<(String, usize)>,
    /// Some part (or the object) is closed: so is the merged object.
    closed: bool,
    /// Names only open parts declare, outside every closed part's: no value can have them.
    never_present: Vec<String>,
}

/// A plain object schema: only [`MERGEABLE`] keywords (and `also`) and annotations, `type`
/// `object` if any, `properties` an object, `additionalProperties` that accepts anything or
/// nothing, `propertyNames` that every key passes.
fn plain_object_part(o: &Map<String, Value>, also: &str) -> bool {
    o.keys()
        .all(|k| k == also || MERGEABLE.contains(&k.as_str()) || ANNOTATIONS.contains(&k.as_str()))
        && o.get("type").is_none_or(|t| t == "object")
        && o.get("properties").is_none_or(Value::is_object)
        && o.get("additionalProperties")
            .is_none_or(|a| accepts_anything(a) || is_closed(o))
        && o.get("propertyNames").is_none_or(every_key_passes)
}

fn accepts_anything(schema: &Value) -> bool {
    schema == &Value::Bool(true) || schema.as_object().is_some_and(Map::is_empty)
}

fn is_closed(o: &Map<String, Value>) -> bool {
    o.get("additionalProperties") == Some(&Value::Bool(false))
}

/// A `propertyNames` schema every key passes: keys are strings.
fn every_key_passes(schema: &Value) -> bool {
    accepts_anything(schema)
        || schema.as_object().is_some_and(|o| {
            o.iter()
                .all(|(k, v)| (k == "type" && v == "string") || ANNOTATIONS.contains(&k.as_str()))
        })
}

/// `m` with its `allOf` of plain object parts merged, when that is exact: `None` when a part
/// (or `m`) says more than plain properties, or two of them declare one name differently.
fn merged_all_of(m: &Map<String, Value>) -> Option<MergedAllOf> {
    let Some(Value::Array(parts)) = m.get("allOf") else {
        return None;
    };
    let parts: Vec<&Map<String, Value>> =
        parts.iter().map(Value::as_object).collect::<Option<_>>()?;
    if parts.is_empty()
        || !plain_object_part(m, "allOf")
        || !parts.iter().all(|p| plain_object_part(p, ""))
    {
        return None;
    }
    let mut merged = MergedAllOf {
        properties: m
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        required: required_names(m),
        object: m.contains_key("type"),
        parts: parts.len(),
        sources: Vec::new(),
        closed: false,
        never_present: Vec::new(),
    };
    for (i, part) in parts.iter().enumerate() {
        merged.object |= part.contains_key("type");
        for (name, schema) in part
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            match merged.properties.get(name) {
                Some(existing) if existing != schema => return None,
                Some(_) => {}
                None => {
                    merged.properties.insert(name.clone(), schema.clone());
                    merged.sources.push((name.clone(), i));
                }
            }
        }
        for name in required_names(part) {
            if !merged.required.contains(&name) {
                merged.required.push(name);
            }
        }
    }
    let closed: Vec<&Map<String, Value>> = std::iter::once(m)
        .chain(parts.iter().copied())
        .filter(|o| is_closed(o))
        .collect();
    if !closed.is_empty() {
        keep_names_every_closed_part_declares(&mut merged, &closed)?;
    }
    Some(merged)
}

/// A closed part refuses every name it does not declare, so the merged object is closed to the
/// names all closed parts declare. A property only open parts declare can never be present: it
/// is left out (saying it would only invite the model to send what the tool refuses). `None`
/// when such a name is required: no value satisfies the parts, and the merge would hide that.
fn keep_names_every_closed_part_declares(
    merged: &mut MergedAllOf,
    closed: &[&Map<String, Value>],
) -> Option<()> {
    let declared_by_all = |name: &str| {
        closed.iter().all(|o| {
            o.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.contains_key(name))
        })
    };
    if merged.required.iter().any(|name| !declared_by_all(name)) {
        return None;
    }
    let never: Vec<String> = merged
        .properties
        .keys()
        .filter(|name| !declared_by_all(name))
        .cloned()
        .collect();
    for name in &never {
        merged.properties.shift_remove(name);
    }
    merged.sources.retain(|(name, _)| !never.contains(name));
    merged.never_present = never;
    merged.closed = true;
    Some(())
}
