//! Whether a payload the projection rejects is a *foreign-key* case of `--open-branches
//! declared`, read from the trace.
//!
//! The checker asks only after the `strict` projection accepted the payload; this module then
//! requires that every error of the projection lies under a property an `open-branch-declared`
//! entry marks, in a payload object whose tag names one of the tolerating alternatives. Any
//! other error leaves the payload `unsound`: a real bug is never explained away.

use serde_json::Value;

use crate::pointer;
use crate::projection::trace::condition;
use crate::projection::{Detail, Projection, Tolerating, TraceEntry};

use super::correlate::{fits, object_of_property};
use super::verdict::{ForeignKey, SchemaError, SideVerdict};

/// The foreign keys behind every error of `projection`, or `None` when some error has another
/// cause.
pub(crate) fn explain(
    projection: &SideVerdict,
    payload: &Value,
    trace: &Projection,
) -> Option<Vec<ForeignKey>> {
    let entries: Vec<&TraceEntry> = trace
        .trace
        .iter()
        .filter(|e| matches!(e.detail, Detail::OpenBranchDeclared { .. }))
        .collect();
    if entries.is_empty() || projection.errors.is_empty() {
        return None;
    }
    let mut found = Vec::new();
    for e in &projection.errors {
        found.extend(explained(e, payload, &trace.schema, &entries)?);
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|f: &ForeignKey| seen.insert((f.instance_path.clone(), f.at.clone())));
    Some(found)
}

/// One error: under a marked property itself, or a union some alternative of which fails only
/// under marked properties.
fn explained(
    e: &SchemaError,
    payload: &Value,
    doc: &Value,
    entries: &[&TraceEntry],
) -> Option<Vec<ForeignKey>> {
    if let Some(f) = entries
        .iter()
        .find_map(|entry| foreign_key(e, payload, doc, entry))
    {
        return Some(vec![f]);
    }
    e.branches.iter().find_map(|branch| {
        if branch.is_empty() {
            return None;
        }
        let mut all = Vec::new();
        for err in branch {
            all.extend(explained(err, payload, doc, entries)?);
        }
        Some(all)
    })
}

fn foreign_key(
    e: &SchemaError,
    payload: &Value,
    doc: &Value,
    entry: &TraceEntry,
) -> Option<ForeignKey> {
    let Detail::OpenBranchDeclared {
        property,
        discriminator,
        declaring,
        tolerating,
    } = &entry.detail
    else {
        return None;
    };
    // The places the evaluation went through count too: under `--recursion keep` the failing
    // node sits in a kept `$defs` entry, reached through `$ref`s below the property.
    let under = pointer::is_within(&e.node, &entry.at)
        || visited(doc, &e.schema_path)
            .iter()
            .any(|p| pointer::is_within(p, &entry.at));
    if !under {
        return None;
    }
    let union = object_of_property(&entry.at, property)?;
    // A kept recursive union is met again inside a foreign value (its objects there may carry
    // any tag, or one that names no alternative), so the outermost object whose tag names a
    // tolerating alternative explains every error below it. Only without such an object does
    // an untagged one count, the nearest: any object fits a kept definition's pointer, and
    // an outer untagged one is most likely not a member of the union at all.
    let objects = objects_at(union, &e.instance_path, property);
    let tag_of = |object: &String| {
        payload
            .pointer(object)
            .and_then(|o| o.get(discriminator.as_str()))
    };
    let tagged = objects.iter().find_map(|object| {
        let tag = tag_of(object)?;
        let own = own_alternatives(Some(tag), tolerating)?;
        Some((object.clone(), Some(tag), own))
    });
    let untagged = || {
        let object = objects.last()?;
        let tag = tag_of(object);
        Some((object.clone(), tag, own_alternatives(tag, tolerating)?))
    };
    let (object, tag, own) = tagged.or_else(untagged)?;
    let declared_tags: Vec<Value> = declaring.iter().flat_map(|b| b.tags.clone()).collect();
    let whose = match tag {
        Some(tag) => format!("{discriminator} is {tag}, whose alternative"),
        None => format!("without `{discriminator}` the payload belongs to an alternative that"),
    };
    let message = format!(
        "`{property}` is foreign here: {whose} does not declare `{property}` but is open, so the original accepts it; the projection keeps the shape declared when {} (open-branch-declared; --open-branches strict accepts it)",
        condition(discriminator, &declared_tags)
    );
    Some(ForeignKey {
        instance_path: pointer::push(&object, property),
        property: property.clone(),
        discriminator: discriminator.clone(),
        tag: tag.cloned(),
        tolerating: own,
        declaring: declaring.clone(),
        at: entry.at.clone(),
        from: entry.from.clone(),
        message,
    })
}

/// The payload's alternative: the one its tag names; without a tag, any open one (the
/// original matched one of them, since the declaring ones would accept the value).
fn own_alternatives(tag: Option<&Value>, tolerating: &[Tolerating]) -> Option<Vec<Tolerating>> {
    match tag {
        Some(tag) => Some(vec![
            tolerating.iter().find(|t| t.tags.contains(tag))?.clone(),
        ]),
        None => Some(tolerating.to_vec()),
    }
}

/// The payload objects, on the way to `instance` and outermost first, that the merged object
/// `union` may have judged and whose member `property` holds the error. Unions nest, and a
/// property may share its name with one further down, so the projection pointer decides, not
/// the name alone.
fn objects_at(union: &str, instance: &str, property: &str) -> Vec<String> {
    let tokens = pointer::tokens(instance).unwrap_or_default();
    (1..=tokens.len())
        .filter(|&k| tokens[k - 1] == property)
        .map(|k| pointer::join("", tokens[..k - 1].iter().map(String::as_str)))
        .filter(|object| fits(union, object))
        .collect()
}

/// The document locations an evaluation path went through, each `$ref` (local, as a projection
/// has them) followed to its target.
fn visited(doc: &Value, schema_path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut here = String::new();
    for token in pointer::tokens(schema_path).unwrap_or_default() {
        if token == "$ref" {
            let Some(target) = doc
                .pointer(&here)
                .and_then(|n| n.get("$ref"))
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            else {
                break;
            };
            here = target.to_owned();
        } else {
            here = pointer::push(&here, &token);
        }
        out.push(here.clone());
    }
    out
}
