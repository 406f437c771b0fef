//! The projection engine: SPEC.md rules 1–13 in `inline` and `flat` modes, with a trace.
//!
//! Every rule is written so that the projection accepts at least what the original accepts
//! (I-sound). Where a rewrite could only be sound in a positive position, the engine tracks
//! whether each projected subtree is *exact* and drops `not`, `if` and `unevaluated*` rather
//! than let a loosened subschema tighten them (the soundness guards, see `guards`).

mod allof;
mod budget;
mod cancel;
mod engine;
mod guards;
mod join;
mod out;
mod refgraph;
pub mod tailor;
pub mod trace;
mod unions;
mod written;

use serde::Serialize;
use serde_json::Value;

pub use budget::ProjectionError;
pub use cancel::Cancel;
#[cfg(test)]
pub(crate) use cancel::doubling;
pub use tailor::{Adapter, Tailored, Unresolved, tailor};
pub use trace::{BranchTags, Detail, JoinOutcome, Links, Rule, Tolerating, TraceEntry};
pub use written::{Written, WrittenSchema, project_written};

use crate::schema::Draft;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Rules 1–5: refs inlined, `oneOf` → `anyOf`, `discriminator` stripped.
    Inline,
    /// Rules 1–13: also every discriminated union merged into one object.
    Flat,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "inline" => Ok(Mode::Inline),
            "flat" => Ok(Mode::Flat),
            other => Err(format!("unknown mode `{other}` (expected inline or flat)")),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Inline => "inline",
            Mode::Flat => "flat",
        })
    }
}

/// The recursion depth unrolled to by default (rule 2).
pub const DEFAULT_UNROLL: usize = 3;

/// What to do with a `$ref` back into a definition already open on the path (rule 2).
///
/// The *recursion depth* of a path is how many `$ref`s on it re-enter a definition already
/// open on it, whichever definition that is. Unrolling to depth `n` expands re-entries while
/// the path's depth stays within `n` and cuts the next one to `{}`; depth 0 cuts at the first
/// re-entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Recursion {
    /// The default: unroll up to this depth, less when that would add more nodes than the
    /// unrolling budget allows; a trace entry at the root then says which depth was used.
    UpTo(usize),
    /// Exactly this depth, held to the general node budget only.
    Unroll(usize),
    /// Keep recursive definitions as `$defs` + `$ref`.
    Keep,
}

impl std::str::FromStr for Recursion {
    type Err = String;
    fn from_str(s: &str) -> Result<Recursion, String> {
        match s {
            "keep" => return Ok(Recursion::Keep),
            "auto" => return Ok(Recursion::UpTo(DEFAULT_UNROLL)),
            _ => {}
        }
        let n = s
            .strip_prefix("unroll=")
            .ok_or_else(|| format!("unknown recursion `{s}` (expected auto, unroll=N or keep)"))?;
        n.parse()
            .map(Recursion::Unroll)
            .map_err(|_| format!("`{n}` is not a whole number"))
    }
}

/// What a flattened union's property is built from when some alternatives are open and do not
/// declare it (SPEC rule 10, *open alternatives*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpenBranches {
    /// From the alternatives that declare it: the property keeps its shape, and a foreign
    /// value under that name (in an alternative that only tolerates it) is no longer accepted.
    #[default]
    Declared,
    /// A tolerating alternative contributes what it allows there (`{}` or its
    /// `additionalProperties`): I-sound to the letter, at the price of the shape.
    Strict,
}

impl std::str::FromStr for OpenBranches {
    type Err = String;
    fn from_str(s: &str) -> Result<OpenBranches, String> {
        match s {
            "declared" => Ok(OpenBranches::Declared),
            "strict" => Ok(OpenBranches::Strict),
            other => Err(format!(
                "unknown open-branches policy `{other}` (expected declared or strict)"
            )),
        }
    }
}

impl std::fmt::Display for OpenBranches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OpenBranches::Declared => "declared",
            OpenBranches::Strict => "strict",
        })
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    pub recursion: Recursion,
    /// Append conditional-required and only-when hints to descriptions (rule 9).
    pub hints: bool,
    /// Overrides the dialect read from `$schema`.
    pub draft: Option<Draft>,
    /// Maximum schema nodes to emit; default scales with the input (see `budget`).
    pub node_budget: Option<usize>,
    /// Schema nodes that unrolling recursion may add, beyond cutting at the first re-entry,
    /// before `Recursion::UpTo` lowers the depth; default scales with the input (see `budget`).
    pub unroll_budget: Option<usize>,
    /// Maximum nesting of schemas, counted through `$ref`s.
    pub max_depth: usize,
    /// Open alternatives of a flattened union (flat mode only).
    pub open_branches: OpenBranches,
    /// Lets another thread stop the projection (it then fails with `Cancelled`).
    pub cancel: Cancel,
    /// A provider that counts its size limits as written and takes `$defs` + `$ref` (see
    /// [`tailor::shares_definitions`]): when the projection is over its counts, it is made
    /// again with every definition referenced from two or more places written once under
    /// `$defs` (rule 1 then keeps those references). The same values are accepted either way.
    pub share_over: Option<crate::lint::Profile>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mode: Mode::Flat,
            recursion: Recursion::UpTo(DEFAULT_UNROLL),
            hints: true,
            draft: None,
            node_budget: None,
            unroll_budget: None,
            max_depth: budget::DEFAULT_MAX_DEPTH,
            open_branches: OpenBranches::default(),
            cancel: Cancel::never(),
            share_over: None,
        }
    }
}

impl Options {
    pub fn inline() -> Options {
        Options {
            mode: Mode::Inline,
            ..Options::default()
        }
    }

    pub fn flat() -> Options {
        Options::default()
    }

    /// The same options with another open-branches policy.
    pub fn with_open_branches(&self, open_branches: OpenBranches) -> Options {
        Options {
            open_branches,
            ..self.clone()
        }
    }
}

/// A projected schema with its trace.
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    pub schema: Value,
    pub mode: Mode,
    pub draft: Draft,
    pub trace: Vec<TraceEntry>,
    #[serde(skip)]
    pub links: Links,
}

impl Projection {
    /// Trace entries whose result sits at `pointer` in the projection.
    pub fn entries_at<'a>(&'a self, pointer: &'a str) -> impl Iterator<Item = &'a TraceEntry> {
        self.trace.iter().filter(move |e| e.at == pointer)
    }

    /// Whether `--open-branches declared` kept the declared shape of some property against an
    /// open alternative: only then can a payload be a foreign-key case.
    pub fn relaxes_open_branches(&self) -> bool {
        self.trace
            .iter()
            .any(|e| matches!(e.detail, Detail::OpenBranchDeclared { .. }))
    }

    /// Trace entries that came from the original node at `pointer`.
    pub fn entries_from<'a>(&'a self, pointer: &'a str) -> impl Iterator<Item = &'a TraceEntry> {
        self.trace
            .iter()
            .filter(move |e| e.from.iter().any(|f| f == pointer))
    }
}

/// Whether a projection comes with its [`Links`]. The trace is the same either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linking {
    Build,
    /// For a caller that only writes the schema out (`project` without `--provider`): on a
    /// large tool the links, a pointer per emitted node both ways, take more memory than the
    /// projected schema itself.
    Skip,
}

/// Projects one tool's parameter schema.
pub fn project(schema: &Value, options: &Options) -> Result<Projection, ProjectionError> {
    project_linking(schema, options, Linking::Build)
}

/// Whether the walk of `schema` can reach a `$ref` cycle. Without one, the [`Recursion`]
/// setting changes nothing: every setting projects the same schema, trace and links, so a
/// caller holding one projection need not make another. Costs the size of `schema`, not of its
/// projection.
pub fn reaches_recursion(schema: &Value, options: &Options) -> bool {
    engine::Engine::new(schema, options).reaches_recursion()
}

/// [`project`], with or without the links.
pub fn project_linking(
    schema: &Value,
    options: &Options,
    linking: Linking,
) -> Result<Projection, ProjectionError> {
    let projection = engine::Engine::new(schema, options)
        .linking(linking)
        .run()?;
    match over_shared_limits(options, &projection) {
        Some(over) => project_shared(schema, options, linking, &over),
        None => Ok(projection),
    }
}

/// What `projection`, made with `options`, holds over the count limits of
/// [`Options::share_over`]; `None` when it fits or no profile is named.
pub(crate) fn over_shared_limits(options: &Options, projection: &Projection) -> Option<String> {
    let profile = options.share_over?;
    tailor::over_count_limits(profile, projection)
}

/// [`project_linking`] keeping shared definitions, because inlined the schema holds `over`.
pub(crate) fn project_shared(
    schema: &Value,
    options: &Options,
    linking: Linking,
    over: &str,
) -> Result<Projection, ProjectionError> {
    engine::Engine::new(schema, options)
        .linking(linking)
        .sharing(over.to_owned())
        .run()
}
