//! Which projection rules applied differently: read from the two traces, keyed by where the
//! result sits in the projection. Each such change takes the class of the projection changes
//! it explains (those at or below its place), and their witness when one is breaking; a rule
//! change that alters nothing the projection accepts is neutral.

use std::collections::BTreeMap;

use super::{Change, Class};
use crate::pointer;
use crate::projection::{Detail, Projection, TraceEntry};
use crate::validate::Side;

/// What a trace entry says, without the names that a renamed definition changes.
fn summary(entry: &TraceEntry) -> Option<String> {
    Some(match &entry.detail {
        // Which definition was inlined is the text, not the meaning.
        Detail::RefInlined { .. } => return None,
        Detail::RecursionCut { depth, .. } => {
            format!("a recursive reference is unrolled {depth} level(s), then cut to {{}}")
        }
        Detail::RecursionKept { .. } => "a recursive reference is kept as `$defs`".to_owned(),
        Detail::RefShared { .. } => "a shared definition is kept as `$defs`".to_owned(),
        // The counts change with any edit; that definitions are shared is said per reference.
        Detail::DefinitionsShared { .. } => return None,
        _ => entry.message(),
    })
}

fn by_place(p: &Projection) -> BTreeMap<&str, Vec<(String, String)>> {
    let mut out: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    for e in &p.trace {
        if let Some(s) = summary(e) {
            let item = (e.rule.id().to_owned(), s);
            let list = out.entry(e.at.as_str()).or_default();
            if !list.contains(&item) {
                list.push(item);
            }
        }
    }
    out
}

pub fn rule_changes(old: &Projection, new: &Projection, node_changes: &[Change]) -> Vec<Change> {
    let (before, after) = (by_place(old), by_place(new));
    let mut places: Vec<&str> = before.keys().copied().collect();
    for k in after.keys() {
        if !before.contains_key(k) {
            places.push(k);
        }
    }
    places.sort_unstable();
    let empty = Vec::new();
    let mut out = Vec::new();
    for at in places {
        let (b, a) = (
            before.get(at).unwrap_or(&empty),
            after.get(at).unwrap_or(&empty),
        );
        let explained: Vec<&Change> = node_changes
            .iter()
            .filter(|c| {
                c.new_pointer
                    .as_deref()
                    .is_some_and(|p| pointer::is_within(p, at))
                    || c.old_pointer
                        .as_deref()
                        .is_some_and(|p| pointer::is_within(p, at))
            })
            .collect();
        let worst = explained.iter().min_by_key(|c| c.class);
        let class = worst.map_or(Class::Neutral, |c| c.class);
        let witness = worst.and_then(|c| c.witness.clone());
        let exists = |p: &Projection| p.schema.pointer(at).is_some().then(|| at.to_owned());
        let mut rules: Vec<&str> = b.iter().map(|(r, _)| r.as_str()).collect();
        for (r, _) in a {
            if !rules.contains(&r.as_str()) {
                rules.push(r);
            }
        }
        for rule in rules {
            let texts = |list: &[(String, String)]| -> Vec<String> {
                list.iter()
                    .filter(|(r, _)| r == rule)
                    .map(|(_, t)| t.clone())
                    .collect()
            };
            let (was, now) = (texts(b), texts(a));
            if was == now {
                continue;
            }
            let (kind, message, old_pointer, new_pointer) = match (was.is_empty(), now.is_empty()) {
                (false, true) => (
                    "rule-no-longer-applied",
                    format!("{rule} no longer applies: {}", was.join(" ")),
                    Some(at.to_owned()),
                    exists(new),
                ),
                (true, false) => (
                    "rule-applied",
                    format!("{rule} now applies: {}", now.join(" ")),
                    exists(old),
                    Some(at.to_owned()),
                ),
                _ => (
                    "rule-changed",
                    format!(
                        "{rule} applies differently: was: {} Now: {}",
                        was.join(" "),
                        now.join(" ")
                    ),
                    Some(at.to_owned()),
                    Some(at.to_owned()),
                ),
            };
            out.push(Change {
                side: Side::Projection,
                old_pointer,
                new_pointer,
                kind,
                class,
                message,
                witness: witness.clone(),
            });
        }
    }
    out
}
