//! `schemalens explain`: the trace for people (text) or for scripts (JSON).

use serde_json::json;

use super::{ExplainArgs, Failure, Format, exit, input};

pub fn run(args: &ExplainArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let tools = input::selected(&manifest, &args.input)?;
    let options = args.projection.options();
    let mut reports = Vec::new();
    for i in tools {
        let tool = &manifest.tools[i];
        let projection = input::project(&manifest, tool, &options)?;
        reports.push((tool, projection));
    }
    match args.format {
        Format::Json => {
            let tools: Vec<_> = reports
                .iter()
                .map(|(tool, p)| {
                    let trace: Vec<_> = p
                        .trace
                        .iter()
                        .map(|e| {
                            json!({
                                "rule": e.rule,
                                "at": e.at,
                                "from": e.from,
                                "message": e.message(),
                                "detail": e.detail,
                            })
                        })
                        .collect();
                    json!({"tool": tool.name, "mode": p.mode, "schema_pointer": tool.schema_pointer, "trace": trace})
                })
                .collect();
            let doc = json!({"origin": manifest.origin, "tools": tools});
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("serializable")
            );
        }
        Format::Text => super::emit(&text_report(&reports)),
    }
    Ok(exit::OK)
}

fn text_report(reports: &[(&schemalens::manifest::Tool, schemalens::Projection)]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (tool, p) in reports {
        let n = p.trace.len();
        let _ = writeln!(
            out,
            "{} ({} mode, {n} rule application{})",
            tool.name,
            p.mode,
            if n == 1 { "" } else { "s" }
        );
        if p.trace.is_empty() {
            let _ = writeln!(
                out,
                "  nothing to change: already provider-safe for this mode"
            );
        }
        for e in &p.trace {
            let from: Vec<String> = e.from.iter().map(|f| format!("#{f}")).collect();
            let _ = writeln!(
                out,
                "  {:<22} #{}  ← {}",
                e.rule.id(),
                e.at,
                from.join(", ")
            );
            let _ = writeln!(out, "  {:<22} {}", "", e.message());
        }
        out.push('\n');
    }
    out.trim_end().to_owned()
}
