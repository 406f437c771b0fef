//! Payloads against both schemas: the verdict engine behind `schemalens check` and the
//! inspector's payload panel.
//!
//! A [`Checker`] compiles one tool's original and projected schemas once (the `jsonschema`
//! crate, never the network) and judges payloads against both. Each error is placed on the tree
//! of its own side — the original node through a `$ref`-aware walk, the projection node with the
//! original nodes it came from (the projection's links) — and each payload gets a [`Class`]. When
//! the projection is looser, the trace says which correlation it does not carry.

mod correlate;
pub mod discover;
mod locate;
mod nullable;
pub mod payload;
pub mod skeleton;
mod verdict;

use serde_json::Value;

pub use discover::{Expectation, PayloadFile};
pub use payload::PayloadError;
pub use skeleton::{skeleton, skeleton_for_both};
pub use verdict::{Class, Correlation, SchemaError, Side, SideVerdict, Unsoundness, Verdict};

use crate::manifest::{SchemaDialect, Tool};
use crate::projection::{Options, Projection, ProjectionError};
use crate::schema::Draft;
use verdict::Compiled;

/// Why a tool cannot be checked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Projection(#[from] ProjectionError),
    /// The validator refused the schema: it is not valid for its draft, or a `$ref` leads
    /// nowhere or off the machine (nothing is fetched). `pointer` is where, in that schema.
    #[error("the {side} schema cannot be used for validation (at {}): {message}", display_pointer(.pointer))]
    Compile {
        side: Side,
        pointer: String,
        message: String,
    },
}

fn display_pointer(p: &str) -> String {
    if p.is_empty() {
        "#".to_owned()
    } else {
        format!("#{p}")
    }
}

/// One tool's original and projected schemas, compiled once, for any number of payloads.
pub struct Checker {
    original: Compiled,
    original_draft: Draft,
    projection: Compiled,
    projected: Projection,
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker")
            .field("original", &self.original.doc)
            .field("projection", &self.projected.schema)
            .finish_non_exhaustive()
    }
}

impl Checker {
    /// Projects the tool with `options` and compiles both sides.
    pub fn for_tool(tool: &Tool, options: &Options) -> Result<Checker, CheckError> {
        let projection = crate::project_tool(tool, options)?;
        Checker::new(tool, projection)
    }

    /// Compiles the tool's original beside a projection made elsewhere (or built by hand: a
    /// test can hand in a broken one to see `unsound`).
    pub fn new(tool: &Tool, projection: Projection) -> Result<Checker, CheckError> {
        Checker::from_schema(&tool.schema, tool.dialect, projection)
    }

    /// Like [`Checker::new`], from a bare original schema in `dialect`.
    pub fn from_schema(
        original: &Value,
        dialect: SchemaDialect,
        projection: Projection,
    ) -> Result<Checker, CheckError> {
        let original_draft = match dialect {
            SchemaDialect::OpenApi30 => Draft::OpenApi30,
            SchemaDialect::JsonSchema => Draft::detect(original),
        };
        let original = compile(original, original_draft, Side::Original)?;
        let compiled = compile(&projection.schema, projection.draft, Side::Projection)?;
        Ok(Checker {
            original,
            original_draft,
            projection: compiled,
            projected: projection,
        })
    }

    /// Judges one payload: both verdicts with placed errors, the class, and for a looser
    /// projection the correlations it lost.
    pub fn check(&self, payload: &Value) -> Verdict {
        let original = self.original.verdict(payload, None);
        let projection = self
            .projection
            .verdict(payload, Some(&self.projected.links));
        let class = Class::of(original.valid, projection.valid);
        let lost = if class == Class::ProjectionLooser {
            correlate::lost_correlations(&original, payload, &self.projected)
        } else {
            Vec::new()
        };
        let unsound = if class == Class::Unsound {
            projection
                .leaf_errors()
                .into_iter()
                .map(|e| Unsoundness {
                    instance_path: e.instance_path.clone(),
                    message: e.message.clone(),
                    projection_node: e.node.clone(),
                    projection_keyword: e.keyword_pointer.clone(),
                    original_node: self.original.accepting_node(payload, &e.instance_path),
                    linked_originals: e.originals.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        Verdict {
            class,
            original,
            projection,
            lost,
            unsound,
        }
    }

    /// The class alone, without placing errors: for callers that only count.
    pub fn classify(&self, payload: &Value) -> Class {
        Class::of(
            self.original.is_valid(payload),
            self.projection.is_valid(payload),
        )
    }

    pub fn projection(&self) -> &Projection {
        &self.projected
    }

    /// The document the original side validates with: the tool's schema, with OpenAPI 3.0
    /// `nullable` rewritten as the projection reads it.
    pub fn original_schema(&self) -> &Value {
        &self.original.doc
    }

    /// A starting payload the projection accepts (see [`skeleton`]); where the projection
    /// left a property unconstrained, the original says what to put there.
    pub fn skeleton(&self) -> Value {
        skeleton::skeleton_for_both(&self.projected, &self.original.doc, self.original_draft)
    }
}

fn compile(schema: &Value, draft: Draft, side: Side) -> Result<Compiled, CheckError> {
    let doc = if draft.has_nullable() {
        verdict::with_stack(|| nullable::openapi30_for_validation(schema))
    } else {
        schema.clone()
    };
    let validator_draft = validator_draft(&doc, draft);
    Compiled::new(doc, draft, validator_draft).map_err(|(message, pointer)| CheckError::Compile {
        side,
        pointer,
        message,
    })
}

/// The validator's draft: the one `$schema` names, else the one the engine read (2020-12 for a
/// schema without `$schema`, draft 4 semantics for OpenAPI 3.0, whose `exclusiveMinimum` is a
/// boolean). Always explicit, so an unknown `$schema` never makes the validator look for a
/// meta-schema it would have to fetch.
fn validator_draft(schema: &Value, draft: Draft) -> jsonschema::Draft {
    use jsonschema::Draft as V;
    if draft != Draft::OpenApi30
        && let Some(uri) = schema.get("$schema").and_then(Value::as_str)
    {
        for (marker, d) in [
            ("draft-03", V::Draft4),
            ("draft-04", V::Draft4),
            ("draft-06", V::Draft6),
            ("draft-07", V::Draft7),
            ("2019-09", V::Draft201909),
            ("2020-12", V::Draft202012),
        ] {
            if uri.contains(marker) {
                return d;
            }
        }
    }
    match draft {
        Draft::Draft7 => V::Draft7,
        Draft::Draft2019 => V::Draft201909,
        Draft::Draft2020 => V::Draft202012,
        Draft::OpenApi30 => V::Draft4,
    }
}

#[cfg(test)]
mod tests;
