//! OpenAPI 3.0 Schema Objects (Gemini `parameters`) checked with a JSON Schema validator.
//!
//! The validator knows nothing of `nullable`, and Gemini writes type names in upper case
//! (`STRING`), which a JSON Schema meta-schema rejects. The projection reads `nullable: true`
//! as "null is one more alternative" (SPEC rule 12; `schema::kinds::provable_kinds` adds the null
//! kind only beside `type`, which is also what OpenAPI 3.0.3 says). We give the validator a copy
//! that says the same thing in JSON Schema: `null` added to `type`. Only `type` values change, so
//! every pointer into the copy is a pointer into the document as written.

use serde_json::{Map, Value};

use crate::schema::walk::map_schemas;

/// The copy of an OpenAPI 3.0 schema that a JSON Schema validator reads as the projection does.
pub(crate) fn openapi30_for_validation(schema: &Value) -> Value {
    map_schemas(schema, &mut rewrite)
}

fn rewrite(node: &mut Map<String, Value>) {
    let nullable = node.get("nullable") == Some(&Value::Bool(true));
    let Some(ty) = node.get_mut("type") else {
        return;
    };
    let mut names: Vec<Value> = match ty {
        Value::String(name) => vec![Value::String(lower_type(name))],
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::String(name) => Value::String(lower_type(name)),
                other => other.clone(),
            })
            .collect(),
        _ => return,
    };
    let null = Value::String("null".to_owned());
    if nullable && !names.contains(&null) {
        names.push(null);
    }
    *ty = match <[Value; 1]>::try_from(names) {
        Ok([one]) => one,
        Err(many) => Value::Array(many),
    };
}

/// `STRING` → `string` for the seven type names only; anything else is left for the
/// validator to reject as the invalid schema it is.
fn lower_type(name: &str) -> String {
    const TYPES: [&str; 7] = [
        "object", "array", "string", "number", "integer", "boolean", "null",
    ];
    TYPES
        .iter()
        .find(|t| t.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |t| (*t).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nullable_adds_null_beside_type_only() {
        let s = json!({
            "type": "OBJECT",
            "properties": {
                "a": {"type": "STRING", "nullable": true, "description": "type"},
                "b": {"nullable": true, "enum": ["x"]},
                "c": {"type": ["integer"], "nullable": true},
                "d": {"type": "string", "nullable": false}
            }
        });
        assert_eq!(
            openapi30_for_validation(&s),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": ["string", "null"], "nullable": true, "description": "type"},
                    "b": {"nullable": true, "enum": ["x"]},
                    "c": {"type": ["integer", "null"], "nullable": true},
                    "d": {"type": "string", "nullable": false}
                }
            })
        );
    }

    #[test]
    fn unknown_type_names_are_left_alone() {
        let s = json!({"type": "Strung"});
        assert_eq!(openapi30_for_validation(&s), s);
    }
}
