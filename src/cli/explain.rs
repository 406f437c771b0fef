//! `schemalens explain`: the trace for people (text) or for scripts (JSON).

use schemalens::lint::report::Form;
use schemalens::lint::strict_plan::{self, Budgets, Candidate, Decision};
use serde_json::json;

use super::{ExplainArgs, Failure, Format, exit, input};

pub fn run(args: &ExplainArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let tools = input::selected(&manifest, &args.input)?;
    let options = args.projection.options_for(args.tailor.provider);
    // The tools explained are one request: names another tool has are refused, and a profile
    // that limits whole requests sends some non-strict (as `lint` and `project` say).
    let tool_list = args
        .tailor
        .provider
        .map(|p| input::tool_list(p, tools.iter().map(|i| &manifest.tools[*i])));
    let mut reports = Vec::new();
    let mut candidates = Vec::new();
    for (k, i) in tools.into_iter().enumerate() {
        let tool = &manifest.tools[i];
        let projection = input::project(&manifest, tool, &options)?;
        let report = match args.tailor.provider {
            Some(profile) => {
                let found = tool_list
                    .as_ref()
                    .map_or(&[][..], |s| s.findings(k, Form::Tailored));
                let t = input::tailor(tool, projection, profile, found);
                candidates.push(Candidate::of(profile, &t.projection.schema, &t.unresolved));
                Report {
                    projection: t.projection,
                    provider: Some(profile),
                    adapters: t.adapters,
                    unresolved: t.unresolved,
                    sent: None,
                }
            }
            None => Report {
                projection,
                provider: None,
                adapters: Vec::new(),
                unresolved: Vec::new(),
                sent: None,
            },
        };
        reports.push((tool, report));
    }
    let plan = args
        .tailor
        .provider
        .and_then(Budgets::of)
        .map(|b| strict_plan::plan(b, &candidates));
    for ((_, r), d) in reports
        .iter_mut()
        .zip(plan.into_iter().flat_map(|p| p.decisions))
    {
        r.sent = Some(d);
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
                    if let Some(d) = &r.sent {
                        doc["sent"] = json!(d);
                        if let Some(why) = &d.why_not {
                            doc["sent_why"] = json!(why.to_string());
                        }
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
    /// How the request of the tools explained sends this one, for a profile that limits whole
    /// requests (Anthropic strict tool use).
    sent: Option<Decision>,
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
        if let Some(d) = &r.sent {
            let _ = writeln!(out, "  {:<22} {}", "sent", d.label());
        }
        out.push('\n');
    }
    out.trim_end().to_owned()
}
