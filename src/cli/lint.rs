//! `schemalens lint`: would each provider accept the original, the projection and the tailored
//! schema, and why not; findings grouped by the original node they come from.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use clap::Args;
use schemalens::lint::report::{self, Form, FormLint, ProfileLint, ToolForms, Verdict};
use schemalens::lint::strict_plan::{Budgets, Decision, Demand, request_sentence};
use schemalens::lint::{self, Finding, Group, OllamaView, Placed, Profile, Severity};
use schemalens::manifest::{Manifest, ManifestFormat, SchemaDialect};
use schemalens::pointer;
use schemalens::{Linking, Mode, Projection};
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

Default providers, from the input: an OpenAI tool list is linted for openai-strict when any tool sets `strict: true`, else for openai (Responses-API tools are strict unless they say otherwise: pass --provider openai-strict); Anthropic tools likewise for anthropic-strict or anthropic; Gemini declarations for gemini (`parameters`) and/or gemini-jsonschema (`parametersJsonSchema`), as they are written. A bare schema is linted for openai-strict, gemini, anthropic and ollama, the destinations that disagree most; an MCP tools/list result for mcp and those four. With --tool, rules about the tool list (unique names, per-request limits) see that tool alone. Anthropic strict tool use limits a request (at most 20 strict tools, 24 optional and 16 union-typed properties across them): its summary lines end in `· strict` or `· non-strict`, as `project --provider anthropic-strict` writes each tool's `strict` flag, and the tools sent non-strict are listed with the limit they would cross.

Output: first one line per tool and provider saying whether the provider accepts the original schema, its projection, and the tailored schema (what `schemalens project --provider NAME` sends; `(adapter)`: payloads go through the tailoring's adapter, which `check --provider` applies). Then, per tool and provider, the findings behind each verdict, one group per original node: a definition inlined N times is one finding `×N copies` (JSON: `copies` and the copies' `pointers`). Long lists are folded with a count, and so is what is already said: the projection's findings are named by rule only when the tailored schema is accepted, and findings in a definition identical to one listed for an earlier tool are counted. --all lists every place, every repeat and info-level findings, and puts every copy's pointer in the JSON. Findings marked [unconfirmed] rest on second-hand reports.

Exit codes: 0 every linted provider accepts every tool's tailored schema (the form --fail-on names: original, projection or tailored); 1 some provider still rejects it; 2 bad usage or input (also when some tool cannot be projected; the others are still reported). 2 wins over 1.";

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
    /// List every place and info-level findings in text output; every copy's pointer in JSON.
    #[arg(long)]
    pub all: bool,
    /// Which schema decides the exit code: the original, the projection, or the tailored
    /// schema `project --provider` sends (default).
    #[arg(long, value_name = "FORM", default_value = "tailored", value_parser = parse_form)]
    pub fail_on: Form,
}

fn parse_form(s: &str) -> Result<Form, String> {
    s.parse()
}

/// One tool's lint for every profile.
struct ToolReport<'m> {
    tool: &'m schemalens::manifest::Tool,
    /// Why the projection failed, when it did.
    failed: Option<String>,
    profiles: Vec<ProfileLint>,
    /// Ollama's view of each form (original, projection, tailored), when Ollama is linted.
    ollama: Option<[Option<Arc<OllamaView>>; 3]>,
}

pub fn run(args: &LintArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let selected = input::selected(&manifest, &args.input)?;
    let profiles = match requested(&args.providers)? {
        Some(profiles) => profiles,
        None => default_profiles(&manifest, &selected),
    };
    let options = args.projection.options();
    // A tool that cannot be projected is reported, not fatal: the others still answer.
    let projections: Vec<Result<Projection, String>> =
        input::project_selected(&manifest, &selected, &options, Linking::Build)
            .map(|p| p.map_err(|f| f.message))
            .collect();

    let named = manifest.format != ManifestFormat::BareSchema;
    let forms: Vec<ToolForms<'_>> = selected
        .iter()
        .zip(&projections)
        .map(|(i, p)| ToolForms {
            name: named.then_some(manifest.tools[*i].name.as_str()),
            tool: &manifest.tools[*i],
            options: &options,
            projection: p.as_ref().map_err(String::as_str),
        })
        .collect();

    let mut reports: Vec<ToolReport<'_>> = selected
        .iter()
        .zip(&projections)
        .map(|(i, p)| ToolReport {
            tool: &manifest.tools[*i],
            failed: p.as_ref().err().cloned(),
            profiles: Vec::new(),
            ollama: None,
        })
        .collect();
    for (profile, per_tool) in profiles
        .iter()
        .zip(report::lint_forms_for(&profiles, &forms))
    {
        for (k, mut linted) in per_tool.into_iter().enumerate() {
            if *profile == Profile::Ollama {
                reports[k].ollama = linted.ollama.take();
            }
            reports[k].profiles.push(linted);
        }
    }

    let rejected = reports
        .iter()
        .flat_map(|r| &r.profiles)
        .any(|p| p.verdict(args.fail_on) != Verdict::Accepted);
    let failed = reports.iter().any(|r| r.failed.is_some());
    let mode = options.mode;
    match args.format {
        LintFormat::Json => {
            let doc = json_report(&manifest, &profiles, mode, &reports, args);
            super::emit(&serde_json::to_string_pretty(&doc).expect("JSON values serialize"));
        }
        LintFormat::Text => super::emit(&text_report(&manifest, mode, &reports, args)),
        LintFormat::Sarif => {
            // SARIF lists places, not groups: every copy is a result's counterpart.
            let expanded: Vec<Vec<SarifFindings>> = reports
                .iter()
                .map(|r| {
                    r.profiles
                        .iter()
                        .map(|p| {
                            (
                                p.profile,
                                expand(p.form(Form::Original)),
                                expand(p.form(Form::Projection)),
                            )
                        })
                        .collect()
                })
                .collect();
            let tools: Vec<SarifTool<'_>> = reports
                .iter()
                .zip(&projections)
                .zip(&expanded)
                .map(|((r, projection), profiles)| SarifTool {
                    tool: r.tool,
                    projection: projection.as_ref().ok(),
                    profiles: profiles
                        .iter()
                        .map(|(p, original, projected)| (*p, &original[..], &projected[..]))
                        .collect(),
                })
                .collect();
            super::emit(&super::sarif::log(&args.input.file, &manifest, &tools));
        }
    }
    Ok(if failed {
        exit::INPUT
    } else if rejected {
        exit::FINDING
    } else {
        exit::OK
    })
}

/// One profile's findings on the original and on the projection, one per place.
type SarifFindings = (Profile, Vec<Finding>, Vec<Finding>);

/// The findings a form's groups stand for, one per copy, in document order within a group.
fn expand(form: &FormLint) -> Vec<Finding> {
    form.groups
        .iter()
        .flat_map(|g| {
            g.pointers.iter().map(move |p| Finding {
                pointer: p.clone(),
                ..g.finding.clone()
            })
        })
        .collect()
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

/// Places listed per rule before the rest is folded into a count (text output).
const PLACES_SHOWN: usize = 3;
/// Copies' pointers listed per group in JSON before the rest is counted (`--all`: every one).
const POINTERS_SHOWN: usize = 20;

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `2 errors, 1 warning` (infos only when listed).
fn counts_line(form: &FormLint, all: bool) -> String {
    let [e, w, i] = form.counts();
    let mut parts = vec![plural(e, "error"), plural(w, "warning")];
    if all {
        parts.push(format!("{i} info"));
    }
    parts.join(", ")
}

fn json_report(
    manifest: &Manifest,
    profiles: &[Profile],
    mode: Mode,
    reports: &[ToolReport<'_>],
    args: &LintArgs,
) -> Value {
    let all_accepted = |form: Form| {
        reports
            .iter()
            .flat_map(|r| &r.profiles)
            .all(|p| p.verdict(form) == Verdict::Accepted)
    };
    let summary: Vec<Value> = reports
        .iter()
        .flat_map(|r| {
            r.profiles.iter().map(move |p| {
                let mut entry = json!({
                    "tool": r.tool.name,
                    "provider": p.profile,
                    "original": p.verdict(Form::Original),
                    "projection": p.verdict(Form::Projection),
                    "tailored": p.verdict(Form::Tailored),
                    "adapter": !p.adapters.is_empty(),
                });
                if let Some(d) = &p.sent {
                    entry["sent"] = json!(sent_word(d));
                    if let Some(why) = &d.why_not {
                        entry["sent_why"] = json!(why.to_string());
                    }
                }
                entry
            })
        })
        .collect();
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
                    });
                    for form in Form::ALL {
                        entry[form.name()] = form_json(p.form(form), args.all);
                    }
                    entry["tailored"]["adapters"] = placed_json(&p.adapters, args.all);
                    entry["tailored"]["unresolved"] = placed_json(&p.unresolved, args.all);
                    if let Some(d) = &p.sent {
                        entry["tailored"]["sent"] = json!(d);
                    }
                    if p.profile == Profile::Ollama
                        && let Some(views) = &r.ollama
                    {
                        entry["ollama"] = ollama_json(views, args.all);
                    }
                    entry
                })
                .collect();
            let mut tool = json!({
                "tool": r.tool.name,
                "schema_pointer": r.tool.schema_pointer,
                "profiles": profiles,
            });
            if let Some(why) = &r.failed {
                tool["projection_error"] = json!(why);
            }
            tool
        })
        .collect();
    json!({
        "origin": manifest.origin,
        "mode": mode,
        "providers": profiles,
        "fail_on": args.fail_on,
        "summary": summary,
        "accepted": {
            "original": all_accepted(Form::Original),
            "projection": all_accepted(Form::Projection),
            "tailored": all_accepted(Form::Tailored),
        },
        "projection_has_errors": !all_accepted(Form::Projection),
        "requests": requests_json(profiles, reports),
        "tools": tools,
    })
}

/// The tailored verdict, and how the tool is sent where a request plan decides it.
fn tailored_label(p: &ProfileLint) -> String {
    p.tailored_label()
}

/// `strict` or `non-strict`: how `project --provider` sends the tool.
fn sent_word(d: &Decision) -> &'static str {
    if d.strict { "strict" } else { "non-strict" }
}

/// One request's plan for a profile that limits whole requests: its budgets, how many tools
/// are sent strict and what they take together.
struct RequestSummary {
    profile: Profile,
    budgets: Budgets,
    tools: usize,
    strict: usize,
    used: Demand,
    /// The tools sent non-strict, with why.
    left: Vec<(String, String)>,
}

fn request_summaries(profiles: &[Profile], reports: &[ToolReport<'_>]) -> Vec<RequestSummary> {
    profiles
        .iter()
        .filter_map(|&profile| {
            let budgets = Budgets::of(profile)?;
            let mut summary = RequestSummary {
                profile,
                budgets,
                tools: 0,
                strict: 0,
                used: Demand::default(),
                left: Vec::new(),
            };
            for r in reports {
                let Some(d) = r
                    .profiles
                    .iter()
                    .find(|p| p.profile == profile)
                    .and_then(|p| p.sent.as_ref())
                else {
                    continue;
                };
                summary.tools += 1;
                match (&d.why_not, d.demand) {
                    (Some(why), _) => summary.left.push((r.tool.name.clone(), why.to_string())),
                    (None, demand) => {
                        let demand = demand.unwrap_or_default();
                        summary.strict += 1;
                        summary.used.optional += demand.optional;
                        summary.used.unions += demand.unions;
                    }
                }
            }
            Some(summary)
        })
        .collect()
}

fn requests_json(profiles: &[Profile], reports: &[ToolReport<'_>]) -> Value {
    request_summaries(profiles, reports)
        .into_iter()
        .map(|r| {
            json!({
                "provider": r.profile,
                "budgets": r.budgets,
                "tools": r.tools,
                "strict": r.strict,
                "used": r.used,
                "non_strict": r.left.iter().map(|(tool, why)| json!({"tool": tool, "why": why})).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Per profile that limits whole requests, when some tool is sent non-strict: how many are
/// strict, within which limits, and why each other one is not.
fn write_requests(out: &mut String, reports: &[ToolReport<'_>], args: &LintArgs) {
    let profiles: Vec<Profile> = reports
        .iter()
        .flat_map(|r| r.profiles.iter().map(|p| p.profile))
        .fold(Vec::new(), |mut seen, p| {
            if !seen.contains(&p) {
                seen.push(p);
            }
            seen
        });
    for r in request_summaries(&profiles, reports) {
        if r.left.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{}: {}; `project --provider {}` writes the others without `strict`:",
            r.profile,
            request_sentence(r.strict, r.tools, r.budgets, r.used),
            r.profile
        );
        let shown = if args.all {
            r.left.len()
        } else {
            PLACES_SHOWN.min(r.left.len())
        };
        for (tool, why) in &r.left[..shown] {
            let _ = writeln!(out, "  {tool}: non-strict: {why}");
        }
        folded(out, r.left.len(), shown, "  ");
    }
}

fn form_json(form: &FormLint, all: bool) -> Value {
    if let Some(why) = &form.failed {
        return json!({"verdict": form.verdict(), "error": why});
    }
    let [errors, warnings, infos] = form.counts();
    let groups: Vec<Value> = form.groups.iter().map(|g| group_json(g, all)).collect();
    json!({
        "verdict": form.verdict(),
        "errors": errors,
        "warnings": warnings,
        "infos": infos,
        "copies": form.copies(),
        "groups": groups,
    })
}

fn group_json(g: &Group, all: bool) -> Value {
    with_pointers(serde_json::to_value(g), &g.pointers, all)
}

fn placed_json<T: serde::Serialize>(items: &[Placed<T>], all: bool) -> Value {
    let list: Vec<Value> = items
        .iter()
        .map(|p| with_pointers(serde_json::to_value(p), &p.pointers, all))
        .collect();
    Value::Array(list)
}

/// An entry with `copies` and its copies' `pointers` (the first [`POINTERS_SHOWN`] unless
/// --all, then `pointers_omitted`).
fn with_pointers(v: serde_json::Result<Value>, pointers: &[String], all: bool) -> Value {
    let mut v = v.expect("lint entries serialize");
    let shown = if all {
        pointers.len()
    } else {
        POINTERS_SHOWN.min(pointers.len())
    };
    v["copies"] = json!(pointers.len());
    v["pointers"] = json!(&pointers[..shown]);
    if shown < pointers.len() {
        v["pointers_omitted"] = json!(pointers.len() - shown);
    }
    v
}

/// The original's view in full; a projection's view repeats the projection (its size, not the
/// original's), so without --all only its counts.
fn ollama_json(views: &[Option<Arc<OllamaView>>; 3], all: bool) -> Value {
    let mut out = json!({});
    for (form, view) in Form::ALL.into_iter().zip(views) {
        let Some(view) = view else { continue };
        out[form.name()] = if all || form == Form::Original {
            json!(view.as_ref())
        } else {
            json!({
                "rejected": view.rejected,
                "dropped": view.dropped.len(),
                "structural": view.dropped.iter().filter(|d| d.class == lint::DropClass::Structure).count(),
                "errors": view.errors,
            })
        };
    }
    out
}

fn text_report(
    manifest: &Manifest,
    mode: Mode,
    reports: &[ToolReport<'_>],
    args: &LintArgs,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {mode} mode", manifest.origin);
    write_summary(&mut out, reports, args);
    let mut shown = SharedDefinitions::default();
    for r in reports {
        for p in &r.profiles {
            write_details(&mut out, r, p, args.all, &mut shown);
        }
    }
    out.trim_end().to_owned()
}

/// The answer first: one line per tool and provider.
fn write_summary(out: &mut String, reports: &[ToolReport<'_>], args: &LintArgs) {
    let tool_width = reports
        .iter()
        .map(|r| r.tool.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 40);
    let provider_width = reports
        .iter()
        .flat_map(|r| &r.profiles)
        .map(|p| p.profile.name().len())
        .max()
        .unwrap_or(8)
        .max(8);
    let _ = writeln!(
        out,
        "\n{:<tool_width$}  {:<provider_width$}  {:<10}  {:<10}  tailored",
        "tool", "provider", "original", "projection"
    );
    for r in reports {
        for (n, p) in r.profiles.iter().enumerate() {
            let name = if n == 0 {
                clip(&r.tool.name, tool_width)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{name:<tool_width$}  {:<provider_width$}  {:<10}  {:<10}  {}",
                p.profile.name(),
                p.verdict_label(Form::Original),
                p.verdict_label(Form::Projection),
                tailored_label(p),
            );
        }
        if let Some(why) = &r.failed {
            let _ = writeln!(out, "{:tool_width$}  projection failed: {why}", "");
        }
    }
    let pairs: Vec<&ProfileLint> = reports.iter().flat_map(|r| &r.profiles).collect();
    write_requests(out, reports, args);
    let rejected = pairs
        .iter()
        .filter(|p| p.verdict(Form::Tailored) != Verdict::Accepted)
        .count();
    let _ = writeln!(out);
    if rejected == 0 {
        let _ = writeln!(
            out,
            "Every tool's tailored schema passes every provider above: `schemalens project --provider NAME {}` prints it.",
            args.input.file.display()
        );
    } else {
        let _ = writeln!(
            out,
            "{rejected} of {} tool/provider pairs are still rejected after tailoring; why is below.",
            pairs.len()
        );
    }
    if pairs.iter().any(|p| !p.adapters.is_empty()) {
        let _ = writeln!(
            out,
            "(adapter): payloads must go through the tailoring's adapter; `schemalens check --provider NAME` applies it."
        );
    }
    if args.fail_on != Form::Tailored {
        let _ = writeln!(
            out,
            "The exit code follows the {} schema (--fail-on).",
            args.fail_on
        );
    }
}

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// What is behind one tool's verdicts for one provider; nothing when there is nothing to say.
/// Definitions whose findings were already listed, per profile, with the tool they were listed
/// for. Servers generated from one OpenAPI document give every tool the same `$defs`: their
/// findings are listed once, not once per tool.
#[derive(Default)]
struct SharedDefinitions<'m> {
    listed: HashMap<(Profile, String), (&'m str, &'m Value)>,
}

impl<'m> SharedDefinitions<'m> {
    /// The tool that `tool`'s definition at `at` was listed for, when it is the same schema.
    fn listed_for(
        &self,
        profile: Profile,
        tool: &schemalens::manifest::Tool,
        at: &str,
    ) -> Option<&'m str> {
        let (name, listed) = self.listed.get(&(profile, at.to_owned()))?;
        (tool.schema.pointer(at) == Some(*listed)).then_some(*name)
    }

    fn remember(&mut self, profile: Profile, tool: &'m schemalens::manifest::Tool, at: &str) {
        if let Some(value) = tool.schema.pointer(at) {
            self.listed
                .entry((profile, at.to_owned()))
                .or_insert((tool.name.as_str(), value));
        }
    }
}

/// `/$defs/Name` for a pointer inside a definition (`/$defs/Name/properties/x`).
fn definition_of(at: &str) -> Option<&str> {
    let rest = at
        .strip_prefix("/$defs/")
        .or_else(|| at.strip_prefix("/definitions/"))?;
    let name_len = rest.find('/').unwrap_or(rest.len());
    Some(&at[..at.len() - rest.len() + name_len])
}

fn write_details<'m>(
    out: &mut String,
    r: &ToolReport<'m>,
    p: &ProfileLint,
    all: bool,
    shared: &mut SharedDefinitions<'m>,
) {
    let listed = |form: &FormLint| {
        form.groups
            .iter()
            .filter(|g| all || g.finding.severity != Severity::Info)
            .count()
    };
    let quiet = p.forms.iter().all(|f| listed(f) == 0 && f.failed.is_none())
        && p.adapters.is_empty()
        && p.unresolved.is_empty();
    if quiet {
        return;
    }
    let _ = writeln!(
        out,
        "\n== {} · {} — {}",
        r.tool.name,
        p.profile.name(),
        p.profile.label()
    );
    for form in &p.forms {
        let verdict = form.verdict().name();
        match &form.failed {
            Some(why) => {
                let _ = writeln!(out, "  {:<11} {verdict}: {why}", form.form.name());
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {:<11} {verdict}: {}",
                    form.form.name(),
                    counts_line(form, all)
                );
            }
        }
        if form.form == Form::Tailored {
            write_tailoring(out, p, all);
        }
        let listed: Vec<&Group> = form
            .groups
            .iter()
            .filter(|g| all || g.finding.severity != Severity::Info)
            .collect();
        match form.form {
            Form::Original if !all => write_original(out, r.tool, p.profile, &listed, shared),
            // What tailoring fixes needs no list: the rules are enough (--all lists them).
            Form::Projection if !all && p.verdict(Form::Tailored) == Verdict::Accepted => {
                write_rule_names(out, &listed, p.form(Form::Tailored))
            }
            _ => write_groups(out, &listed, all),
        }
    }
    if let Some(views) = &r.ollama
        && p.profile == Profile::Ollama
    {
        let line: Vec<String> = Form::ALL
            .into_iter()
            .zip(views)
            .filter_map(|(f, v)| v.as_ref().map(|v| format!("{f} {}", ollama_line(v))))
            .collect();
        let _ = writeln!(out, "  what the model sees: {}", line.join("; "));
    }
}

fn write_tailoring(out: &mut String, p: &ProfileLint, all: bool) {
    let shown = |n: usize| if all { n } else { PLACES_SHOWN.min(n) };
    for a in &p.adapters[..shown(p.adapters.len())] {
        // Named by its serialized kind, so that new kinds of adapter show without a change here.
        let kind = serde_json::to_value(&a.item)
            .ok()
            .and_then(|v| v["kind"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let at = a.item.at();
        let _ = writeln!(
            out,
            "    payload adapter: {kind} at #{at}{}",
            copies_and_origin(a.copies(), &a.origins, at)
        );
    }
    folded(out, p.adapters.len(), shown(p.adapters.len()), "    ");
    for u in &p.unresolved[..shown(p.unresolved.len())] {
        let u_at = u.item.pointer.as_str();
        let _ = writeln!(
            out,
            "    not tailored: #{u_at}{} `{}`: {}",
            copies_and_origin(u.copies(), &u.origins, u_at),
            u.item.rule,
            u.item.why
        );
    }
    folded(out, p.unresolved.len(), shown(p.unresolved.len()), "    ");
}

fn folded(out: &mut String, total: usize, shown: usize, indent: &str) {
    if shown < total {
        let _ = writeln!(
            out,
            "{indent}… and {} more (--all lists them)",
            total - shown
        );
    }
}

/// `  × 12 inlined copies (from #/$defs/A)`: empty for a node that is its own origin.
fn copies_and_origin(copies: usize, origins: &[String], at: &str) -> String {
    let mut s = String::new();
    if copies > 1 {
        let _ = write!(s, "  × {copies} inlined copies");
    }
    if origins.first().is_some_and(|o| o != at) {
        let _ = write!(s, "  (from #{}", origins[0]);
        if origins.len() > 1 {
            let _ = write!(s, " and {} more", origins.len() - 1);
        }
        s.push(')');
    }
    s
}

/// The original's groups, except those inside a definition already listed for an earlier tool
/// (the same schema under the same name): those are counted and named.
fn write_original<'m>(
    out: &mut String,
    tool: &'m schemalens::manifest::Tool,
    profile: Profile,
    groups: &[&Group],
    shared: &mut SharedDefinitions<'m>,
) {
    let mut own = Vec::new();
    let mut elsewhere: Vec<(&str, &str)> = Vec::new();
    let mut repeated = 0;
    for &g in groups {
        let at = definition_of(&g.finding.pointer);
        match at.and_then(|at| Some((at, shared.listed_for(profile, tool, at)?))) {
            Some((at, listed_for)) => {
                repeated += 1;
                if !elsewhere.iter().any(|(d, _)| *d == at) {
                    elsewhere.push((at, listed_for));
                }
            }
            None => own.push(g),
        }
    }
    write_groups(out, &own, false);
    for &g in &own {
        if let Some(at) = definition_of(&g.finding.pointer) {
            shared.remember(profile, tool, at);
        }
    }
    if repeated > 0 {
        let mut tools: Vec<&str> = elsewhere.iter().map(|(_, t)| *t).collect();
        tools.dedup();
        let mut names: Vec<String> = elsewhere
            .iter()
            .take(PLACES_SHOWN)
            .map(|(d, _)| format!("#{d}"))
            .collect();
        if elsewhere.len() > PLACES_SHOWN {
            names.push(format!("+{}", elsewhere.len() - PLACES_SHOWN));
        }
        let _ = writeln!(
            out,
            "    and {} in {} identical to {}'s, listed there ({}; --all repeats them)",
            plural(repeated, "finding"),
            plural(elsewhere.len(), "definition"),
            tools.join("'s, "),
            names.join(", ")
        );
    }
}

/// One line: the rules the groups break, with how many places each, split into those the
/// tailored schema no longer breaks and those it still does (listed with it).
fn write_rule_names(out: &mut String, groups: &[&Group], tailored: &FormLint) {
    let mut rules: Vec<(&str, usize)> = Vec::new();
    for g in groups {
        match rules.iter_mut().find(|(r, _)| *r == g.finding.rule) {
            Some((_, n)) => *n += 1,
            None => rules.push((g.finding.rule, 1)),
        }
    }
    let remains = |rule: &str| tailored.groups.iter().any(|g| g.finding.rule == rule);
    let names = |keep: bool| -> Vec<String> {
        rules
            .iter()
            .filter(|(r, _)| remains(r) == keep)
            .map(|(r, n)| {
                if *n > 1 {
                    format!("{r} ×{n}")
                } else {
                    (*r).to_owned()
                }
            })
            .collect()
    };
    let (fixed, kept) = (names(false), names(true));
    let mut parts = Vec::new();
    if !fixed.is_empty() {
        parts.push(format!("{} (tailoring fixes them)", fixed.join(", ")));
    }
    if !kept.is_empty() {
        parts.push(format!(
            "{} (still in the tailored schema)",
            kept.join(", ")
        ));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "    {}", parts.join("; "));
    }
}

/// The groups of one form, by rule (errors first), each rule once with its places folded.
fn write_groups(out: &mut String, groups: &[&Group], all: bool) {
    let mut rules: Vec<(Severity, &str, Vec<&Group>)> = Vec::new();
    for &g in groups {
        let f = &g.finding;
        match rules
            .iter_mut()
            .find(|(s, r, _)| *s == f.severity && *r == f.rule)
        {
            Some((_, _, list)) => list.push(g),
            None => rules.push((f.severity, f.rule, vec![g])),
        }
    }
    rules.sort_by_key(|(s, _, _)| *s);
    for (severity, rule, groups) in rules {
        let first = &groups[0].finding;
        let unconfirmed = if first.confirmed {
            ""
        } else {
            " [unconfirmed]"
        };
        let copies: usize = groups.iter().map(|g| g.copies()).sum();
        let count = if groups.len() == 1 && copies == 1 {
            String::new()
        } else if copies == groups.len() {
            format!("  {}", plural(groups.len(), "place"))
        } else {
            format!(
                "  {} ({copies} with the inlined copies)",
                plural(groups.len(), "place")
            )
        };
        let _ = writeln!(out, "    {:<5} {rule}{unconfirmed}{count}", severity.name());
        let shown = if all {
            groups.len()
        } else {
            PLACES_SHOWN.min(groups.len())
        };
        // One message for the rule when its places say the same; else each place says its own
        // (`required-all` names a different property at each).
        let same = groups.iter().all(|g| g.finding.message == first.message);
        for g in &groups[..shown] {
            let _ = writeln!(out, "          {}", place(g));
            if !same {
                let _ = writeln!(out, "            {}", g.finding.message);
            }
        }
        folded(out, groups.len(), shown, "          ");
        if same {
            let _ = writeln!(out, "          {}", first.message);
        }
        if let Some(said) = &first.provider_message {
            let _ = writeln!(out, "          provider: {said}");
        }
    }
}

/// Where a group is: the first copy's place, how many copies, and the original node they come
/// from when that is elsewhere.
fn place(g: &Group) -> String {
    let f = &g.finding;
    match (&f.target, &f.keyword) {
        (lint::Target::Tool, _) => "(the tool entry)".to_owned(),
        (_, Some(k)) => format!(
            "#{}{}",
            pointer::push(&f.pointer, k),
            copies_and_origin(g.copies(), &g.origins, &f.pointer)
        ),
        (_, None) => format!(
            "#{}{}",
            f.pointer,
            copies_and_origin(g.copies(), &g.origins, &f.pointer)
        ),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use schemalens::lint::Subject;

    fn groups(profile: Profile, schema: &Value) -> Vec<Group> {
        let subject = Subject {
            name: Some("t"),
            schema,
        };
        lint::lint_grouped(profile, &[subject], &[None]).remove(0)
    }

    /// When the tailored schema is accepted, the projection's findings are named by rule, split
    /// into what tailoring fixes and what the tailored schema still has.
    #[test]
    fn rule_names_say_which_rules_tailoring_leaves() {
        let projected = groups(
            Profile::OpenAiStrict,
            &json!({"type": "object", "properties": {
                "a": {"type": "string"}, "b": {"type": "string"}, "c": {"description": "any"}
            }}),
        );
        let tailored = FormLint {
            form: Form::Tailored,
            failed: None,
            groups: groups(
                Profile::OpenAiStrict,
                &json!({"type": "object", "properties": {"c": {"description": "any"}},
                        "required": ["c"], "additionalProperties": false}),
            ),
        };
        let listed: Vec<&Group> = projected.iter().collect();
        let mut out = String::new();
        write_rule_names(&mut out, &listed, &tailored);
        assert_eq!(
            out,
            "    additional-properties, required-all ×3 (tailoring fixes them); type-required (still in the tailored schema)\n"
        );
    }
}
