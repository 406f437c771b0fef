//! Depth: a provider that counts levels of nesting (OpenAI strict: 10) refuses a schema whose
//! deepest path is longer, and tailoring can add levels of its own (a `{"json": text}` carrier,
//! a root wrapper, an `anyOf` with a null alternative). The subtree that crosses the limit is
//! carried as its JSON text, a string: nothing below it counts any more, and the adapter encodes
//! the value on the way in and decodes it on the way back, so `unadapt(adapt(p)) == p`.
//!
//! Levels are counted by the profile's own `limit-depth` lint rule (the stricter of the known
//! readings), so what tailoring leaves is what lint accepts.

use serde_json::{Map, Value, json};

use super::encode::JSON_TEXT_NOTE;
use super::{ANNOTATIONS, Walk, nearest_originals};
use crate::lint::{Check, Limit, OverDepth};
use crate::pointer;
use crate::projection::tailor::{Adapter, Tailoring};
use crate::projection::{Detail, Rule, TraceEntry};
use crate::schema::keywords::{self, Slot};

/// Past this many passes the rest is left to the `limit-depth` report. One pass cuts every
/// path over the limit, so a second only runs where a cut itself added a level.
const MAX_PASSES: usize = 4;

/// Keywords that make other schemas judge the same value as a node's own: a property under such
/// an object is not judged by its own schema alone, and its text would fail the others.
pub(super) const IN_PLACE: &[&str] = &[
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "dependentSchemas",
];

impl Walk<'_> {
    /// The profile's depth limit, from its `limit-depth` lint rule.
    pub(super) fn depth_limit(&self) -> Option<usize> {
        self.profile.rules().iter().find_map(|r| match r.applies {
            Check::Limit(Limit::Depth(max)) => Some(max),
            _ => None,
        })
    }

    /// Carries the subtrees nested past the limit as JSON text: on every path over the limit,
    /// the deepest value that brings it within the limit, deepest paths first. A path no value
    /// can cut (every node within the limit is an alternative or shares its value with other
    /// schemas) is left to the limit step, which reports it.
    pub(in crate::projection::tailor) fn carry_deep(&mut self, schema: &mut Value) {
        let Some(limit) = self.depth_limit() else {
            return;
        };
        for _ in 0..MAX_PASSES {
            let over = crate::lint::over_depth(schema, limit);
            // What a `$ref` reaches is read at each place it is used: text at one place
            // would not shorten the others, so such a path is left to the report.
            if over.levels <= limit || over.through_ref {
                return;
            }
            let mut cuts = Vec::new();
            // A path that cannot be cut does not stop the others from being cut: the report
            // then names one path, not every one.
            cut_below(schema, &over, 0, &mut cuts);
            if cuts.is_empty() {
                return;
            }
            cuts.sort_by_key(|&i| std::cmp::Reverse(over.nodes[i].levels));
            self.deferring_purges(|walk| {
                for i in cuts {
                    let node = &over.nodes[i];
                    walk.carry_as_text(schema, &node.pointer, node.levels, limit, node.level);
                }
            });
        }
    }

    /// Carries the values `carried` names (by projection pointer), where this walk placed them
    /// and where they are still values judged alone: the sound form carries what the lossy
    /// form carries.
    pub(in crate::projection::tailor) fn carry_same(
        &mut self,
        schema: &mut Value,
        carried: &[Carried],
    ) {
        let Some(limit) = self.depth_limit() else {
            return;
        };
        self.deferring_purges(|walk| {
            for c in carried {
                let Some(at) = walk.renames.get(&c.from).cloned() else {
                    continue;
                };
                let carriable = path_to(schema, &at).is_some_and(|path| {
                    let level = path.len() - 1;
                    level > 0 && carriable(schema, &path, level)
                });
                if carriable {
                    walk.carry_as_text(schema, &at, c.levels, limit, c.level);
                }
            }
        });
    }

    fn carry_as_text(
        &mut self,
        schema: &mut Value,
        at: &str,
        levels: usize,
        limit: usize,
        level: usize,
    ) {
        let detail = Tailoring::DeepJsonText {
            profile: self.profile,
            levels,
            limit,
            level,
        };
        self.carry_value_as_text(schema, at, DEEP_NOTE, detail);
    }

    /// Replaces the value's schema at `at` with a string that carries its JSON text (`note`
    /// says why, after the value's own description), with the adapter and a trace entry.
    pub(super) fn carry_value_as_text(
        &mut self,
        schema: &mut Value,
        at: &str,
        note: &str,
        detail: Tailoring,
    ) {
        let Some(node) = schema.pointer_mut(at) else {
            return;
        };
        let old = std::mem::take(node);
        self.note_carry(at, &old);
        let property = property_of(at);
        // An optional property made required is sent as `null` when absent, after its value
        // is encoded: the text must let that `null` through. An explicit `null` is encoded
        // like any value (`"null"`), so the property needs no marker for it any more.
        let filled = property
            .as_ref()
            .is_some_and(|(object, name)| self.fills_null(object, name));
        *node = carrier(&old, filled, note);
        if let Some((object, name)) = &property {
            self.forget_marker(object, name, at);
        }
        if let Value::Object(m) = &old {
            self.purge_keys(at, m);
        }
        self.adapters.remove_at(at, |_| true);
        self.adapters.push(Adapter::JsonText {
            at: at.to_owned(),
            key: None,
        });
        self.trace.push(TraceEntry {
            rule: Rule::TailorJsonText,
            at: at.to_owned(),
            from: nearest_originals(&self.links, at),
            detail: Detail::Tailored(detail),
        });
    }

    /// Absent `name` in the object at `object` is sent as `null`.
    fn fills_null(&self, object: &str, name: &str) -> bool {
        self.adapters.at(object).any(|a| match a {
            Adapter::NullForAbsent { properties, .. } => properties.iter().any(|p| p == name),
            _ => false,
        })
    }

    fn forget_marker(&mut self, object: &str, name: &str, at: &str) {
        self.markers.remove(at);
        let is_marker = |a: &Adapter| matches!(a, Adapter::NullMarker { .. });
        self.adapters.update_at(object, is_marker, |a| {
            if let Adapter::NullMarker { properties, .. } = a {
                properties.retain(|p| p != name);
            }
        });
        // Only the markers of `object` changed, so only they can have become empty.
        self.adapters.remove_at(
            object,
            |a| matches!(a, Adapter::NullMarker { properties, .. } if properties.is_empty()),
        );
    }
}

/// A value the lossy form carries as text, by its projection pointer, with what its trace
/// entry says.
pub(in crate::projection::tailor) struct Carried {
    from: String,
    levels: usize,
    level: usize,
}

impl Walk<'_> {
    /// The values this lossy walk's [`Walk::carry_deep`] carried as text, by projection
    /// pointer (`came_from`: where each projection node went, taken before the carrying
    /// forgot what it replaced).
    pub(in crate::projection::tailor) fn carried(
        &self,
        came_from: &super::unroll::Projected,
    ) -> Vec<Carried> {
        self.trace
            .iter()
            .filter_map(|e| match e.detail {
                Detail::Tailored(Tailoring::DeepJsonText { levels, level, .. }) => {
                    let from = came_from.exact_or_wrapped(&e.at)?;
                    Some(Carried {
                        from,
                        levels,
                        level,
                    })
                }
                _ => None,
            })
            .collect()
    }
}

/// How the paths through a node over the depth limit can be cut.
#[derive(Clone, Copy, PartialEq)]
enum Cut {
    /// Every one, by the nodes collected.
    Done,
    /// Not every one, but carrying the node itself would.
    Failed,
    /// One goes through a `$ref`: no carrying above it shortens what the `$ref` reaches.
    ThroughRef,
}

/// Collects in `cuts` the nodes below `i` (or `i` itself) whose JSON text brings every path
/// through `i` within the limit, the deepest first (the nodes that can be cut are collected
/// even where some path cannot).
fn cut_below(schema: &Value, over: &OverDepth, i: usize, cuts: &mut Vec<usize>) -> Cut {
    let node = &over.nodes[i];
    if node.over_by_ref {
        return Cut::ThroughRef;
    }
    let start = cuts.len();
    // A node with no listed children sits at the limit: what is over is below it.
    let mut below = if node.children.is_empty() {
        Cut::Failed
    } else {
        Cut::Done
    };
    for &c in &node.children {
        match cut_below(schema, over, c, cuts) {
            Cut::Done => {}
            Cut::Failed if below == Cut::Done => below = Cut::Failed,
            Cut::Failed => {}
            Cut::ThroughRef => below = Cut::ThroughRef,
        }
    }
    if below == Cut::Failed && node.level > 0 && carriable(schema, &over.path(i), node.level) {
        cuts.truncate(start);
        cuts.push(i);
        return Cut::Done;
    }
    below
}

/// The node at `level` on `path` is a value's own schema (a property, one `items` schema, a
/// map's value), judged by nothing else.
fn carriable(schema: &Value, path: &[(String, Option<&'static str>)], level: usize) -> bool {
    let (at, via) = &path[level];
    let value_position = match via {
        Some("properties") => true,
        // `items/0`: a tuple position, which the adapter does not walk as a value.
        Some("items" | "additionalProperties") => !at.ends_with(|c: char| c.is_ascii_digit()),
        _ => false,
    };
    value_position && judged_alone(schema, &path[..level])
}

/// The subschemas from the root down to `at`, as [`crate::lint::OverDepth::path`] lists them
/// (each one's pointer and the keyword holding it); `None` when `at` is not a subschema.
fn path_to(schema: &Value, at: &str) -> Option<Vec<(String, Option<&'static str>)>> {
    let tokens: Vec<&str> = at.split('/').skip(1).collect();
    let mut path = vec![(String::new(), None)];
    let mut here = String::new();
    let mut i = 0;
    while i < tokens.len() {
        let keyword = keywords::lookup(tokens[i])?;
        let holder = schema.pointer(&here)?;
        let steps = match keyword.slot {
            Slot::Single => 1,
            Slot::SingleOrArray if !holder.get(keyword.name)?.is_array() => 1,
            _ => 2,
        };
        let end = i + steps;
        if end > tokens.len() {
            return None;
        }
        for t in &tokens[i..end] {
            here.push('/');
            here.push_str(t);
        }
        path.push((here.clone(), Some(keyword.name)));
        i = end;
    }
    schema.pointer(at).map(|_| path)
}

/// The last schema on `path` (the one holding the value's schema) is the only one that judges
/// its value: it has no in-place applicator, and every union it is an alternative of, up to
/// the nearest property or item, is bare (nothing but the alternatives and annotations), so no
/// sibling keyword judges the same value.
fn judged_alone(schema: &Value, path: &[(String, Option<&'static str>)]) -> bool {
    let Some((holder, _)) = path.last() else {
        return false;
    };
    let Some(Value::Object(m)) = schema.pointer(holder) else {
        return false;
    };
    if IN_PLACE.iter().any(|k| m.contains_key(*k)) {
        return false;
    }
    let mut here = path.len() - 1;
    while let (_, Some("anyOf" | "oneOf")) = &path[here] {
        let Some(parent) = here.checked_sub(1) else {
            return false;
        };
        let Some(Value::Object(union)) = schema.pointer(&path[parent].0) else {
            return false;
        };
        let bare = union
            .keys()
            .all(|k| k == "anyOf" || k == "oneOf" || ANNOTATIONS.contains(&k.as_str()));
        if !bare {
            return false;
        }
        here = parent;
    }
    true
}

/// `(the object's pointer, the property's name)` when `at` is a property's schema.
fn property_of(at: &str) -> Option<(String, String)> {
    let properties = pointer::parent(at)?;
    if !properties.ends_with("/properties") && properties != "/properties" {
        return None;
    }
    let object = pointer::parent(properties)?;
    let name = at.rsplit('/').next()?;
    Some((object.to_owned(), pointer::unescape(name).into_owned()))
}

/// What a depth carrier's description says after the value's own.
const DEEP_NOTE: &str =
    "Sent as JSON text (a string): the value's schema nests deeper than the provider allows.";

/// The string that carries the value's JSON text (or `null`, where an absent property is sent
/// as `null`), with the value's title and description.
fn carrier(old: &Value, null: bool, note: &str) -> Value {
    let mut carrier = Map::new();
    if let Some(t) = old.get("title") {
        carrier.insert("title".into(), t.clone());
    }
    carrier.insert(
        "type".into(),
        if null {
            json!(["string", "null"])
        } else {
            json!("string")
        },
    );
    let description = match own_description(old) {
        Some(d) if !d.trim().is_empty() => {
            let d = d.trim_end();
            if d.ends_with(['.', '!', '?']) {
                format!("{d} {note}")
            } else {
                format!("{d}. {note}")
            }
        }
        _ => note.to_owned(),
    };
    carrier.insert("description".into(), json!(description));
    Value::Object(carrier)
}

/// The value's description: its own, or (for a union tailoring made, such as a JSON-text
/// carrier beside a null marker) its first alternative's, without the carrier's note.
fn own_description(old: &Value) -> Option<&str> {
    if let Some(d) = old.get("description").and_then(Value::as_str) {
        return Some(d);
    }
    let alternatives = old.get("anyOf")?.as_array()?;
    let d = alternatives
        .iter()
        .find_map(|a| a.get("description").and_then(Value::as_str))?;
    Some(d.strip_suffix(JSON_TEXT_NOTE).unwrap_or(d).trim_end())
}
