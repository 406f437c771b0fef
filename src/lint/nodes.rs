//! Every subschema of a parameter schema, in document order, as the checks see it. The traversal
//! itself is [`crate::schema::children`]; this only records where each node sits.
//!
//! A node keeps the step from its parent (keyword and key or index), not its pointer: a
//! projection can have a million nodes, most of which no rule reports on, and a pointer string
//! each (with an index keyed by it) was the largest cost of reading one. Pointers are written
//! for the nodes a finding names.

use serde_json::Value;

use crate::schema::{Location, children};

/// One schema position.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub schema: &'a Value,
    /// The keyword holding this node in its parent; `None` for the root.
    pub via: Option<&'static str>,
    /// Where in that keyword's value the node sits (`Direct` for the root).
    pub location: Location<'a>,
    /// The index of the node holding this one; `None` for the root.
    pub parent: Option<usize>,
    /// Levels of subschema nesting below the root: every subschema is one level below the
    /// schema holding it (a property, `items`, an `anyOf` alternative, a definition alike).
    pub depth: usize,
}

impl Node<'_> {
    pub fn is_root(&self) -> bool {
        self.parent.is_none()
    }

    /// Appends the pointer tokens from the parent to this node to `pointer`.
    pub fn push_step(&self, pointer: &mut String) {
        if let Some(keyword) = self.via {
            self.location.push_tokens(keyword, pointer);
        }
    }
}

/// The schema's nodes, root first, each before its subschemas (an explicit stack: inputs may be
/// as deep as the JSON parser allows).
pub(crate) fn collect(root: &Value) -> Vec<Node<'_>> {
    let mut out: Vec<Node<'_>> = Vec::new();
    let mut stack = vec![Node {
        schema: root,
        via: None,
        location: Location::Direct,
        parent: None,
        depth: 0,
    }];
    while let Some(node) = stack.pop() {
        let index = out.len();
        for child in children(node.schema).iter().rev() {
            stack.push(Node {
                schema: child.schema,
                via: Some(child.keyword.name),
                location: child.location,
                parent: Some(index),
                depth: node.depth + 1,
            });
        }
        out.push(node);
    }
    out
}

/// Every node's pointer, in node order: for the walks that name every node (each written from
/// its parent's, once).
pub(crate) fn pointers(nodes: &[Node<'_>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut p = node.parent.map_or_else(String::new, |p| out[p].clone());
        node.push_step(&mut p);
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_every_subschema_level() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "array", "items": {"type": "string"}}]}
            },
            "$defs": {"D": {"properties": {"x": {}}}}
        });
        let nodes = collect(&s);
        let pointers = pointers(&nodes);
        let got: Vec<(String, usize, Option<usize>)> = (0..nodes.len())
            .map(|i| (pointers[i].clone(), nodes[i].depth, nodes[i].parent))
            .collect();
        assert_eq!(
            got,
            vec![
                (String::new(), 0, None),
                ("/properties/a".into(), 1, Some(0)),
                ("/properties/a/anyOf/0".into(), 2, Some(1)),
                ("/properties/a/anyOf/0/items".into(), 3, Some(2)),
                ("/$defs/D".into(), 1, Some(0)),
                ("/$defs/D/properties/x".into(), 2, Some(4)),
            ]
        );
    }

    #[test]
    fn pointers_escape_keys() {
        let s = json!({"properties": {"a/b": {"properties": {"c~d": {}}}}});
        let nodes = collect(&s);
        assert_eq!(pointers(&nodes)[2], "/properties/a~1b/properties/c~0d");
    }
}
