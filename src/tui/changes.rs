//! What changed since the baseline — the version of the file as it was opened, or OLD with
//! `--diff OLD NEW` — rendered from the library's [`ToolDiff`]: a class glyph on each changed
//! node of both trees, the changes of the selected node in the detail pane (with the witness of a
//! breaking one), and the whole report on the changes screen (`D`).

use std::collections::HashMap;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use schemalens::diff::{self, Change, Class, Report, Status, ToolDiff};
use schemalens::manifest::{Manifest, ManifestFormat, Tool};
use schemalens::validate::Side as DiffSide;

use super::text::{clip, escape};
use super::theme::Theme;
use super::tree::{NodeId, SchemaTree, Side};

/// The worst class of the changes on each node of one tree.
pub type ClassMarks = HashMap<NodeId, Class>;

pub fn glyph(class: Class) -> &'static str {
    match class {
        Class::Breaking => "↓",
        Class::Unknown => "≠",
        Class::Widening => "↑",
        Class::Neutral => "∙",
    }
}

pub fn label(class: Class) -> &'static str {
    match class {
        Class::Breaking => "breaking: NEW rejects a payload OLD accepted",
        Class::Unknown => "unknown: neither breaking nor safe could be proven",
        Class::Widening => "widening: NEW accepts everything OLD did, and more",
        Class::Neutral => "neutral: annotations only",
    }
}

pub fn style(theme: Theme, class: Class) -> Style {
    theme.diff_class(class)
}

/// The version of `tool` in the baseline: by name, or the one schema of a bare-schema file
/// (named after its file or title, which may differ between versions).
pub fn baseline_tool<'m>(
    baseline: &'m Manifest,
    current: &Manifest,
    tool: &Tool,
) -> Option<&'m Tool> {
    if baseline.format == ManifestFormat::BareSchema
        && current.format == ManifestFormat::BareSchema
        && baseline.tools.len() == 1
    {
        return baseline.tools.first();
    }
    baseline.tool(&tool.name)
}

/// The diff of one tool against its baseline, `None` when nothing about it changed.
pub fn tool_diff(
    baseline: &Manifest,
    current: &Manifest,
    tool: &Tool,
    options: &diff::DiffOptions,
    project: &diff::Projector<'_>,
) -> Option<ToolDiff> {
    let old = baseline_tool(baseline, current, tool);
    if old.is_some_and(|o| {
        o.schema == tool.schema && o.description == tool.description && o.dialect == tool.dialect
    }) {
        return None;
    }
    Some(diff::diff_tool_with(
        old.map(|o| (baseline, o)),
        Some((current, tool)),
        &[],
        options,
        project,
    ))
}

fn tree_side(side: DiffSide) -> Side {
    match side {
        DiffSide::Original => Side::Original,
        DiffSide::Projection => Side::Projection,
    }
}

/// The node a change is shown on: where it is in NEW, else where it was (a removed node is
/// shown on its nearest surviving ancestor).
fn node_of(tree: &SchemaTree, change: &Change) -> Option<NodeId> {
    change
        .new_pointer
        .as_deref()
        .or(change.old_pointer.as_deref())
        .and_then(|p| tree.nearest(p))
}

/// Marks for one tree.
pub fn marks(diff: &ToolDiff, tree: &SchemaTree, side: Side) -> ClassMarks {
    let mut out = ClassMarks::new();
    for c in diff.changes.iter().filter(|c| tree_side(c.side) == side) {
        if let Some(id) = node_of(tree, c) {
            let e = out.entry(id).or_insert(c.class);
            *e = (*e).min(c.class);
        }
    }
    out
}

fn pointer_text(p: &Option<String>) -> String {
    match p.as_deref() {
        None => "-".to_owned(),
        Some("") => "#".to_owned(),
        Some(p) => format!("#{}", escape(p)),
    }
}

fn change_lines(c: &Change, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![Span::styled(
        format!("{} {}", glyph(c.class), label(c.class)),
        style(theme, c.class),
    )])];
    out.push(Line::from(vec![
        Span::raw("  "),
        Span::styled(c.kind.to_owned(), theme.kind()),
        Span::raw("  "),
        Span::styled(
            if c.old_pointer == c.new_pointer {
                pointer_text(&c.new_pointer)
            } else {
                format!(
                    "{} → {}",
                    pointer_text(&c.old_pointer),
                    pointer_text(&c.new_pointer)
                )
            },
            theme.pointer(),
        ),
    ]));
    out.push(Line::from(format!("  {}", escape(&c.message))));
    if let Some(w) = &c.witness {
        let text = serde_json::to_string(w).unwrap_or_default();
        out.push(Line::from(vec![
            Span::styled("  witness (OLD accepts, NEW rejects): ", theme.dim()),
            Span::styled(clip(&escape(&text), width.max(20)), theme.json_string()),
        ]));
    }
    out
}

/// The detail pane's lines for the changes shown on node `id` of the `side` tree.
pub fn node_lines(
    diff: &ToolDiff,
    tree: &SchemaTree,
    side: Side,
    id: NodeId,
    theme: Theme,
    baseline: &str,
) -> Vec<Line<'static>> {
    let here: Vec<&Change> = diff
        .changes
        .iter()
        .filter(|c| tree_side(c.side) == side && node_of(tree, c) == Some(id))
        .collect();
    if here.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Line::from(Span::styled(
        format!("Changed since {}:", escape(baseline)),
        theme.heading(),
    ))];
    for c in here {
        out.extend(change_lines(c, theme, 400));
    }
    out.push(Line::default());
    out
}

/// The changes screen's first line: the two versions compared.
fn compared(baseline: &str, current: &str, theme: Theme) -> Line<'static> {
    Line::from(Span::styled(
        if baseline == current {
            format!("{}: as it was opened → as it is now", escape(current))
        } else {
            format!("{} → {}", escape(baseline), escape(current))
        },
        theme.heading(),
    ))
}

/// The changes screen while its report is computed in the background.
pub fn diffing_lines(baseline: &str, current: &str, theme: Theme) -> Vec<Line<'static>> {
    vec![
        compared(baseline, current, theme),
        Line::default(),
        Line::from("Diffing every tool in the background (each version is projected)…"),
        Line::styled(
            "The status bar shows the time taken. Keys work meanwhile; Esc closes.",
            theme.dim(),
        ),
    ]
}

/// The changes screen: every tool's status and changes, worst first within each tool.
pub fn report_lines(
    report: &Report,
    baseline: &str,
    current: &str,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![
        compared(baseline, current, theme),
        Line::from(Span::styled(
            "↓ breaking  ≠ unknown  ↑ widening  ∙ neutral: the marks in the trees; Esc closes",
            theme.dim(),
        )),
        Line::default(),
    ];
    let mut unchanged = Vec::new();
    for t in &report.tools {
        if t.status == Status::Unchanged {
            unchanged.push(escape(&t.tool).into_owned());
            continue;
        }
        let counts: Vec<String> = Class::ALL
            .iter()
            .map(|c| (c, t.changes.iter().filter(|x| x.class == *c).count()))
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| format!("{n} {c}"))
            .collect();
        out.push(Line::from(vec![
            Span::styled(escape(&t.tool).into_owned(), theme.heading()),
            Span::raw(format!("  {}  ", t.status.id())),
            Span::styled(counts.join(", "), theme.dim()),
        ]));
        for side in [DiffSide::Original, DiffSide::Projection] {
            let mut list: Vec<&Change> = t.changes.iter().filter(|c| c.side == side).collect();
            if list.is_empty() {
                continue;
            }
            list.sort_by_key(|c| c.class);
            out.push(Line::from(Span::styled(
                match side {
                    DiffSide::Original => " original (callers)",
                    DiffSide::Projection => " projection (what the model sees)",
                },
                theme.dim(),
            )));
            for c in list {
                out.extend(change_lines(c, theme, 400).into_iter().map(|l| {
                    let mut spans = vec![Span::raw("  ")];
                    spans.extend(l.spans);
                    Line::from(spans)
                }));
            }
        }
        out.push(Line::default());
    }
    if !unchanged.is_empty() {
        out.push(Line::from(Span::styled(
            format!("unchanged: {}", unchanged.join(", ")),
            theme.dim(),
        )));
    }
    if report.tools.iter().all(|t| t.status == Status::Unchanged) {
        out.push(Line::from("Nothing changed."));
    }
    out
}
