//! A JSON value paired with its pointer, so every shape check can say where it failed.

use super::error::{ShapeError, kind_of, quote};
use crate::pointer;
use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    pub value: &'a Value,
    pub pointer: String,
}

impl<'a> Node<'a> {
    pub fn root(value: &'a Value) -> Self {
        Node {
            value,
            pointer: String::new(),
        }
    }

    /// The member `key`, when the value is an object that has it (null included).
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        let value = self.value.as_object()?.get(key)?;
        Some(Node {
            value,
            pointer: pointer::push(&self.pointer, key),
        })
    }

    /// Like [`Node::get`], but an explicit `null` counts as absent: SDK dumps (`model_dump()`
    /// without `exclude_none`) write unset optional fields as `null`.
    pub fn get_set(&self, key: &str) -> Option<Node<'a>> {
        self.get(key).filter(|node| !node.value.is_null())
    }

    /// The first of `keys` that is set, e.g. a camelCase key or its snake_case spelling.
    pub fn get_any(&self, keys: &[&str]) -> Option<Node<'a>> {
        keys.iter().find_map(|key| self.get_set(key))
    }

    pub fn object(&self, expected: &str) -> Result<&'a Map<String, Value>, ShapeError> {
        self.value
            .as_object()
            .ok_or_else(|| self.mismatch(expected))
    }

    /// The elements of an array, each with its pointer.
    pub fn elements(&self, expected: &str) -> Result<Vec<Node<'a>>, ShapeError> {
        let array = self
            .value
            .as_array()
            .ok_or_else(|| self.mismatch(expected))?;
        Ok(array
            .iter()
            .enumerate()
            .map(|(index, value)| Node {
                value,
                pointer: pointer::push_index(&self.pointer, index),
            })
            .collect())
    }

    /// A required string member such as `name`.
    pub fn required_str(&self, key: &str) -> Result<String, ShapeError> {
        match self.get_set(key) {
            Some(node) => node.as_string(),
            None => Err(self.error(format!("missing {}", quote(key)))),
        }
    }

    /// An optional string member such as `description`.
    pub fn optional_str(&self, key: &str) -> Result<Option<String>, ShapeError> {
        self.get_set(key).map(|node| node.as_string()).transpose()
    }

    pub fn optional_bool(&self, key: &str) -> Result<Option<bool>, ShapeError> {
        self.get_set(key)
            .map(|node| {
                node.value
                    .as_bool()
                    .ok_or_else(|| node.mismatch("a boolean"))
            })
            .transpose()
    }

    pub fn str_value(&self) -> Option<&'a str> {
        self.value.as_str()
    }

    fn as_string(&self) -> Result<String, ShapeError> {
        self.value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.mismatch("a string"))
    }

    pub fn error(&self, message: impl Into<String>) -> ShapeError {
        ShapeError::new(self.pointer.clone(), message)
    }

    /// "expected X, found Y" at this node.
    pub fn mismatch(&self, expected: &str) -> ShapeError {
        self.error(format!("expected {expected}, found {}", found(self.value)))
    }
}

/// What a value is, for "found …" messages; objects name their first keys because "found an
/// object" does not help a user tell one wrong shape from another.
pub(crate) fn found(value: &Value) -> String {
    const SHOWN_KEYS: usize = 4;
    let Some(map) = value.as_object() else {
        return kind_of(value).to_owned();
    };
    if map.is_empty() {
        return "an empty object".to_owned();
    }
    let mut keys: Vec<String> = map.keys().take(SHOWN_KEYS).map(|k| quote(k)).collect();
    if map.len() > SHOWN_KEYS {
        keys.push("…".to_owned());
    }
    let noun = if map.len() == 1 { "key" } else { "keys" };
    format!("an object with {noun} {}", keys.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn children_carry_escaped_pointers() {
        let doc = json!({"a/b": [{"x": 1}]});
        let root = Node::root(&doc);
        let list = root.get("a/b").unwrap();
        let first = &list.elements("a list").unwrap()[0];
        assert_eq!(first.get("x").unwrap().pointer, "/a~1b/0/x");
    }

    #[test]
    fn null_members_count_as_unset() {
        let doc = json!({"description": null, "name": "n"});
        let root = Node::root(&doc);
        assert_eq!(root.optional_str("description"), Ok(None));
        assert!(root.get("description").is_some());
        assert!(root.get_set("description").is_none());
    }

    #[test]
    fn type_errors_point_at_the_member() {
        let doc = json!({"name": 3});
        let err = Node::root(&doc).required_str("name").unwrap_err();
        assert_eq!(
            err,
            ShapeError::new("/name", "expected a string, found a number")
        );
        let err = Node::root(&json!({})).required_str("name").unwrap_err();
        assert_eq!(err, ShapeError::new("", "missing \"name\""));
    }

    #[test]
    fn found_names_object_keys() {
        assert_eq!(found(&json!({})), "an empty object");
        assert_eq!(found(&json!({"a": 1})), r#"an object with key "a""#);
        assert_eq!(
            found(&json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})),
            r#"an object with keys "a", "b", "c", "d", …"#
        );
        assert_eq!(
            found(&json!({"\u{1b}[31m": 1})),
            r#"an object with key "\u{1b}[31m""#
        );
    }
}
