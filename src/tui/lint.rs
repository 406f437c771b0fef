//! The provider lint in the inspector: the library's findings attached to tree nodes, the lint
//! list, the detail pane's part, and Ollama's "what the model sees" view. Nothing here decides
//! whether something is a finding; it only places and shows what `schemalens::lint` reported.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use serde_json::Value;

use schemalens::lint::{DropClass, Finding, OllamaView, Profile, Severity, Target};
use schemalens::pointer;

use super::app::{App, ToolView};
use super::overlay;
use super::render::wrap;
use super::text::{clip, escape};
use super::theme::{Theme, severity_glyph};
use super::tree::{NodeId, SchemaTree, Side};

/// One tree's findings, each attached to the node it is about.
#[derive(Debug, Clone, Default)]
pub struct PaneLint {
    /// In the engine's order (tool-level first, then document order).
    pub findings: Vec<Finding>,
    /// Indices into `findings` per node. A pointer may name a keyword inside a node
    /// (`/properties/op/required`) or a node the tree left out; either goes to the nearest
    /// enclosing node, and tool-level findings go to the root.
    at: HashMap<NodeId, Vec<usize>>,
}

impl PaneLint {
    pub fn new(tree: &SchemaTree, findings: Vec<Finding>) -> PaneLint {
        let mut at: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (i, f) in findings.iter().enumerate() {
            let pointer = match f.target {
                Target::Tool => "",
                Target::Schema => f.pointer.as_str(),
            };
            if let Some(id) = tree.nearest(pointer) {
                at.entry(id).or_default().push(i);
            }
        }
        PaneLint { findings, at }
    }

    /// The findings on node `id`, most severe first (engine order within a severity).
    pub fn on(&self, id: NodeId) -> Vec<&Finding> {
        let mut out: Vec<&Finding> = self
            .at
            .get(&id)
            .map(|is| is.iter().map(|&i| &self.findings[i]).collect())
            .unwrap_or_default();
        out.sort_by_key(|f| f.severity);
        out
    }

    pub fn worst(&self, id: NodeId) -> Option<Severity> {
        self.at
            .get(&id)?
            .iter()
            .map(|&i| self.findings[i].severity)
            .min()
    }

    /// The first finding (in list order) attached to node `id`.
    pub fn first_on(&self, id: NodeId) -> Option<usize> {
        self.at.get(&id)?.iter().min().copied()
    }

    pub fn counts(&self) -> [usize; 3] {
        counts(&self.findings)
    }
}

fn counts(findings: &[Finding]) -> [usize; 3] {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    [n(Severity::Error), n(Severity::Warn), n(Severity::Info)]
}

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warn, Severity::Info];

/// `2 errors, 1 warning`; `no findings` when there are none.
pub fn summary(findings: &[Finding]) -> String {
    let words = ["error", "warning", "info"];
    let parts: Vec<String> = counts(findings)
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

/// Where a finding is, as the CLI writes it: the keyword appended to the schema's pointer.
pub fn place(f: &Finding) -> String {
    match (&f.target, &f.keyword) {
        (Target::Tool, _) => "(the tool entry)".to_owned(),
        (_, Some(k)) => format!("#{}", escape(&pointer::push(&f.pointer, k))),
        (_, None) => format!("#{}", escape(&f.pointer)),
    }
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
    for f in here {
        out.push(Line::from(vec![
            Span::styled(
                format!("{} {} ", severity_glyph(f.severity), f.severity.name()),
                theme.severity(f.severity),
            ),
            Span::styled(format!("{}:{}", profile.name(), f.rule), theme.key()),
            Span::styled(unconfirmed(f), theme.dim()),
            Span::styled("  at ", theme.dim()),
            Span::styled(place(f), theme.pointer()),
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
    Heading(Side),
    /// Nothing to list for the side (no findings, or the projection failed).
    Empty(Side),
    /// The `n`th finding of the whole list (original ones first).
    Finding(usize),
}

/// Findings in the list: the original's, then the projection's.
pub fn count(view: &ToolView) -> usize {
    view.panes.iter().map(|p| p.lint.findings.len()).sum()
}

/// The `n`th finding of the list and its side.
pub fn finding(view: &ToolView, n: usize) -> Option<(Side, usize, &Finding)> {
    let first = view.panes[0].lint.findings.len();
    if n < first {
        Some((Side::Original, n, &view.panes[0].lint.findings[n]))
    } else {
        let i = n - first;
        view.panes[1]
            .lint
            .findings
            .get(i)
            .map(|f| (Side::Projection, i, f))
    }
}

pub fn rows(view: &ToolView) -> Vec<Row> {
    let mut rows = Vec::with_capacity(count(view) + 4);
    let mut n = 0;
    for side in [Side::Original, Side::Projection] {
        rows.push(Row::Heading(side));
        let len = view.pane(side).lint.findings.len();
        if len == 0 {
            rows.push(Row::Empty(side));
        }
        rows.extend((n..n + len).map(Row::Finding));
        n += len;
    }
    rows
}

fn row_of(view: &ToolView, selected: usize) -> usize {
    let first = view.panes[0].lint.findings.len();
    if selected < first {
        1 + selected
    } else {
        // The original's heading and rows (or its "nothing" row), then the projection's heading.
        1 + first.max(1) + 1 + (selected - first)
    }
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
    if row < offset + 1 {
        row.saturating_sub(1)
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
    let [list_area, detail_area] = split(inner);
    let rows = rows(view);
    let height = list_area.height as usize;
    // Render defends the invariant `update` keeps, without writing it back.
    let offset = keep_visible(view, selected, offset, height).min(rows.len().saturating_sub(1));
    let rule_width = view
        .panes
        .iter()
        .flat_map(|p| &p.lint.findings)
        .map(|f| f.rule.len())
        .max()
        .unwrap_or(0)
        .min(24);
    let tool = app.tool(view.entry).map(|(_, t)| clip(&t.name, 40));
    let lines: Vec<Line<'static>> = rows
        .iter()
        .skip(offset)
        .take(height)
        .map(|row| match *row {
            Row::Heading(side) => {
                let findings = &view.pane(side).lint.findings;
                let name = match side {
                    Side::Original => format!(
                        "Original{}",
                        tool.as_ref().map(|t| format!(" · {t}")).unwrap_or_default()
                    ),
                    Side::Projection => format!("Projection ({})", app.options.mode),
                };
                let status = if side == Side::Projection && view.projection.is_none() {
                    "not linted: the projection failed".to_owned()
                } else {
                    summary(findings)
                };
                Line::from(vec![
                    Span::styled(name, theme.heading()),
                    Span::raw(format!(" — {status}")),
                ])
            }
            Row::Empty(side) => Line::styled(
                if side == Side::Projection && view.projection.is_none() {
                    "  (nothing to lint)".to_owned()
                } else {
                    format!("  nothing to report for {}", profile.name())
                },
                theme.dim(),
            ),
            Row::Finding(n) => {
                let Some((_, _, f)) = finding(view, n) else {
                    return Line::from("");
                };
                let line = Line::from(vec![
                    Span::raw(if n == selected { "▸ " } else { "  " }),
                    Span::styled(
                        format!("{} {:<5} ", severity_glyph(f.severity), f.severity.name()),
                        theme.severity(f.severity),
                    ),
                    Span::styled(format!("{:<rule_width$} ", f.rule), theme.key()),
                    Span::styled(place(f), theme.pointer()),
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

    let detail_block = Block::new()
        .borders(Borders::TOP)
        .border_style(theme.border(false))
        .title(" finding ");
    let detail_inner = detail_block.inner(detail_area);
    frame.render_widget(detail_block, detail_area);
    let Some((side, _, f)) = finding(view, selected) else {
        return;
    };
    let mut text = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", severity_glyph(f.severity), f.severity.name()),
            theme.severity(f.severity),
        ),
        Span::styled(f.rule, theme.key()),
        Span::styled(unconfirmed(f), theme.dim()),
        Span::raw(format!("  {} ", side.title().to_lowercase())),
        Span::styled(place(f), theme.pointer()),
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
