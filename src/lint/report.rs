//! The question a user asks first: for each tool and provider, would the provider accept the
//! original schema, its projection, and the tailored schema (what `project --provider` sends)?
//! Then the findings behind each answer, grouped by the original node they come from.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::strict_plan::{self, Budgets, Candidate, Decision, Demand};
use super::tool_set::{self, Member, ToolSet};
use super::{
    Batch, Finding, Group, OllamaView, Placed, Profile, Severity, Subject, Target, origins_of,
    place_by_origin,
};
use crate::manifest::Tool;
use crate::projection::{
    Adapter, Links, Options, Projection, ProjectionError, Tailored, Unresolved,
};

/// The three schemas a user could send for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// The tool's parameter schema as written.
    Original,
    /// Its projection (`schemalens project`).
    Projection,
    /// The projection tailored for the provider (`schemalens project --provider`).
    Tailored,
}

impl Form {
    pub const ALL: [Form; 3] = [Form::Original, Form::Projection, Form::Tailored];

    pub fn name(self) -> &'static str {
        match self {
            Form::Original => "original",
            Form::Projection => "projection",
            Form::Tailored => "tailored",
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Form {
    type Err = String;
    fn from_str(s: &str) -> Result<Form, String> {
        Form::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown form `{s}` (expected original, projection or tailored)")
            })
    }
}

/// Whether the provider would take one form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No error-level finding (warnings may remain).
    Accepted,
    /// Some error-level finding: the provider answers 400, or the model cannot tell what to send.
    Rejected,
    /// There is no such schema: the projection failed.
    Failed,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Failed => "failed",
        }
    }
}

/// One form of one tool, linted for one provider.
#[derive(Debug, Clone)]
pub struct FormLint {
    pub form: Form,
    /// Why there is no schema to lint (the projection failed), when there is none.
    pub failed: Option<String>,
    pub groups: Vec<Group>,
}

impl FormLint {
    fn failed(form: Form, why: &str) -> FormLint {
        FormLint {
            form,
            failed: Some(why.to_owned()),
            groups: Vec::new(),
        }
    }

    pub fn verdict(&self) -> Verdict {
        if self.failed.is_some() {
            Verdict::Failed
        } else if self.groups.iter().any(|g| g.finding.is_error()) {
            Verdict::Rejected
        } else {
            Verdict::Accepted
        }
    }

    /// Groups by severity: errors, warnings, infos.
    pub fn counts(&self) -> [usize; 3] {
        let n = |s| {
            self.groups
                .iter()
                .filter(|g| g.finding.severity == s)
                .count()
        };
        [n(Severity::Error), n(Severity::Warn), n(Severity::Info)]
    }

    /// Findings counted at every copy (what the groups stand for).
    pub fn copies(&self) -> usize {
        self.groups.iter().map(Group::copies).sum()
    }
}

/// One tool, linted for one provider in its three forms.
#[derive(Debug, Clone)]
pub struct ProfileLint {
    pub profile: Profile,
    /// Original, projection, tailored, in [`Form::ALL`] order.
    pub forms: [FormLint; 3],
    /// What payloads need before the tailored schema sees them (empty: nothing), one entry per
    /// original node.
    pub adapters: Vec<Placed<Adapter>>,
    /// What tailoring could not fix, with the rule that still fires, one entry per original
    /// node.
    pub unresolved: Vec<Placed<Unresolved>>,
    /// For the Ollama profile: what Ollama keeps of each form (original, projection, tailored;
    /// `None` where there is no such schema). The lint reads these views anyway; a caller that
    /// shows them need not make them again on a large projection. Shared where two forms are
    /// one schema: a view repeats its schema, as large as the projection.
    pub ollama: Option<[Option<Arc<OllamaView>>; 3]>,
    /// For a profile that limits a whole request (Anthropic strict tool use): whether the
    /// tailored schema is sent strict in the request of the tools linted together, and why not
    /// (see [`strict_plan`](super::strict_plan)); `project --provider` writes the same.
    pub sent: Option<Decision>,
}

impl ProfileLint {
    pub fn form(&self, form: Form) -> &FormLint {
        &self.forms[form as usize]
    }

    pub fn verdict(&self, form: Form) -> Verdict {
        self.form(form).verdict()
    }

    /// The verdict as the user reads it: `accepted (adapter, 2 warnings)` when the tailored
    /// schema passes but still asks something of them (payloads through its adapter, warnings
    /// to read).
    pub fn verdict_label(&self, form: Form) -> String {
        let verdict = self.verdict(form).name();
        if form != Form::Tailored || self.verdict(form) != Verdict::Accepted {
            return verdict.to_owned();
        }
        let mut notes = Vec::new();
        if !self.adapters.is_empty() {
            notes.push("adapter".to_owned());
        }
        match self.form(form).counts()[1] {
            0 => {}
            1 => notes.push("1 warning".to_owned()),
            n => notes.push(format!("{n} warnings")),
        }
        if notes.is_empty() {
            verdict.to_owned()
        } else {
            format!("{verdict} ({})", notes.join(", "))
        }
    }
}

impl ProfileLint {
    /// The tailored verdict, and how the request sends the tool where a plan decides it:
    /// `accepted (adapter) · non-strict`.
    pub fn tailored_label(&self) -> String {
        match &self.sent {
            Some(d) => format!(
                "{} · {}",
                self.verdict_label(Form::Tailored),
                if d.strict { "strict" } else { "non-strict" }
            ),
            None => self.verdict_label(Form::Tailored),
        }
    }
}

/// One tool as the report receives it.
#[derive(Debug, Clone, Copy)]
pub struct ToolForms<'a> {
    /// `None` when there is no tool name to check (a bare schema file).
    pub name: Option<&'a str>,
    /// The tool; its parameter schema is the original.
    pub tool: &'a Tool,
    /// What the projection was made with.
    pub options: &'a Options,
    /// The projection, or why it failed.
    pub projection: Result<&'a Projection, &'a str>,
}

impl ToolForms<'_> {
    fn original(&self) -> &Value {
        &self.tool.schema
    }
}

/// Lints every tool in its three forms for `profile`. The tools of one form are linted
/// together, as one request sends them (unique names, per-request limits).
pub fn lint_forms(profile: Profile, tools: &[ToolForms<'_>]) -> Vec<ProfileLint> {
    lint_forms_for(&[profile], tools).pop().unwrap_or_default()
}

/// [`lint_forms`] for several profiles, one list per profile: the original and the projection
/// are read once for all of them.
pub fn lint_forms_for(profiles: &[Profile], tools: &[ToolForms<'_>]) -> Vec<Vec<ProfileLint>> {
    lint_forms_with(profiles, tools, None)
}

/// Lints tool `index` of a request, `forms`, on its own, with what it owes to the other tools
/// of the request taken from `set` (see [`tool_set`](super::tool_set)): the tool-list rules'
/// findings on each form and how the plan sends it. The same report as [`lint_forms`] of every
/// tool of the request gives for that tool, without linting or tailoring the others again.
pub fn lint_forms_in(
    profile: Profile,
    forms: &ToolForms<'_>,
    index: usize,
    set: &ToolSet,
) -> Option<ProfileLint> {
    lint_forms_with(&[profile], std::slice::from_ref(forms), Some((set, index)))
        .pop()?
        .pop()
}

/// [`lint_forms_for`]; with `set`, the one tool given is tool `set.1` of that request.
fn lint_forms_with(
    profiles: &[Profile],
    tools: &[ToolForms<'_>],
    set: Option<(&ToolSet, usize)>,
) -> Vec<Vec<ProfileLint>> {
    // With a set, the one tool is numbered as the request numbers it in each form.
    let first = |form: Form| set.and_then(|(s, i)| s.place(i, form)).unwrap_or(0);
    let originals = Batch::new(
        tools
            .iter()
            .map(|t| subject(t.name, t.original()))
            .collect(),
        vec![None; tools.len()],
    )
    .numbered_from(first(Form::Original));
    // Only the tools that have a projection.
    let present: Vec<(&ToolForms<'_>, &Projection)> = tools
        .iter()
        .filter_map(|t| t.projection.ok().map(|p| (t, p)))
        .collect();
    let mut projections = Batch::new(
        present
            .iter()
            .map(|(t, p)| subject(t.name, &p.schema))
            .collect(),
        present
            .iter()
            .map(|(t, p)| Some((&p.links, t.original())))
            .collect(),
    )
    .numbered_from(first(Form::Projection));
    profiles
        .iter()
        .map(|&profile| {
            // Ollama's check of whether tailoring changes the projection reads the
            // projection's lint, so that lint comes first. For the others the walk comes
            // first: their lint's groups and tables would only add to the walk's peak.
            let linted_first = (profile == Profile::Ollama)
                .then(|| (originals.lint(profile), projections.lint(profile)));
            // Exactly what `project --provider` sends, reusing the projection when the
            // provider's is the same.
            let tailored = tailored_forms(profile, tools, &projections);
            let set = set.filter(|(s, _)| s.profile == profile);
            let sent = match set {
                Some((set, index)) => set.sent(index).cloned().map(|d| vec![d]),
                None => Budgets::of(profile).map(|b| request_plan(b, profile, &tailored)),
            };
            let (original, projected) = linted_first
                .unwrap_or_else(|| (originals.lint(profile), projections.lint(profile)));
            let tailored_groups =
                lint_tailored(profile, tools, &tailored, &projected, first(Form::Tailored));
            let views = (profile == Profile::Ollama)
                .then(|| ollama_views(tools, &mut projections, &tailored));
            let mut linted = assemble(
                profile,
                tools,
                original,
                projected,
                tailored_groups,
                tailored,
                set,
            );
            for (lint, views) in linted.iter_mut().zip(views.into_iter().flatten()) {
                lint.ollama = Some(views);
            }
            for (lint, decision) in linted.iter_mut().zip(sent.into_iter().flatten()) {
                // The request-wide rules counted every tool as strict; the plan sends strict
                // only tools whose counts fit together, so over those none is crossed.
                lint.forms[Form::Tailored as usize]
                    .groups
                    .retain(|g| !strict_plan::is_request_rule(profile, g.finding.rule));
                lint.sent = Some(decision);
            }
            linted
        })
        .collect()
}

/// How each tool's tailored schema is sent in the request of all of them: strict or not.
fn request_plan(
    budgets: Budgets,
    profile: Profile,
    tailored: &[Result<TailoredForm<'_>, String>],
) -> Vec<Decision> {
    let candidates: Vec<Candidate> = tailored
        .iter()
        .map(|x| match x {
            Ok(TailoredForm::Own(t)) => Candidate::of(profile, &t.projection.schema, &t.unresolved),
            Ok(TailoredForm::Same {
                projection,
                unresolved,
            }) => Candidate::of(profile, &projection.schema, unresolved),
            Err(why) => Candidate::missing(why),
        })
        .collect();
    strict_plan::plan(budgets, &candidates).decisions
}

/// What Ollama keeps of each tool's three forms. The projections' views are taken from their
/// lint, which made them; a tailored schema equal to its projection shares that view.
fn ollama_views(
    tools: &[ToolForms<'_>],
    projections: &mut Batch<'_>,
    tailored: &[Result<TailoredForm<'_>, String>],
) -> Vec<[Option<Arc<OllamaView>>; 3]> {
    let mut present = 0;
    tools
        .iter()
        .zip(tailored)
        .map(|(t, x)| {
            let projection = t.projection.ok().map(|p| {
                present += 1;
                (p, Arc::new(projections.take_ollama_view(present - 1)))
            });
            let tailored = x.as_ref().ok().map(|x| match (x, &projection) {
                (TailoredForm::Same { .. }, Some((_, view))) => Arc::clone(view),
                (x, Some((p, view))) if x.projection().schema == p.schema => Arc::clone(view),
                (x, _) => Arc::new(super::ollama_view(&x.projection().schema)),
            });
            [
                Some(Arc::new(super::ollama_view(t.original()))),
                projection.map(|(_, view)| view),
                tailored,
            ]
        })
        .collect()
}

/// One tool's tailored schema: its own, or the projection itself where the profile leaves
/// that unchanged (a large projection is then not copied).
enum TailoredForm<'a> {
    Own(Box<Tailored>),
    Same {
        projection: &'a Projection,
        unresolved: Vec<Unresolved>,
    },
}

impl TailoredForm<'_> {
    fn projection(&self) -> &Projection {
        match self {
            TailoredForm::Own(x) => &x.projection,
            TailoredForm::Same { projection, .. } => projection,
        }
    }
}

/// Every tool's tailored form: the projection itself where tailoring would not change it,
/// else what the walk makes (`projections` are the projections' batch, after its lint for
/// `profile`).
fn tailored_forms<'a>(
    profile: Profile,
    tools: &[ToolForms<'a>],
    projections: &Batch<'_>,
) -> Vec<Result<TailoredForm<'a>, String>> {
    let mut spared = spared_walks(profile, tools, projections);
    let walked = crate::parallel::map(&spared_marks(&spared, tools), |&(t, is_spared)| {
        (!is_spared).then(|| tailored_form(t, profile))
    });
    tools
        .iter()
        .zip(walked)
        .zip(&mut spared)
        .map(
            |((t, walked), spared)| match (walked, t.projection, spared.take()) {
                (Some(walked), _, _) => walked,
                (None, Ok(projection), Some(unresolved)) => Ok(TailoredForm::Same {
                    projection,
                    unresolved,
                }),
                (None, _, _) => unreachable!("only a tool with a projection is spared the walk"),
            },
        )
        .collect()
}

/// Each tool with whether it is spared the walk.
fn spared_marks<'t, 'a>(
    spared: &[Option<Vec<Unresolved>>],
    tools: &'t [ToolForms<'a>],
) -> Vec<(&'t ToolForms<'a>, bool)> {
    tools
        .iter()
        .zip(spared)
        .map(|(t, s)| (t, s.is_some()))
        .collect()
}

/// For each tool, what the projection leaves unresolved when tailoring would give the
/// projection itself (`None` when it rewrites, or there is none). Ollama's check reads the
/// projection's Ollama view and lint errors, which the projections' lint has the tables for.
fn spared_walks(
    profile: Profile,
    tools: &[ToolForms<'_>],
    projections: &Batch<'_>,
) -> Vec<Option<Vec<Unresolved>>> {
    // A profile that projects otherwise (kept recursion) needs its own projection.
    let reusable = crate::projection::tailor::preferred_recursion(profile).is_none();
    let mut present = 0;
    tools
        .iter()
        .map(|t| {
            let projection = t.projection.ok()?;
            present += 1;
            let i = present - 1;
            // The report groups by origin through parents, so the tailored links' form does
            // not count.
            reusable
                .then(|| {
                    crate::projection::tailor::unchanged_schema_seen(
                        profile,
                        projection,
                        || projections.ollama_view(i),
                        || projections.schema_where(i, Profile::Ollama, super::LintRule::is_error),
                    )
                })
                .flatten()
        })
        .collect()
}

/// Exactly what `project --provider` sends, for a tool whose tailoring rewrites its projection.
fn tailored_form<'a>(t: &ToolForms<'a>, profile: Profile) -> Result<TailoredForm<'a>, String> {
    // The report reads the tailored schema, links, adapters and unresolved list, not the trace.
    let trace = crate::projection::tailor::Trace::Skipped;
    crate::tailor_reusing(t.tool, t.options, profile, t.projection.ok(), trace)
        .map(|t| TailoredForm::Own(Box::new(t)))
        .map_err(|e| e.to_string())
}

/// The tailored schemas' groups, one list per tool that has one (`None` for the others).
/// `projected` are the projections' groups (for the tools that have one, in order); `first`
/// numbers the first tool.
fn lint_tailored(
    profile: Profile,
    tools: &[ToolForms<'_>],
    tailored: &[Result<TailoredForm<'_>, String>],
    projected: &[Vec<Group>],
    first: usize,
) -> Vec<Option<Vec<Group>>> {
    // Most profiles change nothing in most projections: then the lint is the same.
    let unchanged = tools
        .iter()
        .zip(tailored)
        .all(|(t, x)| match (t.projection, x) {
            (Ok(_), Ok(TailoredForm::Same { .. })) => true,
            (Ok(p), Ok(x)) => x.projection().schema == p.schema,
            (Err(_), Err(_)) => true,
            _ => false,
        });
    if unchanged {
        let mut projected = projected.iter();
        return tools
            .iter()
            .map(|t| t.projection.ok().and_then(|_| projected.next().cloned()))
            .collect();
    }
    let present: Vec<(&ToolForms<'_>, &Projection)> = tools
        .iter()
        .zip(tailored)
        .filter_map(|(t, x)| x.as_ref().ok().map(|x| (t, x.projection())))
        .collect();
    let mut groups = Batch::new(
        present
            .iter()
            .map(|(t, x)| subject(t.name, &x.schema))
            .collect(),
        present
            .iter()
            .map(|(t, x)| Some((&x.links, t.original())))
            .collect(),
    )
    .numbered_from(first)
    .lint(profile)
    .into_iter();
    tailored
        .iter()
        .map(|x| x.as_ref().ok().and_then(|_| groups.next()))
        .collect()
}

fn subject<'a>(name: Option<&'a str>, schema: &'a Value) -> Subject<'a> {
    Subject { name, schema }
}

/// One [`ProfileLint`] per tool, from each form's groups (the projection's given for the tools
/// that have one, in order).
fn assemble(
    profile: Profile,
    tools: &[ToolForms<'_>],
    original: Vec<Vec<Group>>,
    projected: Vec<Vec<Group>>,
    tailored_groups: Vec<Option<Vec<Group>>>,
    tailored: Vec<Result<TailoredForm<'_>, String>>,
    set: Option<(&ToolSet, usize)>,
) -> Vec<ProfileLint> {
    let mut original = original.into_iter();
    let mut projected = projected.into_iter();
    tools
        .iter()
        .zip(tailored_groups.into_iter().zip(tailored))
        .map(|(tool, (t, x))| {
            let o = original.next().unwrap_or_default();
            let p = tool.projection.ok().and_then(|_| projected.next());
            let form = |form: Form, groups: Option<Vec<Group>>, why: Option<&str>| match groups {
                Some(groups) => FormLint {
                    form,
                    failed: None,
                    groups,
                },
                None => FormLint::failed(form, why.unwrap_or("no schema")),
            };
            // Where a finding about the tool entry comes from, in each form (grouping asks
            // its links for the root).
            let mut roots: [Vec<String>; 3] = [
                vec![String::new()],
                tool.projection
                    .map(|p| origins_of(&p.links, tool.original(), ""))
                    .unwrap_or_default(),
                Vec::new(),
            ];
            let (adapters, unresolved, why_not) = match x {
                Ok(x) => {
                    let (adapters, unresolved, links) = match x {
                        TailoredForm::Own(x) => {
                            let x = *x;
                            (x.adapters, x.unresolved, Cow::Owned(x.projection.links))
                        }
                        TailoredForm::Same {
                            projection,
                            unresolved,
                        } => (Vec::new(), unresolved, Cow::Borrowed(&projection.links)),
                    };
                    let links: &Links = &links;
                    roots[Form::Tailored as usize] = origins_of(links, tool.original(), "");
                    let adapters = place_by_origin(
                        adapters,
                        Adapter::at,
                        |a| without_place(a, |a| a.at_mut().clear()),
                        links,
                        tool.original(),
                    );
                    let unresolved = place_by_origin(
                        unresolved,
                        |u| u.pointer.as_str(),
                        |u| without_place(u, |u| u.pointer.clear()),
                        links,
                        tool.original(),
                    );
                    (adapters, unresolved, None)
                }
                Err(why) => (Vec::new(), Vec::new(), Some(why)),
            };
            let mut forms = [
                form(Form::Original, Some(o), None),
                form(Form::Projection, p, tool.projection.err()),
                form(Form::Tailored, t, why_not.as_deref()),
            ];
            if let Some((set, index)) = set {
                for (f, root) in forms.iter_mut().zip(roots) {
                    if f.failed.is_none() {
                        with_tool_list(profile, &mut f.groups, set.findings(index, f.form), root);
                    }
                }
            }
            ProfileLint {
                profile,
                forms,
                adapters,
                unresolved,
                ollama: None,
                sent: None,
            }
        })
        .collect()
}

/// One form's groups, linted on its own, with the tool-list rules' findings of the request
/// in place of what those rules found on the tool alone. Findings about the tool entry come
/// first, in table order, as the lint of the whole request sorts them.
fn with_tool_list(profile: Profile, groups: &mut Vec<Group>, found: &[Finding], root: Vec<String>) {
    let is_tool_list = |g: &Group| {
        profile
            .rule(g.finding.rule)
            .is_some_and(tool_set::is_tool_list_rule)
    };
    groups.retain(|g| !is_tool_list(g));
    let rank = |g: &Group| profile.rules().iter().position(|r| r.id == g.finding.rule);
    let about_tool = groups
        .iter()
        .position(|g| g.finding.target != Target::Tool)
        .unwrap_or(groups.len());
    let mut first: Vec<Group> = groups.drain(..about_tool).collect();
    first.extend(found.iter().map(|f| Group {
        finding: f.clone(),
        origins: root.clone(),
        pointers: vec![f.pointer.clone()],
    }));
    first.sort_by_key(rank);
    groups.splice(0..0, first);
}

/// What an item says, without where it is: copies of one node say the same. Its JSON text
/// with the place left empty, written straight from the item (a tailored projection can have
/// a hundred thousand adapters; building a JSON value of each first cost more).
fn without_place<T: Serialize + Clone>(item: &T, clear_place: impl Fn(&mut T)) -> String {
    let mut item = item.clone();
    clear_place(&mut item);
    serde_json::to_string(&item).unwrap_or_default()
}

/// The tool-list facts of the request `tools` make for `profile` (see
/// [`tool_set`](super::tool_set)), from their projections: for a profile that counts across
/// tools, each tool's counts and its tailored schema as the plan sees it, tailored exactly as
/// [`lint_forms`] tailors it.
pub fn tool_set(profile: Profile, tools: &[ToolForms<'_>]) -> ToolSet {
    let members: Vec<Member<'_>> = if tool_set::counts_across_tools(profile) {
        crate::parallel::map(tools, |t| counted_member(profile, t.name, t))
    } else {
        tools.iter().map(named_member).collect()
    };
    ToolSet::new(profile, &members)
}

/// [`tool_set`] of `tools`, projecting them with `options` only where the profile counts
/// across tools (each projection is dropped once counted); elsewhere only the names are read
/// and every tool is taken to project. `named`: whether the tools have names to check (a bare
/// schema has none). Stops when `options.cancel` is raised.
pub fn tool_set_of(
    profile: Profile,
    tools: &[&Tool],
    named: bool,
    options: &Options,
) -> Result<ToolSet, ProjectionError> {
    if !tool_set::counts_across_tools(profile) {
        let members: Vec<Member<'_>> = tools
            .iter()
            .map(|&t| Member {
                name: named.then_some(t.name.as_str()),
                forms: [Some(Demand::default()); 3],
                candidate: None,
            })
            .collect();
        return Ok(ToolSet::new(profile, &members));
    }
    let made: Vec<Result<Member<'_>, ProjectionError>> = crate::parallel::map(tools, |&tool| {
        let projection = match crate::project_tool(tool, options) {
            Err(ProjectionError::Cancelled { at }) => {
                return Err(ProjectionError::Cancelled { at });
            }
            other => other.map_err(|e| e.to_string()),
        };
        let forms = ToolForms {
            name: named.then_some(tool.name.as_str()),
            tool,
            options,
            projection: projection.as_ref().map_err(String::as_str),
        };
        Ok(counted_member(
            profile,
            named.then_some(tool.name.as_str()),
            &forms,
        ))
    });
    let members = made.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(ToolSet::new(profile, &members))
}

/// A tool as a request of names only sees it: every form present.
fn named_member<'a>(t: &ToolForms<'a>) -> Member<'a> {
    let projected = t.projection.is_ok().then(Demand::default);
    Member {
        name: t.name,
        forms: [Some(Demand::default()), projected, projected],
        candidate: None,
    }
}

/// A tool with its counts in each form and its tailored schema as the plan sees it, named
/// `name`.
fn counted_member<'n>(profile: Profile, name: Option<&'n str>, t: &ToolForms<'_>) -> Member<'n> {
    let trace = crate::projection::tailor::Trace::Skipped;
    let tailored = crate::tailor_reusing(t.tool, t.options, profile, t.projection.ok(), trace);
    let candidate = match &tailored {
        Ok(x) => Candidate::of(profile, &x.projection.schema, &x.unresolved),
        Err(e) => Candidate::missing(&e.to_string()),
    };
    Member {
        name,
        forms: [
            Some(Demand::of(t.original())),
            t.projection.ok().map(|p| Demand::of(&p.schema)),
            tailored.ok().map(|x| Demand::of(&x.projection.schema)),
        ],
        candidate: Some(candidate),
    }
}
