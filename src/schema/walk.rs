//! One traversal over every subschema position, driven by [`super::keywords::KEYWORDS`].

use serde_json::Value;

use super::keywords::{self, Keyword, Slot};

/// Where a child sits inside its keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location<'a> {
    Direct,
    Key(&'a str),
    Index(usize),
}

/// One subschema of a schema object.
#[derive(Debug, Clone, Copy)]
pub struct Child<'a> {
    pub keyword: &'static Keyword,
    pub location: Location<'a>,
    pub schema: &'a Value,
}

impl Child<'_> {
    /// The pointer tokens from the parent to this child.
    pub fn tokens(&self) -> Vec<String> {
        let mut out = vec![self.keyword.name.to_owned()];
        match self.location {
            Location::Direct => {}
            Location::Key(k) => out.push(k.to_owned()),
            Location::Index(i) => out.push(i.to_string()),
        }
        out
    }

    /// The child's pointer below `parent`'s, in one allocation: walks of every node call this
    /// once per node.
    pub fn pointer_from(&self, parent: &str) -> String {
        let mut out = String::with_capacity(parent.len() + self.keyword.name.len() + 16);
        out.push_str(parent);
        self.push_tokens(&mut out);
        out
    }

    /// Appends the pointer tokens from the parent to this child to `pointer`, the parent's:
    /// a walk can keep one pointer buffer and truncate it instead of allocating per node.
    pub fn push_tokens(&self, pointer: &mut String) {
        self.location.push_tokens(self.keyword.name, pointer);
    }
}

impl Location<'_> {
    /// Appends `/keyword` and this location's token, escaped, to `pointer`.
    pub fn push_tokens(&self, keyword: &str, pointer: &mut String) {
        use std::fmt::Write as _;
        pointer.push('/');
        pointer.push_str(&crate::pointer::escape(keyword));
        match *self {
            Location::Direct => {}
            Location::Key(k) => {
                pointer.push('/');
                pointer.push_str(&crate::pointer::escape(k));
            }
            Location::Index(i) => {
                let _ = write!(pointer, "/{i}");
            }
        }
    }
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

/// Every subschema of `schema`, in the schema's key order. Values in a subschema position that
/// are not schemas (a malformed document) are skipped rather than guessed at.
pub fn children(schema: &Value) -> Vec<Child<'_>> {
    let mut out = Vec::new();
    children_into(schema, &mut out);
    out
}

/// [`children`], appended to `out`: a walk over every node can reuse one buffer.
pub fn children_into<'a>(schema: &'a Value, out: &mut Vec<Child<'a>>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for (name, value) in map {
        let Some(keyword) = keywords::lookup(name) else {
            continue;
        };
        push_children(keyword, value, out);
    }
}

fn push_children<'a>(keyword: &'static Keyword, value: &'a Value, out: &mut Vec<Child<'a>>) {
    let single = |out: &mut Vec<Child<'a>>| {
        if is_schema(value) {
            out.push(Child {
                keyword,
                location: Location::Direct,
                schema: value,
            });
        }
    };
    let array = |out: &mut Vec<Child<'a>>| {
        if let Value::Array(items) = value {
            for (i, s) in items.iter().enumerate().filter(|(_, s)| is_schema(s)) {
                out.push(Child {
                    keyword,
                    location: Location::Index(i),
                    schema: s,
                });
            }
        }
    };
    match keyword.slot {
        Slot::Single => single(out),
        Slot::Array => array(out),
        Slot::SingleOrArray => {
            if value.is_array() {
                array(out)
            } else {
                single(out)
            }
        }
        Slot::Map | Slot::MapOfSchemaOrNames => {
            if let Value::Object(map) = value {
                for (k, s) in map.iter().filter(|(_, s)| is_schema(s)) {
                    out.push(Child {
                        keyword,
                        location: Location::Key(k),
                        schema: s,
                    });
                }
            }
        }
    }
}

/// Number of JSON values in a document, iteratively (the input may be deep).
pub fn count_nodes(value: &Value) -> usize {
    let mut stack = vec![value];
    let mut n = 0;
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    n
}

/// A copy of `schema` with `f` applied to every schema object in it (subschemas first), so that
/// rewrites touch schema positions only, never a property that happens to be named `title`.
pub fn map_schemas(
    schema: &Value,
    f: &mut dyn FnMut(&mut serde_json::Map<String, Value>),
) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        let mapped = match keywords::lookup(key) {
            Some(kw) => map_keyword(kw, value, f),
            None => value.clone(),
        };
        out.insert(key.clone(), mapped);
    }
    f(&mut out);
    Value::Object(out)
}

fn map_keyword(
    kw: &Keyword,
    value: &Value,
    f: &mut dyn FnMut(&mut serde_json::Map<String, Value>),
) -> Value {
    match (kw.slot, value) {
        (Slot::Array | Slot::SingleOrArray, Value::Array(items)) => {
            Value::Array(items.iter().map(|s| map_schemas(s, f)).collect())
        }
        (Slot::Map | Slot::MapOfSchemaOrNames, Value::Object(entries)) => Value::Object(
            entries
                .iter()
                .map(|(k, s)| (k.clone(), map_schemas(s, f)))
                .collect(),
        ),
        (Slot::Single | Slot::SingleOrArray, v) => map_schemas(v, f),
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_every_position_in_order() {
        let s = json!({
            "properties": {"a": {"type": "string"}, "b": true},
            "items": [{"type": "integer"}],
            "not": {"const": 1},
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
            "enum": [{"not": "a schema"}],
            "anyOf": [{}, 5]
        });
        let got: Vec<String> = children(&s).iter().map(|c| c.pointer_from("")).collect();
        assert_eq!(
            got,
            vec![
                "/properties/a",
                "/properties/b",
                "/items/0",
                "/not",
                "/dependencies/c",
                "/anyOf/0"
            ]
        );
    }

    #[test]
    fn child_pointers_escape_their_tokens_like_pointer_push() {
        let s = json!({"properties": {"a/b~c": {}}, "prefixItems": [{}, {}]});
        for child in children(&s) {
            let expected = child
                .tokens()
                .iter()
                .fold("/x~1y".to_owned(), |acc, t| crate::pointer::push(&acc, t));
            assert_eq!(child.pointer_from("/x~1y"), expected);
        }
        let got: Vec<String> = children(&s).iter().map(|c| c.pointer_from("")).collect();
        assert_eq!(
            got,
            vec!["/properties/a~1b~0c", "/prefixItems/0", "/prefixItems/1"]
        );
    }

    #[test]
    fn counts_nodes() {
        assert_eq!(count_nodes(&json!({"a": [1, 2], "b": null})), 5);
    }
}
