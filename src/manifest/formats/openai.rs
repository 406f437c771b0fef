//! OpenAI function tools: Chat Completions `{"type":"function","function":{…}}` and the flat
//! Responses `{"type":"function","name":…,"parameters":…}`.

use super::{
    ManifestFormat, Node, SchemaDialect, ShapeError, Tool, ToolSource, build_tool,
    is_schema_type_name, read_entries, tool_list,
};
use crate::manifest::error::quote;

pub(super) fn read(root: &Node<'_>) -> Result<Vec<Tool>, ShapeError> {
    read_entries(&tool_list(root, ManifestFormat::OpenAi)?, read_entry)
}

fn read_entry(entry: &Node<'_>) -> Result<Option<Tool>, ShapeError> {
    entry.object("a tool object")?;
    let kind = entry
        .get_set("type")
        .ok_or_else(|| entry.error("missing \"type\" (expected \"function\")"))?;
    match kind.str_value() {
        Some("function") => {}
        // Skipping a schema as if it were a built-in tool would load zero tools without a word.
        Some(name) if is_schema_type_name(name) => {
            return Err(kind.error(format!(
                "expected \"function\" or a built-in tool type, found the schema type {}",
                quote(name)
            )));
        }
        // Built-in tools (web_search, file_search, custom, …) have no parameter schema.
        Some(_) => return Ok(None),
        None => return Err(kind.mismatch("a string")),
    }
    let fields = match entry.get_set("function") {
        Some(function) => {
            function.object("an object")?;
            function
        }
        None => entry.clone(),
    };
    build_tool(ToolSource {
        entry,
        fields: &fields,
        schema: fields.get_set("parameters"),
        dialect: SchemaDialect::JsonSchema,
    })
    .map(Some)
}
