//! Static `$ref` resolution inside one schema document: JSON pointers, `$id` resources and
//! `$anchor`s. Nothing is fetched: a reference that leaves the document is reported as such.

use std::collections::HashMap;

use fluent_uri::{Uri, UriRef};
use serde_json::Value;

use super::draft::Draft;
use super::walk::children;
use crate::pointer;

/// The base every document gets when its root has no `$id`, so relative `$id`s still resolve.
pub const DEFAULT_BASE: &str = "file:///schemalens/root.json";

/// Why a `$ref` could not be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    Remote(String),
    Missing(String),
    Malformed(String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unresolved::Remote(uri) => write!(
                f,
                "points outside this document ({uri}); schemalens never fetches"
            ),
            Unresolved::Missing(what) => write!(f, "no such location in the document: {what}"),
            Unresolved::Malformed(why) => write!(f, "not a valid reference: {why}"),
        }
    }
}

/// Every resource (`$id`) and anchor of a document, and the base URI in force at each
/// subschema that changes it.
#[derive(Debug, Default)]
pub struct RefIndex {
    resources: HashMap<String, String>,
    anchors: HashMap<(String, String), String>,
    bases: HashMap<String, String>,
    root_base: String,
}

impl RefIndex {
    pub fn build(root: &Value, draft: Draft) -> RefIndex {
        let mut index = RefIndex {
            root_base: DEFAULT_BASE.to_owned(),
            ..RefIndex::default()
        };
        let root_base = id_of(root, draft)
            .and_then(|id| join_uri(DEFAULT_BASE, id))
            .map(|u| strip_fragment(&u).to_owned())
            .unwrap_or_else(|| DEFAULT_BASE.to_owned());
        index.root_base = root_base.clone();
        index.resources.insert(root_base.clone(), String::new());
        index.bases.insert(String::new(), root_base.clone());
        // Iterative: a document may be deeper than the stack allows. Bases are few (one per
        // `$id`), so nodes refer to theirs by index instead of each holding a copy.
        let mut bases = vec![root_base];
        let mut stack: Vec<(String, &Value, usize)> = vec![(String::new(), root, 0)];
        while let Some((ptr, node, base)) = stack.pop() {
            let base = index.enter(&ptr, node, base, &mut bases, draft);
            for child in children(node) {
                stack.push((child.pointer_from(&ptr), child.schema, base));
            }
        }
        index
    }

    /// Records what `node` declares and returns the base URI in force inside it, as an index
    /// into `bases` (a new `$id` adds one).
    fn enter(
        &mut self,
        ptr: &str,
        node: &Value,
        base: usize,
        bases: &mut Vec<String>,
        draft: Draft,
    ) -> usize {
        let mut base = base;
        if !ptr.is_empty()
            && let Some(id) = id_of(node, draft)
        {
            if let Some(stripped) = id.strip_prefix('#').filter(|_| draft == Draft::Draft7) {
                // draft-07 spelled anchors as fragment-only `$id`s.
                self.anchors
                    .insert((bases[base].clone(), stripped.to_owned()), ptr.to_owned());
            } else if let Some(abs) = join_uri(&bases[base], id) {
                let resource = strip_fragment(&abs).to_owned();
                self.resources
                    .entry(resource.clone())
                    .or_insert_with(|| ptr.to_owned());
                self.bases.insert(ptr.to_owned(), resource.clone());
                bases.push(resource);
                base = bases.len() - 1;
            }
        }
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(name) = node.get(key).and_then(Value::as_str) {
                self.anchors
                    .entry((bases[base].clone(), name.to_owned()))
                    .or_insert_with(|| ptr.to_owned());
            }
        }
        base
    }

    /// The base URI in force at a subschema: that of its nearest ancestor-or-self with `$id`.
    pub fn base_at(&self, ptr: &str) -> &str {
        let mut cur = ptr;
        loop {
            if let Some(b) = self.bases.get(cur) {
                return b;
            }
            match pointer::parent(cur) {
                Some(p) => cur = p,
                None => return &self.root_base,
            }
        }
    }

    /// The base URI a subschema introduces for its own subtree (its `$id`), if any.
    pub fn base_declared_at(&self, ptr: &str) -> Option<&str> {
        self.bases.get(ptr).map(String::as_str)
    }

    /// Resolves `reference` found where `base` is in force, to a pointer into `root`.
    pub fn resolve(&self, root: &Value, base: &str, reference: &str) -> Result<String, Unresolved> {
        let absolute =
            join_uri(base, reference).ok_or_else(|| Unresolved::Malformed(reference.to_owned()))?;
        let (resource_uri, fragment) = match absolute.split_once('#') {
            Some((r, f)) => (r, f),
            None => (absolute.as_str(), ""),
        };
        let Some(resource_ptr) = self.resources.get(resource_uri) else {
            return Err(Unresolved::Remote(resource_uri.to_owned()));
        };
        let fragment = percent_decode(fragment);
        let target = if fragment.is_empty() {
            resource_ptr.clone()
        } else if fragment.starts_with('/') {
            format!("{resource_ptr}{fragment}")
        } else {
            self.anchors
                .get(&(resource_uri.to_owned(), fragment.clone()))
                .cloned()
                .ok_or_else(|| Unresolved::Missing(format!("anchor #{fragment}")))?
        };
        match root.pointer(&target) {
            Some(v) if v.is_object() || v.is_boolean() => Ok(target),
            Some(_) => Err(Unresolved::Missing(format!("{target} is not a schema"))),
            None => Err(Unresolved::Missing(format!("#{target}"))),
        }
    }
}

fn id_of(node: &Value, draft: Draft) -> Option<&str> {
    let map = node.as_object()?;
    // Before 2019-09 a `$ref` hides every sibling, `$id` included.
    if draft == Draft::Draft7 && map.contains_key("$ref") {
        return None;
    }
    map.get("$id").and_then(Value::as_str)
}

fn strip_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(r, _)| r)
}

fn join_uri(base: &str, reference: &str) -> Option<String> {
    let base = Uri::parse(base).ok()?;
    let r = UriRef::parse(reference).ok()?;
    let joined = r.resolve_against(&base).ok()?;
    Some(joined.as_str().to_owned())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolve(root: &Value, at: &str, r: &str) -> Result<String, Unresolved> {
        let index = RefIndex::build(root, Draft::detect(root));
        index.resolve(root, index.base_at(at), r)
    }

    #[test]
    fn local_pointers_and_escapes() {
        let root = json!({"$defs": {"a/b": {"type": "string"}, "x y": {}}});
        assert_eq!(resolve(&root, "", "#/$defs/a~1b").unwrap(), "/$defs/a~1b");
        assert_eq!(resolve(&root, "", "#/$defs/x%20y").unwrap(), "/$defs/x y");
        assert_eq!(resolve(&root, "", "#").unwrap(), "");
        assert!(matches!(
            resolve(&root, "", "#/$defs/nope"),
            Err(Unresolved::Missing(_))
        ));
    }

    #[test]
    fn remote_refs_are_reported_not_fetched() {
        let root = json!({});
        assert!(matches!(
            resolve(&root, "", "https://example.com/s.json"),
            Err(Unresolved::Remote(_))
        ));
    }

    #[test]
    fn ids_and_anchors() {
        let root = json!({
            "$id": "http://x.test/root.json",
            "$defs": {
                "inner": {"$id": "inner.json", "$defs": {"leaf": {"$anchor": "leaf", "type": "integer"}}},
            }
        });
        assert_eq!(resolve(&root, "", "inner.json").unwrap(), "/$defs/inner");
        assert_eq!(
            resolve(&root, "", "inner.json#leaf").unwrap(),
            "/$defs/inner/$defs/leaf"
        );
        // Inside `inner`, a fragment pointer is relative to `inner`.
        assert_eq!(
            resolve(&root, "/$defs/inner", "#/$defs/leaf").unwrap(),
            "/$defs/inner/$defs/leaf"
        );
    }
}
