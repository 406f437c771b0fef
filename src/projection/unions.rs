//! Rules 6–12: a discriminated union becomes one object (flat mode).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::OpenBranches;
use super::allof::conjoin;
use super::engine::Engine;
use super::join::{self, Contribution};
use super::out::{Notes, Out, Scope, Shared};
use super::trace::{BranchTags, Detail, Rule, Tolerating, condition};
use crate::pointer;
use crate::schema::keywords::is_annotation;
use crate::schema::kinds::{Kind, KindSet};

/// Keywords the flattened object computes itself; every other keyword of the alternatives
/// survives only when all of them agree (rule 11).
const COMPUTED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
];

/// The discriminator and each alternative's tags.
struct Discriminated {
    property: String,
    tags: Vec<Vec<Value>>,
}

fn is_null_schema(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    let only_null = m.get("type") == Some(&Value::String("null".into()))
        || m.get("const") == Some(&Value::Null)
        || m.get("enum") == Some(&Value::Array(vec![Value::Null]));
    only_null
        && m.keys()
            .all(|k| is_annotation(k) || ["type", "const", "enum"].contains(&k.as_str()))
}

fn is_object_schema(v: &Value) -> Result<&Map<String, Value>, String> {
    let Some(m) = v.as_object() else {
        return Err(format!("it is `{v}`"));
    };
    let is_object = |t: &Value| t.as_str().and_then(Kind::parse) == Some(Kind::Object);
    match m.get("type") {
        Some(t) if is_object(t) => Ok(m),
        Some(Value::Array(ts)) if ts.len() == 1 && is_object(&ts[0]) => Ok(m),
        Some(t) => Err(format!("its type is {t}, not object")),
        None => Err("it does not declare `type: object`, so it also accepts non-objects".into()),
    }
}

fn literal_tags(schema: Option<&Value>) -> Option<Vec<Value>> {
    let m = schema?.as_object()?;
    let scalar = |v: &Value| !v.is_object() && !v.is_array();
    if let Some(c) = m.get("const") {
        return scalar(c).then(|| vec![c.clone()]);
    }
    let values = m.get("enum")?.as_array()?;
    (!values.is_empty() && values.iter().all(scalar)).then(|| values.clone())
}

fn properties(m: &Map<String, Value>) -> Option<&Map<String, Value>> {
    m.get("properties").and_then(Value::as_object)
}

/// A declared property's schema, moved out; `Null` keeps its name declared.
fn take_property(m: &mut Map<String, Value>, name: &str) -> Option<Value> {
    m.get_mut("properties")
        .and_then(Value::as_object_mut)
        .and_then(|p| p.get_mut(name))
        .map(std::mem::take)
}

/// Rule 6: is this list of alternatives a discriminated union, and on which property?
fn detect(branches: &[&Map<String, Value>], named: Option<&str>) -> Result<Discriminated, String> {
    let candidates: Vec<String> = match named {
        Some(n) => vec![n.to_owned()],
        None => properties(branches[0])
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default(),
    };
    let mut overlap_seen = None;
    for d in candidates {
        let tags: Option<Vec<Vec<Value>>> = branches
            .iter()
            .map(|b| literal_tags(properties(b).and_then(|p| p.get(&d))))
            .collect();
        let Some(tags) = tags else {
            if named.is_some() {
                let i = branches
                    .iter()
                    .position(|b| literal_tags(properties(b).and_then(|p| p.get(&d))).is_none())
                    .unwrap_or(0);
                return Err(format!(
                    "the discriminator names `{d}` but alternative {i} has no const or enum for it"
                ));
            }
            continue;
        };
        if let Some(clash) = first_overlap(&tags) {
            let msg = format!("tag {clash} of `{d}` appears in more than one alternative");
            if named.is_some() {
                return Err(msg);
            }
            overlap_seen.get_or_insert(msg);
            continue;
        }
        return Ok(Discriminated { property: d, tags });
    }
    Err(overlap_seen.unwrap_or_else(|| {
        "no property has a literal tag (const or enum) in every alternative".to_owned()
    }))
}

fn first_overlap(tags: &[Vec<Value>]) -> Option<&Value> {
    let mut seen: Vec<&Value> = Vec::new();
    for set in tags {
        for t in set {
            if seen.contains(&t) {
                return Some(t);
            }
        }
        seen.extend(set.iter());
    }
    None
}

/// What an alternative allows for a property it does not declare.
enum Undeclared {
    Forbidden,
    Schema(Value),
}

fn undeclared(branch: &Map<String, Value>) -> Undeclared {
    let has_patterns = branch
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_patterns {
        return Undeclared::Schema(Value::Object(Map::new()));
    }
    match branch.get("additionalProperties") {
        Some(Value::Bool(false)) => Undeclared::Forbidden,
        Some(s @ Value::Object(_)) => Undeclared::Schema(s.clone()),
        _ if closed_by_unevaluated(branch) => Undeclared::Forbidden,
        _ => Undeclared::Schema(Value::Object(Map::new())),
    }
}

/// `unevaluatedProperties: false` with nothing else evaluating properties closes the object.
fn closed_by_unevaluated(branch: &Map<String, Value>) -> bool {
    branch.get("unevaluatedProperties") == Some(&Value::Bool(false))
        && ![
            "allOf",
            "anyOf",
            "oneOf",
            "if",
            "then",
            "else",
            "dependentSchemas",
            "$ref",
            "not",
        ]
        .iter()
        .any(|k| branch.contains_key(*k))
}

/// The names a branch's `required` lists, as a set: a merged union asks it once per property of
/// every branch, and a branch can have thousands.
fn required_set(branch: &Map<String, Value>) -> HashSet<String> {
    branch
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn union_keyword(orig_map: &Map<String, Value>) -> &'static str {
    if orig_map.contains_key("anyOf") {
        "anyOf"
    } else {
        "oneOf"
    }
}

fn flattened_at_root(out: &Out) -> bool {
    out.notes.has_root_trace(Rule::DuObject)
}

/// Rules 6–12 on one projected schema object that has `anyOf`.
pub(crate) fn flatten(
    engine: &Engine<'_>,
    mut node: Out,
    orig: &str,
    orig_map: &Map<String, Value>,
) -> Out {
    if !node.value.get("anyOf").is_some_and(Value::is_array) {
        return node;
    }
    materialize_read_parts(&mut node);
    // The alternatives are moved out (the slot keeps its place in the key order) and put back
    // where the union stays as it is: copying them would copy the whole union.
    let Some(mut alts) = take_any_of(&mut node) else {
        return node;
    };
    let union_ptr = pointer::push(orig, union_keyword(orig_map));
    let (nulls, objects): (Vec<usize>, Vec<usize>) =
        (0..alts.len()).partition(|i| is_null_schema(&alts[*i]));
    // One alternative beside nulls is an optional value, not a union of tagged objects; a
    // single tagged alternative on its own is a (one-member) discriminated union.
    if objects.is_empty() || (objects.len() == 1 && !nulls.is_empty()) {
        put_back_any_of(&mut node, alts);
        if objects.len() == 1 {
            let alt_notes = node.take_notes_under(&["anyOf", &objects[0].to_string()]);
            let holder = Out {
                value: Value::Null,
                exact: true,
                notes: alt_notes,
            };
            let was_flattened = flattened_at_root(&holder);
            node.adopt(&["anyOf", &objects[0].to_string()], holder.notes);
            if was_flattened {
                node.trace(
                    Rule::NullableOptional,
                    vec![union_ptr],
                    Detail::NullKept {
                        alternatives: nulls.len(),
                    },
                );
            }
        }
        return node;
    }
    let named = orig_map
        .get("discriminator")
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str);
    // Rule 6: an alternative that is itself a union of objects sharing their tags stands in
    // for detection with just those tags; a union of such members alone stays `anyOf`.
    let stand_ins: Vec<Option<Map<String, Value>>> = objects
        .iter()
        .map(|i| {
            (objects.len() > 1)
                .then(|| same_tag_stand_in(&alts[*i]))
                .flatten()
        })
        .collect();
    let branch_maps: Result<Vec<&Map<String, Value>>, String> = objects
        .iter()
        .zip(&stand_ins)
        .map(|(i, stand_in)| match stand_in {
            Some(s) => Ok(s),
            None => is_object_schema(&alts[*i])
                .map_err(|e| format!("alternative {i} is not an object schema: {e}")),
        })
        .collect();
    let du = branch_maps.and_then(|b| detect(&b, named));
    let du = match du {
        Ok(du) => du,
        Err(reason) => {
            put_back_any_of(&mut node, alts);
            node.trace(
                Rule::DuDetect,
                vec![union_ptr],
                Detail::UnionKept { reason },
            );
            return node;
        }
    };
    let mut branches = Vec::new();
    for (k, i) in objects.iter().enumerate() {
        let notes = node.take_notes_under(&["anyOf", &i.to_string()]);
        let branch = Out {
            value: std::mem::take(&mut alts[*i]),
            exact: false,
            notes,
        };
        branches.push(match stand_ins[k] {
            Some(_) => {
                let fallback = pointer::push(&union_ptr, &i.to_string());
                join_group(engine, branch, &du.property, &du.tags[k], &fallback)
            }
            None => branch,
        });
    }
    let null_alts: Vec<(Value, super::out::Notes)> = nulls
        .iter()
        .map(|i| {
            (
                std::mem::take(&mut alts[*i]),
                node.take_notes_under(&["anyOf", &i.to_string()]),
            )
        })
        .collect();
    node.forget_under(&["anyOf"]);
    let flattened = build(engine, &du, branches, &union_ptr, &objects, Joining::Union);
    let mut result = attach_siblings(node, flattened);
    if !null_alts.is_empty() {
        result = keep_nulls(result, null_alts, &union_ptr);
    }
    result
}

/// Where a union's alternatives declare their properties: a property's schema there is either
/// merged with the others' (rule 10, where [`join::join`] keeps one copy of equal shared
/// projections) or only has its tags read.
const ALTERNATIVE_PROPERTY: &[&str] = &["anyOf", "*", "properties", "*"];

/// Makes values of their own of the stand-ins (shared `$ref` expansions) that the rules read:
/// the alternatives' roots, to tell nulls from objects; when the union may merge, everything
/// else but the alternatives' property schemas that are neither tags nor bare unions (read
/// only by the join).
fn materialize_read_parts(node: &mut Out) {
    node.materialize(Scope::Only(&["anyOf", "*"]));
    let Some(Value::Array(alts)) = node.value.get("anyOf") else {
        return;
    };
    let objects = alts.iter().filter(|a| !is_null_schema(a)).count();
    if objects == 0 || (objects == 1 && objects < alts.len()) {
        return;
    }
    let joined_alone = |shared: &Shared| {
        let value = shared.value();
        literal_tags(Some(value)).is_none() && !join::is_bare_union(value)
    };
    node.materialize(Scope::Except(ALTERNATIVE_PROPERTY, &joined_alone));
}

/// The node's `anyOf` alternatives, moved out; `Null` holds their place in the key order.
fn take_any_of(node: &mut Out) -> Option<Vec<Value>> {
    let slot = node.value.get_mut("anyOf")?;
    if !slot.is_array() {
        return None;
    }
    match std::mem::take(slot) {
        Value::Array(alts) => Some(alts),
        _ => None,
    }
}

fn put_back_any_of(node: &mut Out, alts: Vec<Value>) {
    if let Some(slot) = node.value.get_mut("anyOf") {
        *slot = Value::Array(alts);
    }
}

/// Whether two tag lists name the same tags (in any order).
fn same_tags(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().all(|t| b.contains(t))
}

/// For an alternative that is a bare union (only annotations beside its `anyOf`) of object
/// schemas: a stand-in object holding, as `enum`s, the tags that every member carries alike.
/// `None` when it is not such a group, or its members share no tag.
fn same_tag_stand_in(alt: &Value) -> Option<Map<String, Value>> {
    let m = alt.as_object()?;
    let Some(Value::Array(members)) = m.get("anyOf") else {
        return None;
    };
    if members.len() < 2 || !m.keys().all(|k| k == "anyOf" || is_annotation(k)) {
        return None;
    }
    let maps: Vec<&Map<String, Value>> = members
        .iter()
        .map(|v| is_object_schema(v).ok())
        .collect::<Option<_>>()?;
    let mut shared = Map::new();
    for name in properties(maps[0]).into_iter().flat_map(|p| p.keys()) {
        let tags: Option<Vec<Vec<Value>>> = maps
            .iter()
            .map(|b| literal_tags(properties(b).and_then(|p| p.get(name))))
            .collect();
        if let Some(tags) = tags
            && tags.windows(2).all(|w| same_tags(&w[0], &w[1]))
        {
            let mut tag = Map::new();
            tag.insert("enum".to_owned(), Value::Array(tags[0].clone()));
            shared.insert(name.clone(), Value::Object(tag));
        }
    }
    if shared.is_empty() {
        return None;
    }
    let mut stand_in = Map::new();
    stand_in.insert("type".to_owned(), "object".into());
    stand_in.insert("properties".to_owned(), Value::Object(shared));
    Some(stand_in)
}

/// Rule 6, same-tag group: the members are joined into one object by rules 9–11 (their shapes
/// differ, their tag does not), which then takes part in the outer union under `tags`.
fn join_group(engine: &Engine<'_>, mut group: Out, d: &str, tags: &[Value], fallback: &str) -> Out {
    let Some(members) = take_any_of(&mut group) else {
        return group;
    };
    // Alone, the group was not a discriminated union (its members share the tag); that verdict
    // no longer stands. Its pointer is the group's union in the original.
    let group_ptr = group
        .notes
        .take_root_trace(Rule::DuDetect)
        .and_then(|from| from.into_iter().next())
        .unwrap_or_else(|| fallback.to_owned());
    let mut branches = Vec::new();
    for (j, member) in members.into_iter().enumerate() {
        let notes = group.take_notes_under(&["anyOf", &j.to_string()]);
        branches.push(Out {
            value: member,
            exact: false,
            notes,
        });
    }
    group.forget_under(&["anyOf"]);
    let du = Discriminated {
        property: d.to_owned(),
        tags: vec![tags.to_vec(); branches.len()],
    };
    let indices: Vec<usize> = (0..branches.len()).collect();
    let joined = build(engine, &du, branches, &group_ptr, &indices, Joining::Group);
    attach_siblings(group, joined)
}

/// The union node's own keywords (title, description, or constraints) go onto the object.
fn attach_siblings(mut node: Out, flattened: Out) -> Out {
    let Value::Object(mut rest) = std::mem::take(&mut node.value) else {
        return flattened;
    };
    let order: Vec<String> = rest.keys().cloned().collect();
    rest.remove("anyOf");
    let only_annotations = rest.keys().all(|k| is_annotation(k));
    let mut out = if only_annotations {
        let mut f = flattened;
        if let Value::Object(m) = &mut f.value {
            for (k, v) in rest {
                m.insert(k, v);
            }
        }
        f.adopt(&[], node.notes);
        f
    } else {
        let rest_out = Out {
            value: Value::Object(rest),
            exact: node.exact,
            notes: node.notes,
        };
        conjoin(flattened, rest_out).out
    };
    out.exact = false;
    reorder(&mut out.value, &order);
    out
}

fn reorder(value: &mut Value, order: &[String]) {
    let Value::Object(map) = value else { return };
    let mut old = std::mem::take(map);
    for key in order {
        if key == "anyOf" {
            let computed: Vec<String> =
                old.keys().filter(|k| !order.contains(k)).cloned().collect();
            for k in computed {
                let v = old.remove(&k).expect("listed key");
                map.insert(k, v);
            }
        } else if let Some(v) = old.remove(key) {
            map.insert(key.clone(), v);
        }
    }
    map.extend(old);
}

/// Rule 12: `anyOf: [object, null]` around the merged object.
fn keep_nulls(object: Out, nulls: Vec<(Value, super::out::Notes)>, union_ptr: &str) -> Out {
    let mut out = Out::new(Value::Null, false);
    let count = nulls.len();
    let mut values = vec![object.value];
    out.adopt(&["anyOf", "0"], object.notes);
    for (i, (v, notes)) in nulls.into_iter().enumerate() {
        out.adopt(&["anyOf", &(i + 1).to_string()], notes);
        values.push(v);
    }
    let mut m = Map::new();
    m.insert("anyOf".to_owned(), Value::Array(values));
    out.value = Value::Object(m);
    out.trace(
        Rule::NullableOptional,
        vec![union_ptr.to_owned()],
        Detail::NullKept {
            alternatives: count,
        },
    );
    out
}

/// What `build` merges: a discriminated union, or the members of a same-tag group (which
/// share their tag, so hints count shapes and the tag is not listed again).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Joining {
    Union,
    Group,
}

/// Rules 7–11: the merged object.
fn build(
    engine: &Engine<'_>,
    du: &Discriminated,
    mut branches: Vec<Out>,
    union_ptr: &str,
    indices: &[usize],
    joining: Joining,
) -> Out {
    let d = du.property.as_str();
    // The alternatives' objects are moved out of the branches (their notes stay there); each
    // property's schema is moved on to the join, leaving `Null` where it was declared.
    let mut maps: Vec<Map<String, Value>> = branches
        .iter_mut()
        .map(|b| match std::mem::take(&mut b.value) {
            Value::Object(m) => m,
            _ => Map::new(),
        })
        .collect();
    let froms: Vec<String> = branches
        .iter()
        .zip(indices)
        .map(|(b, i)| {
            b.root_originals()
                .into_iter()
                .next()
                .unwrap_or_else(|| pointer::push(union_ptr, &i.to_string()))
        })
        .collect();
    let mut out = Out::new(Value::Null, false);
    for b in &branches {
        out.link(b.root_originals());
    }
    let names = property_order(d, &maps);
    // Taking the properties out below leaves `required` as it was.
    let required_sets: Vec<HashSet<String>> = maps.iter().map(required_set).collect();
    // Each branch's notes per property, taken at once: one pass over each branch's notes, not
    // one per property.
    let mut property_notes: Vec<HashMap<String, Notes>> = branches
        .iter_mut()
        .map(|b| b.notes.take_each_under("properties"))
        .collect();
    let mut props = Map::new();
    let mut required = Vec::new();
    let nullable_kw = engine.draft.has_nullable();
    for name in &names {
        let tokens = ["properties", name.as_str()];
        let mut contributions = Vec::new();
        let mut tolerating = Vec::new();
        for (i, notes) in property_notes.iter_mut().enumerate() {
            let declared = take_property(&mut maps[i], name);
            let c = match declared {
                Some(v) => Some((v, false, notes.remove(name).unwrap_or_default())),
                None => match (undeclared(&maps[i]), engine.opts.open_branches) {
                    (Undeclared::Forbidden, _) => None,
                    (Undeclared::Schema(s), OpenBranches::Strict) => {
                        Some((s, true, Default::default()))
                    }
                    // Rule 10, open alternatives: the shape comes from the declarations alone.
                    (Undeclared::Schema(allows), OpenBranches::Declared) => {
                        tolerating.push(Tolerating {
                            from: froms[i].clone(),
                            tags: du.tags[i].clone(),
                            allows,
                        });
                        None
                    }
                },
            };
            if let Some((value, implicit, notes)) = c {
                let out = Out {
                    value,
                    exact: false,
                    notes,
                };
                let from = out
                    .root_originals()
                    .pop()
                    .unwrap_or_else(|| froms[i].clone());
                contributions.push(Contribution {
                    out,
                    tags: du.tags[i].clone(),
                    from,
                    implicit,
                });
            }
        }
        let present: Vec<usize> = (0..maps.len())
            .filter(|i| properties(&maps[*i]).is_some_and(|p| p.contains_key(name)))
            .collect();
        let requiring: Vec<usize> = (0..maps.len())
            .filter(|i| required_sets[*i].contains(name.as_str()))
            .collect();
        let declared_from: Vec<String> = contributions
            .iter()
            .filter(|c| !c.implicit)
            .map(|c| c.from.clone())
            .collect();
        let declaring: Vec<BranchTags> = contributions
            .iter()
            .map(|c| BranchTags {
                from: c.from.clone(),
                tags: c.tags.clone(),
            })
            .collect();
        let (mut value, notes) = if name == d {
            tag_enum(du, contributions, joining == Joining::Union)
        } else {
            let contributors = contributions.len();
            let joined = join::join(name, d, contributions, nullable_kw);
            let mut o = joined.out;
            if contributors > 1 {
                o.trace(
                    Rule::CollisionJoin,
                    declared_from.clone(),
                    Detail::Joined {
                        property: name.clone(),
                        outcome: joined.outcome,
                        alternatives: joined.alternatives,
                        dropped: joined.dropped,
                        reason: joined.reason,
                    },
                );
            }
            (o.value, o.notes)
        };
        let mut prop_out = Out {
            value: Value::Null,
            exact: false,
            notes,
        };
        if !tolerating.is_empty() {
            let mut from = declared_from.clone();
            from.extend(tolerating.iter().map(|t| t.from.clone()));
            prop_out.trace(
                Rule::OpenBranchDeclared,
                from,
                Detail::OpenBranchDeclared {
                    property: name.clone(),
                    discriminator: d.to_owned(),
                    declaring,
                    tolerating,
                },
            );
        }
        if requiring.len() == maps.len() {
            required.push(Value::String(name.clone()));
        } else if joining == Joining::Group
            && name != d
            && (!requiring.is_empty() || present.len() < maps.len())
        {
            let hint = engine
                .opts
                .hints
                .then(|| shape_hint(d, &du.tags[0], maps.len(), present.len(), requiring.len()));
            if let Some(h) = &hint {
                append_description(&mut value, h);
            }
            prop_out.trace(
                Rule::RequiredIntersection,
                declared_from.clone(),
                Detail::ShapeRequiredDropped {
                    property: name.clone(),
                    discriminator: d.to_owned(),
                    tags: du.tags[0].clone(),
                    shapes: maps.len(),
                    present_in: present.len(),
                    required_in: requiring.len(),
                    hint,
                },
            );
        } else if name != d && (!requiring.is_empty() || present.len() < maps.len()) {
            let tags_of = |set: &[usize]| -> Vec<Value> {
                set.iter().flat_map(|i| du.tags[*i].clone()).collect()
            };
            let required_when = tags_of(&requiring);
            let present_when = (present.len() < maps.len()).then(|| tags_of(&present));
            let hint = engine
                .opts
                .hints
                .then(|| hint_text(d, &required_when, present_when.as_deref()));
            if let Some(h) = &hint {
                append_description(&mut value, h);
            }
            prop_out.trace(
                Rule::RequiredIntersection,
                declared_from.clone(),
                Detail::RequiredDropped {
                    property: name.clone(),
                    discriminator: d.to_owned(),
                    required_when,
                    present_when,
                    hint,
                },
            );
        }
        out.adopt(&tokens, prop_out.notes);
        props.insert(name.clone(), value);
    }
    let mut m = Map::new();
    // Keeps the alternatives' spelling (`OBJECT` in Gemini's dialect).
    let object_type = maps[0]
        .get("type")
        .cloned()
        .unwrap_or_else(|| "object".into());
    m.insert("type".to_owned(), object_type);
    m.insert("properties".to_owned(), Value::Object(props));
    if !required.is_empty() {
        m.insert("required".to_owned(), Value::Array(required));
    }
    object_policy(&maps, &mut m, &mut out, union_ptr);
    for key in m
        .keys()
        .filter(|k| !["type", "properties", "required"].contains(&k.as_str()))
    {
        let kept = branches[0].take_notes_under(&[key]);
        out.adopt(&[key], kept);
    }
    for b in &mut branches {
        let root = b.notes.take_here();
        out.adopt(&[], root);
    }
    out.value = Value::Object(m);
    if joining == Joining::Group {
        out.trace(
            Rule::DuDetect,
            vec![union_ptr.to_owned()],
            Detail::SameTagGroup {
                property: d.to_owned(),
                tags: du.tags[0].clone(),
                members: froms,
            },
        );
        return out;
    }
    out.trace(
        Rule::DuDetect,
        vec![union_ptr.to_owned()],
        Detail::UnionFlattened {
            property: d.to_owned(),
            alternatives: froms
                .iter()
                .zip(&du.tags)
                .map(|(f, t)| BranchTags {
                    from: f.clone(),
                    tags: t.clone(),
                })
                .collect(),
        },
    );
    out.trace(
        Rule::DuObject,
        froms.clone(),
        Detail::ObjectBuilt { properties: names },
    );
    out
}

fn property_order(d: &str, maps: &[Map<String, Value>]) -> Vec<String> {
    let mut names = vec![d.to_owned()];
    let mut seen: HashSet<&str> = HashSet::from([d]);
    for m in maps {
        for k in properties(m).into_iter().flat_map(|p| p.keys()) {
            if seen.insert(k.as_str()) {
                names.push(k.clone());
            }
        }
    }
    names
}

/// Rule 8: the discriminator lists every tag (once: a same-tag group's members repeat it).
fn tag_enum(
    du: &Discriminated,
    contributions: Vec<Contribution>,
    traced: bool,
) -> (Value, super::out::Notes) {
    let mut tags: Vec<Value> = Vec::new();
    for t in du.tags.iter().flatten() {
        if !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    let mut kinds = KindSet::default();
    tags.iter().for_each(|t| kinds.insert(Kind::of(t)));
    let mut m = Map::new();
    let declared: Vec<Option<&Value>> = contributions
        .iter()
        .map(|c| c.out.value.get("type"))
        .collect();
    let tag_type = match declared.first() {
        Some(Some(t)) if declared.windows(2).all(|w| w[0] == w[1]) => (*t).clone(),
        _ => kinds.fold_integer().to_type_value(),
    };
    m.insert("type".to_owned(), tag_type);
    m.insert("enum".to_owned(), Value::Array(tags.clone()));
    let descs: Vec<Option<&Value>> = contributions
        .iter()
        .map(|c| c.out.value.get("description"))
        .collect();
    if let Some(Some(desc)) = descs
        .first()
        .filter(|_| descs.windows(2).all(|w| w[0] == w[1]))
    {
        m.insert("description".to_owned(), (*desc).clone());
    }
    let mut out = Out::new(Value::Object(m), false);
    for c in &contributions {
        out.link(c.out.root_originals());
    }
    if traced {
        let from = contributions.iter().map(|c| c.from.clone()).collect();
        out.trace(
            Rule::DuEnum,
            from,
            Detail::TagEnum {
                property: du.property.clone(),
                tags,
            },
        );
    }
    (out.value, out.notes)
}

/// Rule 9's hint inside a same-tag group: the tag cannot tell its members apart, so it counts
/// the shapes that have (and require) the property.
fn shape_hint(d: &str, tags: &[Value], shapes: usize, present: usize, required: usize) -> String {
    let of = format!("of the {shapes} shapes when {}", condition(d, tags));
    if present < shapes {
        let tail = match required {
            0 => String::new(),
            r if r == present => "; required there".to_owned(),
            r => format!("; required in {r}"),
        };
        format!("In {present} {of}{tail}.")
    } else {
        format!("Required in {required} {of}.")
    }
}

fn hint_text(d: &str, required_when: &[Value], present_when: Option<&[Value]>) -> String {
    match present_when {
        Some(present) if required_when.is_empty() => {
            format!("Only when {}.", condition(d, present))
        }
        Some(present) if required_when.len() == present.len() => {
            format!("Only when {}; required then.", condition(d, present))
        }
        Some(present) => format!(
            "Only when {}; required when {}.",
            condition(d, present),
            condition(d, required_when)
        ),
        None => format!("Required when {}.", condition(d, required_when)),
    }
}

fn append_description(value: &mut Value, hint: &str) {
    if *value == Value::Bool(true) {
        *value = Value::Object(Map::new());
    }
    if let Value::Object(m) = value {
        let text = match m.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{} {hint}", d.trim_end()),
            _ => hint.to_owned(),
        };
        m.insert("description".to_owned(), Value::String(text));
    }
}

/// Rule 11: what the merged object keeps of the alternatives' other object keywords.
fn object_policy(
    maps: &[Map<String, Value>],
    m: &mut Map<String, Value>,
    out: &mut Out,
    union_ptr: &str,
) {
    let all_same = |key: &str| maps.windows(2).all(|w| w[0].get(key) == w[1].get(key));
    let patterns_agree = all_same("patternProperties");
    if patterns_agree {
        if let Some(p) = maps[0].get("patternProperties") {
            m.insert("patternProperties".to_owned(), p.clone());
        }
    } else {
        drop_keyword(
            out,
            union_ptr,
            "patternProperties",
            "the alternatives' patternProperties differ",
        );
    }
    match maps[0].get("additionalProperties") {
        Some(ap) if patterns_agree && all_same("additionalProperties") => {
            m.insert("additionalProperties".to_owned(), ap.clone());
        }
        _ if maps.iter().any(|b| b.contains_key("additionalProperties")) => drop_keyword(
            out,
            union_ptr,
            "additionalProperties",
            "not every alternative has the same additionalProperties, so the merged object stays open",
        ),
        _ => {}
    }
    let mut others: Vec<&String> = Vec::new();
    for b in maps {
        for k in b.keys() {
            if !COMPUTED.contains(&k.as_str()) && !others.contains(&k) {
                others.push(k);
            }
        }
    }
    for k in others {
        let unevaluated = k.starts_with("unevaluated");
        if all_same(k) && !unevaluated {
            m.insert(k.clone(), maps[0][k.as_str()].clone());
        } else if !is_annotation(k) {
            let why = if unevaluated {
                "what counts as evaluated changes when alternatives merge"
            } else {
                "the alternatives do not all have the same value"
            };
            drop_keyword(out, union_ptr, k, why);
        }
    }
}

fn drop_keyword(out: &mut Out, union_ptr: &str, keyword: &str, reason: &str) {
    out.trace(
        Rule::ObjectPolicy,
        vec![union_ptr.to_owned()],
        Detail::KeywordDropped {
            keyword: keyword.to_owned(),
            reason: reason.to_owned(),
        },
    );
}
