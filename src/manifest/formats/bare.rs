//! A bare JSON Schema: the document is the one tool's parameter schema.

use super::{Node, SchemaDialect, ShapeError, Tool, check_schema};
use crate::manifest::source::STDIN_ORIGIN;
use std::path::Path;

/// The name of a tool with no name of its own in the document.
const FALLBACK_NAME: &str = "schema";

pub(super) fn read(root: &Node<'_>, origin: &str) -> Result<Vec<Tool>, ShapeError> {
    check_schema(root, SchemaDialect::JsonSchema)?;
    let annotation = |key| root.get_set(key).and_then(|node| node.str_value());
    let name = annotation("title")
        .filter(|title| !title.is_empty())
        .map(str::to_owned)
        .or_else(|| origin_stem(origin))
        .unwrap_or_else(|| FALLBACK_NAME.to_owned());
    Ok(vec![Tool {
        name,
        description: annotation("description").map(str::to_owned),
        // Filled in by the loader.
        schema: Default::default(),
        schema_pointer: Some(String::new()),
        tool_pointer: String::new(),
        dialect: SchemaDialect::JsonSchema,
        output_schema_pointer: None,
        strict: None,
    }])
}

/// `schemas/user.json` → `user`; standard input has no name worth using.
fn origin_stem(origin: &str) -> Option<String> {
    if origin == STDIN_ORIGIN {
        return None;
    }
    let stem = Path::new(origin).file_stem()?.to_string_lossy();
    (!stem.is_empty()).then(|| stem.into_owned())
}
