//! Which nodes of a schema are the same subtree.
//!
//! Inlining copies a definition to every place that refers to it: a 4 KB document can project
//! to a million nodes that are a few dozen distinct subtrees repeated. A rule that reads only
//! one node (its keywords, their values, the names of its properties) says the same thing at
//! every copy, at the same places relative to the copy. Finding the copies once per schema lets
//! each profile run those rules once per distinct subtree and derive the copies' hits, instead
//! of running every rule at every node.
//!
//! Copies are found by content, not taken from the projection engine: the tailored schema is
//! rewritten after projection, and an original document can repeat itself too. Two subtrees
//! are one shape only when they are equal key for key, in order (rules read keys in order),
//! so sharing never changes what a rule sees.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

use serde_json::Value;

use super::nodes::Node;
/// Digests of every node of a large schema: SipHash would cost more than the rules it saves.
pub(crate) type FastHash = foldhash::fast::RandomState;

/// Nodes that every node-local rule treats alike: the same subtree, held by the same keyword,
/// and both the root or both not (some rules look at the root alone).
pub(crate) struct Class {
    /// The class's nodes, in document order; the first is the one the rules read.
    pub members: Vec<usize>,
}

/// The classes of a schema's nodes, ordered by their first member.
pub(crate) fn classes(nodes: &[Node<'_>]) -> Vec<Class> {
    let shapes = shape_ids(nodes);
    let mut index: HashMap<(u32, Option<&'static str>, bool), usize, FastHash> = HashMap::default();
    let mut out: Vec<Class> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let key = (shapes[i], node.via, node.is_root());
        let next = out.len();
        let class = *index.entry(key).or_insert(next);
        if class == next {
            out.push(Class {
                members: Vec::new(),
            });
        }
        out[class].members.push(i);
    }
    out
}

/// One id per node; equal ids are equal subtrees (key order included).
///
/// Nodes are numbered children first (`nodes` is in document order, each node before its
/// subschemas), so a node's digest and comparison stop at its child nodes and use their ids:
/// each JSON value is read once per schema, not once per enclosing node.
fn shape_ids(nodes: &[Node<'_>]) -> Vec<u32> {
    let state = FastHash::default();
    let mut ids = vec![0u32; nodes.len()];
    let mut known: HashMap<*const Value, u32, FastHash> = HashMap::default();
    // Digest → (shape id, a node of that shape); several entries only on a digest collision.
    let mut seen: HashMap<u64, Vec<(u32, usize)>, FastHash> = HashMap::default();
    let mut next = 0u32;
    for i in (0..nodes.len()).rev() {
        let schema = nodes[i].schema;
        let mut hasher = state.build_hasher();
        feed(schema, true, &known, &mut hasher);
        let candidates = seen.entry(hasher.finish()).or_default();
        let found = candidates
            .iter()
            .find(|(_, other)| same(schema, nodes[*other].schema, true, &known))
            .map(|(id, _)| *id);
        let id = found.unwrap_or_else(|| {
            candidates.push((next, i));
            next += 1;
            next - 1
        });
        ids[i] = id;
        known.insert(schema as *const Value, id);
    }
    ids
}

/// The node at `value` if it is one already numbered (a subschema of the node being read).
fn numbered(value: &Value, top: bool, known: &HashMap<*const Value, u32, FastHash>) -> Option<u32> {
    if top {
        None
    } else {
        known.get(&(value as *const Value)).copied()
    }
}

/// Feeds `value` to `hasher` in order, a numbered subschema by its id.
fn feed(
    value: &Value,
    top: bool,
    known: &HashMap<*const Value, u32, FastHash>,
    hasher: &mut impl Hasher,
) {
    if let Some(id) = numbered(value, top, known) {
        hasher.write_u8(0);
        hasher.write_u32(id);
        return;
    }
    match value {
        Value::Null => hasher.write_u8(1),
        Value::Bool(b) => {
            hasher.write_u8(2);
            b.hash(hasher);
        }
        Value::Number(n) => {
            hasher.write_u8(3);
            n.hash(hasher);
        }
        Value::String(s) => {
            hasher.write_u8(4);
            s.hash(hasher);
        }
        Value::Array(list) => {
            hasher.write_u8(5);
            hasher.write_usize(list.len());
            for v in list {
                feed(v, false, known, hasher);
            }
        }
        Value::Object(map) => {
            hasher.write_u8(6);
            hasher.write_usize(map.len());
            for (k, v) in map {
                k.hash(hasher);
                feed(v, false, known, hasher);
            }
        }
    }
}

/// Equal as the rules read them: the same keys in the same order, the same values, numbered
/// subschemas by id. (`Value`'s own equality ignores key order.)
fn same(a: &Value, b: &Value, top: bool, known: &HashMap<*const Value, u32, FastHash>) -> bool {
    match (numbered(a, top, known), numbered(b, top, known)) {
        (Some(x), Some(y)) => return x == y,
        (None, None) => {}
        _ => return false,
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b, false, known))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, a), (kb, b))| ka == kb && same(a, b, false, known))
        }
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::nodes::{collect, pointers};
    use serde_json::json;

    fn members(schema: &Value) -> Vec<Vec<String>> {
        let nodes = collect(schema);
        let pointers = pointers(&nodes);
        classes(&nodes)
            .into_iter()
            .map(|c| c.members.iter().map(|&i| pointers[i].clone()).collect())
            .collect()
    }

    #[test]
    fn equal_subtrees_under_the_same_keyword_are_one_class() {
        let leaf = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        let s = json!({"properties": {"a": leaf, "b": leaf, "c": {"items": leaf}}});
        let got = members(&s);
        assert!(got.contains(&vec![
            "/properties/a".to_owned(),
            "/properties/b".to_owned()
        ]));
        assert!(got.contains(&vec![
            "/properties/a/properties/x".to_owned(),
            "/properties/b/properties/x".to_owned(),
            "/properties/c/items/properties/x".to_owned(),
        ]));
        // Held by `items`, not by `properties`: another class.
        assert!(got.contains(&vec!["/properties/c/items".to_owned()]));
    }

    #[test]
    fn key_order_values_and_the_root_tell_subtrees_apart() {
        let s = json!({
            "properties": {
                "a": {"type": "string", "enum": ["x"]},
                "b": {"enum": ["x"], "type": "string"},
                "c": {"type": "string", "enum": ["y"]},
                "d": {"type": "string", "enum": [1]},
                "e": {"type": "string", "enum": [1.0]},
                "f": {"properties": {}}
            }
        });
        let got = members(&s);
        assert_eq!(got.len(), 7, "{got:?}");
        assert!(got.iter().all(|c| c.len() == 1));
        // The root has the same content as nothing else, and would be its own class anyway.
        let root_like = json!({"properties": {"p": {"properties": {}}}});
        assert_eq!(
            members(&root_like),
            vec![vec![String::new()], vec!["/properties/p".to_owned()]]
        );
    }
}
