//! `schemalens lint`: what each provider rejects or drops, in the original and in the projection,
//! side by side.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::Args;
use schemalens::lint::{self, Finding, OllamaView, Profile, Severity, Subject};
use schemalens::manifest::{Manifest, ManifestFormat, SchemaDialect};
use schemalens::pointer;
use schemalens::{Mode, Projection};
use serde_json::{Value, json};

use super::sarif::{LintFormat, SarifTool};
use super::{Failure, InputArgs, ProjectionArgs, exit, input};

pub const LINT_HELP: &str = "Providers (--provider, repeat or comma-separate):
  openai-strict      OpenAI, strict: true (Structured Outputs)
  openai             OpenAI, non-strict
  gemini             Gemini `parameters` (OpenAPI 3.0 subset, Developer API)
  gemini-jsonschema  Gemini `parametersJsonSchema`
  anthropic          Anthropic `input_schema`
  anthropic-strict   Anthropic strict tool use
  ollama             Ollama (what survives its Go structs)
  bedrock            Amazon Bedrock Converse
  mcp                MCP clients
  all                every profile above

Default providers, from the input: an OpenAI tool list is linted for openai-strict when any tool sets `strict: true`, else for openai (Responses-API tools are strict unless they say otherwise: pass --provider openai-strict); Anthropic tools likewise for anthropic-strict or anthropic; Gemini declarations for gemini (`parameters`) and/or gemini-jsonschema (`parametersJsonSchema`), as they are written. A bare schema is linted for openai-strict, gemini, anthropic and ollama, the destinations that disagree most; an MCP tools/list result for mcp and those four. With --tool, rules about the tool list (unique names, per-request limits) see that tool alone.

Findings marked [unconfirmed] rest on second-hand reports. Text output lists errors and warnings (--all adds info); JSON output has everything, including Ollama's \"what the model sees\" view.

Exit codes: 0 the projection has no error for any linted provider (the original may have some); 1 the projection still has errors for some provider; 2 bad usage or input.";

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Provider profiles to lint for (repeatable, comma-separated; `all` for every one).
    #[arg(long = "provider", value_name = "NAME", value_delimiter = ',')]
    pub providers: Vec<String>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    #[arg(long, value_enum, default_value = "text")]
    pub format: super::sarif::LintFormat,
    /// Also list info-level findings in text output.
    #[arg(long)]
    pub all: bool,
}

/// Findings for one profile and one tool, both sides.
struct ProfileReport {
    profile: Profile,
    original: Vec<Finding>,
    projection: Vec<Finding>,
    ollama: Option<(OllamaView, OllamaView)>,
}

struct ToolReport<'m> {
    tool: &'m schemalens::manifest::Tool,
    profiles: Vec<ProfileReport>,
}

pub fn run(args: &LintArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let selected = input::selected(&manifest, &args.input)?;
    let profiles = match requested(&args.providers)? {
        Some(profiles) => profiles,
        None => default_profiles(&manifest, &selected),
    };
    let options = args.projection.options();
    let projections: Vec<Projection> = selected
        .iter()
        .map(|i| input::project(&manifest, &manifest.tools[*i], &options))
        .collect::<Result<_, _>>()?;

    let named = manifest.format != ManifestFormat::BareSchema;
    let subject = |i: usize, schema| Subject {
        name: named.then_some(manifest.tools[i].name.as_str()),
        schema,
    };
    let originals: Vec<Subject<'_>> = selected
        .iter()
        .map(|i| subject(*i, &manifest.tools[*i].schema))
        .collect();
    let projected: Vec<Subject<'_>> = selected
        .iter()
        .zip(&projections)
        .map(|(i, p)| subject(*i, &p.schema))
        .collect();

    let mut reports: Vec<ToolReport<'_>> = selected
        .iter()
        .map(|i| ToolReport {
            tool: &manifest.tools[*i],
            profiles: Vec::new(),
        })
        .collect();
    for profile in &profiles {
        let before = lint::lint_tools(*profile, &originals);
        let after = lint::lint_tools(*profile, &projected);
        for (k, (original, projection)) in before.into_iter().zip(after).enumerate() {
            let ollama = (*profile == Profile::Ollama).then(|| {
                (
                    lint::ollama_view(originals[k].schema),
                    lint::ollama_view(projected[k].schema),
                )
            });
            reports[k].profiles.push(ProfileReport {
                profile: *profile,
                original,
                projection,
                ollama,
            });
        }
    }

    let failing = reports
        .iter()
        .flat_map(|r| &r.profiles)
        .any(|p| lint::has_errors(&p.projection));
    let mode = options.mode;
    match args.format {
        LintFormat::Json => {
            let doc = json_report(&manifest, &profiles, mode, &reports, failing);
            super::emit(&serde_json::to_string_pretty(&doc).expect("JSON values serialize"));
        }
        LintFormat::Text => {
            super::emit(&text_report(&manifest, &profiles, mode, &reports, args.all))
        }
        LintFormat::Sarif => {
            let tools: Vec<SarifTool<'_>> = reports
                .iter()
                .zip(&projections)
                .map(|(r, projection)| SarifTool {
                    tool: r.tool,
                    projection,
                    profiles: r
                        .profiles
                        .iter()
                        .map(|p| (p.profile, &p.original[..], &p.projection[..]))
                        .collect(),
                })
                .collect();
            super::emit(&super::sarif::log(&args.input.file, &manifest, &tools));
        }
    }
    Ok(if failing { exit::FINDING } else { exit::OK })
}

/// The `--provider` values, `None` when none were given.
pub(super) fn requested(names: &[String]) -> Result<Option<Vec<Profile>>, Failure> {
    if names.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for name in names {
        let wanted: Vec<Profile> = if name.trim().eq_ignore_ascii_case("all") {
            Profile::ALL.to_vec()
        } else {
            vec![name.parse().map_err(|e| Failure::input(format!("{e}")))?]
        };
        for p in wanted {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(Some(out))
}

/// The providers a manifest is written for (see `LINT_HELP`).
pub(super) fn default_profiles(manifest: &Manifest, selected: &[usize]) -> Vec<Profile> {
    const COMMON: [Profile; 4] = [
        Profile::OpenAiStrict,
        Profile::Gemini,
        Profile::Anthropic,
        Profile::Ollama,
    ];
    let tools = || selected.iter().map(|i| &manifest.tools[*i]);
    let any_strict = tools().any(|t| t.strict == Some(true));
    match manifest.format {
        ManifestFormat::OpenAi if any_strict => vec![Profile::OpenAiStrict],
        ManifestFormat::OpenAi => vec![Profile::OpenAi],
        ManifestFormat::Anthropic if any_strict => vec![Profile::AnthropicStrict],
        ManifestFormat::Anthropic => vec![Profile::Anthropic],
        ManifestFormat::Gemini => {
            let mut out = Vec::new();
            if tools().any(|t| t.dialect == SchemaDialect::OpenApi30) {
                out.push(Profile::Gemini);
            }
            if tools().any(|t| t.dialect == SchemaDialect::JsonSchema) || out.is_empty() {
                out.push(Profile::GeminiJsonSchema);
            }
            out
        }
        ManifestFormat::Mcp => std::iter::once(Profile::Mcp).chain(COMMON).collect(),
        ManifestFormat::BareSchema => COMMON.to_vec(),
    }
}

fn counts(findings: &[Finding]) -> [usize; 3] {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    [n(Severity::Error), n(Severity::Warn), n(Severity::Info)]
}

fn summary(findings: &[Finding]) -> String {
    let [e, w, i] = counts(findings);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}, {}",
        plural(e, "error"),
        plural(w, "warning"),
        plural(i, "info")
    )
}

fn json_report(
    manifest: &Manifest,
    profiles: &[Profile],
    mode: Mode,
    reports: &[ToolReport<'_>],
    failing: bool,
) -> Value {
    let side = |findings: &[Finding]| {
        let [errors, warnings, infos] = counts(findings);
        json!({"errors": errors, "warnings": warnings, "infos": infos, "findings": findings})
    };
    let tools: Vec<Value> = reports
        .iter()
        .map(|r| {
            let profiles: Vec<Value> = r
                .profiles
                .iter()
                .map(|p| {
                    let mut entry = json!({
                        "profile": p.profile,
                        "label": p.profile.label(),
                        "original": side(&p.original),
                        "projection": side(&p.projection),
                    });
                    if let Some((before, after)) = &p.ollama {
                        entry["ollama"] = json!({"original": before, "projection": after});
                    }
                    entry
                })
                .collect();
            json!({
                "tool": r.tool.name,
                "schema_pointer": r.tool.schema_pointer,
                "profiles": profiles,
            })
        })
        .collect();
    json!({
        "origin": manifest.origin,
        "mode": mode,
        "providers": profiles,
        "projection_has_errors": failing,
        "tools": tools,
    })
}

fn text_report(
    manifest: &Manifest,
    profiles: &[Profile],
    mode: Mode,
    reports: &[ToolReport<'_>],
    all: bool,
) -> String {
    let mut out = String::new();
    let names: Vec<&str> = profiles.iter().map(|p| p.name()).collect();
    let _ = writeln!(
        out,
        "{}: {} mode, providers: {}",
        manifest.origin,
        mode,
        names.join(", ")
    );
    for r in reports {
        let _ = writeln!(out, "\n== {} ==", r.tool.name);
        for p in &r.profiles {
            write_profile(&mut out, p, mode, all);
        }
    }
    out.trim_end().to_owned()
}

fn write_profile(out: &mut String, p: &ProfileReport, mode: Mode, all: bool) {
    let verdict = if lint::has_errors(&p.projection) {
        "still rejected"
    } else if lint::has_errors(&p.original) {
        "passes (the original does not)"
    } else {
        "passes"
    };
    let _ = writeln!(out, "\n{} — {}", p.profile.name(), p.profile.label());
    let _ = writeln!(out, "  {:<11} {}", "original:", summary(&p.original));
    let _ = writeln!(
        out,
        "  {:<11} {}  → {verdict}",
        format!("{mode}:"),
        summary(&p.projection)
    );

    // Side by side, per rule: which findings the projection resolves, keeps or introduces.
    let mut per_rule: BTreeMap<(Severity, &str), (usize, usize)> = BTreeMap::new();
    for f in &p.original {
        per_rule.entry((f.severity, f.rule)).or_default().0 += 1;
    }
    for f in &p.projection {
        per_rule.entry((f.severity, f.rule)).or_default().1 += 1;
    }
    let shown: Vec<_> = per_rule
        .iter()
        .filter(|((s, _), _)| all || *s != Severity::Info)
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(
            out,
            "  {:<5} {:<24} {:>8} {:>10}",
            "",
            "rule",
            "original",
            format!("{mode}")
        );
        for ((severity, rule), (before, after)) in shown {
            let status = match (before, after) {
                (_, 0) => "resolved",
                (0, _) => "introduced",
                _ => "remains",
            };
            let cell = |n: &usize| {
                if *n == 0 {
                    "-".to_owned()
                } else {
                    n.to_string()
                }
            };
            let _ = writeln!(
                out,
                "  {:<5} {:<24} {:>8} {:>10}  {status}",
                severity.name(),
                rule,
                cell(before),
                cell(after)
            );
        }
    }
    if let Some((before, after)) = &p.ollama {
        let _ = writeln!(
            out,
            "  what the model sees: original {}; {mode} {}",
            ollama_line(before),
            ollama_line(after)
        );
    }
    write_findings(out, "original", &p.original, all);
    write_findings(out, &format!("projection ({mode})"), &p.projection, all);
}

fn ollama_line(view: &OllamaView) -> String {
    if view.rejected {
        return "nothing (the request fails to decode)".to_owned();
    }
    let structural = view
        .dropped
        .iter()
        .filter(|d| d.class == lint::DropClass::Structure)
        .count();
    format!(
        "loses {} keyword(s), {structural} of them structural",
        view.dropped.len()
    )
}

fn write_findings(out: &mut String, side: &str, findings: &[Finding], all: bool) {
    let listed: Vec<&Finding> = findings
        .iter()
        .filter(|f| all || f.severity != Severity::Info)
        .collect();
    if listed.is_empty() {
        return;
    }
    let _ = writeln!(out, "  {side}:");
    for f in listed {
        let place = match (&f.target, &f.keyword) {
            (lint::Target::Tool, _) => "(the tool entry)".to_owned(),
            (_, Some(k)) => format!("#{}", pointer::push(&f.pointer, k)),
            (_, None) => format!("#{}", f.pointer),
        };
        let unconfirmed = if f.confirmed { "" } else { " [unconfirmed]" };
        let _ = writeln!(
            out,
            "    {:<5} {}{unconfirmed}  {place}",
            f.severity.name(),
            f.rule
        );
        let _ = writeln!(out, "          {}", f.message);
        if let Some(said) = &f.provider_message {
            let _ = writeln!(out, "          provider: {said}");
        }
    }
}
