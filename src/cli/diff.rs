//! `schemalens diff OLD NEW`: what changed between two versions of a manifest, for callers, for
//! the model (the projection) and for providers, rendered from the library's report.

use std::fmt::Write as _;

use clap::Args;
use schemalens::diff::source::{self, Spec};
use schemalens::diff::{
    self, Change, Class, DiffOptions, FailOn, LintItem, Report, Status, ToolDiff,
};
use schemalens::lint::Finding;
use schemalens::lint::Profile;
use schemalens::manifest::{Manifest, ManifestFormat};
use schemalens::validate::Side;
use serde_json::{Value, json};

use super::{Failure, ProjectionArgs, exit};

pub const DIFF_HELP: &str = "OLD and NEW: a manifest file of any shape schemalens reads, `-` for standard input (one of them), or REV:PATH read from the git repository of the current folder (`git show REV:PATH`: PATH from the repository root, or ./PATH from here).

Classes, for callers of the tool (the original schema):
  breaking  NEW rejects a payload OLD accepted; the witness is such a payload, checked with the validator
  widening  NEW accepts everything OLD did, and more (proven by the kind of change and where it sits)
  neutral   annotations only (descriptions, titles, examples)
  unknown   neither could be proven; the message says why

Projection changes (the chosen --mode) are classified the same way against the two projections, and list the rule applications that appeared or disappeared. Lint: findings NEW introduces or resolves per provider (default: the profiles that fit the manifests, as `lint` chooses them). Payloads beside either file (<stem>.payloads/) whose verdict changes are listed.

--fail-on: breaking (default: a breaking change on the original, or a payload the original no longer accepts), provider (a lint error introduced, either side), any (any change), none.
Exit codes: 0 nothing matched --fail-on; 1 something did; 2 bad usage or input.";

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    Text,
    Json,
    /// A report for a pull-request comment: a summary table, then each changed tool.
    Markdown,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOnArg {
    Breaking,
    Provider,
    Any,
    None,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The old version: a file, `-`, or REV:PATH.
    pub old: String,
    /// The new version: a file, `-`, or REV:PATH.
    pub new: String,
    /// Only this tool (by name).
    #[arg(long)]
    pub tool: Option<String>,
    /// Input format of both versions when detection should not guess.
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<ManifestFormat>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    /// Providers to lint for (repeatable, comma-separated; `all` for every profile).
    #[arg(long = "provider", value_name = "NAME", value_delimiter = ',')]
    pub providers: Vec<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: DiffFormat,
    /// What makes the exit code 1.
    #[arg(long, value_enum, default_value = "breaking")]
    pub fail_on: FailOnArg,
}

pub fn run(args: &DiffArgs) -> Result<u8, Failure> {
    let (old_spec, new_spec) = (Spec::parse(&args.old), Spec::parse(&args.new));
    if old_spec == Spec::Stdin && new_spec == Spec::Stdin {
        return Err(Failure::input("only one of OLD and NEW can be `-`"));
    }
    let load =
        |s: &Spec| source::load(s, args.input_format).map_err(|e| Failure::input(e.to_string()));
    let (old, new) = (load(&old_spec)?, load(&new_spec)?);
    let profiles = match super::lint::requested(&args.providers)? {
        Some(p) => p,
        None => default_profiles(&old, &new),
    };
    let mut payloads = Vec::new();
    for (spec, manifest) in [(&old_spec, &old), (&new_spec, &new)] {
        if let Some(anchor) = spec.payload_anchor() {
            let (found, errors) = diff::payloads_beside(&anchor, manifest);
            for e in errors {
                eprintln!("warning: {e}");
            }
            for p in found {
                if !payloads.contains(&p) {
                    payloads.push(p);
                }
            }
        }
    }
    let options = DiffOptions {
        projection: args.projection.options(),
        profiles,
    };
    let mut report = diff::diff(&old, &new, &payloads, &options);
    if let Some(name) = &args.tool {
        report.tools.retain(|t| &t.tool == name);
        if report.tools.is_empty() {
            return Err(Failure::input(format!(
                "no tool named {name:?} in {} or {}",
                old.origin, new.origin
            )));
        }
    }
    let heading = Heading {
        old: &old.origin,
        new: &new.origin,
        mode: &options.projection.mode.to_string(),
        profiles: &options.profiles,
    };
    let text = match args.format {
        DiffFormat::Json => {
            serde_json::to_string_pretty(&json_report(&report)).expect("JSON values serialize")
        }
        DiffFormat::Text => text_report(&report, &heading),
        DiffFormat::Markdown => markdown_report(&report, &heading),
    };
    super::emit(text.trim_end());
    let fail_on = match args.fail_on {
        FailOnArg::Breaking => FailOn::Breaking,
        FailOnArg::Provider => FailOn::Provider,
        FailOnArg::Any => FailOn::Any,
        FailOnArg::None => FailOn::None,
    };
    Ok(if report.matches(fail_on) {
        exit::FINDING
    } else {
        exit::OK
    })
}

/// The profiles `lint` would choose for either version.
fn default_profiles(old: &Manifest, new: &Manifest) -> Vec<Profile> {
    let mut out = Vec::new();
    for m in [old, new] {
        let all: Vec<usize> = (0..m.tools.len()).collect();
        for p in super::lint::default_profiles(m, &all) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

struct Heading<'a> {
    old: &'a str,
    new: &'a str,
    mode: &'a str,
    profiles: &'a [Profile],
}

fn json_report(report: &Report) -> Value {
    json!({ "tools": report.tools })
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).expect("JSON values serialize")
}

fn place(c: &Change) -> String {
    let show = |p: &Option<String>| match p.as_deref() {
        None => "-".to_owned(),
        Some("") => "#".to_owned(),
        Some(p) => format!("#{p}"),
    };
    if c.old_pointer == c.new_pointer || c.old_pointer.is_none() || c.new_pointer.is_none() {
        show(if c.new_pointer.is_some() {
            &c.new_pointer
        } else {
            &c.old_pointer
        })
    } else {
        format!("{} → {}", show(&c.old_pointer), show(&c.new_pointer))
    }
}

/// The changes of one side worth listing, and how many projection changes only repeat an
/// original one (same kind, place, message and class): the JSON keeps them all.
fn shown(t: &ToolDiff, side: Side) -> (Vec<&Change>, usize) {
    let repeats = |c: &Change| {
        side == Side::Projection
            && t.changes.iter().any(|o| {
                o.side == Side::Original
                    && o.kind == c.kind
                    && o.old_pointer == c.old_pointer
                    && o.new_pointer == c.new_pointer
                    && o.message == c.message
                    && o.class == c.class
            })
    };
    let all: Vec<&Change> = t.changes.iter().filter(|c| c.side == side).collect();
    let mirrored = all.iter().filter(|c| repeats(c)).count();
    (all.into_iter().filter(|c| !repeats(c)).collect(), mirrored)
}

/// Lint findings, each once with the sides it is on (the projection often keeps the original's
/// problem at the same place).
fn merged(items: &[LintItem]) -> Vec<(String, &Finding)> {
    let mut out: Vec<(Vec<Side>, &Finding)> = Vec::new();
    for i in items {
        let same = out.iter_mut().find(|(_, f)| {
            f.rule == i.finding.rule
                && f.pointer == i.finding.pointer
                && f.keyword == i.finding.keyword
                && f.message == i.finding.message
        });
        match same {
            Some((sides, _)) => sides.push(i.side),
            None => out.push((vec![i.side], &i.finding)),
        }
    }
    out.into_iter()
        .map(|(sides, f)| {
            let names: Vec<String> = sides.iter().map(ToString::to_string).collect();
            (names.join(" and "), f)
        })
        .collect()
}

fn counts(t: &ToolDiff, side: Side) -> String {
    let parts: Vec<String> = Class::ALL
        .iter()
        .map(|c| (c, t.count(side, *c)))
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| format!("{n} {c}"))
        .collect();
    if parts.is_empty() {
        "no change".to_owned()
    } else {
        parts.join(", ")
    }
}

fn text_report(report: &Report, h: &Heading<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "schemalens diff {} → {} (projection: {})",
        h.old, h.new, h.mode
    );
    let mut unchanged = Vec::new();
    for t in &report.tools {
        if t.status == Status::Unchanged && t.payloads.is_empty() && t.lint.is_empty() {
            unchanged.push(t.tool.as_str());
            continue;
        }
        let _ = writeln!(
            out,
            "\ntool {}: {} — {}",
            t.tool,
            t.status.id(),
            counts(t, Side::Original)
        );
        for side in [Side::Original, Side::Projection] {
            let (list, mirrored) = shown(t, side);
            if list.is_empty() && mirrored == 0 {
                continue;
            }
            let title = match side {
                Side::Original => "original (callers)".to_owned(),
                Side::Projection => format!("projection ({}: what the model sees)", h.mode),
            };
            let _ = writeln!(out, "  {title}");
            if mirrored > 0 {
                let _ = writeln!(out, "    {mirrored} change(s) as on the original");
            }
            for c in list {
                let class = if c.class == Class::Breaking {
                    "BREAKING".to_owned()
                } else {
                    c.class.to_string()
                };
                let _ = writeln!(
                    out,
                    "    {class:<9} {:<34} {}  {}",
                    c.kind,
                    place(c),
                    c.message
                );
                if let Some(w) = &c.witness {
                    let _ = writeln!(
                        out,
                        "              witness (OLD accepts, NEW rejects): {}",
                        compact(w)
                    );
                }
            }
        }
        for (provider, delta) in &t.lint {
            let _ = writeln!(
                out,
                "  lint {provider}: {} introduced, {} resolved",
                delta.introduced.len(),
                delta.resolved.len()
            );
            for (sign, items) in [("+", &delta.introduced), ("-", &delta.resolved)] {
                for (sides, f) in merged(items) {
                    let at = if f.pointer.is_empty() {
                        "#".to_owned()
                    } else {
                        format!("#{}", f.pointer)
                    };
                    let _ = writeln!(
                        out,
                        "    {sign} [{sides}] {} {} at {at}: {}",
                        f.severity.name(),
                        f.rule,
                        f.message
                    );
                }
            }
        }
        if !t.payloads.is_empty() {
            let _ = writeln!(out, "  payloads whose verdict changed");
            for p in &t.payloads {
                let _ = writeln!(out, "    {}: {} → {}", p.payload, p.old, p.new);
            }
        }
    }
    if !unchanged.is_empty() {
        let _ = writeln!(out, "\nunchanged: {}", unchanged.join(", "));
    }
    let _ = writeln!(out, "\n{}", summary_line(report, h));
    out
}

fn summary_line(report: &Report, h: &Heading<'_>) -> String {
    let n = |s: Status| report.tools.iter().filter(|t| t.status == s).count();
    let total = |c: Class| {
        report
            .tools
            .iter()
            .map(|t| t.count(Side::Original, c))
            .sum::<usize>()
    };
    let providers = if h.profiles.is_empty() {
        "none".to_owned()
    } else {
        h.profiles
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{} changed, {} added, {} removed, {} unchanged; original: {} breaking, {} unknown, {} widening, {} neutral; linted for {providers}",
        n(Status::Changed),
        n(Status::Added),
        n(Status::Removed),
        n(Status::Unchanged),
        total(Class::Breaking),
        total(Class::Unknown),
        total(Class::Widening),
        total(Class::Neutral),
    )
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn code(s: &str) -> String {
    if s.contains('`') {
        format!("`` {} ``", cell(s))
    } else {
        format!("`{}`", cell(s))
    }
}

fn markdown_report(report: &Report, h: &Heading<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Schema changes: {} → {}\n",
        code(h.old),
        code(h.new)
    );
    let _ = writeln!(out, "{}\n", summary_line(report, h));
    let _ = writeln!(
        out,
        "| tool | status | breaking | unknown | widening | neutral | projection changes | lint (new / fixed) | payloads changed |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for t in &report.tools {
        let c = |class| t.count(Side::Original, class);
        let breaking = c(Class::Breaking);
        let projection = t
            .changes
            .iter()
            .filter(|c| c.side == Side::Projection)
            .count();
        let introduced: usize = t.lint.values().map(|d| d.introduced.len()).sum();
        let resolved: usize = t.lint.values().map(|d| d.resolved.len()).sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |",
            code(&t.tool),
            t.status.id(),
            if breaking > 0 {
                format!("**{breaking}**")
            } else {
                "0".to_owned()
            },
            c(Class::Unknown),
            c(Class::Widening),
            c(Class::Neutral),
            projection,
            introduced,
            resolved,
            t.payloads.len()
        );
    }
    for t in &report.tools {
        if t.status == Status::Unchanged && t.payloads.is_empty() && t.lint.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {} — {}\n", code(&t.tool), t.status.id());
        for side in [Side::Original, Side::Projection] {
            let (list, mirrored) = shown(t, side);
            if list.is_empty() && mirrored == 0 {
                continue;
            }
            let title = match side {
                Side::Original => "**For callers** (the original schema)".to_owned(),
                Side::Projection => format!("**What the model sees** (the {} projection)", h.mode),
            };
            let _ = writeln!(out, "{title}\n");
            if mirrored > 0 {
                let _ = writeln!(out, "{mirrored} change(s) as on the original.\n");
            }
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(out, "| class | kind | where | change |");
            let _ = writeln!(out, "|---|---|---|---|");
            for c in &list {
                let class = if c.class == Class::Breaking {
                    "**breaking**".to_owned()
                } else {
                    c.class.to_string()
                };
                let _ = writeln!(
                    out,
                    "| {class} | {} | {} | {} |",
                    c.kind,
                    code(&place(c)),
                    cell(&c.message)
                );
            }
            let witnessed: Vec<&&Change> = list.iter().filter(|c| c.witness.is_some()).collect();
            if !witnessed.is_empty() {
                let _ = writeln!(
                    out,
                    "\n<details><summary>Witnesses: payloads OLD accepts and NEW rejects</summary>\n"
                );
                for c in witnessed {
                    let w = c.witness.as_ref().expect("filtered");
                    let _ = writeln!(
                        out,
                        "{} at {}:\n\n```json\n{}\n```\n",
                        c.kind,
                        code(&place(c)),
                        compact(w)
                    );
                }
                let _ = writeln!(out, "</details>\n");
            } else {
                out.push('\n');
            }
        }
        for (provider, delta) in &t.lint {
            let _ = writeln!(
                out,
                "**Lint `{provider}`**: {} introduced, {} resolved\n",
                delta.introduced.len(),
                delta.resolved.len()
            );
            for (sign, items) in [
                ("introduced", &delta.introduced),
                ("resolved", &delta.resolved),
            ] {
                for (sides, f) in merged(items) {
                    let _ = writeln!(
                        out,
                        "- {sign} ({sides}, {}): `{}` at {} — {}",
                        f.severity.name(),
                        f.rule,
                        code(&format!("#{}", f.pointer)),
                        cell(&f.message)
                    );
                }
            }
            out.push('\n');
        }
        if !t.payloads.is_empty() {
            let _ = writeln!(out, "**Payloads whose verdict changed**\n");
            for p in &t.payloads {
                let _ = writeln!(out, "- {}: {} → {}", code(&p.payload), p.old, p.new);
            }
            out.push('\n');
        }
    }
    out
}
