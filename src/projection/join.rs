//! Rule 10: one property that several alternatives of a flattened union define.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::out::{Out, Scope, Shared};
use super::trace::{BranchTags, JoinOutcome, condition};
use crate::schema::keywords::{self, Keyword, Slot};
use crate::schema::kinds::{Kind, KindSet, provable_kinds};

/// What one alternative says about the property.
pub(crate) struct Contribution {
    pub(crate) out: Out,
    pub(crate) tags: Vec<Value>,
    pub(crate) from: String,
    /// Not declared by the alternative: the value is what its open object allows (`{}` or its
    /// `additionalProperties`).
    pub(crate) implicit: bool,
}

pub(crate) struct Joined {
    pub(crate) out: Out,
    pub(crate) outcome: JoinOutcome,
    pub(crate) dropped: Vec<String>,
    pub(crate) reason: Option<String>,
    pub(crate) alternatives: Vec<BranchTags>,
}

const IGNORED_FOR_IDENTITY: &[&str] = &["description", "title", "examples"];

const STRING_BOUNDS: &[(&str, Loosest)] = &[
    ("minLength", Loosest::Min),
    ("maxLength", Loosest::Max),
    ("pattern", Loosest::Identical),
    ("format", Loosest::Identical),
    ("contentEncoding", Loosest::Identical),
    ("contentMediaType", Loosest::Identical),
];
const NUMBER_BOUNDS: &[(&str, Loosest)] = &[
    ("minimum", Loosest::Min),
    ("maximum", Loosest::Max),
    ("exclusiveMinimum", Loosest::Min),
    ("exclusiveMaximum", Loosest::Max),
    ("multipleOf", Loosest::Identical),
];

#[derive(Clone, Copy)]
enum Loosest {
    Min,
    Max,
    Identical,
}

/// One distinct alternative after deduplication, with every contribution it stands for. Its
/// value is its first member's (moved out when the group is consumed, never copied: the members
/// of a merged union's property are often the same large `$ref` target, once per alternative).
#[derive(Default)]
struct Group {
    members: Vec<Contribution>,
    /// For each member, the member whose value is its value: itself, or the first stand-in
    /// of the same shared projection (whose copy it does not hold).
    value_of: Vec<usize>,
}

impl Group {
    fn push(&mut self, member: Contribution) {
        self.value_of.push(self.members.len());
        self.members.push(member);
    }

    fn push_equal(&mut self, member: Contribution, first: usize) {
        self.value_of.push(first);
        self.members.push(member);
    }

    /// Each member with its value.
    fn member_values(&self) -> impl Iterator<Item = (&Contribution, &Value)> {
        let values = self.value_of.iter().map(|i| &self.members[*i].out.value);
        self.members.iter().zip(values)
    }

    fn value(&self) -> &Value {
        &self.members[0].out.value
    }

    fn take_value(&mut self) -> Value {
        std::mem::take(&mut self.members[0].out.value)
    }

    fn tags(&self) -> Vec<Value> {
        let mut tags = Vec::new();
        for m in &self.members {
            for t in &m.tags {
                if !tags.contains(t) {
                    tags.push(t.clone());
                }
            }
        }
        tags
    }

    fn branch_tags(&self) -> BranchTags {
        BranchTags {
            from: self.members[0].from.clone(),
            tags: self.tags(),
        }
    }
}

/// The schema with `IGNORED_FOR_IDENTITY` removed from every schema object: two
/// contributions with equal identities are one shape. Kept as the definition that
/// [`same_identity`] computes without building either side (tested against each other).
#[cfg(test)]
fn identity(schema: &Value) -> Value {
    crate::schema::walk::map_schemas(schema, &mut |m| {
        for k in IGNORED_FOR_IDENTITY {
            m.remove(*k);
        }
    })
}

fn ignored_for_identity(key: &str) -> bool {
    IGNORED_FOR_IDENTITY.contains(&key)
}

/// Whether `identity(a) == identity(b)`, comparing in place: grouping every property of
/// every merged union must not copy them.
fn same_identity(a: &Value, b: &Value) -> bool {
    let (Value::Object(ma), Value::Object(mb)) = (a, b) else {
        return a == b;
    };
    let kept = |m: &Map<String, Value>| m.keys().filter(|k| !ignored_for_identity(k)).count();
    if kept(ma) != kept(mb) {
        return false;
    }
    ma.iter()
        .filter(|(k, _)| !ignored_for_identity(k))
        .all(|(k, va)| match (mb.get(k), keywords::lookup(k)) {
            (None, _) => false,
            (Some(vb), Some(kw)) => same_keyword(kw, va, vb),
            (Some(vb), None) => va == vb,
        })
}

/// [`same_identity`] for the values of one keyword, by where its subschemas sit (as
/// `map_schemas` visits them).
fn same_keyword(kw: &Keyword, a: &Value, b: &Value) -> bool {
    match (kw.slot, a, b) {
        (Slot::Array | Slot::SingleOrArray, Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_identity(p, q))
        }
        (Slot::Array | Slot::SingleOrArray, Value::Array(_), _)
        | (Slot::Array | Slot::SingleOrArray, _, Value::Array(_)) => false,
        (Slot::Map | Slot::MapOfSchemaOrNames, Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| same_identity(p, q)))
        }
        (Slot::Map | Slot::MapOfSchemaOrNames, Value::Object(_), _)
        | (Slot::Map | Slot::MapOfSchemaOrNames, _, Value::Object(_)) => false,
        (Slot::Single | Slot::SingleOrArray, _, _) => same_identity(a, b),
        _ => a == b,
    }
}

/// Whether the join splices `value` into its alternatives: an `anyOf` with only annotations
/// beside it.
pub(crate) fn is_bare_union(value: &Value) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    map.get("anyOf").is_some_and(Value::is_array)
        && map
            .keys()
            .all(|k| k == "anyOf" || IGNORED_FOR_IDENTITY.contains(&k.as_str()))
}

/// A bare `anyOf` (only annotations beside it) is spliced into its alternatives, so the join
/// never nests anyOf in anyOf.
fn splice(mut c: Contribution) -> Vec<Contribution> {
    if !is_bare_union(&c.out.value) {
        return vec![c];
    }
    let Some(Value::Array(alts)) = c.out.value.get_mut("anyOf").map(std::mem::take) else {
        unreachable!("a bare union's anyOf is an array")
    };
    let mut holder = c.out;
    let mut parts = Vec::new();
    for (i, alt) in alts.into_iter().enumerate() {
        let notes = holder.take_notes_under(&["anyOf", &i.to_string()]);
        parts.push(Contribution {
            out: Out {
                value: alt,
                exact: holder.exact,
                notes,
            },
            tags: c.tags.clone(),
            from: c.from.clone(),
            implicit: c.implicit,
        });
    }
    if let Some(first) = parts.first_mut() {
        first
            .out
            .notes
            .adopt(&[], std::mem::take(&mut holder.notes));
    }
    parts
}

fn group(contributions: Vec<Contribution>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    // Where each shared projection's first stand-in went (group, member): the same projection
    // at another place is equal to it, so it joins that group without being copied or compared.
    // (Addresses, not `Arc`s: holding one would keep the first place from taking the value.
    // While a later stand-in holds the projection, its address is no other's.)
    let mut placed: Vec<(*const Shared, usize, usize)> = Vec::new();
    for mut c in contributions {
        let shared = c.out.stand_in().map(Arc::as_ptr);
        if let Some(&(_, g, first)) = shared.and_then(|p| placed.iter().find(|e| e.0 == p)) {
            c.out.notes = std::mem::take(&mut c.out.notes).into_copy_notes();
            groups[g].push_equal(c, first);
            continue;
        }
        if shared.is_some() {
            c.out.materialize(Scope::All);
        }
        let spliced = is_bare_union(&c.out.value);
        for c in splice(c) {
            let g = match groups
                .iter()
                .position(|g| same_identity(g.value(), &c.out.value))
            {
                Some(g) => g,
                None => {
                    groups.push(Group::default());
                    groups.len() - 1
                }
            };
            if let Some(p) = shared.filter(|_| !spliced) {
                placed.push((p, g, groups[g].members.len()));
            }
            groups[g].push(c);
        }
    }
    groups
}

fn description(v: &Value) -> Option<&str> {
    v.get("description").and_then(Value::as_str)
}

/// A description every alternative shares, or one labelled per tag when they differ.
fn joined_description(groups: &[Group], discriminator: &str) -> (Option<String>, bool) {
    // An alternative that does not declare the property has nothing to say about it.
    let members: Vec<(&Value, Vec<Value>)> = groups
        .iter()
        .flat_map(Group::member_values)
        .filter(|(m, _)| !m.implicit)
        .map(|(m, value)| (value, m.tags.clone()))
        .collect();
    let descs: Vec<Option<&str>> = members.iter().map(|(v, _)| description(v)).collect();
    if descs.iter().all(Option::is_none) {
        return (None, true);
    }
    if descs.windows(2).all(|w| w[0] == w[1]) {
        return (descs[0].map(str::to_owned), true);
    }
    let labelled: Vec<String> = members
        .iter()
        .filter_map(|(v, tags)| {
            description(v).map(|d| {
                format!(
                    "When {}: {}",
                    condition(discriminator, tags),
                    d.trim_end_matches('.')
                )
            })
        })
        .collect();
    (Some(format!("{}.", labelled.join(". "))), false)
}

fn set_description(value: &mut Value, text: Option<String>) {
    if let (Value::Object(m), Some(t)) = (value, text) {
        m.insert("description".to_owned(), Value::String(t));
    }
}

/// Joins the alternatives of one property (rule 10).
pub(crate) fn join(
    property: &str,
    discriminator: &str,
    contributions: Vec<Contribution>,
    nullable_keyword: bool,
) -> Joined {
    let groups = group(contributions);
    let alternatives: Vec<BranchTags> = groups.iter().map(Group::branch_tags).collect();
    let (desc, shared) = joined_description(&groups, discriminator);
    let unprovable = groups.iter().find(|g| {
        g.value()
            .as_object()
            .is_none_or(|m| provable_kinds(m, nullable_keyword).is_none())
    });
    if groups.len() == 1 {
        let mut g = groups.into_iter().next().expect("one group");
        let mut out = Out::new(g.take_value(), true);
        for m in g.members.drain(..) {
            out.exact &= m.out.exact;
            out.adopt(&[], m.out.notes);
        }
        if !shared {
            set_description(&mut out.value, desc);
        }
        return Joined {
            out,
            outcome: JoinOutcome::Deduplicated,
            dropped: Vec::new(),
            reason: None,
            alternatives,
        };
    }
    if let Some(g) = unprovable {
        let reason = unprovable_reason(g, property, discriminator);
        let mut out = Out::new(Value::Object(Map::new()), false);
        for g in groups {
            for m in g.members {
                out.link(m.out.root_originals());
            }
        }
        set_description(&mut out.value, desc);
        return Joined {
            out,
            outcome: JoinOutcome::Unconstrained,
            dropped: Vec::new(),
            reason: Some(reason),
            alternatives,
        };
    }
    let mut kinds = KindSet::default();
    for g in &groups {
        let m = g
            .value()
            .as_object()
            .expect("provable alternatives are objects");
        kinds.extend(&provable_kinds(m, nullable_keyword).expect("checked above"));
    }
    if kinds.has_structured() {
        alternatives_join(groups, desc, shared, alternatives)
    } else {
        widen(groups, kinds, desc, alternatives, nullable_keyword)
    }
}

fn unprovable_reason(g: &Group, property: &str, discriminator: &str) -> String {
    let when = condition(discriminator, &g.tags());
    if g.members.iter().all(|m| m.implicit) {
        format!(
            "when {when} the object does not declare `{property}` and does not forbid other properties, so any value is valid there; close that object (additionalProperties: false) to keep the shape"
        )
    } else {
        format!("when {when} its schema names no type, const or enum")
    }
}

fn alternatives_join(
    groups: Vec<Group>,
    desc: Option<String>,
    shared: bool,
    alternatives: Vec<BranchTags>,
) -> Joined {
    let mut out = Out::new(Value::Null, false);
    let mut values = Vec::new();
    for (k, mut g) in groups.into_iter().enumerate() {
        let mut value = g.take_value();
        if shared && let Value::Object(m) = &mut value {
            m.remove("description");
        }
        let idx = k.to_string();
        for m in g.members {
            out.link(m.out.root_originals());
            out.adopt(&["anyOf", &idx], m.out.notes);
        }
        values.push(value);
    }
    let mut m = Map::new();
    m.insert("anyOf".to_owned(), Value::Array(values));
    out.value = Value::Object(m);
    if shared {
        set_description(&mut out.value, desc);
    }
    Joined {
        out,
        outcome: JoinOutcome::Alternatives,
        dropped: Vec::new(),
        reason: None,
        alternatives,
    }
}

/// Scalars only: the union of the types, values kept only when every alternative lists them,
/// a bound only when every alternative of the kind it applies to has it, at its loosest.
fn widen(
    groups: Vec<Group>,
    kinds: KindSet,
    desc: Option<String>,
    alternatives: Vec<BranchTags>,
    nullable_keyword: bool,
) -> Joined {
    let maps: Vec<&Map<String, Value>> = groups
        .iter()
        .map(|g| {
            g.value()
                .as_object()
                .expect("scalar alternatives are objects")
        })
        .collect();
    let mut result = Map::new();
    let mut dropped = Vec::new();
    result.insert(
        "type".to_owned(),
        kinds.clone().fold_integer().to_type_value(),
    );
    match union_of_values(&maps) {
        Some(values) => {
            result.insert("enum".to_owned(), Value::Array(values));
        }
        None if maps
            .iter()
            .any(|m| m.contains_key("enum") || m.contains_key("const")) =>
        {
            dropped.push("enum/const (not every alternative lists its values)".to_owned());
        }
        None => {}
    }
    let kinds_of = |m: &Map<String, Value>| provable_kinds(m, nullable_keyword).unwrap_or_default();
    for (applies, bounds) in [
        (vec![Kind::String], STRING_BOUNDS),
        (vec![Kind::Number, Kind::Integer], NUMBER_BOUNDS),
    ] {
        let relevant: Vec<&Map<String, Value>> = maps
            .iter()
            .copied()
            .filter(|m| applies.iter().any(|k| kinds_of(m).contains(*k)))
            .collect();
        for (name, how) in bounds {
            if let Some(v) = loosest(&relevant, name, *how) {
                result.insert((*name).to_owned(), v);
            } else if relevant.iter().any(|m| m.contains_key(*name)) {
                dropped.push((*name).to_owned());
            }
        }
    }
    for m in &maps {
        for k in m.keys() {
            let known = ["type", "enum", "const", "nullable"].contains(&k.as_str())
                || IGNORED_FOR_IDENTITY.contains(&k.as_str())
                || STRING_BOUNDS
                    .iter()
                    .chain(NUMBER_BOUNDS)
                    .any(|(n, _)| n == k);
            if !known && !dropped.contains(k) {
                dropped.push(k.clone());
            }
        }
    }
    let mut out = Out::new(Value::Object(result), false);
    for g in groups {
        for m in g.members {
            out.link(m.out.root_originals());
        }
    }
    set_description(&mut out.value, desc);
    Joined {
        out,
        outcome: JoinOutcome::Widened,
        dropped,
        reason: None,
        alternatives,
    }
}

fn literal_values(m: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(c) = m.get("const") {
        return Some(vec![c.clone()]);
    }
    m.get("enum").and_then(Value::as_array).cloned()
}

fn union_of_values(maps: &[&Map<String, Value>]) -> Option<Vec<Value>> {
    let mut all: Vec<Value> = Vec::new();
    for m in maps {
        for v in literal_values(m)? {
            if !all.contains(&v) {
                all.push(v);
            }
        }
    }
    Some(all)
}

fn loosest(maps: &[&Map<String, Value>], name: &str, how: Loosest) -> Option<Value> {
    if maps.is_empty() {
        return None;
    }
    let values: Vec<&Value> = maps.iter().map(|m| m.get(name)).collect::<Option<_>>()?;
    match how {
        Loosest::Identical => values
            .windows(2)
            .all(|w| w[0] == w[1])
            .then(|| values[0].clone()),
        Loosest::Min | Loosest::Max => {
            let nums: Vec<f64> = values.iter().map(|v| v.as_f64()).collect::<Option<_>>()?;
            let pick = nums.iter().enumerate().fold(0, |best, (i, n)| match how {
                Loosest::Min if *n < nums[best] => i,
                Loosest::Max if *n > nums[best] => i,
                _ => best,
            });
            Some(values[pick].clone())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Schemas that differ only where identity ignores, only where it does not, and in the
    /// places `map_schemas` does not descend into (values named `description`, enum items).
    fn shapes() -> Vec<Value> {
        vec![
            json!({"type": "string"}),
            json!({"type": "string", "description": "a"}),
            json!({"description": "b", "title": "t", "type": "string"}),
            json!({"type": "string", "examples": ["x"], "maxLength": 3}),
            json!({"type": "string", "maxLength": 3}),
            json!({"type": "object", "properties": {"description": {"type": "string"}}}),
            json!({"type": "object", "properties": {"description": {"type": "string", "title": "x"}}}),
            json!({"type": "object", "properties": {"title": {"type": "string"}}}),
            json!({"enum": [{"description": "a"}]}),
            json!({"enum": [{"description": "b"}]}),
            json!({"anyOf": [{"type": "null", "title": "n"}, {"type": "integer"}]}),
            json!({"anyOf": [{"type": "null"}, {"type": "integer", "description": "i"}]}),
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
            json!({"items": [{"type": "string", "title": "a"}]}),
            json!({"items": [{"type": "string"}]}),
            json!({"items": {"type": "string"}}),
            json!({"items": {"type": "string", "description": "d"}}),
            json!({"dependencies": {"a": ["b"], "c": {"title": "x"}}}),
            json!({"dependencies": {"a": ["b"], "c": {}}}),
            json!({"not": {"const": 1, "title": "one"}}),
            json!({"not": {"const": 1}}),
            json!({"allOf": {"title": "not an array"}}),
            json!({"allOf": {"title": "not an array either"}}),
            json!({"properties": []}),
            json!(true),
            json!(false),
            json!("description"),
        ]
    }

    #[test]
    fn same_identity_agrees_with_the_identity_it_stands_for() {
        let shapes = shapes();
        let mut equal_pairs = 0;
        for a in &shapes {
            for b in &shapes {
                let expected = identity(a) == identity(b);
                assert_eq!(same_identity(a, b), expected, "{a} vs {b}");
                equal_pairs += usize::from(expected);
            }
        }
        // Not only the diagonal: some pairs differ only in ignored keywords.
        assert!(equal_pairs > shapes.len(), "{equal_pairs}");
    }
}
