//! Why the projection accepts a payload the original rejects, read from the trace.
//!
//! Nothing here re-derives a rule: every sentence is built from a trace entry (the dropped
//! `required`, the joined property, the `oneOf` that became `anyOf`) that the original's error
//! lands on, plus the tag value the payload actually carries.

use serde_json::Value;

use crate::pointer;
use crate::projection::trace::condition;
use crate::projection::{Detail, JoinOutcome, Projection, TraceEntry};

use super::verdict::{Correlation, SchemaError, SideVerdict};

/// The correlations behind the original's errors that the projection does not check.
pub(crate) fn lost_correlations(
    original: &SideVerdict,
    payload: &Value,
    projection: &Projection,
) -> Vec<Correlation> {
    let mut out: Vec<Correlation> = Vec::new();
    for top in &original.errors {
        for leaf in top.leaves() {
            let before = out.len();
            presence(leaf, payload, projection, &mut out);
            if out.len() == before {
                joined(leaf, payload, projection, &mut out);
            }
            if out.len() == before {
                nearest_loosening(leaf, projection, &mut out);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert((c.message.clone(), c.instance_path.clone())));
    out
}

/// `U/properties/p` → `U`, the object schema the property belongs to.
pub(crate) fn object_of_property<'a>(at: &'a str, property: &str) -> Option<&'a str> {
    let properties = pointer::parent(at)?;
    let last = &at[properties.len() + 1..];
    if last != pointer::escape(property) || !properties.ends_with("/properties") {
        return None;
    }
    pointer::parent(properties)
}

fn tag_text(v: &Value) -> String {
    v.to_string()
}

/// A missing required property, or a property the payload's alternative does not have:
/// `required-intersection` entries say under which tags each property exists or is required.
fn presence(
    leaf: &SchemaError,
    payload: &Value,
    projection: &Projection,
    out: &mut Vec<Correlation>,
) {
    let (object, node, props): (&str, &str, Vec<String>) = match leaf.keyword.as_str() {
        "required" | "additionalProperties" | "unevaluatedProperties" => {
            (&leaf.instance_path, &leaf.node, leaf.properties.clone())
        }
        // `properties: {p: false}` — the alternative declares `p` only to forbid it.
        "falseSchema" => {
            let Some(object) = pointer::parent(&leaf.instance_path) else {
                return;
            };
            let Some(p) = pointer::tokens(&leaf.instance_path).and_then(|t| t.last().cloned())
            else {
                return;
            };
            let Some(node) = pointer::parent(&leaf.node).and_then(pointer::parent) else {
                return;
            };
            (object, node, vec![p])
        }
        _ => return,
    };
    let projected_objects = projection.links.projections(node);
    let missing = leaf.keyword == "required";
    for p in &props {
        let mut found: Vec<(&str, Correlation)> = Vec::new();
        for e in &projection.trace {
            let Detail::RequiredDropped {
                property,
                discriminator,
                required_when,
                present_when,
                ..
            } = &e.detail
            else {
                continue;
            };
            if property != p {
                continue;
            }
            let Some(u) = object_of_property(&e.at, p) else {
                continue;
            };
            let from_this_object = e
                .from
                .iter()
                .any(|f| pointer::parent(f).and_then(pointer::parent) == Some(node));
            if !from_this_object && !projected_objects.iter().any(|x| x == u) {
                continue;
            }
            let tag = payload
                .pointer(object)
                .and_then(|o| o.get(discriminator.as_str()));
            let message = match (missing, tag, present_when) {
                (true, Some(tag), _) if required_when.contains(tag) => format!(
                    "{discriminator} is {} but `{p}` is missing (required when {}; the projection requires only what every alternative requires)",
                    tag_text(tag),
                    condition(discriminator, required_when)
                ),
                (true, None, _) => format!(
                    "`{p}` is missing (required when {}; the projection requires only what every alternative requires)",
                    condition(discriminator, required_when)
                ),
                (false, Some(tag), Some(present)) if !present.contains(tag) => format!(
                    "{discriminator} is {} but `{p}` only exists when {}",
                    tag_text(tag),
                    condition(discriminator, present)
                ),
                _ => continue,
            };
            let correlation = Correlation {
                message,
                rule: e.rule,
                at: e.at.clone(),
                from: e.from.clone(),
                instance_path: if missing {
                    object.to_owned()
                } else {
                    pointer::push(object, p)
                },
            };
            found.push((u, correlation));
        }
        out.extend(where_it_was(found, object));
    }
}

/// Inlining copies a definition to several places (recursion unrolls it level by level); of
/// the copies' entries, keep those at the place the payload's `object` was checked, when that
/// can be told.
fn where_it_was(found: Vec<(&str, Correlation)>, object: &str) -> Vec<Correlation> {
    let fitting = found.iter().filter(|(u, _)| fits(u, object)).count();
    found
        .into_iter()
        .filter(|(u, _)| fitting == 0 || fits(u, object))
        .map(|(_, c)| c)
        .collect()
}

/// Whether the projection node `node` can be where the payload's `instance` is checked: the
/// `properties`/`items` steps of its pointer spell the instance pointer.
pub(crate) fn fits(node: &str, instance: &str) -> bool {
    let (Some(steps), Some(want)) = (pointer::tokens(node), pointer::tokens(instance)) else {
        return false;
    };
    let mut want = want.iter();
    let mut i = 0;
    while i < steps.len() {
        let next = steps.get(i + 1);
        match steps[i].as_str() {
            "properties" => {
                if want.next() != next {
                    return false;
                }
                i += 2;
            }
            "patternProperties" | "prefixItems" | "dependentSchemas" => {
                if steps[i] != "dependentSchemas" && want.next().is_none() {
                    return false;
                }
                i += 2;
            }
            "items" => {
                if want.next().is_none() {
                    return false;
                }
                // draft-07 tuples address `items/0`.
                i += if next.is_some_and(|t| t.parse::<usize>().is_ok()) {
                    2
                } else {
                    1
                };
            }
            "additionalProperties"
            | "additionalItems"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "contains" => {
                if want.next().is_none() {
                    return false;
                }
                i += 1;
            }
            "anyOf" | "oneOf" | "allOf" => i += 2,
            // A kept recursive definition is checked wherever it is referenced.
            "$defs" | "definitions" => return true,
            _ => i += 1,
        }
    }
    want.next().is_none()
}

/// A property value that its own alternative rejects, but that `collision-join` widened or
/// combined with the other alternatives' schemas for the same property.
fn joined(
    leaf: &SchemaError,
    payload: &Value,
    projection: &Projection,
    out: &mut Vec<Correlation>,
) {
    for e in &projection.trace {
        let Detail::Joined {
            property,
            alternatives,
            outcome,
            dropped,
            ..
        } = &e.detail
        else {
            continue;
        };
        let suffix = format!("/properties/{}", pointer::escape(property));
        let Some(alternative) = alternatives
            .iter()
            .find(|a| a.from.ends_with(&suffix) && pointer::is_within(&leaf.node, &a.from))
        else {
            continue;
        };
        let Some(u) = object_of_property(&e.at, property) else {
            continue;
        };
        let discriminator = projection.entries_at(u).find_map(|x| match &x.detail {
            Detail::UnionFlattened { property, .. } => Some(property.as_str()),
            _ => None,
        });
        let (object, tag) = match discriminator {
            Some(d) => tagged_object(&leaf.instance_path, property, d, payload)
                .map_or((None, None), |(o, t)| (Some(o), Some(t))),
            None => (None, None),
        };
        if let Some(o) = &object
            && !fits(u, o)
            && projection.trace.iter().any(|x| {
                x.at != e.at
                    && matches!(&x.detail, Detail::Joined { property: q, .. } if q == property)
                    && object_of_property(&x.at, property).is_some_and(|v| fits(v, o))
            })
        {
            // Another copy of this join is where the payload was.
            continue;
        }
        let who = match (discriminator, tag) {
            (Some(d), Some(tag)) => format!("{d} is {} and its", tag_text(tag)),
            _ => format!(
                "the {}",
                alternative
                    .tags
                    .iter()
                    .map(tag_text)
                    .collect::<Vec<_>>()
                    .join("/")
            ),
        };
        let how = match outcome {
            JoinOutcome::Widened => {
                format!("widened `{property}` to accept every alternative's values")
            }
            JoinOutcome::Alternatives => {
                format!("accepts any alternative's shape for `{property}`")
            }
            JoinOutcome::Unconstrained => {
                format!("accepts any `{property}` (some alternative does not constrain it)")
            }
            JoinOutcome::Deduplicated => format!("joined `{property}` across alternatives"),
        };
        let mut message =
            format!("{who} alternative rejects this `{property}`, but the projection {how}");
        if !dropped.is_empty() {
            message.push_str(&format!(" (dropped {})", dropped.join(", ")));
        }
        out.push(Correlation {
            message,
            rule: e.rule,
            at: e.at.clone(),
            from: e.from.clone(),
            instance_path: object.map_or_else(
                || leaf.instance_path.clone(),
                |o| pointer::push(&o, property),
            ),
        });
    }
}

/// The payload object that holds `property` on the way to `instance`, and its tag: the deepest
/// one, since unions nest.
fn tagged_object<'a>(
    instance: &str,
    property: &str,
    discriminator: &str,
    payload: &'a Value,
) -> Option<(String, &'a Value)> {
    let tokens = pointer::tokens(instance)?;
    (1..=tokens.len()).rev().find_map(|k| {
        if tokens[k - 1] != property {
            return None;
        }
        let object = pointer::join("", tokens[..k - 1].iter().map(String::as_str));
        let tag = payload.pointer(&object)?.get(discriminator)?;
        Some((object, tag))
    })
}

/// No presence or join entry fits: cite the loosening entries the projection recorded where it
/// checked this part of the payload, or the nearest enclosing part (a recursion cut above a deep
/// error, the `oneOf` that became `anyOf` at the union). Entries that came from the failing
/// node itself are preferred.
fn nearest_loosening(leaf: &SchemaError, projection: &Projection, out: &mut Vec<Correlation>) {
    let mut instance = Some(leaf.instance_path.as_str());
    while let Some(here) = instance {
        let found: Vec<&TraceEntry> = projection
            .trace
            .iter()
            // A dropped `required` only explains a missing property, which `presence` handles.
            .filter(|e| {
                loosens(e)
                    && !matches!(e.detail, Detail::RequiredDropped { .. })
                    && fits(&e.at, here)
            })
            .collect();
        if !found.is_empty() {
            let own = |e: &&TraceEntry| {
                e.from
                    .iter()
                    .any(|f| *f == leaf.keyword_pointer || *f == leaf.node)
            };
            let prefer_own = found.iter().any(own);
            for e in found.into_iter().filter(|e| !prefer_own || own(e)) {
                out.push(Correlation {
                    message: e.message(),
                    rule: e.rule,
                    at: e.at.clone(),
                    from: e.from.clone(),
                    instance_path: here.to_owned(),
                });
            }
            return;
        }
        instance = pointer::parent(here);
    }
}

/// Entries after which the projection may accept more than the original.
fn loosens(e: &TraceEntry) -> bool {
    match &e.detail {
        Detail::AllOfMerged { dropped, .. } => !dropped.is_empty(),
        Detail::RefInlined { .. }
        | Detail::RecursionKept { .. }
        | Detail::RefShared { .. }
        | Detail::DefinitionsShared { .. }
        | Detail::DiscriminatorStripped { .. }
        | Detail::TagEnum { .. }
        | Detail::ObjectBuilt { .. }
        | Detail::NullKept { .. }
        | Detail::AllOfKept { .. }
        | Detail::SameTagGroup { .. }
        | Detail::UnionKept { .. } => false,
        _ => true,
    }
}
