//! schemalens: why a provider rejects a tool schema, and what a provider-safe projection of it
//! looks like. This crate owns the engine; the `schemalens` binary is a thin front end.

pub mod diff;
pub mod lint;
pub mod manifest;
pub mod mcp;
pub mod parallel;
pub mod pointer;
pub mod projection;
pub mod schema;
pub mod tui;
pub mod validate;
pub mod watch;
pub mod why;

// The inspector (`tui`) was written against the library's public paths (`schemalens::…`) when it
// lived in the binary; this keeps them valid inside the crate, so it could move here unchanged
// and benches can reach its state and rendering.
extern crate self as schemalens;

pub use projection::{
    Linking, Mode, OpenBranches, Options, Projection, ProjectionError, Recursion, project,
};

use lint::Profile;
use manifest::{PendingTool, SchemaDialect, Tool};
use projection::tailor::Trace;
use projection::{Tailored, Written};
use std::borrow::Cow;

/// Projects a tool's parameter schema in the dialect its manifest declares (Gemini
/// `parameters` are OpenAPI 3.0 Schema Objects, where `nullable` means something).
pub fn project_tool(tool: &Tool, options: &Options) -> Result<Projection, ProjectionError> {
    project_tool_linking(tool, options, Linking::Build)
}

/// [`project_tool`], with or without the links (see [`Linking`]).
pub fn project_tool_linking(
    tool: &Tool,
    options: &Options,
    linking: Linking,
) -> Result<Projection, ProjectionError> {
    projection::project_linking(&tool.schema, &in_dialect(tool, options), linking)
}

/// `options` with the draft the tool's manifest declares, when they name none.
fn in_dialect(tool: &Tool, options: &Options) -> Options {
    let mut options = options.clone();
    if options.draft.is_none() && tool.dialect == SchemaDialect::OpenApi30 {
        options.draft = Some(schema::Draft::OpenApi30);
    }
    options
}

/// [`project_tool_linking`] for each tool, in parallel where the machine has the cores (see
/// [`parallel`]); the results in the tools' order.
pub fn project_tools(
    tools: &[&Tool],
    options: &Options,
    linking: Linking,
) -> Vec<Result<Projection, ProjectionError>> {
    parallel::map(tools, |tool| project_tool_linking(tool, options, linking))
}

/// [`project_tools`] over owned tools, handing each tool back with its projection to
/// `consume` in the tools' order as they are made (see [`parallel::map_streamed`]). A tool's
/// schema is parsed (if it is still text) on the thread that projects it and dropped once it
/// is projected (kept when projecting fails), so the input shrinks as the projections are
/// taken, and a caller that writes each projection out and drops it holds a few at a time.
pub fn project_tools_streamed<U>(
    tools: Vec<PendingTool>,
    options: &Options,
    linking: Linking,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Tool, Result<Projection, ProjectionError>)>) -> U,
) -> U {
    each_tool_streamed(
        tools,
        |tool| project_tool_linking(tool, options, linking),
        consume,
    )
}

/// [`project_tools_streamed`] for a caller that writes each schema out as it is (`project`
/// without a provider): no links, and a `$ref` target inlined at many places held once (see
/// [`projection::WrittenSchema`]).
pub fn project_tools_written<U>(
    tools: Vec<PendingTool>,
    options: &Options,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Tool, Result<Written, ProjectionError>)>) -> U,
) -> U {
    each_tool_streamed(tools, |tool| project_tool_written(tool, options), consume)
}

/// [`projection::project_written`] of a tool, in the dialect its manifest declares.
pub fn project_tool_written(tool: &Tool, options: &Options) -> Result<Written, ProjectionError> {
    projection::project_written(&tool.schema, &in_dialect(tool, options))
}

/// `make` of each tool on the workers, the tool's schema parsed there and dropped after it is
/// made; a tool that failed keeps its schema, which a caller may write as it was.
fn each_tool_streamed<T: Send, E: Send, U>(
    tools: Vec<PendingTool>,
    make: impl Fn(&Tool) -> Result<T, E> + Sync,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Tool, Result<T, E>)>) -> U,
) -> U {
    parallel::map_streamed(
        tools,
        |pending| {
            let mut tool = pending.into_tool();
            let made = make(&tool);
            if made.is_ok() {
                tool.schema = Default::default();
            }
            (tool, made)
        },
        consume,
    )
}

/// What `project --provider` sends: the tool's projection made the way `profile` wants it
/// (its recursion, see [`projection::tailor::options_for`]) and tailored to it.
pub fn tailor_tool(
    tool: &Tool,
    options: &Options,
    profile: Profile,
) -> Result<Tailored, ProjectionError> {
    tailor_tool_traced(tool, options, profile, Trace::Kept)
}

fn tailor_tool_traced(
    tool: &Tool,
    options: &Options,
    profile: Profile,
    trace: Trace,
) -> Result<Tailored, ProjectionError> {
    let options = projection::tailor::options_for(profile, options);
    let projection = project_tool(tool, &options)?;
    Ok(projection::tailor::tailor_traced(
        Cow::Owned(projection),
        profile,
        trace,
    ))
}

/// [`tailor_tool`], reusing `projected`, the tool's projection made with `options` (`None`:
/// there is none): the lint and the inspector have it already. A profile that wants its own
/// recursion (openai-strict keeps `$defs`) gets a projection of its own. Tested to give what
/// [`tailor_tool`] gives, for every profile (with [`Trace::Skipped`], all but the trace).
pub fn tailor_reusing(
    tool: &Tool,
    options: &Options,
    profile: Profile,
    projected: Option<&Projection>,
    trace: Trace,
) -> Result<Tailored, ProjectionError> {
    // Without a reachable cycle every recursion setting projects the same (tested on every
    // sample and corpus tool): reprojecting a large tool would only cost time. Likewise a
    // projection within the profile's count limits is what keeping shared definitions makes.
    let wanted = projection::tailor::options_for(profile, options);
    let same_recursion = wanted.recursion == options.recursion
        || !projection::reaches_recursion(&tool.schema, &in_dialect(tool, options));
    let over = match projected {
        Some(p) if wanted.share_over != options.share_over => {
            projection::over_shared_limits(&wanted, p)
        }
        _ => None,
    };
    match (projected, over) {
        (Some(projection), None) if same_recursion => Ok(projection::tailor::tailor_traced(
            Cow::Borrowed(projection),
            profile,
            trace,
        )),
        // The same projection with its shared definitions kept, without making the inlined
        // one again.
        (Some(_), Some(over)) if same_recursion => {
            let wanted = in_dialect(tool, &wanted);
            let shared = projection::project_shared(&tool.schema, &wanted, Linking::Build, &over)?;
            Ok(projection::tailor::tailor_traced(
                Cow::Owned(shared),
                profile,
                trace,
            ))
        }
        _ => tailor_tool_traced(tool, options, profile, trace),
    }
}
