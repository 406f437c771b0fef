//! Anthropic Messages API tools: `{name, description, input_schema}`.

use super::{
    ManifestFormat, Node, SchemaDialect, ShapeError, Tool, ToolSource, build_tool, read_entries,
    tool_list,
};

pub(super) fn read(root: &Node<'_>) -> Result<Vec<Tool>, ShapeError> {
    read_entries(&tool_list(root, ManifestFormat::Anthropic)?, read_entry)
}

fn read_entry(entry: &Node<'_>) -> Result<Option<Tool>, ShapeError> {
    entry.object("a tool object")?;
    if let Some(schema) = entry.get_set("input_schema") {
        return build_tool(ToolSource {
            entry,
            fields: entry,
            schema: Some(schema),
            dialect: SchemaDialect::JsonSchema,
        })
        .map(Some);
    }
    let kind = entry.get_set("type").and_then(|node| node.str_value());
    match kind {
        Some(kind) if is_server_tool_type(kind) => Ok(None),
        _ => Err(entry.error("missing \"input_schema\"")),
    }
}

/// Anthropic-defined tools (`bash_20250124`, `web_search_20250305`, …) carry a dated version and
/// no schema. Only those are skipped, so that a file of another format fed in as Anthropic fails
/// loudly instead of loading as zero tools.
pub(crate) fn is_server_tool_type(kind: &str) -> bool {
    const DATE_DIGITS: usize = 8;
    let dated = kind.rsplit_once('_').is_some_and(|(base, date)| {
        !base.is_empty() && date.len() == DATE_DIGITS && date.bytes().all(|b| b.is_ascii_digit())
    });
    dated || kind == "mcp_toolset"
}
