//! From a validator's keyword location to the schema node it names in a document.
//!
//! The `jsonschema` crate reports two paths: the *evaluation path*, which runs through `$ref`
//! (`/properties/op/oneOf/0/$ref/properties/name/type`), and a "canonical" schema path that is
//! relative to the nearest `$id` resource, so it is wrong for any document with an embedded `$id`.
//! Neither is a node of the document as written. We walk the evaluation path through the
//! document ourselves and follow every `$ref` with the engine's own resolution (`RefIndex`), so
//! the node we report is the one the projection's links and trace talk about.

use std::collections::HashMap;

use serde_json::Value;

use crate::pointer;
use crate::schema::keywords::{self, Slot};
use crate::schema::resolve::RefIndex;
use crate::schema::walk::children;

const REF_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// Every reference of a document, resolved once: errors are placed per payload, and URI
/// resolution is the slow part of a walk.
#[derive(Debug, Default)]
pub(crate) struct Refs {
    /// `…/$ref` → the pointer it resolves to (absent: it does not resolve).
    targets: HashMap<String, String>,
}

impl Refs {
    pub fn build(doc: &Value, index: &RefIndex) -> Refs {
        let mut targets = HashMap::new();
        // Iterative: a document may be deeper than the stack allows.
        let mut stack = vec![(String::new(), doc)];
        while let Some((at, node)) = stack.pop() {
            for keyword in REF_KEYWORDS {
                if let Some(reference) = node.get(keyword).and_then(Value::as_str)
                    && let Ok(target) = index.resolve(doc, index.base_at(&at), reference)
                {
                    targets.insert(pointer::push(&at, keyword), target);
                }
            }
            for child in children(node) {
                stack.push((child.pointer_from(&at), child.schema));
            }
        }
        Refs { targets }
    }
}

/// Where an error's keyword sits in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// The schema object that holds the failing keyword (for a `false` schema: that schema).
    pub node: String,
    /// The keyword itself, as a pointer into the document (`node` for a `false` schema).
    pub keyword: String,
}

/// Walks `evaluation_path` through `doc`. `false_schema` says that the error is the failure of a
/// boolean `false` schema, whose path ends at the schema instead of at a keyword inside it.
/// `None` when the path does not fit the document (the caller then falls back to what the
/// validator said).
pub(crate) fn locate(
    doc: &Value,
    refs: &Refs,
    evaluation_path: &str,
    false_schema: bool,
) -> Option<Located> {
    let tokens = pointer::tokens(evaluation_path)?;
    let mut node = String::new();
    // The value at `node`, carried along: looking it up from the root at every step made the
    // walk quadratic in the path's length.
    let mut here = doc;
    let mut i = 0;
    // Every step consumes at least one token, so even a circular document ends the walk.
    while i < tokens.len() {
        let token = tokens[i].as_str();
        if REF_KEYWORDS.contains(&token) && here.get(token).is_some() && i + 1 < tokens.len() {
            node = refs.targets.get(&pointer::push(&node, token))?.clone();
            here = doc.pointer(&node)?;
            i += 1;
            continue;
        }
        let value = here.get(token)?;
        let step = keywords::lookup(token)
            .map_or(Step::Plain, |kw| child_of(kw.slot, value, &tokens[i + 1..]));
        match step {
            Step::Mismatch => return None,
            Step::Child(consumed, child) => {
                if i + 1 + consumed == tokens.len() && !false_schema {
                    // The path ends on a subschema, yet the error is not that schema being
                    // `false`: it is the keyword's own failure (`additionalProperties: false`
                    // reports at `/additionalProperties`), so the node is the holder.
                    return Some(Located {
                        keyword: pointer::push(&node, token),
                        node,
                    });
                }
                node = tokens[i..=i + consumed]
                    .iter()
                    .fold(node, |acc, t| pointer::push(&acc, t));
                here = child;
                i += 1 + consumed;
            }
            Step::Plain => {
                // A plain keyword (`type`, `required`, `dependencies` with names…): it ends the
                // walk; any tokens after it stay part of the keyword's location.
                let keyword = tokens[i..]
                    .iter()
                    .fold(node.clone(), |acc, t| pointer::push(&acc, t));
                return Some(Located { node, keyword });
            }
        }
    }
    Some(Located {
        keyword: node.clone(),
        node,
    })
}

enum Step<'a> {
    /// A subschema, addressed by this many tokens after the keyword (0 or 1).
    Child(usize, &'a Value),
    /// The keyword itself is what failed.
    Plain,
    /// The path names a subschema the document does not have.
    Mismatch,
}

fn child_of<'a>(slot: Slot, value: &'a Value, rest: &[String]) -> Step<'a> {
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    let keyed = || -> Step<'a> {
        let Some(key) = rest.first() else {
            return Step::Plain;
        };
        let child = match value {
            Value::Object(map) => map.get(key.as_str()),
            Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match child {
            Some(c) if is_schema(c) => Step::Child(1, c),
            // draft-07 `dependencies: {a: ["b"]}`: names, not a schema.
            Some(_) if slot == Slot::MapOfSchemaOrNames => Step::Plain,
            _ => Step::Mismatch,
        }
    };
    match slot {
        Slot::Single if is_schema(value) => Step::Child(0, value),
        Slot::Map | Slot::MapOfSchemaOrNames if value.is_object() => keyed(),
        Slot::Array if value.is_array() => keyed(),
        Slot::SingleOrArray if value.is_array() => keyed(),
        Slot::SingleOrArray if is_schema(value) => Step::Child(0, value),
        _ => Step::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Draft;
    use serde_json::json;

    fn at(doc: &Value, path: &str, false_schema: bool) -> Option<(String, String)> {
        let index = RefIndex::build(doc, Draft::detect(doc));
        let refs = Refs::build(doc, &index);
        locate(doc, &refs, path, false_schema).map(|l| (l.node, l.keyword))
    }

    #[test]
    fn follows_refs_to_the_definition() {
        let doc = json!({
            "properties": {"y": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"minimum": 3}}
        });
        assert_eq!(
            at(&doc, "/properties/y/$ref/$ref/minimum", false),
            Some(("/$defs/b".into(), "/$defs/b/minimum".into()))
        );
    }

    #[test]
    fn embedded_ids_resolve_to_document_pointers() {
        // The validator's canonical path here is `/properties/q/type`, which is not a node of
        // this document; the walk must land inside `$defs/inner`.
        let doc = json!({
            "$id": "http://x.test/root.json",
            "properties": {"a": {"$ref": "inner.json#/properties/q"}},
            "$defs": {"inner": {"$id": "inner.json", "properties": {"q": {"type": "string"}}}}
        });
        assert_eq!(
            at(&doc, "/properties/a/$ref/type", false),
            Some((
                "/$defs/inner/properties/q".into(),
                "/$defs/inner/properties/q/type".into()
            ))
        );
    }

    #[test]
    fn keyword_valued_false_is_held_by_its_parent() {
        let doc = json!({"properties": {"x": false, "o": {"additionalProperties": false}}});
        assert_eq!(
            at(&doc, "/properties/o/additionalProperties", false),
            Some((
                "/properties/o".into(),
                "/properties/o/additionalProperties".into()
            ))
        );
        assert_eq!(
            at(&doc, "/properties/x", true),
            Some(("/properties/x".into(), "/properties/x".into()))
        );
    }

    #[test]
    fn tuples_dependencies_and_escapes() {
        let doc = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {
                "t": {"items": [{"type": "string"}]},
                "d": {"dependencies": {"x": ["y"]}},
                "a/b": {"anyOf": [{"type": "null"}, {"type": "integer"}]}
            }
        });
        assert_eq!(
            at(&doc, "/properties/t/items/0/type", false).unwrap().0,
            "/properties/t/items/0"
        );
        assert_eq!(
            at(&doc, "/properties/d/dependencies", false).unwrap(),
            ("/properties/d".into(), "/properties/d/dependencies".into())
        );
        assert_eq!(
            at(&doc, "/properties/a~1b/anyOf/1/type", false).unwrap().0,
            "/properties/a~1b/anyOf/1"
        );
    }

    #[test]
    fn paths_that_do_not_fit_give_none() {
        let doc = json!({"properties": {"a": {"type": "string"}}});
        assert_eq!(at(&doc, "/properties/zzz/type", false), None);
        let cyclic = json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
        assert_eq!(at(&cyclic, "/$ref/$ref/$ref/type", false), None);
    }
}
