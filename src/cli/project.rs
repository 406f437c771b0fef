//! `schemalens project`: the projected schema, in the input's own document shape.

use schemalens::manifest::ManifestFormat;
use schemalens::projection::{Detail, TraceEntry};

use super::{Failure, ProjectArgs, exit, input};

pub fn run(args: &ProjectArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let tools = input::selected(&manifest, &args.input)?;
    let options = args.projection.options();
    let mut replacements = Vec::new();
    for i in &tools {
        let tool = &manifest.tools[*i];
        let projection = input::project(&manifest, tool, &options)?;
        warn_about_losses(&tool.name, &projection.trace);
        replacements.push((*i, projection.schema));
    }
    let single = args.input.tool.is_some() || manifest.format == ManifestFormat::BareSchema;
    let output = match (single, replacements.as_slice()) {
        (true, [(_, schema)]) => schema.clone(),
        _ => manifest.with_schemas(&replacements),
    };
    let text = serde_json::to_string_pretty(&output).expect("JSON values always serialize");
    super::emit(&text);
    Ok(exit::OK)
}

/// Places where the projection had to give up information are worth a line on stderr, once
/// per cause (a recursive definition is cut at every leaf of its unrolling).
fn warn_about_losses(tool: &str, trace: &[TraceEntry]) {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for e in trace {
        let key = match &e.detail {
            Detail::Unresolvable { reference, .. } => {
                format!("`$ref` {reference} cannot be resolved; replaced by {{}}")
            }
            Detail::RecursionCut {
                reference, depth, ..
            } => {
                format!("recursive `$ref` {reference} unrolled {depth} level(s), then cut to {{}}")
            }
            _ => continue,
        };
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    for (what, n) in seen {
        let places = if n == 1 {
            "1 place".to_owned()
        } else {
            format!("{n} places")
        };
        eprintln!("warning: tool {tool:?}: {what} ({places})");
    }
}
