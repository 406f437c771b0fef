//! Readers for each manifest format. Each takes the whole document and returns its tools, or the
//! pointer where the document stopped fitting the format.

mod anthropic;
mod bare;
mod gemini;
mod mcp;
mod openai;

use super::Tool;
use super::error::ShapeError;
use super::format::{ManifestFormat, SchemaDialect};
use super::node::Node;
use serde_json::{Value, json};
use std::sync::Arc;

pub(crate) use anthropic::is_server_tool_type;
pub(crate) use gemini::{DECLARATIONS_KEYS, is_builtin_tool, json_schema_key};

pub(crate) fn read_tools(
    format: ManifestFormat,
    document: &Value,
    origin: &str,
) -> Result<Vec<Tool>, ShapeError> {
    let root = Node::root(document);
    match format {
        ManifestFormat::BareSchema => bare::read(&root, origin),
        ManifestFormat::Mcp => mcp::read(&root),
        ManifestFormat::OpenAi => openai::read(&root),
        ManifestFormat::Anthropic => anthropic::read(&root),
        ManifestFormat::Gemini => gemini::read(&root),
    }
}

/// The parameter schema of a tool that declares none: OpenAI documents a missing `parameters` as
/// "an empty parameter list".
pub fn empty_parameters() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The tool entries of a list-shaped manifest: a bare array, or an object with a `tools` array
/// (a tools file, or a whole request body).
fn tool_list<'a>(root: &Node<'a>, format: ManifestFormat) -> Result<Vec<Node<'a>>, ShapeError> {
    let expected = format!(
        "{} (a list of tools, or an object with a \"tools\" list)",
        format.describe()
    );
    let list = match root.value {
        Value::Array(_) => root.clone(),
        Value::Object(_) => root.get("tools").ok_or_else(|| root.mismatch(&expected))?,
        _ => return Err(root.mismatch(&expected)),
    };
    list.elements("a list of tools")
}

/// Reads the entries of a list, dropping the ones the format skips (built-in tools).
fn read_entries<'a>(
    entries: &[Node<'a>],
    read_entry: impl Fn(&Node<'a>) -> Result<Option<Tool>, ShapeError>,
) -> Result<Vec<Tool>, ShapeError> {
    let mut tools = Vec::with_capacity(entries.len());
    for entry in entries {
        tools.extend(read_entry(entry)?);
    }
    Ok(tools)
}

/// Where a tool's fields live: the entry itself, or a nested object (OpenAI Chat Completions'
/// `function`), which is where name and description errors must point.
struct ToolSource<'n, 'a> {
    entry: &'n Node<'a>,
    fields: &'n Node<'a>,
    schema: Option<Node<'a>>,
    dialect: SchemaDialect,
}

fn build_tool(source: ToolSource<'_, '_>) -> Result<Tool, ShapeError> {
    let ToolSource {
        entry,
        fields,
        schema,
        dialect,
    } = source;
    let name = fields.required_str("name")?;
    let description = fields.optional_str("description")?;
    let strict = fields.optional_bool("strict")?;
    // The schema itself is filled in by the loader, which decides whether to copy it out of
    // the document or move it.
    let (schema, schema_pointer) = match schema {
        Some(node) => {
            check_schema(&node, dialect)?;
            (Default::default(), Some(node.pointer))
        }
        None => (Arc::new(empty_parameters()), None),
    };
    Ok(Tool {
        name,
        description,
        schema,
        schema_pointer,
        tool_pointer: entry.pointer.clone(),
        dialect,
        output_schema_pointer: None,
        strict,
    })
}

/// A JSON Schema `type` name; case is ignored because OpenAPI dialects write `OBJECT`.
pub(crate) fn is_schema_type_name(name: &str) -> bool {
    const TYPES: [&str; 7] = [
        "object", "array", "string", "number", "integer", "boolean", "null",
    ];
    TYPES.iter().any(|t| t.eq_ignore_ascii_case(name))
}

fn check_schema(node: &Node<'_>, dialect: SchemaDialect) -> Result<(), ShapeError> {
    match (dialect, node.value) {
        // `true`/`false` are complete JSON Schemas; OpenAPI 3.0 has no boolean schemas.
        (_, Value::Object(_)) | (SchemaDialect::JsonSchema, Value::Bool(_)) => Ok(()),
        (SchemaDialect::JsonSchema, _) => Err(node.mismatch("an object or boolean schema")),
        (SchemaDialect::OpenApi30, _) => {
            Err(node.mismatch("an object schema (OpenAPI 3.0 has no boolean schemas)"))
        }
    }
}

#[cfg(test)]
mod tests;
