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
        Format::Text => {
            for (tool, p) in &reports {
                println!(
                    "{} ({} mode, {} rule application{})",
                    tool.name,
                    p.mode,
                    p.trace.len(),
                    if p.trace.len() == 1 { "" } else { "s" }
                );
                if p.trace.is_empty() {
                    println!(
                        "  nothing to change: the schema is already provider-safe for this mode"
                    );
                }
                for e in &p.trace {
                    let from: Vec<String> = e.from.iter().map(|f| format!("#{f}")).collect();
                    println!(
                        "  {:<22} #{}  ← {}\n  {:<22} {}",
                        e.rule.id(),
                        e.at,
                        from.join(", "),
                        "",
                        e.message()
                    );
                }
                println!();
            }
        }
    }
    Ok(exit::OK)
}
