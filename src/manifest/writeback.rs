//! Writing projected schemas back into the document they came from.

use super::formats::{empty_parameters, json_schema_key};
use super::{Manifest, ManifestFormat, Tool};
use crate::pointer;
use serde_json::Value;

pub(crate) fn with_schemas(manifest: &Manifest, replacements: &[(usize, Value)]) -> Value {
    with_schemas_moved(manifest, replacements.to_vec())
}

/// [`with_schemas`], moving the schemas into the document rather than copying them (a large
/// projection is many times its input).
pub(crate) fn with_schemas_moved(manifest: &Manifest, replacements: Vec<(usize, Value)>) -> Value {
    let mut document = Value::clone(&manifest.document);
    for (index, schema) in replacements {
        // An index that names no tool is a caller bug with nothing sensible to write; skipping it
        // keeps write-back total.
        if let Some(tool) = manifest.tools.get(index) {
            write_schema(&mut document, manifest.format, tool, schema);
        }
    }
    document
}

fn write_schema(document: &mut Value, format: ManifestFormat, tool: &Tool, schema: Value) {
    match &tool.schema_pointer {
        Some(pointer) => {
            if let Some(slot) = document.pointer_mut(pointer) {
                *slot = schema;
            }
        }
        // Leaving the stand-in empty schema out keeps a round trip byte-identical; anything else
        // (e.g. a strict projection adding `additionalProperties: false`) must be written.
        None if schema == empty_parameters() => {}
        None => insert_schema(document, format, tool, schema),
    }
}

/// Adds a schema to a tool that had none, at the end of the object that holds its fields.
fn insert_schema(document: &mut Value, format: ManifestFormat, tool: &Tool, schema: Value) {
    let Some((holder, key)) = insertion_point(document, format, tool) else {
        return;
    };
    if let Some(Value::Object(holder)) = document.pointer_mut(&holder) {
        holder.insert(key.to_owned(), schema);
    }
}

/// The pointer of the object that gets the schema, and the key to put it under.
pub(super) fn insertion_point(
    document: &Value,
    format: ManifestFormat,
    tool: &Tool,
) -> Option<(String, &'static str)> {
    match format {
        ManifestFormat::OpenAi => {
            // Chat Completions keeps `parameters` inside `function`; the Responses form is flat.
            let entry = document.pointer(&tool.tool_pointer)?;
            let holder = if entry.get("function").is_some_and(Value::is_object) {
                pointer::push(&tool.tool_pointer, "function")
            } else {
                tool.tool_pointer.clone()
            };
            Some((holder, "parameters"))
        }
        // The stand-in schema is JSON Schema, so it goes where Gemini reads JSON Schema.
        ManifestFormat::Gemini => Some((
            tool.tool_pointer.clone(),
            json_schema_key(&tool.tool_pointer),
        )),
        // These formats always have a schema pointer.
        ManifestFormat::BareSchema | ManifestFormat::Mcp | ManifestFormat::Anthropic => None,
    }
}

/// Sets the `strict` flag of the tool entry at `tool_pointer` (Anthropic and OpenAI tools carry
/// one), as a request plan decided: `true` is written; `false` only where the entry had the key,
/// since an absent flag already means non-strict and a round trip should not grow one.
pub fn write_strict(document: &mut Value, tool_pointer: &str, strict: bool) {
    let Some(Value::Object(entry)) = document.pointer_mut(tool_pointer) else {
        return;
    };
    if strict || entry.contains_key("strict") {
        entry.insert("strict".to_owned(), Value::Bool(strict));
    }
}
