//! Loading LLM tool manifests (bare JSON Schema, MCP, OpenAI, Anthropic, Gemini) and writing
//! projected parameter schemas back into the same document.
//!
//! The document is kept as parsed, key order included, and every tool records RFC 6901 pointers
//! into it, so write-back replaces exactly the parameter schemas and nothing else.

mod detect;
mod error;
mod format;
mod formats;
mod node;
mod position;
mod skeleton;
mod source;
mod streamed;
mod writeback;

pub use error::ManifestError;
pub use format::{ManifestFormat, ParseFormatError, SchemaDialect};
pub use formats::empty_parameters;
pub use position::{Position, Span, TextIndex};
pub use source::STDIN_ORIGIN;
pub use streamed::{FilledSchema, PendingTool, Writeback, WritebackError};
pub use writeback::write_strict;

use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// A loaded manifest: the document as parsed and the tools found in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The file path, or [`STDIN_ORIGIN`].
    pub origin: String,
    pub format: ManifestFormat,
    /// Shared: a bare schema's document is its tool's schema, held once; and a manifest is
    /// copied (a baseline, a background job) without copying what it parsed.
    pub document: Arc<Value>,
    /// In document order. Names are untrusted text and may repeat; lint reports duplicates.
    pub tools: Vec<Tool>,
}

/// One tool of a manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    /// The parameter schema, cloned out of the document ([`empty_parameters`] when the tool
    /// declares none); for a bare schema, the document itself. Shared, so that a tool is
    /// copied (into a background job, a cache, a baseline) without copying its schema, and
    /// two copies are known equal by address.
    pub schema: Arc<Value>,
    /// Where `schema` sits in the document; `None` when the tool declares no parameters (OpenAI
    /// without `parameters`, Gemini without either parameters key).
    pub schema_pointer: Option<String>,
    /// Where the tool entry itself sits in the document.
    pub tool_pointer: String,
    pub dialect: SchemaDialect,
    /// The MCP `outputSchema`, kept for later use.
    pub output_schema_pointer: Option<String>,
    /// The tool's `strict` flag as written (OpenAI, Anthropic); `None` when absent. Responses-API
    /// tools are strict by default, which is the caller's call to make, not the loader's.
    pub strict: Option<bool>,
}

/// Parses and loads a manifest. `origin` names the source in errors and, for a bare schema
/// without a `title`, names the tool. `format` overrides detection.
pub fn load_str(
    text: &str,
    origin: &str,
    format: Option<ManifestFormat>,
) -> Result<Manifest, ManifestError> {
    let document = source::parse_json(text, origin)?;
    load_value(document, origin, format)
}

/// Reads and loads a manifest file; `-` reads standard input.
pub fn load_path(path: &Path, format: Option<ManifestFormat>) -> Result<Manifest, ManifestError> {
    let (origin, text) = source::read_path(path)?;
    load_str(&text, &origin, format)
}

/// Reads and loads a manifest from any reader (standard input, a socket, a test buffer).
pub fn load_reader(
    reader: impl Read,
    origin: &str,
    format: Option<ManifestFormat>,
) -> Result<Manifest, ManifestError> {
    let text = source::read_all(reader, origin)?;
    load_str(&text, origin, format)
}

/// Loads a manifest from an already parsed document.
pub fn load_value(
    document: Value,
    origin: &str,
    format: Option<ManifestFormat>,
) -> Result<Manifest, ManifestError> {
    let (format, mut tools) = read(&document, origin, format)?;
    let document = Arc::new(document);
    for tool in &mut tools {
        match tool.schema_pointer.as_deref() {
            // The whole document (a bare schema): shared rather than copied.
            Some("") => tool.schema = Arc::clone(&document),
            Some(p) => {
                if let Some(schema) = document.pointer(p) {
                    tool.schema = Arc::new(schema.clone());
                }
            }
            None => {}
        }
    }
    Ok(Manifest {
        origin: origin.to_owned(),
        format,
        document,
        tools,
    })
}

/// The document's format and its tools, each without its schema (the caller copies or moves
/// it out of the document).
fn read(
    document: &Value,
    origin: &str,
    format: Option<ManifestFormat>,
) -> Result<(ManifestFormat, Vec<Tool>), ManifestError> {
    let format = match format {
        Some(format) => format,
        None => detect::detect(document).map_err(|e| e.with_origin(origin))?,
    };
    let tools = formats::read_tools(format, document, origin).map_err(|e| e.with_origin(origin))?;
    Ok((format, tools))
}

impl Manifest {
    /// The first tool with this name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// The document with each listed tool's parameter schema replaced, everything else (key order
    /// included) untouched; for a bare schema, the schema itself. Indices that name no tool are
    /// ignored. A tool that declared no parameters gets the schema added, unless it is
    /// [`empty_parameters`], so that replacing every schema with itself gives the same document.
    pub fn with_schemas(&self, replacements: &[(usize, Value)]) -> Value {
        writeback::with_schemas(self, replacements)
    }

    /// [`Manifest::with_schemas`], moving the schemas in instead of copying them.
    pub fn with_schemas_moved(&self, replacements: Vec<(usize, Value)>) -> Value {
        writeback::with_schemas_moved(self, replacements)
    }
}

#[cfg(test)]
mod tests;
