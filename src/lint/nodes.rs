//! Every subschema of a parameter schema, in document order, as the checks see it. The traversal
//! itself is [`crate::schema::children`]; this only records where each node sits.

use std::collections::HashMap;

use serde_json::Value;

use crate::schema::children;

/// One schema position.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub pointer: String,
    pub schema: &'a Value,
    /// The keyword holding this node in its parent; `None` for the root.
    pub via: Option<&'static str>,
    /// The index of the node holding this one; `None` for the root.
    pub parent: Option<usize>,
    /// Levels of subschema nesting below the root: every subschema is one level below the
    /// schema holding it (a property, `items`, an `anyOf` alternative, a definition alike).
    pub depth: usize,
}

/// The schema's nodes, root first, each before its subschemas (an explicit stack: inputs may be
/// as deep as the JSON parser allows).
pub(crate) fn collect(root: &Value) -> Vec<Node<'_>> {
    let mut out: Vec<Node<'_>> = Vec::new();
    let mut stack = vec![Node {
        pointer: String::new(),
        schema: root,
        via: None,
        parent: None,
        depth: 0,
    }];
    while let Some(node) = stack.pop() {
        let index = out.len();
        for child in children(node.schema).iter().rev() {
            stack.push(Node {
                pointer: child.pointer_from(&node.pointer),
                schema: child.schema,
                via: Some(child.keyword.name),
                parent: Some(index),
                depth: node.depth + 1,
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
    fn depth_counts_every_subschema_level() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "array", "items": {"type": "string"}}]}
            },
            "$defs": {"D": {"properties": {"x": {}}}}
        });
        let got: Vec<(String, usize, Option<usize>)> = collect(&s)
            .into_iter()
            .map(|n| (n.pointer, n.depth, n.parent))
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
}
