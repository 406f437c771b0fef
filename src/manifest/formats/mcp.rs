//! MCP `tools/list` results, bare or inside a JSON-RPC response.

use super::{
    Node, SchemaDialect, ShapeError, Tool, ToolSource, build_tool, check_schema, read_entries,
};
use crate::manifest::error::quote;
use serde_json::Value;

const EXPECTED: &str = "an MCP tools/list result (an object with a \"tools\" list)";

pub(super) fn read(root: &Node<'_>) -> Result<Vec<Tool>, ShapeError> {
    read_entries(&tool_entries(root)?, read_entry)
}

fn tool_entries<'a>(root: &Node<'a>) -> Result<Vec<Node<'a>>, ShapeError> {
    let result = match root.value {
        // A dump of `result.tools` alone is still recognisably MCP.
        Value::Array(_) => return root.elements("a list of tools"),
        Value::Object(map) if map.contains_key("jsonrpc") || map.contains_key("result") => {
            json_rpc_result(root)?
        }
        Value::Object(_) => root.clone(),
        _ => return Err(root.mismatch(EXPECTED)),
    };
    let tools = result
        .get("tools")
        .ok_or_else(|| result.mismatch(EXPECTED))?;
    tools.elements("a list of tools")
}

fn json_rpc_result<'a>(root: &Node<'a>) -> Result<Node<'a>, ShapeError> {
    if let Some(result) = root.get_set("result") {
        result.object(EXPECTED)?;
        return Ok(result);
    }
    match root.get_set("error") {
        Some(error) => Err(error.error(json_rpc_error_message(&error))),
        None => Err(root.error("missing \"result\" (expected a JSON-RPC response to tools/list)")),
    }
}

/// Says what the server said, since that is the real reason there are no tools.
fn json_rpc_error_message(error: &Node<'_>) -> String {
    let message = error.get_set("message").and_then(|node| node.str_value());
    let code = error.get_set("code").and_then(|node| node.value.as_i64());
    let mut text = "the JSON-RPC response is an error, not a tools/list result".to_owned();
    if let Some(message) = message {
        text = text + ": " + &quote(message);
    }
    if let Some(code) = code {
        text = text + " (code " + &code.to_string() + ")";
    }
    text
}

fn read_entry(entry: &Node<'_>) -> Result<Option<Tool>, ShapeError> {
    entry.object("a tool object")?;
    let schema = entry
        .get_set("inputSchema")
        .ok_or_else(|| entry.error("missing \"inputSchema\""))?;
    let mut tool = build_tool(ToolSource {
        entry,
        fields: entry,
        schema: Some(schema),
        dialect: SchemaDialect::JsonSchema,
    })?;
    if let Some(output) = entry.get_set("outputSchema") {
        check_schema(&output, SchemaDialect::JsonSchema)?;
        tool.output_schema_pointer = Some(output.pointer);
    }
    Ok(Some(tool))
}
