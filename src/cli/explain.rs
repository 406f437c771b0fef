//! `schemalens explain`: the trace for people (text) or for scripts (JSON).

use serde_json::json;

use super::{ExplainArgs, Failure, Format, exit, input};

pub fn run(args: &ExplainArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let tools = input::selected(&manifest, &args.input)?;
    let options = args.projection.options_for(args.tailor.provider);
    let mut reports = Vec::new();
    for i in tools {
        let tool = &manifest.tools[i];
        let projection = input::project(&manifest, tool, &options)?;
        let report = match args.tailor.provider {
            Some(profile) => {
                let t = input::tailor(tool, projection, profile);
                Report {
                    projection: t.projection,
                    provider: Some(profile),
                    adapters: t.adapters,
                    unresolved: t.unresolved,
                }
            }
            None => Report {
                projection,
                provider: None,
                adapters: Vec::new(),
                unresolved: Vec::new(),
            },
        };
        reports.push((tool, report));
    }
    match args.format {
        Format::Json => {
            let tools: Vec<_> = reports
                .iter()
                .map(|(tool, r)| {
                    let p = &r.projection;
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
                    let mut doc = json!({"tool": tool.name, "mode": p.mode, "schema_pointer": tool.schema_pointer, "trace": trace});
                    if let Some(profile) = r.provider {
                        doc["provider"] = json!(profile);
                        doc["adapters"] = json!(r.adapters);
                        doc["unresolved"] = json!(r.unresolved);
                    }
                    doc
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

/// One tool's projection, tailored or not.
struct Report {
    projection: schemalens::Projection,
    provider: Option<schemalens::lint::Profile>,
    adapters: Vec<schemalens::projection::Adapter>,
    unresolved: Vec<schemalens::projection::Unresolved>,
}

fn text_report(reports: &[(&schemalens::manifest::Tool, Report)]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (tool, r) in reports {
        let p = &r.projection;
        let n = p.trace.len();
        let tailored = r
            .provider
            .map(|profile| format!(", tailored for {profile}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} ({} mode{tailored}, {n} rule application{})",
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
        for a in &r.adapters {
            let what = a.describe();
            let _ = writeln!(out, "  {:<22} #{}  {what}", "adapter", a.at());
        }
        for u in &r.unresolved {
            let _ = writeln!(
                out,
                "  {:<22} #{}  {} ({})",
                "unresolved", u.pointer, u.why, u.rule
            );
        }
        out.push('\n');
    }
    out.trim_end().to_owned()
}
