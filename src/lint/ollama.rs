//! What an Ollama model is shown of a tool's parameters.
//!
//! Ollama decodes `tools` into Go structs (`api/types.go`, summarised in the research notes) and
//! renders the model's prompt from those structs, so a keyword without a struct field never
//! reaches the model, and a value of the wrong JSON kind fails the whole request. The structs are
//! written out below as data; decoding follows Go `encoding/json`: unknown keys are skipped,
//! keys match fields case-insensitively (an exact match wins), `null` leaves a field empty, and
//! `any` fields keep their value verbatim (so everything under `items` and root `$defs` survives).

use serde::Serialize;
use serde_json::{Map, Value};

use super::rule::DropClass;
use crate::pointer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoType {
    /// `string`
    Str,
    /// `PropertyType`: a string or an array of strings.
    PropertyType,
    /// `[]string`
    Strings,
    /// `any`: kept as given.
    Any,
    /// `[]any`
    AnyList,
    /// `*ToolPropertiesMap`: an ordered map of `ToolProperty`.
    Properties,
    /// `[]ToolProperty`
    PropertyList,
}

impl GoType {
    fn go_name(self) -> &'static str {
        match self {
            GoType::Str => "string",
            GoType::PropertyType => "api.PropertyType",
            GoType::Strings => "[]string",
            GoType::Any => "interface {}",
            GoType::AnyList => "[]interface {}",
            GoType::Properties => "map[string]api.ToolProperty",
            GoType::PropertyList => "[]api.ToolProperty",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct GoField {
    json: &'static str,
    ty: GoType,
    omitempty: bool,
}

#[derive(Debug)]
struct GoStruct {
    name: &'static str,
    fields: &'static [GoField],
}

const fn field(json: &'static str, ty: GoType, omitempty: bool) -> GoField {
    GoField {
        json,
        ty,
        omitempty,
    }
}

/// `ToolFunctionParameters`, the root of a tool's parameters.
static PARAMETERS: GoStruct = GoStruct {
    name: "ToolFunctionParameters",
    fields: &[
        field("type", GoType::Str, false),
        field("$defs", GoType::Any, true),
        field("items", GoType::Any, true),
        field("required", GoType::Strings, true),
        field("properties", GoType::Properties, false),
    ],
};

/// `ToolProperty`, every property below the root.
static PROPERTY: GoStruct = GoStruct {
    name: "ToolProperty",
    fields: &[
        field("anyOf", GoType::PropertyList, true),
        field("type", GoType::PropertyType, true),
        field("items", GoType::Any, true),
        field("description", GoType::Str, true),
        field("enum", GoType::AnyList, true),
        field("properties", GoType::Properties, true),
        field("required", GoType::Strings, true),
    ],
};

/// The Go path of `parameters` inside a chat request, as the decoder names it in errors.
const PARAMETERS_PATH: &str = "tools.function.parameters";

/// A keyword the structs have no field for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// The schema that had the keyword.
    pub pointer: String,
    pub keyword: String,
    pub class: DropClass,
}

/// A value the Go decoder rejects; the whole request fails with `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GoError {
    /// Where the offending value is (a schema, or a keyword's value).
    pub pointer: String,
    pub message: String,
}

/// The "what the model sees" view of one parameter schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OllamaView {
    /// The parameters as Ollama serialises them again for the prompt: struct field order, empty
    /// `omitempty` fields left out. Best effort when `rejected`.
    pub sees: Value,
    pub dropped: Vec<Dropped>,
    pub errors: Vec<GoError>,
    /// The request would fail to decode: the model sees nothing at all.
    pub rejected: bool,
}

/// Decodes `schema` as Ollama's `parameters`.
pub fn view(schema: &Value) -> OllamaView {
    let mut decoder = Decoder::default();
    let sees = decoder
        .decode_struct(&PARAMETERS, schema, "", "ToolFunction", PARAMETERS_PATH)
        .unwrap_or(Value::Null);
    OllamaView {
        sees,
        rejected: !decoder.errors.is_empty(),
        dropped: decoder.dropped,
        errors: decoder.errors,
    }
}

#[derive(Default)]
struct Decoder {
    dropped: Vec<Dropped>,
    errors: Vec<GoError>,
}

/// The JSON kind as Go's decoder names it in `cannot unmarshal <kind>`.
pub(crate) fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl Decoder {
    fn type_error(&mut self, at: &str, value: &Value, owner: &str, path: &str, go_type: &str) {
        self.errors.push(GoError {
            pointer: at.to_owned(),
            message: format!(
                "json: cannot unmarshal {} into Go struct field {owner}.{path} of type {go_type}",
                go_kind(value)
            ),
        });
    }

    /// Decodes one struct; `owner` is the Go struct holding it (named in errors), `path` its Go
    /// field path. `None` when the value is not an object.
    fn decode_struct(
        &mut self,
        st: &GoStruct,
        value: &Value,
        at: &str,
        owner: &str,
        path: &str,
    ) -> Option<Value> {
        let empty = Map::new();
        let map = match value {
            Value::Object(map) => map,
            Value::Null => &empty,
            other => {
                self.type_error(at, other, owner, path, &format!("api.{}", st.name));
                return None;
            }
        };
        let mut slots: Vec<Option<Value>> = vec![None; st.fields.len()];
        for (key, v) in map {
            let Some(i) = match_field(st, key) else {
                self.dropped.push(Dropped {
                    pointer: at.to_owned(),
                    keyword: key.clone(),
                    class: classify(key, v, st.name == PARAMETERS.name),
                });
                continue;
            };
            let f = st.fields[i];
            let here = pointer::push(at, key);
            let field_path = format!("{path}.{}", f.json);
            slots[i] = self.decode_field(f.ty, v, &here, st.name, &field_path);
        }
        let mut out = Map::new();
        for (f, slot) in st.fields.iter().zip(slots) {
            match slot {
                Some(v) if !(f.omitempty && is_empty(&v)) => {
                    out.insert(f.json.to_owned(), v);
                }
                None if !f.omitempty => {
                    let zero = match f.ty {
                        GoType::Str => Value::String(String::new()),
                        _ => Value::Null,
                    };
                    out.insert(f.json.to_owned(), zero);
                }
                _ => {}
            }
        }
        Some(Value::Object(out))
    }

    fn decode_field(
        &mut self,
        ty: GoType,
        value: &Value,
        at: &str,
        owner: &str,
        path: &str,
    ) -> Option<Value> {
        if value.is_null() {
            return None;
        }
        match (ty, value) {
            (GoType::Any, v) => Some(v.clone()),
            (GoType::Str, Value::String(_)) | (GoType::PropertyType, Value::String(_)) => {
                Some(value.clone())
            }
            (GoType::Strings | GoType::PropertyType, Value::Array(items)) => {
                match items.iter().enumerate().find(|(_, v)| !v.is_string()) {
                    // PropertyType decodes through its own UnmarshalJSON, which reports the
                    // inner failure without a field path.
                    Some((i, bad)) if ty == GoType::PropertyType => {
                        self.errors.push(GoError {
                            pointer: pointer::push_index(at, i),
                            message: format!(
                                "json: cannot unmarshal {} into Go value of type string",
                                go_kind(bad)
                            ),
                        });
                        None
                    }
                    Some((i, bad)) => {
                        self.type_error(&pointer::push_index(at, i), bad, owner, path, "string");
                        None
                    }
                    None => Some(value.clone()),
                }
            }
            (GoType::PropertyType, other) => {
                self.errors.push(GoError {
                    pointer: at.to_owned(),
                    message: format!(
                        "json: cannot unmarshal {} into Go value of type []string",
                        go_kind(other)
                    ),
                });
                None
            }
            (GoType::AnyList, Value::Array(_)) => Some(value.clone()),
            (GoType::Properties, Value::Object(entries)) => {
                let mut out = Map::new();
                for (name, schema) in entries {
                    let here = pointer::push(at, name);
                    if let Some(v) = self.decode_struct(&PROPERTY, schema, &here, owner, path) {
                        out.insert(name.clone(), v);
                    }
                }
                Some(Value::Object(out))
            }
            (GoType::PropertyList, Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, schema) in items.iter().enumerate() {
                    let here = pointer::push_index(at, i);
                    if let Some(v) = self.decode_struct(&PROPERTY, schema, &here, owner, path) {
                        out.push(v);
                    }
                }
                Some(Value::Array(out))
            }
            (ty, other) => {
                self.type_error(at, other, owner, path, ty.go_name());
                None
            }
        }
    }
}

/// Go's rule: an exact name wins, otherwise the first case-insensitive match.
fn match_field(st: &GoStruct, key: &str) -> Option<usize> {
    st.fields.iter().position(|f| f.json == key).or_else(|| {
        st.fields
            .iter()
            .position(|f| f.json.eq_ignore_ascii_case(key))
    })
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// Keywords whose loss leaves the model unable to tell which shapes or values are valid.
const STRUCTURE: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "oneOf",
    "allOf",
    "anyOf",
    "const",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "prefixItems",
    "patternProperties",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords nothing valid depends on.
const ANNOTATION: &[&str] = &[
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "discriminator",
    "contentMediaType",
    "contentEncoding",
    "propertyOrdering",
    "$defs",
];

fn classify(key: &str, value: &Value, at_root: bool) -> DropClass {
    if key == "additionalProperties" && accepts_any_value(value) {
        // `{}` or `true` lets every other key hold anything, which an object schema without
        // the keyword already says: the model loses nothing it could use.
        DropClass::Annotation
    } else if key == "additionalProperties" && value.is_object() {
        // A map's value schema: the model no longer knows what the entries look like.
        DropClass::Structure
    } else if STRUCTURE.contains(&key) {
        DropClass::Structure
    } else if ANNOTATION.contains(&key)
        || key.starts_with("x-")
        || (at_root && key == "description")
    {
        DropClass::Annotation
    } else {
        DropClass::Constraint
    }
}

/// A schema every value passes: `true`, or an object of annotations only (`{}`,
/// `{"description": …}`).
fn accepts_any_value(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m
            .keys()
            .all(|k| k == "description" || ANNOTATION.contains(&k.as_str())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_struct_fields_in_go_order_and_drops_the_rest() {
        let v = view(&json!({
            "title": "T",
            "properties": {
                "a": {"description": "d", "type": "string", "format": "email", "const": "x"},
                "b": {"type": "array", "items": {"oneOf": [{"const": 1}]}}
            },
            "type": "object",
            "required": ["a"]
        }));
        assert_eq!(
            v.sees,
            json!({
                "type": "object",
                "required": ["a"],
                "properties": {
                    "a": {"type": "string", "description": "d"},
                    "b": {"type": "array", "items": {"oneOf": [{"const": 1}]}}
                }
            })
        );
        let dropped: Vec<(&str, &str, DropClass)> = v
            .dropped
            .iter()
            .map(|d| (d.pointer.as_str(), d.keyword.as_str(), d.class))
            .collect();
        assert_eq!(
            dropped,
            vec![
                ("", "title", DropClass::Annotation),
                ("/properties/a", "format", DropClass::Constraint),
                ("/properties/a", "const", DropClass::Structure),
            ]
        );
        assert!(!v.rejected);
    }

    #[test]
    fn go_decode_errors_use_the_decoder_wording() {
        let v =
            view(&json!({"type": "object", "properties": {"a": "string"}, "required": {"a": 1}}));
        let messages: Vec<&str> = v.errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            vec![
                "json: cannot unmarshal string into Go struct field ToolFunctionParameters.tools.function.parameters.properties of type api.ToolProperty",
                "json: cannot unmarshal object into Go struct field ToolFunctionParameters.tools.function.parameters.required of type []string",
            ]
        );
        assert!(v.rejected);
    }

    #[test]
    fn root_missing_fields_serialise_as_go_zero_values() {
        let v = view(&json!({"description": "x"}));
        assert_eq!(v.sees, json!({"type": "", "properties": null}));
    }

    /// A free-form map (`additionalProperties: {}`, as Zod writes `z.record(z.any())`) means
    /// what `type: object` alone means; only a value schema that limits the values is
    /// structure the model loses.
    #[test]
    fn an_open_maps_value_schema_is_no_structure_lost() {
        let classes = |extra: Value| -> Vec<DropClass> {
            view(&json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": extra}}}))
                .dropped
                .iter()
                .map(|d| d.class)
                .collect()
        };
        assert_eq!(classes(json!({})), vec![DropClass::Annotation]);
        assert_eq!(classes(json!(true)), vec![DropClass::Annotation]);
        assert_eq!(
            classes(json!({"description": "any value"})),
            vec![DropClass::Annotation]
        );
        assert_eq!(classes(json!(false)), vec![DropClass::Constraint]);
        assert_eq!(
            classes(json!({"type": "string"})),
            vec![DropClass::Structure]
        );
    }

    #[test]
    fn field_names_match_case_insensitively() {
        let v = view(&json!({"Type": "object", "properties": {}}));
        assert_eq!(v.sees, json!({"type": "object", "properties": {}}));
        assert!(v.dropped.is_empty());
    }
}
