//! Gemini function declarations. The REST API spells keys in camelCase; the Python SDK's
//! `model_dump()` writes snake_case, so both spellings are read.

use super::{Node, SchemaDialect, ShapeError, Tool, ToolSource, build_tool, read_entries};
use crate::manifest::error::quote;
use serde_json::Value;

pub(crate) const DECLARATIONS_KEYS: [&str; 2] = ["functionDeclarations", "function_declarations"];
const JSON_SCHEMA_KEYS: [&str; 2] = ["parametersJsonSchema", "parameters_json_schema"];
const OPENAPI_KEY: &str = "parameters";

/// Tool objects that Gemini runs itself and that declare no functions.
const BUILTIN_TOOL_KEYS: [&str; 18] = [
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "google_search_retrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
    "url_context",
    "retrieval",
    "computerUse",
    "computer_use",
    "fileSearch",
    "file_search",
    "googleMaps",
    "google_maps",
    "enterpriseWebSearch",
    "enterprise_web_search",
    "mcpServers",
];

const EXPECTED_ROOT: &str = "Gemini function declarations ({\"functionDeclarations\": […]}, a \
                             list of such tool objects, or an object with a \"tools\" list)";

pub(super) fn read(root: &Node<'_>) -> Result<Vec<Tool>, ShapeError> {
    let mut tools = Vec::new();
    for declarations in declaration_lists(root)? {
        let entries = declarations.elements("a list of function declarations")?;
        tools.extend(read_entries(&entries, read_declaration)?);
    }
    Ok(tools)
}

/// Every `functionDeclarations` array in the document, in order: a request may hold several tool
/// objects, and Gemini sees their declarations as one list.
fn declaration_lists<'a>(root: &Node<'a>) -> Result<Vec<Node<'a>>, ShapeError> {
    if let Some(declarations) = root.get_any(&DECLARATIONS_KEYS) {
        return Ok(vec![declarations]);
    }
    let tool_objects = match root.value {
        Value::Array(_) => root.clone(),
        Value::Object(_) => root
            .get("tools")
            .ok_or_else(|| root.mismatch(EXPECTED_ROOT))?,
        _ => return Err(root.mismatch(EXPECTED_ROOT)),
    };
    let mut lists = Vec::new();
    for tool in tool_objects.elements("a list of Gemini tool objects")? {
        lists.extend(tool_declarations(&tool)?);
    }
    Ok(lists)
}

fn tool_declarations<'a>(tool: &Node<'a>) -> Result<Option<Node<'a>>, ShapeError> {
    let map = tool.object("a Gemini tool object")?;
    if let Some(declarations) = tool.get_any(&DECLARATIONS_KEYS) {
        return Ok(Some(declarations));
    }
    if is_builtin_tool(map) {
        return Ok(None);
    }
    Err(tool.mismatch("a Gemini tool object with \"functionDeclarations\""))
}

pub(crate) fn is_builtin_tool(map: &serde_json::Map<String, Value>) -> bool {
    BUILTIN_TOOL_KEYS.iter().any(|key| map.contains_key(*key))
}

fn read_declaration(entry: &Node<'_>) -> Result<Option<Tool>, ShapeError> {
    entry.object("a function declaration object")?;
    let json_schema = entry.get_any(&JSON_SCHEMA_KEYS);
    let openapi = entry.get_set(OPENAPI_KEY);
    let (schema, dialect) = match (json_schema, openapi) {
        (Some(json_schema), Some(_)) => {
            let key = json_schema.pointer.rsplit('/').next().unwrap_or_default();
            return Err(entry.error(format!(
                "both \"parameters\" and {} are set; Gemini accepts only one of them",
                quote(key)
            )));
        }
        (Some(schema), None) => (Some(schema), SchemaDialect::JsonSchema),
        (None, Some(schema)) => (Some(schema), SchemaDialect::OpenApi30),
        (None, None) => (None, SchemaDialect::JsonSchema),
    };
    build_tool(ToolSource {
        entry,
        fields: entry,
        schema,
        dialect,
    })
    .map(Some)
}

/// The key under which write-back puts a JSON Schema for a declaration that has none, in the
/// spelling the rest of the document uses.
pub(crate) fn json_schema_key(tool_pointer: &str) -> &'static str {
    if tool_pointer.contains("/function_declarations/") {
        JSON_SCHEMA_KEYS[1]
    } else {
        JSON_SCHEMA_KEYS[0]
    }
}
