//! Keyword values of the wrong shape (`"oneOf": 5`, `"properties": {"a": "string"}`,
//! `"required": "a"`): a document no validator compiles and no provider takes. The projection
//! walk skips what is not a schema rather than guess, so without this check such a value would
//! pass through (renamed, or dropped to `{}`) and the projection would look fine. Projection
//! refuses the tool instead, naming the first bad value by its pointer.

use serde_json::Value;

use super::keywords::{self, Slot};
use super::kinds::Kind;

/// What a keyword's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Schema,
    /// `allOf`, `anyOf`, `oneOf`, `prefixItems`: at least one schema.
    NonEmptySchemas,
    /// `items`: one schema, or a draft-07 tuple of schemas.
    SchemaOrSchemas,
    SchemaMap,
    /// draft-07 `dependencies`: each value a schema or a list of property names.
    SchemaOrNamesMap,
    Text,
    /// `required`: property names. draft-03's boolean `required` is let through: it is
    /// meaningful there, and the engine reads neither form as a subschema.
    Names,
    /// `type`: one kind name or a list of them.
    KindNames,
    List,
}

/// The keywords that are not subschema positions but whose shape the engine relies on.
const VALUE_SHAPES: &[(&str, Shape)] = &[
    ("$ref", Shape::Text),
    ("required", Shape::Names),
    ("type", Shape::KindNames),
    ("enum", Shape::List),
];

fn shape_of(keyword: &str) -> Option<Shape> {
    if let Some(k) = keywords::lookup(keyword) {
        return Some(match k.slot {
            Slot::Single => Shape::Schema,
            Slot::Array => Shape::NonEmptySchemas,
            Slot::SingleOrArray => Shape::SchemaOrSchemas,
            Slot::Map => Shape::SchemaMap,
            Slot::MapOfSchemaOrNames => Shape::SchemaOrNamesMap,
        });
    }
    VALUE_SHAPES
        .iter()
        .find(|(name, _)| *name == keyword)
        .map(|&(_, shape)| shape)
}

/// A keyword value of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// JSON pointer of the bad value, in the document checked.
    pub pointer: String,
    pub keyword: String,
    pub expected: &'static str,
    /// Places after the first that are malformed too.
    pub more: usize,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` must be {}", self.keyword, self.expected)?;
        if self.more > 0 {
            write!(f, " ({} more malformed value(s) after this one)", self.more)?;
        }
        Ok(())
    }
}

fn expected(shape: Shape) -> &'static str {
    match shape {
        Shape::Schema => "a schema (an object or a boolean)",
        Shape::NonEmptySchemas => "a non-empty array of schemas",
        Shape::SchemaOrSchemas => "a schema or an array of schemas",
        Shape::SchemaMap => "an object whose values are schemas",
        Shape::SchemaOrNamesMap => "an object whose values are schemas or arrays of names",
        Shape::Text => "a string",
        Shape::Names => "an array of property names (strings)",
        Shape::KindNames => "a type name or an array of type names",
        Shape::List => "an array",
    }
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

fn all_schemas(items: &[Value]) -> bool {
    items.iter().all(is_schema)
}

fn is_kind_name(v: &Value) -> bool {
    v.as_str().is_some_and(|s| Kind::parse(s).is_some())
}

fn fits(shape: Shape, value: &Value) -> bool {
    match (shape, value) {
        (Shape::Schema, v) => is_schema(v),
        (Shape::NonEmptySchemas, Value::Array(a)) => !a.is_empty() && all_schemas(a),
        (Shape::SchemaOrSchemas, Value::Array(a)) => all_schemas(a),
        (Shape::SchemaOrSchemas, v) => is_schema(v),
        (Shape::SchemaMap, Value::Object(m)) => m.values().all(is_schema),
        (Shape::SchemaOrNamesMap, Value::Object(m)) => m
            .values()
            .all(|v| is_schema(v) || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))),
        (Shape::Text, Value::String(_)) => true,
        (Shape::Names, Value::Array(a)) => a.iter().all(Value::is_string),
        (Shape::Names, Value::Bool(_)) => true,
        (Shape::KindNames, Value::Array(a)) => a.iter().all(is_kind_name),
        (Shape::KindNames, v) => is_kind_name(v),
        (Shape::List, Value::Array(_)) => true,
        _ => false,
    }
}

/// The first malformed keyword value of `schema` in document order, with how many more there
/// are; `None` for a well-formed document. Iterative: the document may be arbitrarily deep.
pub fn first_malformed(schema: &Value) -> Option<Malformed> {
    // The common case, a well-formed document, is decided without building any pointer.
    if !any_malformed(schema) {
        return None;
    }
    let mut found = all_malformed(schema).into_iter();
    let mut first = found.next()?;
    first.more = found.count();
    Some(first)
}

/// Where a subschema sits inside its keyword's value.
#[derive(Debug, Clone, Copy)]
enum Token<'a> {
    Direct,
    Key(&'a str),
    Index(usize),
}

/// The subschemas in a keyword value of `shape` (the schema-shaped parts of it; the rest is
/// malformed or not a schema at all), in document order.
fn subschemas(shape: Shape, value: &Value) -> Vec<(Token<'_>, &Value)> {
    match (shape, value) {
        (Shape::Schema | Shape::SchemaOrSchemas, v) if is_schema(v) => vec![(Token::Direct, v)],
        (Shape::NonEmptySchemas | Shape::SchemaOrSchemas, Value::Array(a)) => a
            .iter()
            .enumerate()
            .filter(|(_, v)| is_schema(v))
            .map(|(i, v)| (Token::Index(i), v))
            .collect(),
        (Shape::SchemaMap | Shape::SchemaOrNamesMap, Value::Object(m)) => m
            .iter()
            .filter(|(_, v)| is_schema(v))
            .map(|(k, v)| (Token::Key(k), v))
            .collect(),
        _ => Vec::new(),
    }
}

fn any_malformed(root: &Value) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else { continue };
        for (keyword, value) in map {
            let Some(shape) = shape_of(keyword) else {
                continue;
            };
            if !fits(shape, value) {
                return true;
            }
            stack.extend(subschemas(shape, value).into_iter().map(|(_, v)| v));
        }
    }
    false
}

/// One step of the walk that names places: a schema to open, or one keyword of a schema to
/// check. Keyword steps keep findings in document order (a schema's keywords one after the
/// other, each with everything below it), and the path is kept as links to the parent step so
/// that a deep document costs no pointer per node.
enum Step<'a> {
    Schema(&'a Value),
    Keyword(&'a str, &'a Value),
}

fn all_malformed(root: &Value) -> Vec<Malformed> {
    // (parent entry, keyword, token below the keyword)
    let mut paths: Vec<(usize, &str, Token<'_>)> = Vec::new();
    let mut found = Vec::new();
    let mut stack = vec![(usize::MAX, Step::Schema(root))];
    while let Some((at, step)) = stack.pop() {
        match step {
            Step::Schema(Value::Object(map)) => {
                let keywords: Vec<_> = map
                    .iter()
                    .filter(|(k, _)| shape_of(k).is_some())
                    .map(|(k, v)| (at, Step::Keyword(k, v)))
                    .collect();
                stack.extend(keywords.into_iter().rev());
            }
            Step::Schema(_) => {}
            Step::Keyword(keyword, value) => {
                let shape = shape_of(keyword).expect("only keywords with a shape are stepped");
                if !fits(shape, value) {
                    paths.push((at, keyword, Token::Direct));
                    found.push(Malformed {
                        pointer: pointer_of(&paths, paths.len() - 1),
                        keyword: keyword.to_owned(),
                        expected: expected(shape),
                        more: 0,
                    });
                }
                let children: Vec<_> = subschemas(shape, value)
                    .into_iter()
                    .map(|(token, child)| {
                        paths.push((at, keyword, token));
                        (paths.len() - 1, Step::Schema(child))
                    })
                    .collect();
                stack.extend(children.into_iter().rev());
            }
        }
    }
    found
}

fn pointer_of(paths: &[(usize, &str, Token<'_>)], mut entry: usize) -> String {
    let mut tokens = Vec::new();
    while entry != usize::MAX {
        let (parent, keyword, token) = paths[entry];
        match token {
            Token::Direct => {}
            Token::Key(k) => tokens.push(crate::pointer::escape(k).into_owned()),
            Token::Index(i) => tokens.push(i.to_string()),
        }
        tokens.push(crate::pointer::escape(keyword).into_owned());
        entry = parent;
    }
    tokens.iter().rev().fold(String::new(), |mut out, t| {
        out.push('/');
        out.push_str(t);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn first(schema: Value) -> Option<(String, String)> {
        first_malformed(&schema).map(|m| (m.pointer.clone(), m.to_string()))
    }

    #[test]
    fn what_generators_emit_is_well_formed() {
        let pydantic = json!({
            "$defs": {"Cat": {"properties": {"kind": {"const": "cat", "type": "string"}},
                               "required": ["kind"], "type": "object", "title": "Cat"}},
            "properties": {
                "pet": {"oneOf": [{"$ref": "#/$defs/Cat"}], "discriminator": {"propertyName": "kind"}},
                "any": {},
                "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "tuple": {"items": [{"type": "string"}], "type": "array"},
                "deps": {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
            },
            "type": ["object"],
            "required": ["pet"]
        });
        assert_eq!(first(pydantic), None);
        assert_eq!(
            first(json!({"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}})),
            None
        );
        assert_eq!(first(json!(true)), None);
    }

    #[test]
    fn a_bad_value_is_named_by_its_pointer() {
        assert_eq!(
            first(json!({"properties": {"a": {"oneOf": 5}}})),
            Some((
                "/properties/a/oneOf".into(),
                "`oneOf` must be a non-empty array of schemas".into()
            ))
        );
        assert_eq!(
            first(json!({"properties": {"a/b": "string"}})).map(|f| f.0),
            Some("/properties".into())
        );
        assert_eq!(
            first(json!({"items": [{"required": "a"}]})).map(|f| f.0),
            Some("/items/0/required".into())
        );
        assert_eq!(
            first(json!({"anyOf": []})).map(|f| f.0),
            Some("/anyOf".into())
        );
        assert_eq!(
            first(json!({"type": "objekt"})).map(|f| f.0),
            Some("/type".into())
        );
        assert_eq!(
            first(json!({"properties": {"x": {"$ref": 5}}})).map(|f| f.0),
            Some("/properties/x/$ref".into())
        );
    }

    #[test]
    fn the_first_in_document_order_is_named_and_the_others_counted() {
        let m = first_malformed(&json!({
            "properties": {"a": {"enum": 1}, "b": {"not": 2}},
            "required": 3
        }))
        .expect("malformed");
        assert_eq!(m.pointer, "/properties/a/enum");
        assert_eq!(m.more, 2);
        assert!(
            m.to_string()
                .ends_with("(2 more malformed value(s) after this one)")
        );
    }

    #[test]
    fn deep_documents_are_walked_without_recursion() {
        let mut schema = json!({"type": "object", "required": 7});
        for _ in 0..50_000 {
            // Not `json!`, which would serialize (recursively) what it is given.
            let mut properties = serde_json::Map::new();
            properties.insert("p".into(), schema);
            let mut parent = serde_json::Map::new();
            parent.insert("properties".into(), Value::Object(properties));
            schema = Value::Object(parent);
        }
        // On the test's own small stack: a recursive walk would overflow here.
        let m = first_malformed(&schema).expect("malformed");
        assert!(m.pointer.ends_with("/p/required"));
        assert_eq!(
            m.pointer.len(),
            "/properties/p".len() * 50_000 + "/required".len()
        );
        // serde_json's drop recurses: let go of the value on a thread with room for it.
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(move || drop(schema))
            .unwrap()
            .join()
            .unwrap();
    }
}
