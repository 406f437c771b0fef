//! From matched messages to nodes: which tool, which schema the provider received, which node,
//! which rule, and which projection or tailoring step removes it.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use serde_json::Value;

use super::catalogue::{At, Known, MESSAGES, Provider, SNIFFERS, TOOL_HINTS};
use super::location::{self, Path, ToolRef};
use super::matcher::{self, Haystack, Match};
use super::{
    Candidate, Closest, Diagnosis, Fix, FixStep, NodeRef, Outcome, ReadLocation, Received,
    Recognition, Report, Request, RuleMatch, ToolFound, Variant,
};
use crate::lint::{self, Check, Finding, Profile, Subject, Target};
use crate::manifest::{Manifest, ManifestFormat};
use crate::projection::{Detail, Links, Tailored};
use crate::{Mode, Options, Projection, pointer, project_tool};

pub(super) fn run(manifest: &Manifest, request: &Request<'_>) -> Report {
    Session::new(manifest, request.options.clone(), request.file).report(
        request.text,
        request.tool,
        request.provider,
    )
}

fn report_with(
    session: &Session<'_>,
    text: &str,
    tool: Option<&str>,
    provider: Option<Profile>,
) -> Report {
    *session.query.borrow_mut() = Query {
        tool: tool.map(str::to_owned),
        provider,
    };
    let request_text = text;
    let hays = matcher::haystacks(request_text);
    let mut found = find(MESSAGES, &hays);
    let recognised = !found.is_empty();
    if !recognised {
        found = find(SNIFFERS, &hays);
    }
    let hints = tool_hints(&hays);
    let diagnoses: Vec<Diagnosis> = found.iter().map(|f| session.diagnose(f, &hints)).collect();
    let outcome = if !recognised {
        Outcome::Unrecognised
    } else if diagnoses.iter().all(Diagnosis::located) {
        Outcome::Located
    } else {
        Outcome::Recognised
    };
    let closest = if recognised {
        Vec::new()
    } else {
        closest(request_text)
    };
    Report {
        outcome,
        diagnoses,
        closest,
    }
}

/// One catalogue row matched somewhere in the text.
struct Found<'h> {
    known: &'static Known,
    hay: &'h Haystack,
    m: Match,
}

fn find<'h>(table: &'static [Known], hays: &'h [Haystack]) -> Vec<Found<'h>> {
    let mut out: Vec<Found<'h>> = Vec::new();
    for hay in hays {
        let mut here: Vec<Found<'h>> = table
            .iter()
            .flat_map(|known| {
                matcher::find_all(known.pattern, &hay.text)
                    .into_iter()
                    .map(move |m| Found { known, hay, m })
            })
            .collect();
        // Rows matching overlapping text read the same message; the most specific reading
        // (most fixed text, then the longest) is kept.
        here.sort_by_key(|f| {
            (
                std::cmp::Reverse(matcher::literal_len(f.known.pattern)),
                std::cmp::Reverse(f.m.end - f.m.start),
                f.m.start,
            )
        });
        let mut kept: Vec<Found<'h>> = Vec::new();
        for f in here {
            if kept
                .iter()
                .any(|k| k.m.start < f.m.end && f.m.start < k.m.end)
            {
                continue;
            }
            kept.push(f);
        }
        kept.sort_by_key(|f| f.m.start);
        for f in kept {
            // The same message seen in several readings (the body's `message` and its
            // `fieldViolations`, the raw text and its unescaped form) is one message; the
            // reading whose free-text parts are shortest is the cleanest (a raw JSON body
            // drags `", "status": …` into a message's last words).
            match out
                .iter()
                .position(|o| o.known.id == f.known.id && same_place(&o.m, &f.m))
            {
                Some(i) => {
                    if free_text_len(&f.m) < free_text_len(&out[i].m) {
                        out[i] = f;
                    }
                }
                None => out.push(f),
            }
        }
    }
    out
}

/// Placeholders whose text is free wording rather than a place.
const FREE_TEXT: &[&str] = &["detail", "gotype"];

fn same_place(a: &Match, b: &Match) -> bool {
    let place = |m: &Match| -> Vec<(String, String)> {
        m.captures
            .iter()
            .filter(|(k, _)| !FREE_TEXT.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    place(a) == place(b)
}

fn free_text_len(m: &Match) -> usize {
    FREE_TEXT
        .iter()
        .filter_map(|k| m.captures.get(*k))
        .map(String::len)
        .sum()
}

/// Tool names and positions the text states outside the message itself.
#[derive(Debug, Default)]
struct Hints {
    names: Vec<String>,
    indexes: Vec<usize>,
}

fn tool_hints(hays: &[Haystack]) -> Hints {
    let mut hints = Hints::default();
    for hay in hays {
        for (pattern, _) in TOOL_HINTS {
            for m in matcher::find_all(pattern, &hay.text) {
                if let Some(name) = m.captures.get("tool")
                    && !hints.names.contains(name)
                {
                    hints.names.push(name.clone());
                }
                if let Some(i) = m.captures.get("index").and_then(|i| i.parse().ok())
                    && !hints.indexes.contains(&i)
                {
                    hints.indexes.push(i);
                }
            }
        }
    }
    hints
}

/// The catalogue rows whose example reads most like some line of `text`.
fn closest(text: &str) -> Vec<Closest> {
    const MAX_LINE: usize = 2000;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && l.len() <= MAX_LINE)
        .take(200)
        .collect();
    let mut scored: Vec<Closest> = MESSAGES
        .iter()
        .map(|k| {
            let score = lines
                .iter()
                .map(|l| matcher::similarity(l, k.example))
                .fold(0.0, f64::max);
            Closest {
                id: k.id,
                provider: k.provider,
                example: k.example,
                score: (score * 100.0).round() / 100.0,
            }
        })
        .filter(|c| c.score >= 0.2)
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(b.id)));
    scored.truncate(3);
    scored
}

// ---------------------------------------------------------------------------------------------
// Schemas the provider may have received, projected and linted once each.

enum Held<'m> {
    Original(&'m Value),
    Projection(Rc<Projection>),
    Tailored(Rc<Tailored>),
}

impl Held<'_> {
    fn schema(&self) -> &Value {
        match self {
            Held::Original(v) => v,
            Held::Projection(p) => &p.schema,
            Held::Tailored(t) => &t.projection.schema,
        }
    }

    fn projection(&self) -> Option<&Projection> {
        match self {
            Held::Original(_) => None,
            Held::Projection(p) => Some(p),
            Held::Tailored(t) => Some(&t.projection),
        }
    }

    fn links(&self) -> Option<&Links> {
        self.projection().map(|p| &p.links)
    }
}

type ToolFindings = Rc<Vec<Option<Vec<Finding>>>>;
/// By tool and mode (`true`: flat).
type Projections = HashMap<(usize, bool), Option<Rc<Projection>>>;
/// By tool, profile and base mode.
type TailoredCache = HashMap<(usize, Profile, bool), Option<Rc<Tailored>>>;

/// What one question adds to the session's manifest.
#[derive(Debug, Default)]
struct Query {
    tool: Option<String>,
    provider: Option<Profile>,
}

/// One manifest, projected, tailored and linted on demand and kept, for any number of
/// questions (the inspector asks several; the round-trip test thousands).
pub struct Session<'m> {
    manifest: &'m Manifest,
    options: Options,
    file: String,
    query: RefCell<Query>,
    named: bool,
    projections: RefCell<Projections>,
    tailored: RefCell<TailoredCache>,
    lints: RefCell<Vec<(Variant, Profile, ToolFindings)>>,
}

fn flat(mode: Mode) -> bool {
    mode == Mode::Flat
}

fn other(mode: Mode) -> Mode {
    match mode {
        Mode::Flat => Mode::Inline,
        Mode::Inline => Mode::Flat,
    }
}

/// One place that fits a message.
#[derive(Debug, Clone)]
struct Hit {
    tool: usize,
    variant: Variant,
    pointer: String,
    keyword: Option<String>,
    tool_entry: bool,
    finding: Option<Finding>,
    /// The finding's provider message, read with the same catalogue row, says the same.
    same_message: bool,
    evidence: u8,
}

impl Hit {
    fn rank(&self, order: &[Variant]) -> (bool, bool, u8, std::cmp::Reverse<usize>) {
        let v = order
            .iter()
            .position(|o| *o == self.variant)
            .unwrap_or(order.len());
        (
            self.same_message,
            self.finding.is_some(),
            self.evidence,
            std::cmp::Reverse(v),
        )
    }
}

impl<'m> Session<'m> {
    /// `file` is how the user names the manifest, for the commands in fixes.
    pub fn new(manifest: &'m Manifest, options: Options, file: &str) -> Session<'m> {
        Session {
            manifest,
            options,
            file: file.to_owned(),
            query: RefCell::new(Query::default()),
            named: manifest.format != ManifestFormat::BareSchema,
            projections: RefCell::new(HashMap::new()),
            tailored: RefCell::new(HashMap::new()),
            lints: RefCell::new(Vec::new()),
        }
    }

    /// Reads `text`; `tool` restricts the tools considered, `provider` the profile the
    /// message is read for.
    pub fn report(&self, text: &str, tool: Option<&str>, provider: Option<Profile>) -> Report {
        report_with(self, text, tool, provider)
    }

    fn mode(&self) -> Mode {
        self.options.mode
    }

    fn projection(&self, tool: usize, mode: Mode) -> Option<Rc<Projection>> {
        self.projections
            .borrow_mut()
            .entry((tool, flat(mode)))
            .or_insert_with(|| {
                let options = Options {
                    mode,
                    ..self.options.clone()
                };
                project_tool(&self.manifest.tools[tool], &options)
                    .ok()
                    .map(Rc::new)
            })
            .clone()
    }

    fn tailored(&self, tool: usize, profile: Profile, mode: Mode) -> Option<Rc<Tailored>> {
        if let Some(t) = self.tailored.borrow().get(&(tool, profile, flat(mode))) {
            return t.clone();
        }
        let made = self
            .projection(tool, mode)
            .map(|p| Rc::new(crate::projection::tailor((*p).clone(), profile)));
        self.tailored
            .borrow_mut()
            .insert((tool, profile, flat(mode)), made.clone());
        made
    }

    fn held(&self, tool: usize, variant: Variant) -> Option<Held<'m>> {
        match variant {
            Variant::Original => Some(Held::Original(&self.manifest.tools[tool].schema)),
            Variant::Projection { mode } => self.projection(tool, mode).map(Held::Projection),
            Variant::Tailored { provider, mode } => {
                self.tailored(tool, provider, mode).map(Held::Tailored)
            }
        }
    }

    /// Lint of every tool in `variant`, as one request (so tool positions are right).
    fn findings(&self, variant: Variant, profile: Profile) -> ToolFindings {
        if let Some((_, _, f)) = self
            .lints
            .borrow()
            .iter()
            .find(|(v, p, _)| *v == variant && *p == profile)
        {
            return f.clone();
        }
        let tools = &self.manifest.tools;
        let held: Vec<Option<Held<'m>>> = (0..tools.len()).map(|t| self.held(t, variant)).collect();
        let missing = Value::Object(serde_json::Map::new());
        let subjects: Vec<Subject<'_>> = tools
            .iter()
            .zip(&held)
            .map(|(tool, h)| Subject {
                name: self.named.then_some(tool.name.as_str()),
                schema: h.as_ref().map_or(&missing, |h| h.schema()),
            })
            .collect();
        let linted = lint::lint_tools(profile, &subjects);
        let out: ToolFindings = Rc::new(
            linted
                .into_iter()
                .zip(&held)
                .map(|(f, h)| h.is_some().then_some(f))
                .collect(),
        );
        self.lints
            .borrow_mut()
            .push((variant, profile, out.clone()));
        out
    }

    /// The schemas tried, in order of preference when several fit equally.
    fn variants(&self, profile: Option<Profile>) -> Vec<Variant> {
        let mode = self.mode();
        let mut out = vec![
            Variant::Original,
            Variant::Projection { mode },
            Variant::Projection { mode: other(mode) },
        ];
        if let Some(provider) = profile {
            out.push(Variant::Tailored { provider, mode });
        }
        out
    }

    // -----------------------------------------------------------------------------------------

    fn diagnose(&self, found: &Found<'_>, hints: &Hints) -> Diagnosis {
        let known = found.known;
        let captures = &found.m.captures;
        let recognised = Recognition {
            id: (!known.example.is_empty()).then_some(known.id),
            provider: known.provider,
            pattern: known.pattern,
            source: known.source,
            captures: captures.clone(),
        };
        let (profile, rules) = self.profile_and_rules(known);
        let read = read_location(captures);
        let mut d = Diagnosis {
            message: found.hay.text[found.m.start..found.m.end].to_owned(),
            recognised,
            profile,
            location: read.clone(),
            tool: None,
            received: None,
            node: None,
            candidates: Vec::new(),
            rule: None,
            fix: None,
            advice: known.advice,
            notes: Vec::new(),
        };
        if self.manifest.tools.is_empty() {
            d.notes.push("The manifest has no tools.".to_owned());
            return d;
        }
        if known.at == At::Nowhere {
            d.notes.push(format!(
                "{} says this about the request as a whole, not about one place in a tool's parameters.",
                known.provider.label()
            ));
            return d;
        }
        let tool_ref = read
            .as_ref()
            .and_then(|r| r.tool.clone())
            .or_else(|| captured_tool(captures));
        let hinted = self.hinted_tools(tool_ref.as_ref(), hints, known.provider);
        let path = read.as_ref().and_then(|r| r.path.clone());
        let order = self.variants(profile);

        let mut hits = Vec::new();
        let mut exists: Vec<(usize, Variant)> = Vec::new();
        let searched_all;
        if hinted.is_empty() {
            searched_all = true;
        } else {
            for (tool, evidence) in &hinted {
                self.hits_in(
                    *tool,
                    *evidence,
                    known,
                    captures,
                    &path,
                    profile,
                    rules,
                    &order,
                    &mut hits,
                    &mut exists,
                );
            }
            searched_all = hits.is_empty();
            if searched_all && !self.restricted() {
                d.notes.push(format!(
                    "The message names {}, but the location does not fit there; every tool was searched.",
                    describe_hint(tool_ref.as_ref(), hints, &self.manifest.tools, &hinted)
                ));
            }
        }
        if searched_all {
            for tool in self.allowed_tools() {
                if hinted.iter().any(|(t, _)| *t == tool) {
                    continue;
                }
                self.hits_in(
                    tool,
                    0,
                    known,
                    captures,
                    &path,
                    profile,
                    rules,
                    &order,
                    &mut hits,
                    &mut exists,
                );
            }
        }
        let Some(best) = hits.iter().max_by_key(|h| h.rank(&order)).cloned() else {
            d.notes.push(match (&path, known.at) {
                (Some(_), _) => "The location does not exist in the original schema, in either projection, or in the tailored projection of any tool considered.".to_owned(),
                (None, At::Findings) => match profile {
                    Some(p) => format!(
                        "The message names no place, and lint finds no {} here for {p} in any schema: nothing to point at.",
                        rules.join(" / ")
                    ),
                    None => "The message names no place.".to_owned(),
                },
                _ => "Nothing in the manifest fits the message.".to_owned(),
            });
            return d;
        };
        let rank = best.rank(&order);
        let mut equal: Vec<&Hit> = hits
            .iter()
            .filter(|h| h.rank(&order) == rank && h.variant == best.variant)
            .collect();
        // Stable: within a tool, hits come in lint's document order.
        equal.sort_by_key(|h| h.tool);
        let primary = equal.first().map(|h| (*h).clone()).unwrap_or(best);
        let mut seen = Vec::new();
        for h in &equal {
            let key = (h.tool, h.pointer.clone(), h.keyword.clone());
            if !seen.contains(&key) {
                seen.push(key);
            }
        }
        if seen.len() > 1 {
            d.candidates = seen
                .iter()
                .map(|(t, p, k)| Candidate {
                    tool: self.manifest.tools[*t].name.clone(),
                    pointer: p.clone(),
                    keyword: k.clone(),
                })
                .collect();
            d.notes.push(format!(
                "{} places fit the message equally well; the first is shown, all are listed.",
                seen.len()
            ));
        }

        let tool = &self.manifest.tools[primary.tool];
        d.tool = Some(ToolFound {
            index: primary.tool,
            name: tool.name.clone(),
            by: self.found_by(&primary, tool_ref.as_ref(), hints),
        });
        d.received = Some(self.received(&primary, &hits, &exists, &path));
        d.node = Some(self.node_ref(&primary));
        if let Some(profile) = profile {
            d.rule = self.rule_match(&primary, profile, rules, captures);
            if primary.finding.is_none() && !primary.tool_entry && !rules.is_empty() {
                d.notes.push(format!(
                    "Lint reports no {} for {profile} at this place in any schema tried: either the provider received something else, or the {profile} profile misses this rejection (worth reporting).",
                    rules.join(" / ")
                ));
            }
            // A fix is "the first schema without the finding": without a finding in the schema
            // that was sent there is nothing to compare.
            if let Some(rule) = d.rule.as_ref().filter(|r| r.lint_agrees) {
                match self.fix(&primary, profile, rule.id) {
                    Ok(fix) => d.fix = Some(fix),
                    Err(why) => d.notes.push(why),
                }
            }
        }
        d
    }

    fn restricted(&self) -> bool {
        self.query.borrow().tool.is_some()
    }

    fn allowed_tools(&self) -> Vec<usize> {
        let tools = &self.manifest.tools;
        match &self.query.borrow().tool {
            Some(name) => (0..tools.len())
                .filter(|i| &tools[*i].name == name)
                .collect(),
            None => (0..tools.len()).collect(),
        }
    }

    /// The tools the message points at, with how strongly.
    fn hinted_tools(
        &self,
        tool_ref: Option<&ToolRef>,
        hints: &Hints,
        provider: Provider,
    ) -> Vec<(usize, u8)> {
        let tools = &self.manifest.tools;
        let allowed = self.allowed_tools();
        let mut out: Vec<(usize, u8)> = Vec::new();
        let mut add = |i: usize, evidence: u8| {
            if allowed.contains(&i) && !out.iter().any(|(t, _)| *t == i) {
                out.push((i, evidence));
            }
        };
        if self.query.borrow().tool.is_some() || tools.len() == 1 {
            for i in &allowed {
                add(*i, 3);
            }
            return out;
        }
        let mut names: Vec<&str> = Vec::new();
        if let Some(ToolRef::Name { name }) = tool_ref {
            names.push(name);
        }
        if provider == Provider::OpenAi {
            names.extend(hints.names.iter().map(String::as_str));
        }
        for name in names {
            for (i, t) in tools.iter().enumerate() {
                if t.name == name {
                    add(i, 3);
                }
            }
        }
        match tool_ref {
            Some(ToolRef::Index { index }) => add(*index, 2),
            Some(ToolRef::Declaration {
                toolset,
                declaration,
            }) => {
                let by_pointer = tools.iter().position(|t| {
                    declaration_of(&t.tool_pointer) == Some((Some(*toolset), *declaration))
                        || (*toolset == 0
                            && declaration_of(&t.tool_pointer) == Some((None, *declaration)))
                });
                match by_pointer {
                    Some(i) => add(i, 2),
                    None => {
                        // Not a Gemini manifest: a client converted it, one declaration list
                        // per request (usual) or one tool object per function.
                        if *toolset == 0 {
                            add(*declaration, 2);
                        }
                        if *declaration == 0 {
                            add(*toolset, 1);
                        }
                    }
                }
            }
            _ => {}
        }
        if provider == Provider::OpenAi {
            for i in &hints.indexes {
                add(*i, 2);
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn hits_in(
        &self,
        tool: usize,
        evidence: u8,
        known: &Known,
        captures: &BTreeMap<String, String>,
        path: &Option<Path>,
        profile: Option<Profile>,
        rules: &[&'static str],
        order: &[Variant],
        hits: &mut Vec<Hit>,
        exists: &mut Vec<(usize, Variant)>,
    ) {
        let keyword = captures.get("keyword").cloned();
        for &variant in order {
            let Some(held) = self.held(tool, variant) else {
                continue;
            };
            let schema = held.schema();
            let anchors: Vec<String> = match path {
                Some(path) => path.resolve(schema),
                None => vec![String::new()],
            };
            if anchors.is_empty() {
                continue;
            }
            if path.is_some() {
                exists.push((tool, variant));
            }
            let findings: Vec<Finding> = match profile {
                Some(p) => self.findings(variant, p)[tool]
                    .iter()
                    .flatten()
                    .filter(|f| rules.contains(&f.rule))
                    .filter(|f| keyword.is_none() || f.keyword == keyword)
                    .cloned()
                    .collect(),
                None => Vec::new(),
            };
            for raw in anchors {
                let (node, at_keyword) = location::locate(schema, &raw);
                let matched: Vec<&Finding> = match known.at {
                    At::Tool => findings
                        .iter()
                        .filter(|f| f.target == Target::Tool)
                        .collect(),
                    At::Findings => findings.iter().collect(),
                    At::Root => findings
                        .iter()
                        .filter(|f| pointer::is_within(&f.pointer, &node))
                        .collect(),
                    At::Captured | At::Nowhere => {
                        let exact: Vec<&Finding> = findings
                            .iter()
                            .filter(|f| {
                                f.pointer == node
                                    && (at_keyword.is_none()
                                        || f.keyword.is_none()
                                        || f.keyword == at_keyword)
                            })
                            .collect();
                        exact
                    }
                };
                for f in &matched {
                    hits.push(Hit {
                        tool,
                        variant,
                        pointer: f.pointer.clone(),
                        keyword: f.keyword.clone(),
                        tool_entry: f.target == Target::Tool,
                        same_message: same_message(known, captures, f),
                        finding: Some((*f).clone()),
                        evidence,
                    });
                }
                if matched.is_empty() && known.at != At::Findings {
                    hits.push(Hit {
                        tool,
                        variant,
                        pointer: node,
                        keyword: keyword.clone().or(at_keyword),
                        tool_entry: known.at == At::Tool,
                        finding: None,
                        same_message: false,
                        evidence,
                    });
                }
            }
        }
    }

    fn profile_and_rules(&self, known: &Known) -> (Option<Profile>, &'static [&'static str]) {
        match self.query.borrow().provider {
            Some(p) => match known.rules_for(p) {
                Some(rules) => (Some(p), rules),
                // The user knows where they sent it; read the message for that profile with
                // whichever of the row's rules it has.
                None => {
                    let any = known
                        .rules
                        .iter()
                        .flat_map(|(_, r)| r.iter())
                        .find(|id| p.rule(id).is_some());
                    match any {
                        Some(_) => (Some(p), known.rules.first().map_or(&[][..], |(_, r)| r)),
                        None => (Some(p), &[]),
                    }
                }
            },
            None => match known.default_profile() {
                Some(p) => (Some(p), known.rules_for(p).unwrap_or(&[])),
                None => (None, &[]),
            },
        }
    }

    fn found_by(&self, hit: &Hit, tool_ref: Option<&ToolRef>, hints: &Hints) -> &'static str {
        if self.query.borrow().tool.is_some() {
            return "option";
        }
        if self.manifest.tools.len() == 1 {
            return "only";
        }
        let name = &self.manifest.tools[hit.tool].name;
        let named = matches!(tool_ref, Some(ToolRef::Name { name: n }) if n == name)
            || hints.names.contains(name);
        match (named, hit.evidence, tool_ref) {
            (true, _, _) => "name",
            (_, 1.., Some(ToolRef::Declaration { .. })) => "declaration",
            (_, 1.., _) => "index",
            _ => "search",
        }
    }

    fn received(
        &self,
        best: &Hit,
        hits: &[Hit],
        exists: &[(usize, Variant)],
        path: &Option<Path>,
    ) -> Received {
        let mut also: Vec<Variant> = Vec::new();
        for h in hits {
            if h.tool == best.tool
                && h.variant != best.variant
                && h.finding.is_some()
                && h.finding.as_ref().map(|f| f.rule) == best.finding.as_ref().map(|f| f.rule)
                && !also.contains(&h.variant)
            {
                also.push(h.variant);
            }
        }
        let mut location_exists_in: Vec<Variant> = Vec::new();
        for (t, v) in exists {
            if *t == best.tool && !location_exists_in.contains(v) {
                location_exists_in.push(*v);
            }
        }
        let sent = best.variant.describe();
        let summary = if path.is_some() && location_exists_in.len() == 1 {
            format!("The location exists only in the {sent}: that is what the provider received.")
        } else if best.finding.is_some() && also.is_empty() {
            if path.is_some() {
                format!(
                    "The location exists in {}, but only the {sent} has this problem there: that is what the provider received.",
                    list(&location_exists_in)
                )
            } else {
                format!("Only the {sent} has this problem: that is what the provider received.")
            }
        } else if best.finding.is_some() {
            format!(
                "The {sent} has this problem here, and so {} {}: the provider received one of them.",
                if also.len() == 1 { "does" } else { "do" },
                list(&also)
            )
        } else {
            format!(
                "The location fits the {sent}; lint does not say which schema has this problem."
            )
        };
        Received {
            schema: best.variant,
            also,
            location_exists_in,
            summary,
        }
    }

    fn node_ref(&self, hit: &Hit) -> NodeRef {
        let tool = &self.manifest.tools[hit.tool];
        let mode = self.mode();
        let held = self.held(hit.tool, hit.variant);
        let original: Vec<String> = match (hit.variant, held.as_ref().and_then(|h| h.links())) {
            (Variant::Original, _) => vec![hit.pointer.clone()],
            (_, Some(links)) => linked(&hit.pointer, |p| links.originals(p)),
            (_, None) => Vec::new(),
        };
        let projection = match hit.variant {
            Variant::Projection { mode: m } if m == mode => vec![hit.pointer.clone()],
            _ => match self.projection(hit.tool, mode) {
                Some(p) => {
                    let mut out = Vec::new();
                    for o in &original {
                        for q in linked(o, |x| p.links.projections(x)) {
                            if !out.contains(&q) {
                                out.push(q);
                            }
                        }
                    }
                    out
                }
                None => Vec::new(),
            },
        };
        let document = original.first().and_then(|o| {
            tool.schema_pointer
                .as_deref()
                .map(|base| format!("{base}{o}"))
        });
        NodeRef {
            schema: hit.variant,
            pointer: hit.pointer.clone(),
            keyword: hit.keyword.clone(),
            tool_entry: hit.tool_entry,
            original,
            document: if hit.tool_entry {
                Some(tool.tool_pointer.clone())
            } else {
                document
            },
            projection_mode: mode,
            projection,
        }
    }

    fn rule_match(
        &self,
        hit: &Hit,
        profile: Profile,
        rules: &[&'static str],
        captures: &BTreeMap<String, String>,
    ) -> Option<RuleMatch> {
        if let Some(f) = &hit.finding {
            return Some(RuleMatch {
                profile,
                id: f.rule,
                severity: f.severity,
                explanation: f.message.clone(),
                provider_message: f.provider_message.clone(),
                lint_agrees: true,
                confirmed: f.confirmed,
                source: f.source,
            });
        }
        // No finding to quote: the row's rule that names this keyword, else its first.
        let keyword = captures.get("keyword").or(hit.keyword.as_ref());
        let id = rules
            .iter()
            .find(|id| {
                profile.rule(id).is_some_and(|r| match r.applies {
                    Check::Keywords { names, .. } => {
                        keyword.is_some_and(|k| names.contains(&k.as_str()))
                    }
                    _ => false,
                })
            })
            .or(rules.first())?;
        let rule = profile.rule(id)?;
        let fill = |t: &str| {
            t.replace("{keyword}", keyword.map_or("…", String::as_str))
                .replace(
                    "{detail}",
                    captures.get("detail").map_or("…", String::as_str),
                )
                .replace("{item}", "…")
                .replace("{tool}", &self.manifest.tools[hit.tool].name)
        };
        Some(RuleMatch {
            profile,
            id: rule.id,
            severity: rule.severity,
            explanation: fill(rule.message),
            provider_message: None,
            lint_agrees: false,
            confirmed: rule.confirmed,
            source: rule.source,
        })
    }

    /// The first schemalens output without this rule at the node's counterparts.
    fn fix(&self, hit: &Hit, profile: Profile, rule: &str) -> Result<Fix, String> {
        let mode = self.mode();
        let candidates: Vec<Variant> = match hit.variant {
            Variant::Original => vec![
                Variant::Projection { mode: Mode::Inline },
                Variant::Projection { mode: Mode::Flat },
                Variant::Tailored {
                    provider: profile,
                    mode,
                },
            ],
            Variant::Projection { mode: m } => vec![Variant::Tailored {
                provider: profile,
                mode: m,
            }],
            Variant::Tailored { .. } => Vec::new(),
        };
        let originals = self.node_ref(hit).original;
        let tool_level = hit.tool_entry;
        for variant in candidates {
            let Some(held) = self.held(hit.tool, variant) else {
                continue;
            };
            let Some(links) = held.links() else { continue };
            let mut counterparts: Vec<String> = Vec::new();
            for o in &originals {
                for c in linked(o, |x| links.projections(x)) {
                    if !counterparts.contains(&c) {
                        counterparts.push(c);
                    }
                }
            }
            if counterparts.is_empty() && !tool_level {
                continue;
            }
            let findings = self.findings(variant, profile);
            let Some(tool_findings) = &findings[hit.tool] else {
                continue;
            };
            let still = tool_findings.iter().any(|f| {
                f.rule == rule
                    && (tool_level
                        || counterparts
                            .iter()
                            .any(|c| pointer::is_within(&f.pointer, c)))
            });
            if still {
                continue;
            }
            let projection = held.projection().expect("a projection variant");
            let at_node: Vec<&crate::projection::TraceEntry> = projection
                .trace
                .iter()
                .filter(|e| counterparts.contains(&e.at))
                .collect();
            let tailoring: Vec<&crate::projection::TraceEntry> = at_node
                .iter()
                .copied()
                .filter(|e| matches!(e.detail, Detail::Tailored(_)))
                .collect();
            let shown = if tailoring.is_empty() {
                at_node
            } else {
                tailoring
            };
            let lossy = shown
                .iter()
                .any(|e| matches!(&e.detail, Detail::Tailored(t) if t.is_lossy()));
            const MAX_STEPS: usize = 5;
            let steps = shown
                .iter()
                .take(MAX_STEPS)
                .map(|e| FixStep {
                    rule: e.rule.id(),
                    at: e.at.clone(),
                    message: e.message(),
                })
                .collect();
            let remaining_errors = tool_findings.iter().filter(|f| f.is_error()).count();
            return Ok(Fix {
                schema: variant,
                steps,
                lossy,
                command: self.command(hit.tool, variant),
                remaining_errors,
            });
        }
        let (provider, base) = match hit.variant {
            Variant::Tailored { provider, mode } => (provider, mode),
            Variant::Projection { mode } => (profile, mode),
            Variant::Original => (profile, mode),
        };
        let unresolved = self.tailored(hit.tool, provider, base).and_then(|t| {
            t.unresolved
                .iter()
                .find(|u| u.rule == rule)
                .map(|u| u.why.clone())
        });
        Err(match unresolved {
            Some(why) => format!(
                "No projection or tailoring step removes this: tailoring for {profile} leaves it, because {why}."
            ),
            None => format!(
                "No projection or tailoring step removes this {rule} finding; the schema has to change by hand."
            ),
        })
    }

    fn command(&self, tool: usize, variant: Variant) -> String {
        let mut parts = vec![
            "schemalens".to_owned(),
            "project".to_owned(),
            shell_word(&self.file),
        ];
        if self.named && self.manifest.tools.len() > 1 {
            parts.push("--tool".to_owned());
            parts.push(shell_word(&self.manifest.tools[tool].name));
        }
        let (mode, provider) = match variant {
            Variant::Original => (None, None),
            Variant::Projection { mode } => (Some(mode), None),
            Variant::Tailored { provider, mode } => (Some(mode), Some(provider)),
        };
        if let Some(mode) = mode
            && (mode != Mode::Flat || provider.is_none())
        {
            parts.push("--mode".to_owned());
            parts.push(mode.to_string());
        }
        if let Some(p) = provider {
            parts.push("--provider".to_owned());
            parts.push(p.name().to_owned());
        }
        parts.join(" ")
    }
}

/// The pointers linked to `at`, or to its closest ancestor that has links (a node the
/// projection dropped went where its parent went).
fn linked<'a>(at: &str, get: impl Fn(&str) -> &'a [String]) -> Vec<String> {
    let mut p = at;
    loop {
        let found = get(p);
        if !found.is_empty() {
            return found.to_vec();
        }
        match pointer::parent(p) {
            Some(parent) => p = parent,
            None => return Vec::new(),
        }
    }
}

/// `(toolset, declaration)` of a Gemini tool pointer (`/tools/0/functionDeclarations/5`).
fn declaration_of(tool_pointer: &str) -> Option<(Option<usize>, usize)> {
    let tokens = pointer::tokens(tool_pointer)?;
    let at = tokens
        .iter()
        .rposition(|t| t == "functionDeclarations" || t == "function_declarations")?;
    let declaration = tokens.get(at + 1)?.parse().ok()?;
    let toolset = at
        .checked_sub(1)
        .and_then(|i| tokens.get(i))
        .and_then(|t| t.parse().ok());
    Some((toolset, declaration))
}

fn captured_tool(captures: &BTreeMap<String, String>) -> Option<ToolRef> {
    if let Some(name) = captures.get("tool") {
        return Some(ToolRef::Name { name: name.clone() });
    }
    captures
        .get("index")
        .and_then(|i| i.parse().ok())
        .map(|index| ToolRef::Index { index })
}

fn describe_hint(
    tool_ref: Option<&ToolRef>,
    hints: &Hints,
    tools: &[crate::manifest::Tool],
    hinted: &[(usize, u8)],
) -> String {
    match tool_ref {
        Some(ToolRef::Name { name }) => format!("tool {name:?}"),
        Some(ToolRef::Index { index }) => format!("tool #{index}"),
        Some(ToolRef::Declaration {
            toolset,
            declaration,
        }) => format!("tools[{toolset}].function_declarations[{declaration}]"),
        None => match hints.names.first() {
            Some(n) => format!("tool {n:?}"),
            None => hinted
                .first()
                .map(|(t, _)| format!("tool {:?}", tools[*t].name))
                .unwrap_or_else(|| "a tool".to_owned()),
        },
    }
}

/// The location a message carries, read by the syntax its placeholder names.
fn read_location(captures: &BTreeMap<String, String>) -> Option<ReadLocation> {
    let get = |k: &str| captures.get(k).cloned();
    let read = |text: String, path: Path, tool: Option<ToolRef>| {
        Some(ReadLocation {
            text,
            path: Some(path),
            tool,
        })
    };
    if let Some(text) = get("context") {
        let tokens = location::py_tuple(&text)?;
        return read(text, Path::Tokens { tokens }, None);
    }
    if let Some(text) = get("jsonpath") {
        let tokens = location::json_path(&text)?;
        return read(text, Path::Tokens { tokens }, None);
    }
    if let Some(text) = get("proto") {
        let (tool, steps) = location::proto_path(&text)?;
        let tool = tool.or_else(|| {
            get("index")
                .and_then(|i| i.parse().ok())
                .map(|declaration| ToolRef::Declaration {
                    toolset: 0,
                    declaration,
                })
        });
        return read(text, Path::Proto { steps }, tool);
    }
    if let Some(text) = get("dotted") {
        let names = location::dotted_names(&text);
        return read(text, Path::Properties { names }, captured_tool(captures));
    }
    if let Some(text) = get("gopath") {
        let path = Path::Go {
            fields: location::go_fields(&text)?,
            kind: get("kind").unwrap_or_default(),
            go_type: get("gotype").unwrap_or_default().trim().to_owned(),
        };
        return read(text, path, None);
    }
    if let Some(text) = get("loc") {
        let tokens = location::dotted_tokens(&text);
        return read(text, Path::Tokens { tokens }, captured_tool(captures));
    }
    None
}

/// The finding's provider message, read with the same row, gives the same captures: the
/// provider said exactly what lint predicts here.
fn same_message(known: &Known, captures: &BTreeMap<String, String>, f: &Finding) -> bool {
    let Some(said) = &f.provider_message else {
        return false;
    };
    matcher::find_all(known.pattern, &matcher::normalize(said))
        .iter()
        .any(|m| &m.captures == captures)
}

fn list(variants: &[Variant]) -> String {
    let names: Vec<String> = variants
        .iter()
        .map(|v| format!("the {}", v.describe()))
        .collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A word the shell reads back as it is.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
