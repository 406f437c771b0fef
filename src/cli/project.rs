//! `schemalens project`: the projected schema, in the input's own document shape.

use schemalens::manifest::ManifestFormat;
use schemalens::projection::{Detail, Rule};

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
    println!("{text}");
    Ok(exit::OK)
}

/// Places where the projection had to give up information are worth a line on stderr.
fn warn_about_losses(tool: &str, trace: &[schemalens::projection::TraceEntry]) {
    for e in trace {
        if matches!(e.rule, Rule::Unresolvable) || matches!(e.detail, Detail::RecursionCut { .. }) {
            eprintln!("warning: tool {tool:?} at #{}: {}", e.at, e.message());
        }
    }
}
