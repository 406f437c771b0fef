//! The provider lint in the inspector: the library's verdicts on the original, the projection
//! and the tailored schema, its findings (grouped by original node) attached to tree nodes, the
//! lint list, the detail pane's part, and Ollama's "what the model sees" view. Nothing here
//! decides whether something is a finding; it only places and shows what `schemalens::lint`
//! reported.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use schemalens::lint::report::{Form, ProfileLint};
use schemalens::lint::{DropClass, Finding, Group, OllamaView, Profile, Severity, Target};
use schemalens::pointer;

use super::app::{App, ToolView};
use super::overlay;
use super::payloads::PayloadRow;
use super::render::wrap;
use super::text::{clip, escape};
use super::theme::{Theme, severity_glyph};
use super::tree::{NodeId, SchemaTree};

/// One tree's findings, grouped by the original node they come from, each group attached to
/// every node it is about (all the copies an inlined definition has in the projection).
#[derive(Debug, Clone, Default)]
pub struct PaneLint {
    /// In the engine's order (tool-level first, then document order).
    pub groups: Vec<Group>,
    /// Indices into `groups` per node. A pointer may name a keyword inside a node
    /// (`/properties/op/required`) or a node the tree left out; either goes to the nearest
    /// enclosing node, and tool-level findings go to the root.
    at: HashMap<NodeId, Vec<usize>>,
}

impl PaneLint {
    pub fn new(tree: &SchemaTree, groups: Vec<Group>) -> PaneLint {
        let mut at: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (i, g) in groups.iter().enumerate() {
            let pointers: Vec<&str> = match g.finding.target {
                Target::Tool => vec![""],
                Target::Schema => g.pointers.iter().map(String::as_str).collect(),
            };
            for pointer in pointers {
                if let Some(id) = tree.nearest(pointer) {
                    let list = at.entry(id).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        PaneLint { groups, at }
    }

    /// The groups on node `id`, most severe first (engine order within a severity).
    pub fn on(&self, id: NodeId) -> Vec<&Group> {
        let mut out: Vec<&Group> = self
            .at
            .get(&id)
            .map(|is| is.iter().map(|&i| &self.groups[i]).collect())
            .unwrap_or_default();
        out.sort_by_key(|g| g.finding.severity);
        out
    }

    pub fn worst(&self, id: NodeId) -> Option<Severity> {
        self.at
            .get(&id)?
            .iter()
            .map(|&i| self.groups[i].finding.severity)
            .min()
    }

    /// The first group (in list order) attached to node `id`.
    pub fn first_on(&self, id: NodeId) -> Option<usize> {
        self.at.get(&id)?.iter().min().copied()
    }

    pub fn counts(&self) -> [usize; 3] {
        counts(&self.groups)
    }
}

fn counts(groups: &[Group]) -> [usize; 3] {
    let n = |s| groups.iter().filter(|g| g.finding.severity == s).count();
    [n(Severity::Error), n(Severity::Warn), n(Severity::Info)]
}

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warn, Severity::Info];

/// `2 errors, 1 warning`; `no findings` when there are none.
pub fn summary(groups: &[Group]) -> String {
    let words = ["error", "warning", "info"];
    let parts: Vec<String> = counts(groups)
        .into_iter()
        .zip(words)
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}{}", if n == 1 || w == "info" { "" } else { "s" }))
        .collect();
    if parts.is_empty() {
        "no findings".to_owned()
    } else {
        parts.join(", ")
    }
}

/// `original rejected · projection rejected · tailored accepted (adapter)`: the answer first;
/// where a request plan decides it, how the tool is sent (`· non-strict`).
pub fn verdicts(report: &ProfileLint) -> String {
    Form::ALL
        .into_iter()
        .map(|form| match form {
            Form::Tailored => format!("{form} {}", report.tailored_label()),
            _ => format!("{form} {}", report.verdict_label(form)),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// How the request of every tool of the file sends this one, where a plan decides it
/// (Anthropic strict tool use): `sent non-strict: …` with the engine's reason, then the
/// request as a whole. Whether the first says the tool is sent otherwise than asked.
pub fn sent_lines(view: &ToolView) -> Vec<(String, bool)> {
    let Some(decision) = view.report.as_ref().and_then(|r| r.sent.as_ref()) else {
        return Vec::new();
    };
    let mut out = vec![(format!("sent {}", decision.label()), !decision.strict)];
    if let Some(plan) = view.tool_set.as_ref().and_then(|s| s.plan.as_ref()) {
        out.push((plan.summary(), false));
    }
    out
}

/// The detail pane's lines about the tool entry (the root): how the request sends it.
pub fn tool_entry_lines(view: &ToolView, profile: Profile, theme: Theme) -> Vec<Line<'static>> {
    sent_lines(view)
        .into_iter()
        .map(|(text, otherwise)| {
            let style = if otherwise {
                theme.severity(Severity::Warn)
            } else {
                theme.dim()
            };
            Line::styled(format!("{}: {}", profile.name(), escape(&text)), style)
        })
        .collect()
}

/// `●2 ▲1` for a pane title; empty when there is nothing.
pub fn count_spans(lint: &PaneLint, theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (severity, n) in SEVERITIES.into_iter().zip(lint.counts()) {
        if n > 0 {
            spans.push(Span::styled(
                format!("{}{n} ", severity_glyph(severity)),
                theme.severity(severity),
            ));
        }
    }
    spans
}

/// Where a group is, as the CLI writes it: the keyword appended to the schema's pointer, then
/// how many copies and which original node they come from.
pub fn place(g: &Group) -> String {
    let f = &g.finding;
    let mut s = match (&f.target, &f.keyword) {
        (Target::Tool, _) => return "(the tool entry)".to_owned(),
        (_, Some(k)) => format!("#{}", escape(&pointer::push(&f.pointer, k))),
        (_, None) => format!("#{}", escape(&f.pointer)),
    };
    if g.copies() > 1 {
        s.push_str(&format!(" ×{}", g.copies()));
    }
    if let Some(origin) = g.origins.first().filter(|o| **o != f.pointer) {
        s.push_str(&format!(" (from #{}", escape(origin)));
        if g.origins.len() > 1 {
            s.push_str(&format!(" +{}", g.origins.len() - 1));
        }
        s.push(')');
    }
    s
}

fn unconfirmed(f: &Finding) -> &'static str {
    if f.confirmed { "" } else { " [unconfirmed]" }
}

/// The detail pane's part for node `id`: each finding with the provider's own words.
pub fn node_lines(
    pane: &super::app::TreePane,
    id: NodeId,
    profile: Profile,
    theme: Theme,
) -> Vec<Line<'static>> {
    let here = pane.lint.on(id);
    if here.is_empty() {
        return vec![Line::styled(
            format!("{}: nothing to report on this node", profile.name()),
            theme.dim(),
        )];
    }
    let mut out = Vec::new();
    for g in here {
        let f = &g.finding;
        out.push(Line::from(vec![
            Span::styled(
                format!("{} {} ", severity_glyph(f.severity), f.severity.name()),
                theme.severity(f.severity),
            ),
            Span::styled(format!("{}:{}", profile.name(), f.rule), theme.key()),
            Span::styled(unconfirmed(f), theme.dim()),
            Span::styled("  at ", theme.dim()),
            Span::styled(place(g), theme.pointer()),
        ]));
        // Not indented: wrapped continuation lines would start at the margin anyway.
        out.push(Line::from(escape(&f.message).into_owned()));
        if let Some(said) = &f.provider_message {
            out.push(Line::from(vec![
                Span::styled("provider says: ", theme.dim()),
                Span::styled(escape(said).into_owned(), theme.json_string()),
            ]));
        }
    }
    out
}

/// A row of the lint list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The three verdicts.
    Verdicts,
    Heading(Form),
    /// Nothing to list for the form (no findings, or the projection failed).
    Empty(Form),
    /// A line about the tailored schema: its payload adapter, what it could not fix.
    Tailoring(usize),
    /// How the request of the file's tools sends the tool (see [`sent_lines`]).
    Request(usize),
    /// The `n`th group of the whole list (original, then projection, then tailored).
    Group(usize),
    /// The tool's payloads as the provider is sent them: a heading with the tally.
    SentHeading,
    /// Payload `i` of the payload panel, as sent (selectable, after the groups).
    Sent(usize),
    /// Line `j` of payload `i`'s JSON as sent.
    SentJson(usize, usize),
}

fn forms(view: &ToolView) -> Option<&ProfileLint> {
    view.report.as_ref()
}

/// Groups in the list, over the three forms.
pub fn count(view: &ToolView) -> usize {
    forms(view).map_or(0, |r| r.forms.iter().map(|f| f.groups.len()).sum())
}

/// The `n`th group of the list, its form and its index within the form.
pub fn finding(view: &ToolView, n: usize) -> Option<(Form, usize, &Group)> {
    let report = forms(view)?;
    let mut n = n;
    for form in &report.forms {
        if n < form.groups.len() {
            return Some((form.form, n, &form.groups[n]));
        }
        n -= form.groups.len();
    }
    None
}

/// Index in the list of group `i` of `form`.
pub fn index_of(view: &ToolView, form: Form, i: usize) -> usize {
    forms(view).map_or(0, |r| {
        r.forms
            .iter()
            .take_while(|f| f.form != form)
            .map(|f| f.groups.len())
            .sum::<usize>()
            + i
    })
}

/// The tailored schema's notes: each payload adapter, then each unresolved place.
fn tailoring_lines(report: &ProfileLint) -> Vec<String> {
    let copies = |n: usize| {
        if n > 1 {
            format!(" ×{n}")
        } else {
            String::new()
        }
    };
    let mut out: Vec<String> = report
        .adapters
        .iter()
        .map(|a| {
            let kind = serde_json::to_value(&a.item)
                .ok()
                .and_then(|v| v["kind"].as_str().map(str::to_owned))
                .unwrap_or_default();
            format!(
                "payload adapter: {kind} at #{}{}",
                escape(a.item.at()),
                copies(a.copies())
            )
        })
        .collect();
    out.extend(report.unresolved.iter().map(|u| {
        format!(
            "not tailored: #{}{} `{}`: {}",
            escape(&u.item.pointer),
            copies(u.copies()),
            u.item.rule,
            escape(&u.item.why)
        )
    }));
    out
}

pub fn rows(view: &ToolView) -> Vec<Row> {
    let Some(report) = forms(view) else {
        return Vec::new();
    };
    let mut rows = Vec::with_capacity(count(view) + 8);
    rows.push(Row::Verdicts);
    let mut n = 0;
    for form in &report.forms {
        rows.push(Row::Heading(form.form));
        if form.form == Form::Tailored {
            rows.extend((0..sent_lines(view).len()).map(Row::Request));
            rows.extend((0..tailoring_lines(report).len()).map(Row::Tailoring));
        }
        if form.groups.is_empty() {
            rows.push(Row::Empty(form.form));
        }
        rows.extend((n..n + form.groups.len()).map(Row::Group));
        n += form.groups.len();
    }
    rows.push(Row::SentHeading);
    for (i, payload) in view.payloads.iter().enumerate() {
        rows.push(Row::Sent(i));
        rows.extend(
            (0..sent_json(payload, Theme { color: false }).len()).map(|j| Row::SentJson(i, j)),
        );
    }
    rows
}

/// What the list can select: the groups, then the payloads.
pub fn selectable(view: &ToolView) -> usize {
    count(view) + view.payloads.len()
}

/// The payload (an index into the payload panel's list) that selection `n` stands for.
pub fn payload_at(view: &ToolView, n: usize) -> Option<usize> {
    n.checked_sub(count(view))
        .filter(|&i| i < view.payloads.len())
}

fn row_of(view: &ToolView, selected: usize) -> usize {
    let wanted = match payload_at(view, selected) {
        Some(i) => Row::Sent(i),
        None => Row::Group(selected),
    };
    rows(view).iter().position(|r| *r == wanted).unwrap_or(0)
}

/// Most lines of one payload's JSON in the list; the payload panel shows all of it.
const SENT_JSON_LINES: usize = 30;

/// The payload as the provider is sent it: the adapted payload when the tailoring adapts, else
/// the payload itself (the tailored schema is the projection). Nothing for an unreadable one.
fn sent_json(row: &PayloadRow, theme: Theme) -> Vec<Line<'static>> {
    let value = match (&row.sent, &row.value) {
        (Some(sent), _) => &sent.sent.adaptation.payload,
        (None, Some(value)) => value,
        (None, None) => return Vec::new(),
    };
    overlay::json_lines(value, theme, SENT_JSON_LINES)
        .into_iter()
        .map(|line| {
            let mut spans = vec![Span::raw("      ")];
            spans.extend(line.spans);
            Line::from(spans).style(line.style)
        })
        .collect()
}

/// `accepted` / `rejected (2 errors)` by the tailored schema; `None` when there is no verdict
/// (the payload is not JSON, or no checker).
fn sent_verdict(row: &PayloadRow) -> Option<(bool, usize)> {
    let side = match (&row.received, &row.sent) {
        (Some(call), _) => &call.received.call,
        (None, Some(sent)) => &sent.sent.verdict,
        (None, None) => &row.verdict.as_ref().ok()?.projection,
    };
    Some((side.valid, side.leaf_errors().len()))
}

fn verdict_text((valid, errors): (bool, usize)) -> String {
    match (valid, errors) {
        (true, _) => "accepted".to_owned(),
        (false, 1) => "rejected (1 error)".to_owned(),
        (false, n) => format!("rejected ({n} errors)"),
    }
}

/// `Payloads sent to gemini (original, projection → sent): 5 of 6 accepted, 0 lost, all back
/// exactly`: lost counts the payloads the projection accepts and the tailored schema refuses.
fn sent_heading(view: &ToolView, profile: Profile) -> String {
    let total = view.payloads.len();
    let calls: Vec<&schemalens::validate::Received> = view
        .payloads
        .iter()
        .filter_map(|r| r.received.as_ref().map(|c| &c.received))
        .collect();
    if !calls.is_empty() {
        let count = |keep: fn(&&schemalens::validate::Received) -> bool| {
            calls.iter().filter(|c| keep(c)).count()
        };
        return format!(
            "Calls from the model for {} (call → the original on what the tool gets): {} of {total} in the tailored schema, {} the tool rejects, {} with unread text",
            profile.name(),
            count(|c| c.call.valid),
            count(|c| !c.original.valid),
            count(|c| !c.given.unread.is_empty()),
        );
    }
    if total == 0 {
        return format!(
            "Payloads sent to {} — none: this tool has no payload files (n in the payload panel makes one)",
            profile.name()
        );
    }
    let accepted = view
        .payloads
        .iter()
        .filter(|r| sent_verdict(r).is_some_and(|(valid, _)| valid))
        .count();
    // Tailoring must keep every payload the projection accepts (soundness modulo the adapter);
    // what the projection itself refuses is the payload panel's story.
    let lost = view
        .payloads
        .iter()
        .filter(|r| {
            r.verdict.as_ref().is_ok_and(|v| v.projection.valid)
                && sent_verdict(r).is_some_and(|(valid, _)| !valid)
        })
        .count();
    let inexact = view
        .payloads
        .iter()
        .filter(|r| r.sent.as_ref().is_some_and(|s| !s.sent.round_trips))
        .count();
    let back = match inexact {
        0 => "all back exactly".to_owned(),
        n => format!("{n} not back exactly"),
    };
    format!(
        "Payloads sent to {} (original, projection → sent): {accepted} of {total} accepted, {lost} lost, {back}",
        profile.name()
    )
}

/// The list row of one payload: the tailored schema's verdict, what the adapter changed, and
/// whether un-adapting gives the payload back.
fn sent_row(row: &PayloadRow, selected: bool, theme: Theme) -> Line<'static> {
    let marker = Span::raw(if selected { "▸ " } else { "  " });
    let Some(verdict) = sent_verdict(row) else {
        return Line::from(vec![
            marker,
            Span::styled("?? ", theme.error()),
            Span::raw(clip(&row.name(), 60)),
            Span::styled("  cannot be checked (see the payload panel)", theme.dim()),
        ]);
    };
    if let Some(call) = &row.received {
        return call_row(row, &call.received, marker, selected, theme);
    }
    let before = row
        .verdict
        .as_ref()
        .map_or("??", |v| super::payloads::class_glyphs(v.class));
    let glyph = format!("{before}→{}", if verdict.0 { "✓" } else { "✗" });
    let style = if verdict.0 {
        theme.dim()
    } else {
        theme.error()
    };
    // Whether the tool gets it back first: it is what a narrow screen must not cut.
    let mut notes = Vec::new();
    match &row.sent {
        Some(sent) => {
            let a = &sent.sent.adaptation;
            let changes: Vec<String> = [
                (a.encoded.len(), "in the provider's form"),
                (a.filled.len(), "null for absent"),
                (a.renamed.len(), "renamed"),
            ]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
            notes.push(
                if sent.sent.round_trips {
                    "back exactly"
                } else {
                    "NOT back exactly"
                }
                .to_owned(),
            );
            notes.push(if changes.is_empty() {
                "sent as it is".to_owned()
            } else {
                format!("adapted: {}", changes.join(", "))
            });
        }
        None => notes.push("sent as it is".to_owned()),
    }
    if let Some(e) = row.expectation {
        notes.push(format!("named {}", super::payloads::expectation_text(e)));
    }
    let head = Span::styled(format!("{glyph} {:<20} ", verdict_text(verdict)), style);
    list_row([marker, head], row, &notes, selected, theme)
}

/// A payload's row in the list: marker and verdicts, the name, then the notes.
fn list_row(
    [marker, head]: [Span<'static>; 2],
    row: &PayloadRow,
    notes: &[String],
    selected: bool,
    theme: Theme,
) -> Line<'static> {
    let line = Line::from(vec![
        marker,
        head,
        Span::raw(clip(&row.name(), 60)),
        Span::styled(format!("  · {}", notes.join(" · ")), theme.dim()),
    ]);
    if selected {
        Line::from(line.to_string()).style(theme.selected())
    } else {
        line
    }
}

/// A call's row: the tailored schema's verdict on it, then the original's on what the tool gets.
fn call_row(
    row: &PayloadRow,
    call: &schemalens::validate::Received,
    marker: Span<'static>,
    selected: bool,
    theme: Theme,
) -> Line<'static> {
    let mut notes = vec![format!(
        "the tool gets what the original {}",
        if call.original.valid {
            "accepts"
        } else {
            "rejects"
        }
    )];
    if !call.given.unread.is_empty() {
        notes.push(format!("{} unread", call.given.unread.len()));
    }
    let verdict = (call.call.valid, call.call.leaf_errors().len());
    let head = Span::styled(
        format!(
            "{} {:<20} ",
            super::payloads::call_glyphs(call),
            verdict_text(verdict)
        ),
        super::payloads::call_style(call, theme),
    );
    list_row([marker, head], row, &notes, selected, theme)
}

/// The detail part for a selected payload: the tailored schema's errors, what changed, and the
/// payload taken back.
fn sent_detail(row: &PayloadRow, profile: Profile, theme: Theme) -> Vec<Line<'static>> {
    if let Some(call) = &row.received {
        return super::payloads::call_lines(row, call, theme);
    }
    let mut out = vec![Line::from(vec![
        Span::styled(escape(&row.name()).into_owned(), theme.heading()),
        Span::raw(format!(
            "  sent to {}: {}",
            profile.name(),
            sent_verdict(row).map_or_else(|| "not checked".to_owned(), verdict_text)
        )),
    ])];
    let Some(sent) = &row.sent else {
        if let Ok(v) = &row.verdict {
            out.extend(
                v.projection
                    .leaf_errors()
                    .iter()
                    .map(|e| super::payloads::error_line(e, theme)),
            );
        }
        out.push(Line::styled(
            "sent as it is: this provider's tailoring rewrites nothing, so the tool gets it back unchanged",
            theme.dim(),
        ));
        return out;
    };
    out.extend(
        sent.sent
            .verdict
            .leaf_errors()
            .iter()
            .map(|e| super::payloads::error_line(e, theme)),
    );
    out.extend(super::payloads::change_lines(&sent.sent.adaptation, theme));
    if sent.sent.round_trips {
        out.push(Line::styled(
            "back: un-adapted, the tool gets exactly this payload",
            theme.dim(),
        ));
    } else {
        out.push(Line::styled(
            "back: un-adapted, the tool gets something else:",
            theme.error(),
        ));
        out.extend(overlay::json_lines(&sent.sent.returned, theme, 40));
    }
    out
}

/// The lint list above, the selected finding in full below.
fn split(inner: Rect) -> [Rect; 2] {
    let detail = (inner.height / 3).clamp(5, 10).min(inner.height);
    Layout::vertical([Constraint::Fill(1), Constraint::Length(detail)]).areas(inner)
}

/// Rows the list shows in a terminal of `size`.
pub fn list_height(size: Rect) -> usize {
    let inner = Block::bordered().inner(overlay::frame_area(size));
    split(inner)[0].height as usize
}

/// The first row to show so that the selected finding is in view, moving as little as
/// possible from `offset`; one row of context stays above it (its heading, at the top).
pub fn keep_visible(view: &ToolView, selected: usize, offset: usize, height: usize) -> usize {
    let row = row_of(view, selected);
    let height = height.max(1);
    if selected + 1 >= selectable(view) {
        // The last item: the rows after it (a payload's JSON, or with no payloads the tailored
        // schema's notes and the payload heading) can be selected no other way, so the end
        // comes into view.
        let end = rows(view).len().saturating_sub(height);
        return end.min(row).max(row.saturating_sub(height - 1));
    }
    if selected == count(view) && payload_at(view, selected).is_some() {
        // The first payload: the rows between the last finding and it (the tailored schema's
        // notes, the payloads' heading) can be selected no other way; as many as fit come
        // into view, its heading always.
        let all = rows(view);
        let top = all
            .iter()
            .rposition(|r| matches!(r, Row::Group(_)))
            .map_or(0, |last| last + 1);
        let heading = row.saturating_sub(1);
        return top.max((row + 1).saturating_sub(height)).min(heading);
    }
    if let Some(i) = payload_at(view, selected) {
        // A payload comes with as much of its JSON as fits below it.
        let json = view
            .payloads
            .get(i)
            .map_or(0, |r| sent_json(r, Theme { color: false }).len());
        let end = row + json;
        if row < offset + 1 {
            return row.saturating_sub(1);
        }
        if end >= offset + height {
            return row.saturating_sub(1).min(end + 1 - height).max(offset);
        }
        return offset;
    }
    if row < offset + 1 {
        // Back near the top: show the verdicts too.
        let above = row.saturating_sub(1);
        if above <= 1 { 0 } else { above }
    } else if row >= offset + height {
        row + 1 - height
    } else {
        offset
    }
}

pub fn render_list(
    app: &App,
    selected: usize,
    offset: usize,
    frame: &mut Frame,
    area: Rect,
    block: Block<'static>,
) {
    let theme = app.theme;
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (Some(view), Some(profile)) = (&app.view, app.profile) else {
        let text = vec![
            Line::from("No provider chosen: p picks the next one."),
            Line::from(""),
            Line::styled(Profile::ALL.map(Profile::name).join(" → "), theme.dim()),
        ];
        frame.render_widget(Paragraph::new(text), inner);
        return;
    };
    let Some(report) = forms(view) else {
        frame.render_widget(Paragraph::new("Nothing to lint."), inner);
        return;
    };
    let [list_area, detail_area] = split(inner);
    let rows = rows(view);
    let height = list_area.height as usize;
    // Render defends the invariant `update` keeps, without writing it back.
    let offset = keep_visible(view, selected, offset, height).min(rows.len().saturating_sub(1));
    let rule_width = report
        .forms
        .iter()
        .flat_map(|f| &f.groups)
        .map(|g| g.finding.rule.len())
        .max()
        .unwrap_or(0)
        .min(24);
    let tool = app.tool(view.entry).map(|(_, t)| clip(&t.name, 40));
    let notes = tailoring_lines(report);
    let sent = sent_lines(view);
    let lines: Vec<Line<'static>> = rows
        .iter()
        .skip(offset)
        .take(height)
        .map(|row| match *row {
            Row::Verdicts => {
                let answer = verdicts(report);
                let about = format!(
                    "{}{}: ",
                    tool.as_ref().map(|t| format!("{t} · ")).unwrap_or_default(),
                    profile.name()
                );
                // The answer whole rather than the tool's name: the frame's title names the
                // provider and the status bar the tool.
                let fits = Span::raw(about.as_str()).width() + Span::raw(answer.as_str()).width()
                    <= list_area.width as usize;
                let about = if fits { about } else { String::new() };
                Line::from(vec![
                    Span::styled(about, theme.heading()),
                    Span::raw(answer),
                ])
            }
            Row::Heading(form) => {
                let f = report.form(form);
                let name = match form {
                    Form::Original => "Original".to_owned(),
                    Form::Projection => format!("Projection ({})", app.options.mode),
                    Form::Tailored => format!("Tailored for {}", profile.name()),
                };
                let status = match &f.failed {
                    Some(_) => "not linted: the projection failed".to_owned(),
                    None => format!("{} — {}", f.verdict().name(), summary(&f.groups)),
                };
                Line::from(vec![
                    Span::styled(name, theme.heading()),
                    Span::raw(format!(" — {status}")),
                ])
            }
            Row::Empty(form) => Line::styled(
                if report.form(form).failed.is_some() {
                    "  (nothing to lint)".to_owned()
                } else {
                    format!("  nothing to report for {}", profile.name())
                },
                theme.dim(),
            ),
            Row::Tailoring(i) => Line::styled(
                format!("  {}", notes.get(i).cloned().unwrap_or_default()),
                theme.dim(),
            ),
            Row::Request(i) => match sent.get(i) {
                Some((text, true)) => Line::styled(
                    format!("  {}", escape(text)),
                    theme.severity(Severity::Warn),
                ),
                Some((text, false)) => Line::styled(format!("  {}", escape(text)), theme.dim()),
                None => Line::default(),
            },
            Row::SentHeading => Line::from(vec![Span::styled(
                sent_heading(view, profile),
                theme.heading(),
            )]),
            Row::Sent(i) => view.payloads.get(i).map_or_else(Line::default, |r| {
                sent_row(r, payload_at(view, selected) == Some(i), theme)
            }),
            Row::SentJson(i, j) => view
                .payloads
                .get(i)
                .and_then(|r| sent_json(r, theme).into_iter().nth(j))
                .unwrap_or_default(),
            Row::Group(n) => {
                let Some((_, _, g)) = finding(view, n) else {
                    return Line::from("");
                };
                let f = &g.finding;
                let line = Line::from(vec![
                    Span::raw(if n == selected { "▸ " } else { "  " }),
                    Span::styled(
                        format!("{} {:<5} ", severity_glyph(f.severity), f.severity.name()),
                        theme.severity(f.severity),
                    ),
                    Span::styled(format!("{:<rule_width$} ", f.rule), theme.key()),
                    Span::styled(place(g), theme.pointer()),
                    Span::styled(unconfirmed(f), theme.dim()),
                    Span::raw(format!("  {}", escape(&f.message))),
                ]);
                if n == selected {
                    // Reversed video would turn each span's colour into a background; the
                    // selected row reads better as one plain bar.
                    Line::from(line.to_string()).style(theme.selected())
                } else {
                    line
                }
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list_area);

    let payload = payload_at(view, selected).and_then(|i| view.payloads.get(i));
    let detail_block = Block::new()
        .borders(Borders::TOP)
        .border_style(theme.border(false))
        .title(if payload.is_some() {
            " payload "
        } else {
            " finding "
        });
    let detail_inner = detail_block.inner(detail_area);
    frame.render_widget(detail_block, detail_area);
    if let Some(row) = payload {
        frame.render_widget(
            Paragraph::new(wrap(&sent_detail(row, profile, theme), detail_inner.width)),
            detail_inner,
        );
        return;
    }
    let Some((form, _, g)) = finding(view, selected) else {
        return;
    };
    let f = &g.finding;
    let mut text = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", severity_glyph(f.severity), f.severity.name()),
            theme.severity(f.severity),
        ),
        Span::styled(f.rule, theme.key()),
        Span::styled(unconfirmed(f), theme.dim()),
        Span::raw(format!("  {form} ")),
        Span::styled(place(g), theme.pointer()),
    ])];
    text.push(Line::from(escape(&f.message).into_owned()));
    if let Some(said) = &f.provider_message {
        text.push(Line::from(vec![
            Span::styled("provider says: ", theme.dim()),
            Span::styled(escape(said).into_owned(), theme.json_string()),
        ]));
    }
    let basis = if f.confirmed {
        "source"
    } else {
        "unconfirmed, rests on second-hand reports; source"
    };
    text.push(Line::styled(
        format!("{basis}: {}", escape(f.source)),
        theme.dim(),
    ));
    frame.render_widget(
        Paragraph::new(wrap(&text, detail_inner.width)),
        detail_inner,
    );
}

/// Most dropped keys listed before "and N more"; the JSON after them is what matters.
const MAX_DROPPED: usize = 200;

fn class_name(class: DropClass) -> &'static str {
    match class {
        DropClass::Structure => "structure",
        DropClass::Constraint => "constraint",
        DropClass::Annotation => "annotation",
    }
}

/// One side of the model view: what Ollama drops, then the parameters as the model gets them.
pub fn model_lines(view: &OllamaView, theme: Theme, json_limit: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if view.rejected {
        out.push(Line::styled(
            "Ollama fails to decode this request: the model sees nothing.",
            theme.error(),
        ));
        for e in &view.errors {
            out.push(Line::from(vec![
                Span::styled(format!("  #{} ", escape(&e.pointer)), theme.pointer()),
                Span::raw(escape(&e.message).into_owned()),
            ]));
        }
        out.push(Line::from(""));
    }
    let structural = view
        .dropped
        .iter()
        .filter(|d| d.class == DropClass::Structure)
        .count();
    out.push(Line::styled(
        format!(
            "dropped: {} key{} ({structural} structural)",
            view.dropped.len(),
            if view.dropped.len() == 1 { "" } else { "s" }
        ),
        theme.heading(),
    ));
    let keyword_width = view
        .dropped
        .iter()
        .map(|d| d.keyword.chars().count())
        .max()
        .unwrap_or(0)
        .min(24);
    for d in view.dropped.iter().take(MAX_DROPPED) {
        let style = match d.class {
            DropClass::Structure => theme.severity(Severity::Error),
            DropClass::Constraint => theme.severity(Severity::Warn),
            DropClass::Annotation => theme.dim(),
        };
        // The keyword before its place: a narrow column cuts long pointers, not the keyword.
        out.push(Line::from(vec![
            Span::styled(format!("  − {:<10} ", class_name(d.class)), style),
            Span::raw(format!("{:<keyword_width$}  ", escape(&d.keyword))),
            Span::styled(format!("#{}", escape(&d.pointer)), theme.pointer()),
        ]));
    }
    if view.dropped.len() > MAX_DROPPED {
        out.push(Line::styled(
            format!("  … and {} more", view.dropped.len() - MAX_DROPPED),
            theme.dim(),
        ));
    }
    out.push(Line::from(""));
    out.push(Line::styled("what the model sees:", theme.heading()));
    if view.sees == Value::Null && view.rejected {
        out.push(Line::styled("(nothing)", theme.dim()));
    } else {
        out.extend(overlay::json_lines(&view.sees, theme, json_limit));
    }
    out
}
