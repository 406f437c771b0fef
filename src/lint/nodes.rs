//! Every subschema of a parameter schema, in document order, as the checks see it. The traversal
//! itself is [`crate::schema::children`]; this only records where each node sits.

use std::collections::HashMap;

use serde_json::Value;

use crate::schema::{Position, children};

/// One schema position.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub pointer: String,
    pub schema: &'a Value,
    /// The keyword holding this node in its parent; `None` for the root.
    pub via: Option<&'static str>,
    /// Levels of data nesting from the root (or from the definition this node sits in): a
    /// property value or an array element is one level deeper, a union branch is not.
    pub depth: usize,
    pub in_definitions: bool,
}

/// Keywords whose subschemas describe a member of the instance rather than the instance itself.
pub(crate) const NESTING: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "contains",
];

/// The schema's nodes, root first, each before its subschemas (an explicit stack: inputs may be
/// as deep as the JSON parser allows).
pub(crate) fn collect(root: &Value) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![Node {
        pointer: String::new(),
        schema: root,
        via: None,
        depth: 0,
        in_definitions: false,
    }];
    while let Some(node) = stack.pop() {
        for child in children(node.schema).iter().rev() {
            let definitions = child.keyword.position == Position::Definitions;
            let depth = if definitions {
                0
            } else if NESTING.contains(&child.keyword.name) {
                node.depth + 1
            } else {
                node.depth
            };
            stack.push(Node {
                pointer: child.pointer_from(&node.pointer),
                schema: child.schema,
                via: Some(child.keyword.name),
                depth,
                in_definitions: node.in_definitions || definitions,
            });
        }
        out.push(node);
    }
    out
}

/// Position of each node's pointer in document order, for sorting findings and for mapping a
/// location inside a keyword's value back to the schema that holds it.
pub(crate) fn index<'n>(nodes: &'n [Node<'_>]) -> HashMap<&'n str, usize> {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.pointer.as_str(), i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_members_not_branches() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "array", "items": {"type": "string"}}]}
            },
            "$defs": {"D": {"properties": {"x": {}}}}
        });
        let got: Vec<(String, usize, bool)> = collect(&s)
            .into_iter()
            .map(|n| (n.pointer, n.depth, n.in_definitions))
            .collect();
        assert_eq!(
            got,
            vec![
                (String::new(), 0, false),
                ("/properties/a".into(), 1, false),
                ("/properties/a/anyOf/0".into(), 1, false),
                ("/properties/a/anyOf/0/items".into(), 2, false),
                ("/$defs/D".into(), 0, true),
                ("/$defs/D/properties/x".into(), 1, true),
            ]
        );
    }
}
