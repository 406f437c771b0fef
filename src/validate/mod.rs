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
mod foreign;
mod locate;
mod nullable;
pub mod payload;
pub mod skeleton;
mod verdict;

use serde_json::Value;

pub use discover::{Expectation, PayloadFile};
pub(crate) use nullable::openapi30_for_validation;
pub use payload::PayloadError;
pub use skeleton::{skeleton, skeleton_for_both};
pub(crate) use verdict::with_stack;
pub use verdict::{
    Class, Correlation, ForeignKey, SchemaError, Side, SideVerdict, Unsoundness, Verdict,
};

use crate::lint::Profile;
use crate::manifest::{SchemaDialect, Tool};
use crate::projection::tailor::{Adaptation, PayloadAdapter, ReadBack, Tailored};
use crate::projection::{OpenBranches, Options, Projection, ProjectionError};
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

/// A payload as the provider a [`Checker`] is tailored for is sent it, and back: what the
/// adapter makes of it, the tailored schema's verdict on that, and what the tool is given when
/// the model answers with exactly the adapted payload.
#[derive(Debug, Clone)]
pub struct Sent {
    pub adaptation: Adaptation,
    /// The tailored schema's verdict on the adapted payload.
    pub verdict: SideVerdict,
    /// The adapted payload un-adapted.
    pub returned: Value,
    /// `returned` is the payload itself: nothing is lost on the way.
    pub round_trips: bool,
}

/// A call the model made, in the tailored schema's form, on its way to the tool: the tailored
/// schema's verdict on it as it came, what the adapter gives the tool, and the original's
/// verdict on that. With a strict provider the first verdict is what its decoding enforces;
/// text inside JSON-text values is the one thing it cannot check, hence `given.unread`.
#[derive(Debug, Clone)]
pub struct Received {
    pub call: SideVerdict,
    pub given: ReadBack,
    pub original: SideVerdict,
}

/// One tool's original and projected schemas, compiled once, for any number of payloads.
pub struct Checker {
    original: Compiled,
    original_draft: Draft,
    projection: Compiled,
    projected: Projection,
    /// Set when the projection side is tailored for a provider: payloads go through its
    /// adapter before that side judges them.
    tailored: Option<(Profile, PayloadAdapter)>,
    /// The same tool projected with `--open-branches strict` (tailored alike), when the
    /// projection kept a declared shape against an open alternative: a payload it accepts
    /// and the projection rejects may be a foreign-key case rather than unsound.
    strict: Option<StrictReference>,
}

struct StrictReference {
    compiled: Compiled,
    adapter: Option<PayloadAdapter>,
}

impl StrictReference {
    fn accepts(&self, payload: &Value) -> bool {
        match &self.adapter {
            Some(a) if !a.is_identity() => self.compiled.is_valid(&a.adapt(payload).payload),
            _ => self.compiled.is_valid(payload),
        }
    }
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
        Checker::new(tool, projection)?.with_open_branch_reference(tool, options)
    }

    /// When the projection (made from `tool` with `options`) kept a declared shape against an
    /// open alternative, also projects the tool with `--open-branches strict`, so that a
    /// payload rejected only for a foreign key is classified [`Class::ForeignKey`] rather than
    /// [`Class::Unsound`]. A no-op otherwise.
    pub fn with_open_branch_reference(
        self,
        tool: &Tool,
        options: &Options,
    ) -> Result<Checker, CheckError> {
        if options.open_branches == OpenBranches::Strict || !self.projected.relaxes_open_branches()
        {
            return Ok(self);
        }
        let strict = crate::project_tool(tool, &options.with_open_branches(OpenBranches::Strict))?;
        self.with_strict_reference(strict)
    }

    /// Uses `strict`, the tool's projection under `--open-branches strict` with otherwise the
    /// same options, to tell foreign-key payloads from unsound ones. A tailored checker
    /// tailors it for the same provider.
    pub fn with_strict_reference(mut self, strict: Projection) -> Result<Checker, CheckError> {
        let compile_error = |(message, pointer)| CheckError::Compile {
            side: Side::Projection,
            pointer,
            message,
        };
        let reference = match &self.tailored {
            Some((profile, _)) => {
                let tailored = crate::projection::tailor(strict, *profile);
                let draft = validator_draft(&self.original.doc, self.original_draft);
                let compiled = Compiled::new(
                    tailored.validation_schema(),
                    tailored.projection.draft,
                    draft,
                )
                .map_err(compile_error)?;
                StrictReference {
                    compiled,
                    adapter: Some(tailored.payload_adapter(draft)),
                }
            }
            None => StrictReference {
                compiled: compile(&strict.schema, strict.draft, Side::Projection)?,
                adapter: None,
            },
        };
        self.strict = Some(reference);
        Ok(self)
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
            tailored: None,
            strict: None,
        })
    }

    /// Compiles the tool's original beside a projection tailored for a provider. The tailored
    /// side is judged by a validator configured as the original's (same dialect, so the same
    /// `format` behaviour), on the payload as its adapter rewrites it.
    pub fn tailored(tool: &Tool, tailored: Tailored) -> Result<Checker, CheckError> {
        let original_draft = match tool.dialect {
            SchemaDialect::OpenApi30 => Draft::OpenApi30,
            SchemaDialect::JsonSchema => Draft::detect(&tool.schema),
        };
        let original = compile(&tool.schema, original_draft, Side::Original)?;
        let draft = validator_draft(&original.doc, original_draft);
        let doc = tailored.validation_schema();
        let compiled = Compiled::new(doc, tailored.projection.draft, draft).map_err(
            |(message, pointer)| CheckError::Compile {
                side: Side::Projection,
                pointer,
                message,
            },
        )?;
        let adapter = tailored.payload_adapter(draft);
        Ok(Checker {
            original,
            original_draft,
            projection: compiled,
            projected: tailored.projection,
            tailored: Some((tailored.profile, adapter)),
            strict: None,
        })
    }

    /// The provider the projection side is tailored for.
    pub fn provider(&self) -> Option<Profile> {
        self.tailored.as_ref().map(|(p, _)| *p)
    }

    /// What the tailored side's adapter makes of `payload`; `None` when not tailored.
    pub fn adapt(&self, payload: &Value) -> Option<Adaptation> {
        self.tailored.as_ref().map(|(_, a)| a.adapt(payload))
    }

    /// `payload` sent to the provider and back (see [`Sent`]); `None` when not tailored.
    pub fn send(&self, payload: &Value) -> Option<Sent> {
        let (_, adapter) = self.tailored.as_ref()?;
        let adaptation = adapter.adapt(payload);
        let verdict = self
            .projection
            .verdict(&adaptation.payload, Some(&self.projected.links));
        let returned = adapter.unadapt(&adaptation.payload);
        Some(Sent {
            round_trips: returned == *payload,
            adaptation,
            verdict,
            returned,
        })
    }

    /// `call`, as the model made it for the tailored schema, read back for the tool (see
    /// [`Received`]); `None` when not tailored.
    pub fn receive(&self, call: &Value) -> Option<Received> {
        let (_, adapter) = self.tailored.as_ref()?;
        let verdict = self.projection.verdict(call, Some(&self.projected.links));
        let given = adapter.read_back(call);
        let original = self.original.verdict(&given.payload, None);
        Some(Received {
            call: verdict,
            given,
            original,
        })
    }

    /// The payload the projection side judges.
    fn for_projection<'a>(&self, payload: &'a Value) -> std::borrow::Cow<'a, Value> {
        match &self.tailored {
            Some((_, a)) if !a.is_identity() => std::borrow::Cow::Owned(a.adapt(payload).payload),
            _ => std::borrow::Cow::Borrowed(payload),
        }
    }

    /// Judges one payload: both verdicts with placed errors, the class, and for a looser
    /// projection the correlations it lost.
    pub fn check(&self, payload: &Value) -> Verdict {
        let original = self.original.verdict(payload, None);
        let adapted = self.for_projection(payload);
        let projection = self
            .projection
            .verdict(&adapted, Some(&self.projected.links));
        let mut class = Class::of(original.valid, projection.valid);
        let mut foreign = Vec::new();
        if class == Class::Unsound
            && self.strict.as_ref().is_some_and(|s| s.accepts(payload))
            && let Some(found) = foreign::explain(&projection, &adapted, &self.projected)
        {
            class = Class::ForeignKey;
            foreign = found;
        }
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
            foreign,
        }
    }

    /// The class alone, without placing errors: for callers that only count.
    pub fn classify(&self, payload: &Value) -> Class {
        let class = Class::of(
            self.original.is_valid(payload),
            self.projection.is_valid(&self.for_projection(payload)),
        );
        if class == Class::Unsound && self.strict.is_some() {
            // Telling a foreign key from a bug needs the errors.
            return self.check(payload).class;
        }
        class
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

/// One schema compiled on its own, for callers that judge payloads against a single side (a
/// schema diff verifies each witness against two originals, or two projections).
pub struct SchemaValidator {
    compiled: Compiled,
    links: Option<crate::projection::Links>,
}

impl SchemaValidator {
    /// A tool's original schema, read as its dialect says (OpenAPI 3.0 `nullable` included).
    pub fn original(schema: &Value, dialect: SchemaDialect) -> Result<SchemaValidator, CheckError> {
        let draft = match dialect {
            SchemaDialect::OpenApi30 => Draft::OpenApi30,
            SchemaDialect::JsonSchema => Draft::detect(schema),
        };
        Ok(SchemaValidator {
            compiled: compile(schema, draft, Side::Original)?,
            links: None,
        })
    }

    /// A projection; its errors carry the original nodes they came from.
    pub fn projection(projection: &Projection) -> Result<SchemaValidator, CheckError> {
        Ok(SchemaValidator {
            compiled: compile(&projection.schema, projection.draft, Side::Projection)?,
            links: Some(projection.links.clone()),
        })
    }

    pub fn is_valid(&self, payload: &Value) -> bool {
        self.compiled.is_valid(payload)
    }

    /// The verdict with every error placed on the schema's document.
    pub fn verdict(&self, payload: &Value) -> SideVerdict {
        self.compiled.verdict(payload, self.links.as_ref())
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
