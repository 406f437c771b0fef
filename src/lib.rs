//! schemalens: why a provider rejects a tool schema, and what a provider-safe projection of it
//! looks like. This crate owns the engine; the `schemalens` binary is a thin front end.

pub mod lint;
pub mod manifest;
pub mod pointer;
pub mod projection;
pub mod schema;
pub mod validate;
pub mod watch;

pub use projection::{Mode, Options, Projection, ProjectionError, Recursion, project};

use manifest::{SchemaDialect, Tool};

/// Projects a tool's parameter schema in the dialect its manifest declares (Gemini
/// `parameters` are OpenAPI 3.0 Schema Objects, where `nullable` means something).
pub fn project_tool(tool: &Tool, options: &Options) -> Result<Projection, ProjectionError> {
    let mut options = options.clone();
    if options.draft.is_none() && tool.dialect == SchemaDialect::OpenApi30 {
        options.draft = Some(schema::Draft::OpenApi30);
    }
    project(&tool.schema, &options)
}
