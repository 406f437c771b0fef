//! Reviewing schema changes: what changed between two versions of a manifest, tool by tool,
//! and what it means for callers — with a witness payload for every breaking change.
//!
//! - Tools are matched by name: added, removed, changed, unchanged.
//! - On the **original** schemas, nodes are paired through `$ref`s (a renamed definition with
//!   the same content is no change) and each difference gets a kind (see [`kinds::KINDS`]) and
//!   a [`Class`]: `breaking` only with a payload that OLD accepts and NEW rejects, built from
//!   the schemas and checked with the validator before it is reported; `widening` only where
//!   the kind of change proves it in its place (`not` flips it, `if` and overlapping `oneOf`
//!   alternatives hide it); `neutral` for annotations; `unknown` for the rest, said so.
//! - On the **projection** (the chosen mode) the same comparison runs on the two projected
//!   schemas, and the rule applications that appeared or disappeared are listed (a union that
//!   stopped qualifying for flattening, with the reason the trace gives).
//! - Provider lint findings the change introduces and resolves, on both sides.
//! - Payloads whose verdict changes.

mod compare;
mod generate;
pub mod kinds;
pub mod source;
mod trace;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::ProjectionError;
use crate::lint::{self, Finding, Profile, Subject};
use crate::manifest::{Manifest, ManifestFormat, SchemaDialect, Tool};
use crate::pointer;
use crate::projection::{Options, Projection};
use crate::schema::Draft;
use crate::validate::{Checker, SchemaValidator, Side, SideVerdict};

use compare::{Doc, MAX_CANDIDATES, RawChange};
use generate::{Generator, Injection, Steer};
pub use kinds::{Direction, KINDS, Kind};

/// What a change means for callers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// NEW rejects a payload OLD accepted: the witness shows one.
    Breaking,
    /// Neither proven breaking nor proven safe.
    Unknown,
    /// NEW accepts everything OLD did, and more.
    Widening,
    /// Annotations only.
    Neutral,
}

impl Class {
    pub const ALL: [Class; 4] = [
        Class::Breaking,
        Class::Unknown,
        Class::Widening,
        Class::Neutral,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Unknown => "unknown",
            Class::Widening => "widening",
            Class::Neutral => "neutral",
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Added,
    Removed,
    Changed,
    Unchanged,
}

impl Status {
    pub fn id(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Changed => "changed",
            Status::Unchanged => "unchanged",
        }
    }
}

/// One change, on the original or on the projection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub side: Side,
    /// Where in OLD's schema (of that side); `None` for a tool only NEW has.
    pub old_pointer: Option<String>,
    pub new_pointer: Option<String>,
    /// An id of [`kinds::KINDS`].
    pub kind: &'static str,
    pub class: Class,
    pub message: String,
    /// `breaking` only: a payload OLD accepts and NEW rejects, checked by the validator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Value>,
}

/// A lint finding, with the side it was found on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LintItem {
    pub side: Side,
    #[serde(flatten)]
    pub finding: Finding,
}

/// What one provider's lint says differently about NEW.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LintDelta {
    pub introduced: Vec<LintItem>,
    pub resolved: Vec<LintItem>,
}

impl LintDelta {
    pub fn is_empty(&self) -> bool {
        self.introduced.is_empty() && self.resolved.is_empty()
    }

    /// Introduced findings of error severity.
    pub fn introduced_errors(&self) -> usize {
        self.introduced
            .iter()
            .filter(|i| i.finding.is_error())
            .count()
    }
}

/// A payload whose verdict differs between the versions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PayloadChange {
    pub payload: String,
    pub old: crate::validate::Class,
    pub new: crate::validate::Class,
}

impl PayloadChange {
    /// The original accepted it and no longer does: a real caller broken.
    pub fn breaks(&self) -> bool {
        use crate::validate::Class as V;
        let accepts = |c: V| matches!(c, V::BothAccept | V::Unsound);
        accepts(self.old) && !accepts(self.new)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDiff {
    pub tool: String,
    pub status: Status,
    pub changes: Vec<Change>,
    pub lint: BTreeMap<String, LintDelta>,
    pub payloads: Vec<PayloadChange>,
}

impl ToolDiff {
    pub fn count(&self, side: Side, class: Class) -> usize {
        self.changes
            .iter()
            .filter(|c| c.side == side && c.class == class)
            .count()
    }

    pub fn is_breaking(&self) -> bool {
        self.count(Side::Original, Class::Breaking) > 0
            || self.payloads.iter().any(PayloadChange::breaks)
    }

    pub fn introduces_provider_errors(&self) -> bool {
        self.lint.values().any(|d| d.introduced_errors() > 0)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub tools: Vec<ToolDiff>,
}

/// What `--fail-on` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// A breaking change on the original, or a payload the original no longer accepts.
    Breaking,
    /// A lint error the change introduces, on either side, for a linted provider.
    Provider,
    /// Any change at all.
    Any,
    None,
}

impl Report {
    pub fn matches(&self, fail_on: FailOn) -> bool {
        match fail_on {
            FailOn::Breaking => self.tools.iter().any(ToolDiff::is_breaking),
            FailOn::Provider => self.tools.iter().any(ToolDiff::introduces_provider_errors),
            FailOn::Any => self.tools.iter().any(|t| {
                t.status != Status::Unchanged
                    || !t.payloads.is_empty()
                    || t.lint.values().any(|d| !d.is_empty())
            }),
            FailOn::None => false,
        }
    }

    pub fn tool(&self, name: &str) -> Option<&ToolDiff> {
        self.tools.iter().find(|t| t.tool == name)
    }
}

#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    /// How both versions are projected.
    pub projection: Options,
    /// Providers to lint for.
    pub profiles: Vec<Profile>,
}

/// A payload read from beside a manifest, for the tool it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Payload {
    pub tool: String,
    /// The file, and `:line` for a JSON Lines record.
    pub label: String,
    pub value: Value,
}

/// The payloads beside a manifest file (the `<stem>.payloads/` convention), with the files
/// that could not be read.
pub fn payloads_beside(path: &Path, manifest: &Manifest) -> (Vec<Payload>, Vec<String>) {
    use crate::validate::discover;
    use crate::validate::payload;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let files = match discover::discover(path, manifest) {
        Ok(f) => f,
        Err(e) => return (out, vec![format!("{}: {e}", path.display())]),
    };
    for file in files {
        let tool = manifest.tools[file.tool].name.clone();
        let origin = file.path.display().to_string();
        let text = match std::fs::read_to_string(&file.path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{origin}: cannot read: {e}"));
                continue;
            }
        };
        if discover::is_json_lines(&file.path) {
            for parsed in payload::parse_lines(&text, &origin) {
                match parsed.value {
                    Ok(value) => out.push(Payload {
                        tool: tool.clone(),
                        label: format!("{origin}:{}", parsed.line.unwrap_or(0)),
                        value,
                    }),
                    Err(e) => errors.push(e.to_string()),
                }
            }
        } else {
            match payload::parse(&text, &origin) {
                Ok(value) => out.push(Payload {
                    tool,
                    label: origin,
                    value,
                }),
                Err(e) => errors.push(e.to_string()),
            }
        }
    }
    (out, errors)
}

/// How a diff projects a tool: [`crate::project_tool`] under the options, or the caller's
/// own, which may already hold some of the projections (the inspector's shown view).
pub type Projector<'a> = dyn Fn(&Tool) -> Result<Arc<Projection>, ProjectionError> + 'a;

/// The projector [`diff`] uses: every tool projected under `options`.
fn projecting(options: &Options) -> impl Fn(&Tool) -> Result<Arc<Projection>, ProjectionError> {
    |tool| crate::project_tool(tool, options).map(Arc::new)
}

/// Compares two versions of a manifest.
pub fn diff(old: &Manifest, new: &Manifest, payloads: &[Payload], options: &DiffOptions) -> Report {
    diff_with(
        old,
        new,
        payloads,
        options,
        &projecting(&options.projection),
    )
}

/// [`diff`], each tool projected by `project`.
pub fn diff_with(
    old: &Manifest,
    new: &Manifest,
    payloads: &[Payload],
    options: &DiffOptions,
    project: &Projector<'_>,
) -> Report {
    let mut tools = Vec::new();
    // A bare schema is named after its file (or title): two versions of one are one tool.
    if old.format == ManifestFormat::BareSchema
        && new.format == ManifestFormat::BareSchema
        && let ([ot], [nt]) = (old.tools.as_slice(), new.tools.as_slice())
    {
        let mut t = diff_tool_with(Some((old, ot)), Some((new, nt)), payloads, options, project);
        t.tool = nt.name.clone();
        tools.push(t);
        return Report { tools };
    }
    let mut taken = vec![false; new.tools.len()];
    for ot in &old.tools {
        let found = new
            .tools
            .iter()
            .enumerate()
            .position(|(j, t)| !taken[j] && t.name == ot.name);
        if let Some(j) = found {
            taken[j] = true;
        }
        let nt = found.map(|j| &new.tools[j]);
        tools.push(diff_tool_with(
            Some((old, ot)),
            nt.map(|t| (new, t)),
            payloads,
            options,
            project,
        ));
    }
    for (j, nt) in new.tools.iter().enumerate() {
        if !taken[j] {
            tools.push(diff_tool_with(
                None,
                Some((new, nt)),
                payloads,
                options,
                project,
            ));
        }
    }
    Report { tools }
}

fn draft_of(tool: &Tool) -> Draft {
    match tool.dialect {
        SchemaDialect::OpenApi30 => Draft::OpenApi30,
        SchemaDialect::JsonSchema => Draft::detect(&tool.schema),
    }
}

type Version<'m> = (&'m Manifest, &'m Tool);

/// Compares one tool's two versions (either may be missing).
pub fn diff_tool(
    old: Option<Version<'_>>,
    new: Option<Version<'_>>,
    payloads: &[Payload],
    options: &DiffOptions,
) -> ToolDiff {
    diff_tool_with(
        old,
        new,
        payloads,
        options,
        &projecting(&options.projection),
    )
}

/// [`diff_tool`], each version projected by `project`.
pub fn diff_tool_with(
    old: Option<Version<'_>>,
    new: Option<Version<'_>>,
    payloads: &[Payload],
    options: &DiffOptions,
    project: &Projector<'_>,
) -> ToolDiff {
    let name = old
        .or(new)
        .map_or_else(String::new, |(_, t)| t.name.clone());
    let old_proj = old.map(|(_, t)| project(t));
    let new_proj = new.map(|(_, t)| project(t));
    let op = old_proj.as_ref().and_then(|r| r.as_deref().ok());
    let np = new_proj.as_ref().and_then(|r| r.as_deref().ok());
    let mut changes = Vec::new();
    let mut pairs = HashMap::new();
    let status = match (old, new) {
        (Some((_, ot)), None) => {
            changes.push(tool_removed(ot));
            Status::Removed
        }
        (None, Some(_)) => {
            changes.push(Change {
                side: Side::Original,
                old_pointer: None,
                new_pointer: Some(String::new()),
                kind: "tool-added",
                class: Class::Widening,
                message: format!("tool `{name}` added"),
                witness: None,
            });
            Status::Added
        }
        (Some((_, ot)), Some((_, nt))) => {
            let (original, p) = original_changes(ot, nt);
            pairs = p;
            changes.extend(original);
            if ot.description != nt.description {
                changes.push(Change {
                    side: Side::Original,
                    old_pointer: None,
                    new_pointer: None,
                    kind: "tool-description-changed",
                    class: Class::Neutral,
                    message: "the tool's description changed".to_owned(),
                    witness: None,
                });
            }
            match (&old_proj, &new_proj) {
                (Some(Ok(a)), Some(Ok(b))) => changes.extend(projection_changes(a, b)),
                (Some(a), Some(b)) => {
                    if let Some(failed) = projection_failure(a.as_ref().err(), b.as_ref().err()) {
                        changes.push(failed);
                    }
                }
                _ => {}
            }
            if changes.is_empty() {
                Status::Unchanged
            } else {
                Status::Changed
            }
        }
        (None, None) => Status::Unchanged,
    };
    let lint = options
        .profiles
        .iter()
        .map(|p| {
            (
                p.name().to_owned(),
                lint_delta(*p, old, new, op, np, &pairs),
            )
        })
        .filter(|(_, d)| !d.is_empty())
        .collect();
    let payloads = match (old, new, op, np) {
        (Some((_, ot)), Some((_, nt)), Some(a), Some(b)) => payload_changes(ot, nt, a, b, payloads),
        _ => Vec::new(),
    };
    ToolDiff {
        tool: name,
        status,
        changes,
        lint,
        payloads,
    }
}

fn projection_failure(
    old: Option<&crate::ProjectionError>,
    new: Option<&crate::ProjectionError>,
) -> Option<Change> {
    if old.map(ToString::to_string) == new.map(ToString::to_string) {
        return None;
    }
    let say = |e: Option<&crate::ProjectionError>| {
        e.map_or_else(|| "projects".to_owned(), |e| format!("fails: {e}"))
    };
    Some(Change {
        side: Side::Projection,
        old_pointer: None,
        new_pointer: None,
        kind: "projection-failed",
        class: Class::Unknown,
        message: format!("OLD {}; NEW {}", say(old), say(new)),
        witness: None,
    })
}

fn tool_removed(tool: &Tool) -> Change {
    let witness = SchemaValidator::original(&tool.schema, tool.dialect)
        .ok()
        .and_then(|v| {
            let steer = Steer {
                route: HashSet::new(),
                target: "\u{0}".to_owned(),
                injection: Injection::Generate,
            };
            let skeleton = Generator::new(&tool.schema, draft_of(tool), &steer).payload();
            std::iter::once(skeleton)
                .chain(compare::pool())
                .find(|p| v.is_valid(p))
        });
    let (class, message) = match &witness {
        Some(_) => (
            Class::Breaking,
            format!("tool `{}` removed: every call to it now fails", tool.name),
        ),
        None => (
            Class::Unknown,
            format!(
                "tool `{}` removed (unknown: no call its schema accepts was found, so none is known to break)",
                tool.name
            ),
        ),
    };
    Change {
        side: Side::Original,
        old_pointer: Some(String::new()),
        new_pointer: None,
        kind: "tool-removed",
        class,
        message,
        witness,
    }
}

/// The original side: the comparison, each change classified, and the node pairs (OLD pointer
/// → NEW pointer) for carrying lint findings across.
fn original_changes(old: &Tool, new: &Tool) -> (Vec<Change>, HashMap<String, String>) {
    let od = Doc::new(&old.schema, draft_of(old));
    let nd = Doc::new(&new.schema, draft_of(new));
    let cmp = compare::compare(&od, &nd);
    let validators = (
        SchemaValidator::original(&old.schema, old.dialect),
        SchemaValidator::original(&new.schema, new.dialect),
    );
    let judge = match &validators {
        (Ok(a), Ok(b)) => Some((a, b)),
        _ => None,
    };
    let changes = classify(cmp.changes, Side::Original, &od, judge);
    (changes, cmp.pairs)
}

fn projection_changes(old: &Projection, new: &Projection) -> Vec<Change> {
    let od = Doc::new(&old.schema, old.draft);
    let nd = Doc::new(&new.schema, new.draft);
    let cmp = compare::compare(&od, &nd);
    let validators = (
        SchemaValidator::projection(old),
        SchemaValidator::projection(new),
    );
    let judge = match &validators {
        (Ok(a), Ok(b)) => Some((a, b)),
        _ => None,
    };
    let mut changes = classify(cmp.changes, Side::Projection, &od, judge);
    let rules = trace::rule_changes(old, new, &changes);
    changes.extend(rules);
    changes
}

/// Gives each raw change its class: `widening`/`neutral` from its direction, `breaking` only
/// with a verified witness, `unknown` otherwise (with the reason).
fn classify(
    raw: Vec<RawChange>,
    side: Side,
    old_doc: &Doc<'_>,
    judge: Option<(&SchemaValidator, &SchemaValidator)>,
) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    let mut index: HashMap<(String, Option<String>, Option<String>, String), usize> =
        HashMap::new();
    for r in raw {
        let (class, witness) = match r.direction {
            Direction::Neutral => (Class::Neutral, None),
            Direction::Widens => (Class::Widening, None),
            Direction::Narrows | Direction::Unknown => {
                match judge.and_then(|j| find_witness(&r, old_doc, j)) {
                    Some(w) => (Class::Breaking, Some(w)),
                    None => (Class::Unknown, None),
                }
            }
        };
        let mut message = r.message.clone();
        if class == Class::Unknown {
            let why = match (r.caveat, r.direction, judge) {
                (_, _, None) => "a schema cannot be compiled by the validator, so no witness can be checked".to_owned(),
                (Some(c), _, _) => format!("{c}; no payload found that OLD accepts and NEW rejects"),
                (None, Direction::Narrows, _) => {
                    "it narrows, but no payload was found that OLD accepts and NEW rejects".to_owned()
                }
                _ => "the versions cannot be ordered, and no payload was found that OLD accepts and NEW rejects".to_owned(),
            };
            message.push_str(&format!(" (unknown: {why})"));
        }
        let key = (
            r.kind.to_owned(),
            r.old_pointer.clone(),
            r.new_pointer.clone(),
            r.message.clone(),
        );
        let change = Change {
            side,
            old_pointer: r.old_pointer,
            new_pointer: r.new_pointer,
            kind: r.kind,
            class,
            message,
            witness,
        };
        // The same difference reached by several routes (a shared definition) is reported
        // once, with the strongest verdict.
        match index.get(&key) {
            Some(&i) if out[i].class <= change.class => {}
            Some(&i) => out[i] = change,
            None => {
                index.insert(key, out.len());
                out.push(change);
            }
        }
    }
    out
}

fn find_witness(
    r: &RawChange,
    old_doc: &Doc<'_>,
    (old, new): (&SchemaValidator, &SchemaValidator),
) -> Option<Value> {
    let mut tried = HashSet::new();
    for candidate in r.candidates.iter().take(MAX_CANDIDATES) {
        let (through, injection) = candidate.unwrap_through();
        let mut route: HashSet<String> = r.route.iter().cloned().collect();
        route.extend(through);
        let steer = Steer {
            route,
            target: r.target.clone(),
            injection: injection.clone(),
        };
        let payload = Generator::new(old_doc.root, old_doc.draft, &steer).payload();
        if !tried.insert(payload.to_string()) || !old.is_valid(&payload) {
            continue;
        }
        let verdict = new.verdict(&payload);
        if !verdict.valid && attributed(&verdict, r.new_pointer.as_deref()) {
            return Some(payload);
        }
    }
    None
}

/// Whether NEW's rejection is about the changed node: an error at or below it, or a failing
/// keyword (`not`, a union) that holds it.
fn attributed(verdict: &SideVerdict, node: Option<&str>) -> bool {
    let Some(node) = node else { return true };
    // A change inside `if` shows where `then`/`else` reject.
    let conditions: Vec<String> = node
        .match_indices("/if")
        .map(|(i, _)| &node[..i])
        .filter(|p| node[p.len()..] == *"/if" || node[p.len()..].starts_with("/if/"))
        .flat_map(|p| [format!("{p}/then"), format!("{p}/else")])
        .collect();
    fn any(errors: &[crate::validate::SchemaError], node: &str) -> bool {
        errors.iter().any(|e| {
            pointer::is_within(&e.node, node)
                || pointer::is_within(node, &e.keyword_pointer)
                || e.branches.iter().any(|b| any(b, node))
        })
    }
    any(&verdict.errors, node) || conditions.iter().any(|c| any(&verdict.errors, c))
}

fn lint_delta(
    profile: Profile,
    old: Option<Version<'_>>,
    new: Option<Version<'_>>,
    old_proj: Option<&Projection>,
    new_proj: Option<&Projection>,
    pairs: &HashMap<String, String>,
) -> LintDelta {
    let findings = |v: Option<Version<'_>>, schema: Option<&Value>| -> Vec<Finding> {
        let (Some((m, t)), Some(schema)) = (v, schema) else {
            return Vec::new();
        };
        let name = (m.format != ManifestFormat::BareSchema).then_some(t.name.as_str());
        lint::lint_tools(profile, &[Subject { name, schema }])
            .pop()
            .unwrap_or_default()
    };
    let mut delta = LintDelta::default();
    let sides = [
        (
            Side::Original,
            findings(old, old.map(|(_, t)| &*t.schema)),
            findings(new, new.map(|(_, t)| &*t.schema)),
            true,
        ),
        (
            Side::Projection,
            findings(old, old_proj.map(|p| &p.schema)),
            findings(new, new_proj.map(|p| &p.schema)),
            false,
        ),
    ];
    for (side, before, after, map) in sides {
        let key = |f: &Finding, mapped: bool| {
            let at = if mapped {
                pairs
                    .get(&f.pointer)
                    .cloned()
                    .unwrap_or_else(|| f.pointer.clone())
            } else {
                f.pointer.clone()
            };
            (f.rule, at, f.keyword.clone())
        };
        let old_keys: HashSet<_> = before.iter().map(|f| key(f, map)).collect();
        let new_keys: HashSet<_> = after.iter().map(|f| key(f, false)).collect();
        for f in &after {
            if !old_keys.contains(&key(f, false)) {
                delta.introduced.push(LintItem {
                    side,
                    finding: f.clone(),
                });
            }
        }
        for f in &before {
            if !new_keys.contains(&key(f, map)) {
                delta.resolved.push(LintItem {
                    side,
                    finding: f.clone(),
                });
            }
        }
    }
    delta
}

fn payload_changes(
    old: &Tool,
    new: &Tool,
    old_proj: &Projection,
    new_proj: &Projection,
    payloads: &[Payload],
) -> Vec<PayloadChange> {
    let mine: Vec<&Payload> = payloads
        .iter()
        .filter(|p| p.tool == old.name || p.tool == new.name)
        .collect();
    if mine.is_empty() {
        return Vec::new();
    }
    let (Ok(a), Ok(b)) = (
        Checker::new(old, old_proj.clone()),
        Checker::new(new, new_proj.clone()),
    ) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    mine.into_iter()
        .filter(|p| seen.insert(p.label.clone()))
        .filter_map(|p| {
            let (o, n) = (a.classify(&p.value), b.classify(&p.value));
            (o != n).then(|| PayloadChange {
                payload: p.label.clone(),
                old: o,
                new: n,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
