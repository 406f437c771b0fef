//! Loading the manifest named on the command line and choosing its tools.

use schemalens::lint::tool_set::ToolSet;
use schemalens::lint::{Finding, Profile};
use schemalens::manifest::{self, Manifest, PendingTool, Tool, Writeback};
use schemalens::projection::{Detail, Tailored, TraceEntry, Written};
use schemalens::{
    Linking, Options, Projection, ProjectionError, project_tool, project_tool_linking,
};

use super::{Failure, InputArgs};

pub fn load(args: &InputArgs) -> Result<Manifest, Failure> {
    let loaded = if args.file.as_os_str() == "-" {
        manifest::load_reader(
            std::io::stdin().lock(),
            manifest::STDIN_ORIGIN,
            args.input_format,
        )
    } else {
        manifest::load_path(&args.file, args.input_format)
    };
    loaded.map_err(|e| Failure::input(e.to_string()))
}

/// [`load`], for writing each tool's projection back into the document (`project`).
pub fn load_writeback(args: &InputArgs) -> Result<Writeback, Failure> {
    let loaded = if args.file.as_os_str() == "-" {
        Writeback::load_reader(
            std::io::stdin().lock(),
            manifest::STDIN_ORIGIN,
            args.input_format,
        )
    } else {
        Writeback::load_path(&args.file, args.input_format)
    };
    loaded.map_err(|e| Failure::input(e.to_string()))
}

/// Indices of the tools the command works on: all, or the one `--tool` names.
pub fn selected(manifest: &Manifest, args: &InputArgs) -> Result<Vec<usize>, Failure> {
    selected_of(&manifest.tools, &manifest.origin, args)
}

/// [`selected`] among `tools` of the manifest read from `origin`.
pub fn selected_of(tools: &[Tool], origin: &str, args: &InputArgs) -> Result<Vec<usize>, Failure> {
    let Some(name) = &args.tool else {
        return Ok((0..tools.len()).collect());
    };
    match tools.iter().position(|t| &t.name == name) {
        Some(i) => Ok(vec![i]),
        None => {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            Err(Failure::input(format!(
                "{}: no tool named {name:?}; tools here: {}",
                origin,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )))
        }
    }
}

pub fn project(manifest: &Manifest, tool: &Tool, options: &Options) -> Result<Projection, Failure> {
    projected(&manifest.origin, tool, project_tool(tool, options))
}

/// The selected tools' projections, made in parallel where there are cores. Each is given
/// [`project`]'s error context and warnings as it is taken, so that stderr reads as if they
/// were made one after the other (a caller stopping at an error prints nothing after it).
pub fn project_selected<'m>(
    manifest: &'m Manifest,
    selected: &[usize],
    options: &Options,
    linking: Linking,
) -> impl Iterator<Item = Result<Projection, Failure>> + 'm {
    let tools: Vec<&Tool> = selected.iter().map(|i| &manifest.tools[*i]).collect();
    schemalens::project_tools(&tools, options, linking)
        .into_iter()
        .zip(tools)
        .map(move |(result, tool)| projected(&manifest.origin, tool, result))
}

/// [`project_selected`] for `tools` of the manifest read from `origin`, handing each tool (its
/// schema dropped) and its projection to `consume` as they are made (see
/// [`schemalens::project_tools_streamed`]).
pub fn project_streamed<U>(
    origin: &str,
    tools: Vec<PendingTool>,
    options: &Options,
    linking: Linking,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Tool, Result<Projection, Failure>)>) -> U,
) -> U {
    schemalens::project_tools_streamed(tools, options, linking, |results| {
        let mut with_context = results.map(|(tool, result)| {
            let result = projected(origin, &tool, result);
            (tool, result)
        });
        consume(&mut with_context)
    })
}

/// [`project_streamed`] for a caller that writes each schema out as it is (see
/// [`schemalens::project_tools_written`]).
pub fn project_written<U>(
    origin: &str,
    tools: Vec<PendingTool>,
    options: &Options,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Tool, Result<Written, Failure>)>) -> U,
) -> U {
    schemalens::project_tools_written(tools, options, |results| {
        let mut with_context = results.map(|(tool, result)| {
            let result = result.map_err(|e| failure(origin, &tool, &e)).inspect(|w| {
                for warning in lowered_depth_warnings(&tool, &w.trace) {
                    eprintln!("{warning}");
                }
            });
            (tool, result)
        });
        consume(&mut with_context)
    })
}

/// [`project_selected`], with `then` applied to each projection (and the tool's position in
/// `selected`) on the thread that made it (checkers compile there too), the results handed to `consume` in the tools' order as they
/// are made (see [`schemalens::parallel::map_streamed`]): a caller that is done with each
/// result before taking the next holds a few at a time, however many tools there are.
/// Warnings and errors come as [`project_selected`] gives them, in the tools' order as the
/// results are taken.
pub fn project_selected_then<T: Send, U>(
    manifest: &Manifest,
    selected: &[usize],
    options: &Options,
    linking: Linking,
    then: impl Fn(usize, &Tool, Projection) -> T + Sync,
    consume: impl FnOnce(&mut dyn Iterator<Item = Result<T, Failure>>) -> U,
) -> U {
    let tools: Vec<(usize, &Tool)> = selected
        .iter()
        .enumerate()
        .map(|(k, i)| (k, &manifest.tools[*i]))
        .collect();
    schemalens::parallel::map_streamed(
        tools,
        |(k, tool)| {
            let done = project_tool_linking(tool, options, linking).map(|projection| {
                (
                    lowered_depth_warnings(tool, &projection.trace),
                    then(k, tool, projection),
                )
            });
            (tool, done)
        },
        |results| {
            consume(&mut results.map(|(tool, result)| {
                let (warnings, done) = result.map_err(|e| failure(&manifest.origin, tool, &e))?;
                for w in warnings {
                    eprintln!("{w}");
                }
                Ok(done)
            }))
        },
    )
}

/// A tool's projection result with the context a user needs to find the failing node, and
/// the warnings every command gives.
fn projected(
    origin: &str,
    tool: &Tool,
    result: Result<Projection, ProjectionError>,
) -> Result<Projection, Failure> {
    let projection = result.map_err(|e| failure(origin, tool, &e))?;
    for w in lowered_depth_warnings(tool, &projection.trace) {
        eprintln!("{w}");
    }
    Ok(projection)
}

/// A projection error, with the tool and the manifest pointer of the failing node.
fn failure(origin: &str, tool: &Tool, e: &ProjectionError) -> Failure {
    let at = tool
        .schema_pointer
        .as_deref()
        .map(|p| format!("{p}{}", e.pointer()))
        .unwrap_or_default();
    Failure::input(format!(
        "{} (tool {:?}, at {}): {e}",
        origin,
        tool.name,
        if at.is_empty() { "/".to_owned() } else { at }
    ))
}

/// Every command's verdicts depend on the depth recursion was unrolled to, so a depth
/// lowered to fit the unrolling budget is said whatever the command.
fn lowered_depth_warnings(tool: &Tool, trace: &[TraceEntry]) -> Vec<String> {
    trace
        .iter()
        .filter(|e| matches!(e.detail, Detail::RecursionLowered { .. }))
        .map(|e| format!("warning: tool {:?}: {}", tool.name, e.message()))
        .collect()
}

/// Tailors one tool's projection for `profile`, telling stderr what stays unresolved and whether
/// payloads need the adapter. `tool_list`: what the rules about the whole tool list find on
/// this tool (see [`tool_list`]).
pub fn tailor(
    tool: &Tool,
    projection: Projection,
    profile: Profile,
    tool_list: &[Finding],
) -> Tailored {
    let tailored = schemalens::projection::tailor(projection, profile);
    for note in tailor_notes(tool, &tailored, profile, tool_list) {
        eprintln!("{note}");
    }
    tailored
}

/// Whether a tool has a name of its own to check (a bare schema file has none, as `lint`
/// reads it).
fn has_name(tool: &Tool) -> bool {
    !tool.tool_pointer.is_empty()
}

/// The rules about the whole tool list (unique names) on `tools`, sent as one request to
/// `profile`: `lint` of the manifest finds them, and a tool tailored on its own never meets
/// them. Only the tailored schemas' findings are asked for.
pub fn tool_list<'t>(profile: Profile, tools: impl IntoIterator<Item = &'t Tool>) -> ToolSet {
    let names: Vec<Option<&str>> = tools
        .into_iter()
        .map(|t| has_name(t).then_some(t.name.as_str()))
        .collect();
    ToolSet::of_names(profile, &names)
}

/// What [`tailor`] tells stderr, for a caller that tailors off the main thread and prints in
/// the tools' order.
pub fn tailor_notes(
    tool: &Tool,
    tailored: &Tailored,
    profile: Profile,
    tool_list: &[Finding],
) -> Vec<String> {
    // The same lint errors that make `lint`'s tailored verdict "rejected": never silent.
    let name = has_name(tool).then_some(tool.name.as_str());
    let mut notes: Vec<String> = tailored
        .still_failing_in(name, tool_list)
        .iter()
        .map(|u| {
            format!(
                "warning: tool {:?}: {profile}: #{} still fails `{}`: {}",
                tool.name, u.pointer, u.rule, u.why
            )
        })
        .collect();
    if tailored.is_lossy() {
        notes.push(format!(
            "note: tool {:?}: {profile} tailoring is lossy (objects closed or optional properties required): `schemalens explain --provider {profile}` lists its adapters, `schemalens check --provider {profile}` applies them",
            tool.name,
        ));
    } else if tailored.needs_adapter() {
        notes.push(format!(
            "note: tool {:?}: {profile} tailoring encodes some values (JSON text, map entries, enum text or a root wrapper): send payloads through its adapter; `schemalens check --provider {profile}` shows them adapted",
            tool.name,
        ));
    }
    notes
}
