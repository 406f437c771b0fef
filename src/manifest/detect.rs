//! Guessing the manifest format from the document's shape.
//!
//! Rules, in order:
//! - an array is a tool list, judged by its entries (see [`entry_hint`]); a list whose entries say
//!   nothing (`[]`, or only broken entries) is OpenAI;
//! - an object with `jsonrpc` or a `result` holding `tools` is an MCP JSON-RPC response;
//! - an object with `functionDeclarations` is one Gemini tool object;
//! - an object with a `tools` array is a tool list (a tools file or a whole request body), unless
//!   the object itself is clearly a schema; one whose entries say nothing is MCP;
//! - any other object that looks like a JSON Schema, and `true`/`false`, is a bare schema.
//!
//! A schema with a *property* named `tools` keeps it under `properties`, so it never reaches the
//! `tools` rule.

use super::error::ShapeError;
use super::format::ManifestFormat;
use super::formats::{
    DECLARATIONS_KEYS, is_builtin_tool, is_schema_type_name, is_server_tool_type,
};
use super::node::{Node, found};
use crate::pointer;
use serde_json::{Map, Value};

pub(crate) fn detect(document: &Value) -> Result<ManifestFormat, ShapeError> {
    let root = Node::root(document);
    match document {
        Value::Array(entries) => detect_list(&root, entries, ManifestFormat::OpenAi),
        Value::Object(map) => detect_object(&root, map),
        Value::Bool(_) => Ok(ManifestFormat::BareSchema),
        _ => Err(unknown_shape(&root)),
    }
}

fn detect_object(root: &Node<'_>, map: &Map<String, Value>) -> Result<ManifestFormat, ShapeError> {
    if is_json_rpc(map) {
        return Ok(ManifestFormat::Mcp);
    }
    if DECLARATIONS_KEYS.iter().any(|key| map.contains_key(*key)) {
        return Ok(ManifestFormat::Gemini);
    }
    if let Some(tools) = root.get("tools").filter(|_| !is_schema_root(map)) {
        let entries = tools
            .value
            .as_array()
            .ok_or_else(|| tools.mismatch("\"tools\" to be a list of tools"))?;
        return detect_list(&tools, entries, ManifestFormat::Mcp);
    }
    if looks_like_schema(map) {
        return Ok(ManifestFormat::BareSchema);
    }
    Err(unknown_shape(root))
}

fn is_json_rpc(map: &Map<String, Value>) -> bool {
    let result_has_tools = map
        .get("result")
        .and_then(Value::as_object)
        .is_some_and(|result| result.contains_key("tools"));
    map.contains_key("jsonrpc") || result_has_tools
}

/// What one list entry says about the list's format. Entries that only name a built-in tool are
/// weak evidence: both OpenAI and Anthropic lists may hold them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    Strong(ManifestFormat),
    Weak(ManifestFormat),
    Unknown,
}

fn entry_hint(entry: &Value) -> Hint {
    let Some(map) = entry.as_object() else {
        return Hint::Unknown;
    };
    if DECLARATIONS_KEYS.iter().any(|key| map.contains_key(*key)) {
        return Hint::Strong(ManifestFormat::Gemini);
    }
    if map.contains_key("inputSchema") {
        return Hint::Strong(ManifestFormat::Mcp);
    }
    if map.contains_key("input_schema") {
        return Hint::Strong(ManifestFormat::Anthropic);
    }
    match map.get("type").and_then(Value::as_str) {
        Some("function") => Hint::Strong(ManifestFormat::OpenAi),
        // A list of schemas is not a list of built-in tools.
        Some(kind) if is_schema_type_name(kind) => Hint::Unknown,
        Some(kind) if is_server_tool_type(kind) => Hint::Weak(ManifestFormat::Anthropic),
        Some(_) => Hint::Weak(ManifestFormat::OpenAi),
        None if is_builtin_tool(map) => Hint::Weak(ManifestFormat::Gemini),
        None => Hint::Unknown,
    }
}

fn detect_list(
    list: &Node<'_>,
    entries: &[Value],
    fallback: ManifestFormat,
) -> Result<ManifestFormat, ShapeError> {
    let mut strong: Option<(usize, ManifestFormat)> = None;
    let mut weak = None;
    for (index, entry) in entries.iter().enumerate() {
        match entry_hint(entry) {
            Hint::Strong(format) => match strong {
                None => strong = Some((index, format)),
                Some((first, seen)) if seen != format => {
                    return Err(mixed_formats(list, (first, seen), (index, format)));
                }
                Some(_) => {}
            },
            Hint::Weak(format) => weak = weak.or(Some(format)),
            Hint::Unknown => {}
        }
    }
    match (strong, weak) {
        (Some((_, format)), _) | (None, Some(format)) => Ok(format),
        // The fallback's reader then names the entry that does not fit and what it lacks, which
        // says more than "unknown tool list" would.
        (None, None) => Ok(fallback),
    }
}

fn mixed_formats(
    list: &Node<'_>,
    (first, first_format): (usize, ManifestFormat),
    (index, format): (usize, ManifestFormat),
) -> ShapeError {
    ShapeError::new(
        pointer::push_index(&list.pointer, index),
        format!(
            "mixed tool formats: entry {first} is {}, this entry is {} (pass --input-format to \
             choose one)",
            first_format.label(),
            format.label()
        ),
    )
}

/// Keys that only a schema root has, and that outweigh a stray `tools` member.
fn is_schema_root(map: &Map<String, Value>) -> bool {
    ["$schema", "properties"]
        .iter()
        .any(|key| map.contains_key(*key))
        || map.get("type").is_some_and(is_schema_type)
}

/// Keywords that make an object a schema. Pure annotations (`title`, `description`) are left
/// out: on their own they would make almost any object a "schema".
const SCHEMA_KEYWORDS: [&str; 35] = [
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "definitions",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "contains",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "nullable",
];

fn looks_like_schema(map: &Map<String, Value>) -> bool {
    map.is_empty()
        || map.get("type").is_some_and(is_schema_type)
        || SCHEMA_KEYWORDS.iter().any(|key| map.contains_key(*key))
}

/// `"type": "function"` (a lone OpenAI tool) must not pass for a schema, so the value is checked.
fn is_schema_type(value: &Value) -> bool {
    let known = |name: &Value| name.as_str().is_some_and(is_schema_type_name);
    match value {
        Value::Array(names) => !names.is_empty() && names.iter().all(known),
        name => known(name),
    }
}

fn unknown_shape(root: &Node<'_>) -> ShapeError {
    let mut message = format!(
        "unknown manifest shape: found {} (expected a JSON Schema, a list of tools, an object \
         with a \"tools\" list, or Gemini \"functionDeclarations\")",
        found(root.value)
    );
    if looks_like_single_tool(root.value) {
        message.push_str("; this looks like a single tool: put it in a list, [ … ]");
    }
    root.error(message)
}

fn looks_like_single_tool(value: &Value) -> bool {
    const SCHEMA_HOLDERS: [&str; 5] = [
        "function",
        "parameters",
        "parametersJsonSchema",
        "input_schema",
        "inputSchema",
    ];
    value.as_object().is_some_and(|map| {
        (map.contains_key("name") || map.contains_key("function"))
            && SCHEMA_HOLDERS.iter().any(|key| map.contains_key(*key))
    })
}

#[cfg(test)]
mod tests;
