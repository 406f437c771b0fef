//! The detail pane: what happened to the selected node and why, in the engine's own words,
//! with the node's JSON before and after.

use std::io::Write;

use ratatui::text::{Line, Span};
use serde_json::Value;

use schemalens::projection::TraceEntry;

use super::app::{App, DetailOf};
use super::keys::Pane;
use super::payloads;
use super::render::error_text;
use super::text::{clip, escape};
use super::theme::{Mark, Theme};
use super::tree::Side;

/// How much of a node's JSON the pane shows; a root of a large schema would otherwise be
/// serialized in full on every frame.
const JSON_BYTES: usize = 16 * 1024;
/// Counterparts shown side by side before "and N more".
const MAX_JSON_NODES: usize = 2;
const MAX_POINTERS: usize = 4;

pub fn lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let mut out = super::server::detail_lines(app);
    out.extend(stale_lines(app));
    out.extend(super::why::detail_lines(app));
    out.extend(body(app, width));
    out
}

/// The newest save of the file could not be used: said first, since everything below it is
/// the last good version.
fn stale_lines(app: &App) -> Vec<Line<'static>> {
    let Some(source) = app.current_entry().and_then(|e| app.source_of(e)) else {
        return Vec::new();
    };
    match (&source.stale, &source.manifest) {
        (Some(stale), Ok(_)) => {
            let heading = if app.server.is_some() {
                "The server's newest tool list cannot be used; this is the last good one"
            } else {
                "The newest save cannot be used; this is the last good version"
            };
            let mut lines = error_text(app, heading, &stale.describe(&source.path));
            lines.push(Line::from(""));
            lines
        }
        _ => Vec::new(),
    }
}

fn body(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    if app.detail_of == DetailOf::Payload && matches!(app.focus, Pane::Payloads | Pane::Detail) {
        return match app.payload_row() {
            Some(row) => {
                let server = match app.view.as_ref().and_then(|v| app.tool(v.entry)) {
                    Some((_, tool)) => super::server::call_lines(app, &tool.name, row),
                    None => Vec::new(),
                };
                payloads::detail_lines(row, &app.options, theme, server)
            }
            None => vec![Line::from(
                "No payloads for this tool. n writes a new one from the skeleton and opens it in $EDITOR.",
            )],
        };
    }
    let Some(view) = &app.view else {
        return match app.current_entry().and_then(|e| app.problem(e)) {
            Some(problem) => error_text(
                app,
                super::server::problem_heading(app).unwrap_or("This file could not be used"),
                &problem,
            ),
            None => vec![Line::from("Nothing selected.")],
        };
    };
    let side = app.active_side();
    let pane = view.pane(side);
    let Some(id) = pane.selected() else {
        return match &view.error {
            Some(error) => error_text(app, "Projection failed", error),
            None => vec![Line::from("Select a node in a tree.")],
        };
    };
    let node = pane.tree.node(id);
    // Most important first: a short pane shows the node and what happened to it; the
    // pointers and JSON follow for whoever scrolls or focuses the pane.
    let mut out = Vec::new();
    let mut head = Vec::new();
    for &m in &node.marks {
        head.push(Span::styled(m.glyph(), theme.mark(m)));
    }
    if !node.marks.is_empty() {
        head.push(Span::raw(" "));
    }
    head.push(Span::styled(node.name.to_string(), theme.heading()));
    if node.required {
        head.push(Span::styled(" required", theme.required()));
    }
    head.push(Span::raw("  "));
    head.push(Span::styled(node.kind.to_string(), theme.kind()));
    if !node.constraints.is_empty() {
        head.push(Span::raw("  "));
        head.push(Span::styled(node.constraints.to_string(), theme.dim()));
    }
    out.push(Line::from(head));
    if let Some(change) = pane.changes.marks.get(&id) {
        let mut spans = vec![Span::styled(
            format!("{} {}", change.glyph(), change.label()),
            theme.changed(),
        )];
        if let Some(removed) = pane.changes.removed.get(&id) {
            spans.push(Span::styled(": removed ", theme.changed()));
            spans.extend(pointer_list(removed, theme));
        }
        out.push(Line::from(spans));
    }
    // Changes since the baseline: what a reviewer selected this node for.
    if let Some(diff) = &view.diff {
        let baseline = app
            .source_of(view.entry)
            .and_then(|s| s.baseline())
            .map_or_else(|| "the baseline".to_owned(), |b| b.origin.clone());
        out.extend(super::changes::node_lines(
            diff, &pane.tree, side, id, theme, &baseline,
        ));
    }
    // A provider was asked for: its verdict on this node comes before the projection's story.
    if let Some(profile) = view.profile {
        // The tool entry: how the request of the file's tools sends it.
        if node.pointer.is_empty() {
            out.extend(super::lint::tool_entry_lines(view, profile, theme));
        }
        out.extend(super::lint::node_lines(pane, id, profile, theme));
    }

    if let Some(projection) = &view.projection {
        let entries: Vec<&TraceEntry> =
            node.entries.iter().map(|&i| &projection.trace[i]).collect();
        if entries.is_empty() {
            out.push(Line::from(Span::styled(
                format!("No rule changed this node in {} mode.", projection.mode),
                theme.dim(),
            )));
        } else {
            out.extend(entry_lines(&entries, side, theme));
        }
    } else if let Some(error) = &view.error {
        out.extend(error_text(app, "Projection failed", error));
    }
    if let Some(d) = &node.description {
        out.push(Line::from(vec![
            Span::styled("description: ", theme.dim()),
            Span::raw(d.to_string()),
        ]));
    }

    let other = view.pane(side.other());
    let counterparts: Vec<String> = other
        .linked
        .iter()
        .map(|&i| other.tree.node(i).pointer.to_string())
        .collect();
    out.push(Line::from(vec![
        Span::styled(format!("{}: ", side.title().to_lowercase()), theme.dim()),
        Span::styled(pointer_text(&node.pointer), theme.pointer()),
    ]));
    if view.projection.is_some() {
        let label = match side {
            Side::Original => "projected at",
            Side::Projection => "from original",
        };
        let mut spans = vec![Span::styled(format!("{label}: "), theme.dim())];
        if counterparts.is_empty() {
            spans.push(Span::raw(match side {
                Side::Original => "nowhere (dropped, or only reached through a $ref)",
                Side::Projection => "no original node",
            }));
        }
        spans.extend(pointer_list(&counterparts, theme));
        out.push(Line::from(spans));
    }

    let Some((_, tool)) = app.tool(view.entry) else {
        return out;
    };
    let (originals, projections): (Vec<String>, Vec<String>) = match side {
        Side::Original => (vec![node.pointer.to_string()], counterparts),
        Side::Projection => (counterparts, vec![node.pointer.to_string()]),
    };
    let before = json_blocks(&tool.schema, &originals, "before (original)");
    let after = match &view.projection {
        Some(p) => json_blocks(&p.schema, &projections, "after (projection)"),
        None => vec!["after: projection failed".to_owned()],
    };
    out.push(Line::from(""));
    let width = width as usize;
    if width >= 90 {
        let col = (width - 3) / 2;
        let rows = before.len().max(after.len());
        for i in 0..rows {
            let l = before.get(i).map_or("", String::as_str);
            let r = after.get(i).map_or("", String::as_str);
            let style = if i == 0 {
                theme.heading()
            } else {
                Default::default()
            };
            out.push(Line::from(vec![
                Span::styled(pad(&clip_width(l, col), col), style),
                Span::styled(" │ ", theme.dim()),
                Span::styled(clip_width(r, col), style),
            ]));
        }
    } else {
        for (i, l) in before.iter().enumerate() {
            let style = if i == 0 {
                theme.heading()
            } else {
                Default::default()
            };
            out.push(Line::styled(clip_width(l, width), style));
        }
        out.push(Line::from(""));
        for (i, l) in after.iter().enumerate() {
            let style = if i == 0 {
                theme.heading()
            } else {
                Default::default()
            };
            out.push(Line::styled(clip_width(l, width), style));
        }
    }
    out
}

fn pointer_text(pointer: &str) -> String {
    format!("#{}", escape(pointer))
}

fn pointer_list(pointers: &[String], theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (i, p) in pointers.iter().take(MAX_POINTERS).enumerate() {
        if i > 0 {
            spans.push(Span::raw(", "));
        }
        spans.push(Span::styled(pointer_text(p), theme.pointer()));
    }
    if pointers.len() > MAX_POINTERS {
        spans.push(Span::raw(format!(
            " and {} more",
            pointers.len() - MAX_POINTERS
        )));
    }
    spans
}

/// One sentence per distinct rule application; an original node inlined in many places gets
/// the same sentence many times, so repeats are counted instead of listed.
fn entry_lines(entries: &[&TraceEntry], side: Side, theme: Theme) -> Vec<Line<'static>> {
    let mut groups: Vec<(&TraceEntry, String, Vec<&str>)> = Vec::new();
    for e in entries {
        let message = e.message();
        match groups
            .iter_mut()
            .find(|(g, m, _)| g.rule == e.rule && *m == message)
        {
            Some((_, _, ats)) => ats.push(&e.at),
            None => groups.push((e, message, vec![&e.at])),
        }
    }
    // The kinds a user must look at first (same priority as the tree's marks); within a kind,
    // the engine's order, which is the order the rules ran in.
    groups.sort_by_key(|(e, _, _)| Mark::of(&e.detail).map_or(usize::MAX, |m| m as usize));
    let mut out = Vec::new();
    for (entry, message, ats) in groups {
        let mut spans = Vec::new();
        match Mark::of(&entry.detail) {
            Some(m) => spans.push(Span::styled(format!("{} ", m.glyph()), theme.mark(m))),
            None => spans.push(Span::raw("• ")),
        }
        let rule = match entry.rule.number() {
            Some(n) => format!("{} (rule {n})", entry.rule.id()),
            None => entry.rule.id().to_owned(),
        };
        spans.push(Span::styled(rule, theme.key()));
        spans.push(Span::raw(format!("  {}", escape(&message))));
        if ats.len() > 1 {
            spans.push(Span::styled(format!("  ×{}", ats.len()), theme.dim()));
        }
        out.push(Line::from(spans));
        let (label, pointers): (&str, Vec<String>) = match side {
            Side::Projection => ("    from ", entry.from.clone()),
            Side::Original => ("    at ", ats.iter().map(|s| s.to_string()).collect()),
        };
        let mut spans = vec![Span::styled(label, theme.dim())];
        spans.extend(pointer_list(&pointers, theme));
        out.push(Line::from(spans));
    }
    out
}

/// Pretty JSON of each pointer's node, under a heading, as escaped plain lines.
fn json_blocks(schema: &Value, pointers: &[String], heading: &str) -> Vec<String> {
    let mut out = vec![heading.to_owned()];
    if pointers.is_empty() {
        out.push("(no counterpart)".to_owned());
    }
    for p in pointers.iter().take(MAX_JSON_NODES) {
        out.push(format!("#{}", escape(p)));
        match schema.pointer(p) {
            Some(v) => out.extend(pretty_limited(v)),
            None => out.push("(not in the document)".to_owned()),
        }
    }
    if pointers.len() > MAX_JSON_NODES {
        out.push(format!("… and {} more", pointers.len() - MAX_JSON_NODES));
    }
    out
}

/// A writer that refuses bytes past its limit, so serialization stops early.
struct Limited {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Limited {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            return Err(std::io::Error::other("limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn pretty_limited(value: &Value) -> Vec<String> {
    let mut w = Limited {
        buf: Vec::new(),
        limit: JSON_BYTES,
    };
    let complete = serde_json::to_writer_pretty(&mut w, value).is_ok();
    let text = String::from_utf8_lossy(&w.buf);
    // serde_json escapes C0 controls but not DEL, C1 or bidi controls.
    let mut lines: Vec<String> = text.lines().map(|l| escape(l).into_owned()).collect();
    if !complete {
        // Cut mid-line may have split a multi-byte character; the lossy decode shows it as �.
        lines.push(format!("… (cut at {} KiB)", JSON_BYTES / 1024));
    }
    lines
}

fn clip_width(s: &str, width: usize) -> String {
    clip(s, width.saturating_sub(1).max(1))
        .chars()
        .take(width)
        .collect()
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}
