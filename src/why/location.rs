//! Reading the schema locations providers print, and finding them in a schema.
//!
//! Each provider addresses a node its own way: OpenAI a Python tuple of pointer tokens
//! (`context=('properties', 'op')`) or a JSON path; Gemini the proto path of the request it
//! decoded, where map entries are numbered in the order it received them
//! (`properties[8].value`), so a path means something only against the schema that was sent;
//! Vertex the property names alone; Anthropic a dotted path after `input_schema`; Ollama the Go
//! struct fields its decoder was filling, which name no property at all. A [`Path`] is what was
//! read; [`Path::resolve`] finds what it names in one schema.

use serde::Serialize;
use serde_json::Value;

use crate::lint::ollama::go_kind;
use crate::pointer;
use crate::schema::children;

/// How a message names its tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum ToolRef {
    Name {
        name: String,
    },
    /// Position in the request's tool list (OpenAI `tools[i]`, Anthropic `tools.i`, Bedrock).
    Index {
        index: usize,
    },
    /// Gemini `tools[i].function_declarations[j]`.
    Declaration {
        toolset: usize,
        declaration: usize,
    },
}

/// A schema location as a provider wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "syntax", rename_all = "kebab-case")]
pub enum Path {
    /// RFC 6901 tokens from the parameter schema's root (OpenAI tuples and JSON paths,
    /// Anthropic dotted paths).
    Tokens { tokens: Vec<String> },
    /// Gemini's proto path below `parameters`.
    Proto { steps: Vec<ProtoStep> },
    /// Vertex's property names below `parameters`.
    Properties { names: Vec<String> },
    /// Ollama's Go field path below `tools.function.parameters`, with the JSON kind the decoder
    /// met and the Go type it wanted.
    Go {
        fields: Vec<String>,
        kind: String,
        go_type: String,
    },
}

/// One `field[index]` step of a proto path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtoStep {
    pub field: String,
    pub index: Option<usize>,
}

/// `('properties', 'op', 'anyOf', 0)` → its tokens; `None` when it is not a tuple literal.
pub fn py_tuple(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut tokens = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        if c == '\'' || c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next()? {
                    '\\' => s.push(chars.next()?),
                    q if q == c => break,
                    other => s.push(other),
                }
            }
            tokens.push(s);
        } else {
            let s: String = chars
                .by_ref()
                .take_while(|c| *c != ',')
                .collect::<String>()
                .trim()
                .to_owned();
            if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            tokens.push(s);
        }
    }
    Some(tokens)
}

/// `$.properties.fileKey['a b'][0]` → its tokens.
pub fn json_path(text: &str) -> Option<Vec<String>> {
    let mut rest = text.strip_prefix('$')?;
    let mut tokens = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            tokens.push(after[..end].to_owned());
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let inner = &after[..close];
            let token = match inner.chars().next() {
                Some(q @ ('\'' | '"')) => inner.strip_prefix(q)?.strip_suffix(q)?.to_owned(),
                _ => inner.to_owned(),
            };
            tokens.push(token);
            rest = &after[close + 1..];
        } else {
            return None;
        }
    }
    Some(tokens)
}

/// A Gemini proto path, with or without the request prefix
/// (`GenerateContentRequest.tools[0].function_declarations[5].parameters.…`). The tool is
/// returned when the path names it.
pub fn proto_path(text: &str) -> Option<(Option<ToolRef>, Vec<ProtoStep>)> {
    let mut steps = Vec::new();
    for part in text.trim_matches('.').split('.') {
        if part.is_empty() {
            continue;
        }
        let (field, index) = match part.split_once('[') {
            Some((field, rest)) => (field, Some(rest.strip_suffix(']')?.parse().ok()?)),
            None => (part, None),
        };
        steps.push(ProtoStep {
            field: field.to_owned(),
            index,
        });
    }
    let mut tool = None;
    let mut start = 0;
    if let Some(i) = steps.iter().position(|s| s.field == "parameters") {
        let before = &steps[..i];
        let toolset = before
            .iter()
            .find(|s| s.field == "tools")
            .and_then(|s| s.index);
        let declaration = before
            .iter()
            .find(|s| {
                matches!(
                    s.field.as_str(),
                    "function_declarations" | "functionDeclarations"
                )
            })
            .and_then(|s| s.index);
        if let Some(declaration) = declaration {
            tool = Some(ToolRef::Declaration {
                toolset: toolset.unwrap_or(0),
                declaration,
            });
        }
        start = i + 1;
    }
    Some((tool, steps.split_off(start)))
}

/// Vertex's `parameters.data.meta.width` → the property names.
pub fn dotted_names(text: &str) -> Vec<String> {
    let text = text.strip_prefix("parameters").unwrap_or(text);
    text.split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Ollama's `ToolFunctionParameters.tools.function.parameters.properties.type` → the fields
/// below `parameters`; `None` when the path is not below a tool's parameters.
pub fn go_fields(text: &str) -> Option<Vec<String>> {
    const PARAMETERS: &str = "tools.function.parameters";
    let at = text.find(PARAMETERS)?;
    Some(
        text[at + PARAMETERS.len()..]
            .split('.')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

/// `input_schema.properties.a.0` style: dotted tokens, as pydantic writes error locations.
pub fn dotted_tokens(text: &str) -> Vec<String> {
    text.split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Deepest nesting followed when searching for property names (Vertex paths).
const MAX_SEARCH_DEPTH: usize = 64;

impl Path {
    /// The places in `schema` this path names: pointers to a schema, or into a keyword's
    /// value. Several only for Go paths, which do not name properties; empty when the path
    /// does not exist in this schema.
    pub fn resolve(&self, schema: &Value) -> Vec<String> {
        match self {
            Path::Tokens { tokens } => {
                let at = pointer::join("", tokens.iter().map(String::as_str));
                if schema.pointer(&at).is_some() {
                    vec![at]
                } else {
                    Vec::new()
                }
            }
            Path::Proto { steps } => proto_resolve(schema, steps).into_iter().collect(),
            Path::Properties { names } => properties_resolve(schema, names).into_iter().collect(),
            Path::Go {
                fields,
                kind,
                go_type,
            } => go_resolve(schema, fields, kind, go_type),
        }
    }
}

/// Proto field names are snake_case; the schema's keys are camelCase, `$`-prefixed for `ref`
/// and `defs`.
fn json_keys(field: &str) -> [String; 3] {
    let mut camel = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            camel.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            camel.push(c);
        }
    }
    [field.to_owned(), format!("${camel}"), camel]
}

fn proto_resolve(schema: &Value, steps: &[ProtoStep]) -> Option<String> {
    let mut at = String::new();
    let mut node = schema;
    let mut i = 0;
    while i < steps.len() {
        let step = &steps[i];
        let (key, value) = json_keys(&step.field)
            .into_iter()
            .find_map(|k| node.get(&k).map(|v| (k, v)))
            .or_else(|| {
                // The last step may be the offending keyword itself (`…enum`), or a field the
                // provider has and the schema lacks (`…properties` "should be non-empty").
                (i + 1 == steps.len() && step.index.is_none())
                    .then(|| (json_keys(&step.field)[2].clone(), &Value::Null))
            })?;
        match (value, step.index) {
            (Value::Object(map), Some(n)) => {
                let (name, entry) = map.iter().nth(n)?;
                at = pointer::join(&at, [key.as_str(), name.as_str()]);
                node = entry;
                // `properties[8].value` is the schema, `.key` the name itself.
                if steps.get(i + 1).is_some_and(|s| s.field == "value") {
                    i += 1;
                }
            }
            (Value::Array(items), Some(n)) => {
                node = items.get(n)?;
                at = pointer::push_index(&pointer::push(&at, &key), n);
            }
            (_, Some(_)) => return None,
            (value, None) => {
                at = pointer::push(&at, &key);
                node = value;
            }
        }
        i += 1;
    }
    Some(at)
}

/// The first schema reached by following `names`: each is a property name, searched through
/// the keywords that keep the same instance or an element of it (Vertex prints no `items` or
/// `anyOf` steps), or, when no such property exists, a schema keyword followed by its key or
/// index (`items`, `anyOf.0`, `$defs.Name`), as some clients print them.
fn properties_resolve(schema: &Value, names: &[String]) -> Option<String> {
    let mut at = String::new();
    let mut node = schema;
    let mut i = 0;
    while i < names.len() {
        let name = &names[i];
        if let Some((here, found)) = find_property(&at, node, name) {
            at = here;
            node = found;
            i += 1;
            continue;
        }
        let child = children(node).into_iter().find(|c| {
            let step = c.tokens();
            names[i..].starts_with(&step)
        })?;
        i += child.tokens().len();
        at = child.pointer_from(&at);
        node = child.schema;
    }
    Some(at)
}

/// The property `name` of `node`, or of the first schema below it (depth first, document
/// order) that keeps the same instance or holds an element of it.
fn find_property<'v>(at: &str, node: &'v Value, name: &str) -> Option<(String, &'v Value)> {
    let mut stack: Vec<(String, &Value, usize)> = vec![(at.to_owned(), node, 0)];
    while let Some((here, node, depth)) = stack.pop() {
        if let Some(found) = node.get("properties").and_then(|p| p.get(name)) {
            return Some((pointer::join(&here, ["properties", name]), found));
        }
        if depth >= MAX_SEARCH_DEPTH {
            continue;
        }
        for child in children(node).into_iter().rev() {
            if matches!(
                child.keyword.name,
                "properties" | "patternProperties" | "$defs" | "definitions"
            ) {
                continue;
            }
            stack.push((child.pointer_from(&here), child.schema, depth + 1));
        }
    }
    None
}

/// Every value the Go decoder fills through `fields` that has JSON kind `kind`. A field path
/// names struct fields only: `properties` is a map whose keys are skipped, `anyOf` a list whose
/// indexes are, so one path can stand for many places.
fn go_resolve(schema: &Value, fields: &[String], kind: &str, go_type: &str) -> Vec<String> {
    // The decoder failing on a map's element reports the map field with the element's type.
    let element_of_map = go_type.starts_with("api.") || go_type == "ToolProperty";
    let mut places: Vec<(String, &Value)> = vec![(String::new(), schema)];
    for (i, field) in fields.iter().enumerate() {
        let last = i + 1 == fields.len();
        let mut next = Vec::new();
        for (at, node) in places {
            let Some(value) = node.as_object().and_then(|m| {
                m.iter()
                    .find(|(k, _)| *k == field)
                    .or_else(|| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(field)))
            }) else {
                continue;
            };
            let here = pointer::push(&at, value.0);
            let value = value.1;
            let descend = !last || (element_of_map && field == "properties");
            match (field.as_str(), value) {
                ("properties", Value::Object(map)) if descend => {
                    next.extend(map.iter().map(|(k, v)| (pointer::push(&here, k), v)));
                }
                ("anyOf", Value::Array(items)) if !last => {
                    next.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(n, v)| (pointer::push_index(&here, n), v)),
                    );
                }
                _ => next.push((here, value)),
            }
        }
        places = next;
    }
    places
        .into_iter()
        .filter(|(_, v)| go_kind(v) == kind)
        .map(|(p, _)| p)
        .collect()
}

/// The schema holding `at` and the keyword `at` lies in, when `at` points into a keyword's
/// value rather than at a schema (`/properties/a/enum/1` → `/properties/a`, `enum`).
pub fn locate(schema: &Value, at: &str) -> (String, Option<String>) {
    let tokens = pointer::tokens(at).unwrap_or_default();
    let mut node = schema;
    let mut here = String::new();
    let mut i = 0;
    'descend: while i < tokens.len() {
        for child in children(node) {
            let step = child.tokens();
            if tokens[i..].starts_with(&step) {
                here = child.pointer_from(&here);
                node = child.schema;
                i += step.len();
                continue 'descend;
            }
        }
        return (here, Some(tokens[i].clone()));
    }
    (here, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_tuples_with_strings_and_ints() {
        assert_eq!(py_tuple("()"), Some(vec![]));
        assert_eq!(
            py_tuple("('properties', 'op', 'anyOf', 0)"),
            Some(vec![
                "properties".into(),
                "op".into(),
                "anyOf".into(),
                "0".into()
            ])
        );
        assert_eq!(py_tuple("('items',)"), Some(vec!["items".into()]));
        assert_eq!(
            py_tuple("(\"it's\", 'a\\'b')"),
            Some(vec!["it's".into(), "a'b".into()])
        );
        assert_eq!(py_tuple("(x)"), None);
    }

    #[test]
    fn json_paths_with_brackets() {
        assert_eq!(
            json_path("$.properties['a b'].anyOf[0]"),
            Some(vec![
                "properties".into(),
                "a b".into(),
                "anyOf".into(),
                "0".into()
            ])
        );
        assert_eq!(json_path("$"), Some(vec![]));
    }

    #[test]
    fn proto_paths_number_properties_in_the_order_received() {
        let schema = json!({"properties": {"a": {}, "b": {"anyOf": [{"const": 1}]}}});
        let (tool, steps) = proto_path(
            "tools[0].function_declarations[5].parameters.properties[1].value.any_of[0]",
        )
        .unwrap();
        assert_eq!(
            tool,
            Some(ToolRef::Declaration {
                toolset: 0,
                declaration: 5
            })
        );
        let path = Path::Proto { steps };
        assert_eq!(path.resolve(&schema), vec!["/properties/b/anyOf/0"]);
        // The same path read against a schema whose properties come in another order names
        // another node, or none.
        let reordered = json!({"properties": {"b": {"anyOf": [{"const": 1}]}, "a": {}}});
        assert!(path.resolve(&reordered).is_empty());
    }

    #[test]
    fn locate_splits_keyword_values_from_schemas() {
        let schema = json!({"properties": {"a": {"enum": [1, 2], "items": {"type": "x"}}}});
        assert_eq!(
            locate(&schema, "/properties/a/enum/1"),
            ("/properties/a".into(), Some("enum".into()))
        );
        assert_eq!(
            locate(&schema, "/properties/a/items"),
            ("/properties/a/items".into(), None)
        );
        assert_eq!(
            locate(&schema, "/required"),
            (String::new(), Some("required".into()))
        );
    }

    #[test]
    fn go_paths_stand_for_every_place_of_that_kind() {
        let schema = json!({"properties": {"a": {"type": ["string", "null"]}, "b": {"type": "string"}, "c": "oops"}});
        let path = Path::Go {
            fields: vec!["properties".into(), "type".into()],
            kind: "array".into(),
            go_type: "string".into(),
        };
        assert_eq!(path.resolve(&schema), vec!["/properties/a/type"]);
        let element = Path::Go {
            fields: vec!["properties".into()],
            kind: "string".into(),
            go_type: "api.ToolProperty".into(),
        };
        assert_eq!(element.resolve(&schema), vec!["/properties/c"]);
        let map = Path::Go {
            fields: vec!["properties".into()],
            kind: "array".into(),
            go_type: "map[string]api.ToolProperty".into(),
        };
        assert_eq!(map.resolve(&json!({"properties": []})), vec!["/properties"]);
    }

    #[test]
    fn vertex_names_reach_through_items_and_unions() {
        let schema = json!({"properties": {"data": {"type": "array", "items": {"anyOf": [{"properties": {"meta": {"properties": {"width": {}}}}}]}}}});
        let path = Path::Properties {
            names: dotted_names("parameters.data.meta.width"),
        };
        assert_eq!(
            path.resolve(&schema),
            vec!["/properties/data/items/anyOf/0/properties/meta/properties/width"]
        );
    }
}
