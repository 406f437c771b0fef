//! `render(&App, &mut Frame)`: a function of the model. The only writes are the widgets' own
//! scroll offsets, kept in `RefCell`s as view caches.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, List, ListItem, Paragraph, Wrap};
use schemalens::Mode;
use schemalens::lint::Severity;
use schemalens::projection::Detail;

use super::app::{App, Entry, InputPurpose, Pending};
use super::detail;
use super::keys::{self, BINDINGS, Pane, Scope};
use super::loading::Loading;
use super::text::{clip, escape, escape_lines};
use super::theme::{Mark, Theme, severity_glyph};
use super::tree::Side;
use super::tree_view::Look;

/// Where each pane goes; shared by `render` and by `update` (mouse hits, page sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    pub tools: Option<Rect>,
    pub payloads: Option<Rect>,
    pub trees: [Option<Rect>; 2],
    pub detail: Option<Rect>,
    pub legend: Option<Rect>,
    pub status: Rect,
}

pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 10;

/// Wide terminals get every pane side by side; at 80 columns the tool list only shows while
/// it has focus and the trees share the width; below 60 the trees stack.
pub fn layout(area: Rect, app: &App) -> Areas {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return Areas {
            status: area,
            ..Areas::default()
        };
    }
    let legend_width = legend_line(app).width() as u16;
    let legend_h = if legend_width > area.width { 2 } else { 1 };
    let [main, legend, status] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(legend_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let very_wide = main.width >= 200;
    let wide = main.width >= 100;
    let show_left = wide || matches!(app.focus, Pane::Tools | Pane::Payloads);
    let (left, rest) = if show_left {
        let w = if wide {
            (main.width / 5).clamp(22, 34)
        } else {
            (main.width * 2 / 5).max(24)
        };
        let [t, r] = Layout::horizontal([Constraint::Length(w), Constraint::Fill(1)]).areas(main);
        (Some(t), r)
    } else {
        (None, main)
    };
    // The left column holds the tool list above the payload panel; on a narrow terminal only
    // the focused one of the two shows.
    let (tools, payloads) = match left {
        None => (None, None),
        Some(l) if !wide && app.focus == Pane::Payloads => (None, Some(l)),
        Some(l) if !wide => (Some(l), None),
        Some(l) => {
            let rows = app.view.as_ref().map_or(0, |v| v.payloads.len()) as u16;
            let h = (rows + 2).clamp(4, l.height / 2);
            let [t, p] = Layout::vertical([Constraint::Fill(1), Constraint::Length(h)]).areas(l);
            (Some(t), Some(p))
        }
    };
    let (trees, detail) = if very_wide {
        let [t, d] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Percentage(30)]).areas(rest);
        (t, Some(d))
    } else {
        let detail_h = if app.focus == Pane::Detail {
            rest.height * 2 / 3
        } else if rest.height < 14 {
            rest.height * 2 / 5
        } else {
            (rest.height / 3).clamp(7, 18)
        };
        let [t, d] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(detail_h)]).areas(rest);
        (t, (d.height >= 3).then_some(d))
    };
    let [a, b] = if trees.width >= 60 {
        Layout::horizontal([Constraint::Fill(1); 2]).areas(trees)
    } else {
        Layout::vertical([Constraint::Fill(1); 2]).areas(trees)
    };
    Areas {
        tools,
        payloads,
        trees: [Some(a), Some(b)],
        detail,
        legend: Some(legend),
        status,
    }
}

pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "Terminal too small: {}×{} (needs {MIN_WIDTH}×{MIN_HEIGHT}). q quits.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let areas = layout(area, app);
    if let Some(r) = areas.tools {
        render_tools(app, frame, r);
    }
    if let Some(r) = areas.payloads {
        render_payloads(app, frame, r);
    }
    for side in [Side::Original, Side::Projection] {
        if let Some(r) = areas.trees[side.index()] {
            render_tree(app, frame, r, side);
        }
    }
    if let Some(r) = areas.detail {
        render_detail(app, frame, r);
    }
    if let Some(r) = areas.legend {
        frame.render_widget(
            Paragraph::new(legend_line(app)).wrap(Wrap { trim: true }),
            r,
        );
    }
    render_status(app, frame, areas.status);
    super::why::render_prompt(app, frame);
    if let Some(overlay) = &app.overlay {
        super::overlay::render(app, overlay, frame);
    }
}

fn pane_block(app: &App, title: Line<'static>, focused: bool) -> Block<'static> {
    Block::bordered()
        .title(title)
        .border_type(if focused {
            // Thick borders mark focus without colour.
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(app.theme.border(focused))
}

fn render_tools(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Tools;
    let theme = app.theme;
    let many_files = app.sources.len() > 1;
    let items: Vec<ListItem> = app
        .visible
        .iter()
        .map(|&e| match (app.entries[e], app.tool(e)) {
            (Entry::Tool { source: index, .. }, Some((source, tool))) => {
                let mut spans = vec![Span::raw(clip(&tool.name, 60))];
                if app.live.changed_tools.contains(&(index, tool.name.clone())) {
                    spans.push(Span::styled(" Δ", theme.changed()));
                }
                if many_files {
                    spans.push(Span::styled(
                        format!("  {}", file_name(&source.path)),
                        theme.dim(),
                    ));
                }
                ListItem::new(Line::from(spans))
            }
            _ => {
                let path = app.source_of(e).map_or("?", |s| s.path.as_str());
                let glyph = match app.server.as_ref().map(|s| &s.state) {
                    Some(super::server::ServerState::Connecting) => "⋯",
                    _ => "⚠",
                };
                ListItem::new(Line::from(Span::styled(
                    format!("{glyph} {}", clip(file_name(path), 60)),
                    theme.error(),
                )))
            }
        })
        .collect();
    let mut title = format!(" Tools {}/{} ", app.visible.len(), app.entries.len());
    if !app.filter.is_empty() {
        title = format!(
            " Tools /{} {}/{} ",
            clip(&app.filter, 20),
            app.visible.len(),
            app.entries.len()
        );
    }
    let list = List::new(items)
        .block(pane_block(app, Line::from(title), focused))
        .highlight_style(if focused {
            theme.selected()
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        })
        .highlight_symbol("▸ ");
    frame.render_stateful_widget(list, area, &mut app.list.borrow_mut());
}

fn render_payloads(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Payloads;
    let theme = app.theme;
    let rows = app.view.as_ref().map_or(&[][..], |v| &v.payloads[..]);
    let title = match rows.iter().find_map(|r| r.received.as_ref()) {
        Some(call) => format!(" Calls for {} {} ", call.profile.name(), rows.len()),
        None => format!(" Payloads {} ", rows.len()),
    };
    let block = pane_block(app, Line::from(title), focused);
    let error = app.view.as_ref().and_then(|v| v.payload_error.as_deref());
    if rows.is_empty() {
        let text = match (error, app.current_entry().and_then(|e| app.tool(e))) {
            (Some(e), _) => error_text(app, "Cannot check payloads", e),
            (None, Some(_)) => vec![Line::styled("none here; n writes one", theme.dim())],
            (None, None) => Vec::new(),
        };
        frame.render_widget(
            Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    let tool = app
        .view
        .as_ref()
        .and_then(|v| app.tool(v.entry))
        .map(|(_, t)| t.name.as_str());
    let items: Vec<ListItem> = rows
        .iter()
        .map(|r| {
            let mut line = super::payloads::row_line(r, &app.options, theme);
            if let Some(mark) = tool.and_then(|t| super::server::row_mark(app, t, r)) {
                // After the two schema verdicts: the server's own.
                line.spans.insert(1, mark);
            }
            ListItem::new(line)
        })
        .collect();
    let list = List::new(items)
        .block(block)
        .highlight_style(if focused {
            theme.selected()
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        })
        .highlight_symbol("▸ ");
    frame.render_stateful_widget(list, area, &mut app.payload_list.borrow_mut());
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn render_tree(app: &App, frame: &mut Frame, area: Rect, side: Side) {
    let theme = app.theme;
    let focused = match side {
        Side::Original => app.focus == Pane::Original,
        Side::Projection => app.focus == Pane::Projection,
    };
    let mut title = vec![Span::raw(format!(" {} ", side.title()))];
    if side == Side::Projection {
        title.push(Span::styled(
            format!("· {} ", app.options.mode),
            theme.heading(),
        ));
    }
    let Some(view) = &app.view else {
        let block = pane_block(app, Line::from(title), focused);
        let progress = match (&app.loading, &app.pending) {
            (Some(loading), _) => Some(loading_text(app, loading, side)),
            (None, Some(pending)) => Some(progress_text(app, pending, side)),
            (None, None) => None,
        };
        if let Some(progress) = progress {
            frame.render_widget(
                Paragraph::new(progress)
                    .block(block)
                    .wrap(Wrap { trim: false }),
                area,
            );
            return;
        }
        let text = match app.current_entry().and_then(|e| app.problem(e)) {
            Some(problem) if side == Side::Original => error_text(
                app,
                super::server::problem_heading(app).unwrap_or("Cannot show this file"),
                &problem,
            ),
            Some(_) if app.server.is_some() => {
                vec![Line::from("Nothing to project: no tools listed yet.")]
            }
            Some(_) => vec![Line::from("Nothing to project: the file did not load.")],
            None => vec![Line::from(
                "No tool selected. Open a manifest: schemalens FILE…",
            )],
        };
        frame.render_widget(
            Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
            area,
        );
        return;
    };
    // The provider's counts before anything else: a narrow pane cuts the title's end.
    title.extend(super::lint::count_spans(&view.pane(side).lint, theme));
    if side == Side::Projection {
        if let Some(p) = &view.projection {
            let n = p.trace.len();
            let rules = if n == 1 { "rule" } else { "rules" };
            title.push(Span::raw(format!("· {n} {rules} applied ")));
            title.extend(lowered_depth_span(p, theme));
        }
    } else if let Some((_, tool)) = app.tool(view.entry) {
        title.push(Span::raw(format!("· {} ", clip(&tool.name, 40))));
    }
    let pane = view.pane(side);
    if pane.linked.len() > 1 {
        title.push(Span::styled(
            format!("· {} linked ", pane.linked.len()),
            theme.dim(),
        ));
    }
    if !pane.rejecting.is_empty() {
        title.push(Span::styled(
            format!("· ✗ {} reject the payload ", pane.rejecting.len()),
            theme.rejecting(),
        ));
    }
    let block = pane_block(app, Line::from(title), focused);
    if pane.tree.is_empty() {
        let text = match (&view.error, side) {
            (Some(error), Side::Projection) => {
                let mut lines = error_text(app, "Projection failed", error);
                lines.push(Line::from(""));
                lines.push(Line::from(
                    "The original tree shows the node where projection stopped.",
                ));
                lines
            }
            _ => vec![Line::from("(empty)")],
        };
        frame.render_widget(
            Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let active = side == app.active_side();
    let look = Look {
        open: "▾ ",
        closed: "▸ ",
        leaf: "  ",
        highlight: if active {
            theme.selected()
        } else {
            theme.counterpart()
        },
    };
    let mut state = pane.state.borrow_mut();
    state.draw(&pane.tree, inner, frame.buffer_mut(), &look, |id| {
        pane.tree.row(id, pane.lint.worst(id), theme)
    });
    if pane.linked.len() > 1 {
        let selected = state.selected();
        let buf = frame.buffer_mut();
        for y in inner.y..inner.bottom() {
            let Some(id) = state.drawn_at(y) else {
                continue;
            };
            if Some(id) != selected && pane.linked.contains(&id) {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), theme.linked());
            }
        }
    }
    if !pane.rejecting.is_empty() {
        let buf = frame.buffer_mut();
        for y in inner.y..inner.bottom() {
            let Some(id) = state.drawn_at(y) else {
                continue;
            };
            if pane.rejecting.contains(&id) {
                let row = Rect::new(inner.x, y, inner.width, 1);
                buf.set_style(row, theme.rejecting());
                // A glyph at the row's end, so the mark survives NO_COLOR and selection.
                buf.set_string(inner.right().saturating_sub(2), y, " ✗", theme.rejecting());
            }
        }
    }
    if !pane.changes.marks.is_empty() {
        let buf = frame.buffer_mut();
        for y in inner.y..inner.bottom() {
            let Some(id) = state.drawn_at(y) else {
                continue;
            };
            if let Some(change) = pane.changes.marks.get(&id) {
                // Left of a rejection's ✗, which keeps the row's last cell.
                let x = if pane.rejecting.contains(&id) { 4 } else { 2 };
                let text = format!(" {}", change.glyph());
                buf.set_string(inner.right().saturating_sub(x), y, text, theme.changed());
            }
        }
    }
    if !pane.diff_marks.is_empty() {
        let buf = frame.buffer_mut();
        for y in inner.y..inner.bottom() {
            let Some(id) = state.drawn_at(y) else {
                continue;
            };
            if let Some(class) = pane.diff_marks.get(&id) {
                // Left of a save's mark and a rejection's ✗, which keep the row's last cells.
                let mut x = 2;
                if pane.rejecting.contains(&id) {
                    x += 2;
                }
                if pane.changes.marks.contains_key(&id) {
                    x += 2;
                }
                let text = format!(" {}", super::changes::glyph(*class));
                buf.set_string(
                    inner.right().saturating_sub(x),
                    y,
                    text,
                    theme.diff_class(*class),
                );
            }
        }
    }
    if pane.tree.truncated && inner.height > 0 {
        let note = " some nodes not shown (too deep or too many) ";
        let y = inner.bottom().saturating_sub(1);
        frame
            .buffer_mut()
            .set_stringn(inner.x, y, note, inner.width as usize, theme.dim());
    }
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The progress indicator: it turns with the time the work has taken so far.
fn spinner(elapsed: Duration) -> &'static str {
    SPINNER[(elapsed.as_millis() / 100) as usize % SPINNER.len()]
}

/// A tree pane while the files named are read and parsed in the background.
fn loading_text(app: &App, loading: &Loading, side: Side) -> Vec<Line<'static>> {
    if side == Side::Projection {
        return Vec::new();
    }
    let names: Vec<&str> = loading.files.iter().map(|f| file_name(f)).collect();
    vec![
        Line::from(vec![
            Span::styled(spinner(loading.elapsed), app.theme.heading()),
            Span::raw(format!(
                " reading {} · {:.1} s",
                clip(&escape(&names.join(", ")), 60),
                loading.elapsed.as_secs_f64()
            )),
        ]),
        Line::from(""),
        Line::styled("Keys work meanwhile; q quits.", app.theme.dim()),
    ]
}

/// A tree pane while its tool is projected in the background.
fn progress_text(app: &App, pending: &Pending, side: Side) -> Vec<Line<'static>> {
    let theme = app.theme;
    let doing = match side {
        Side::Original => "building the tree of",
        Side::Projection => "projecting",
    };
    vec![
        Line::from(vec![
            Span::styled(spinner(pending.elapsed), theme.heading()),
            Span::raw(format!(
                " {doing} {} ({} mode) · {:.1} s",
                clip(&escape(&pending.tool), 40),
                app.options.mode,
                pending.elapsed.as_secs_f64()
            )),
        ]),
        Line::from(""),
        Line::styled(
            "Keys work meanwhile: another tool, m or o asks again; q quits.",
            theme.dim(),
        ),
    ]
}

pub fn error_text(app: &App, heading: &str, message: &str) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(
        heading.to_owned(),
        app.theme.error(),
    ))];
    lines.extend(escape_lines(message).into_iter().map(Line::from));
    lines
}

fn render_detail(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Detail;
    let payload = app.detail_of == super::app::DetailOf::Payload
        && matches!(app.focus, Pane::Payloads | Pane::Detail);
    let title = match (
        payload,
        app.payload_row(),
        app.selected_pointer(app.active_side()),
    ) {
        (true, Some(row), _) => format!(" Detail · payload {} ", clip(&row.name(), 60)),
        (true, None, _) => " Detail · payloads ".to_owned(),
        (false, _, Some(p)) => {
            format!(" Detail · {} #{} ", app.active_side().title(), clip(p, 60))
        }
        (false, _, None) => " Detail ".to_owned(),
    };
    let block = pane_block(app, Line::from(title), focused);
    let inner = block.inner(area);
    let lines = wrap(&detail::lines(app, inner.width), inner.width);
    let max = lines.len().saturating_sub(inner.height as usize);
    let scroll = app.detail_scroll.min(max.min(u16::MAX as usize) as u16);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

/// The legend: the marks present in this tool's trees, then the row conventions.
pub fn legend_line(app: &App) -> Line<'static> {
    let theme = app.theme;
    let mut marks: Vec<Mark> = Vec::new();
    if let Some(view) = &app.view {
        for pane in &view.panes {
            marks.extend_from_slice(pane.tree.marks());
        }
    }
    marks.sort_unstable();
    marks.dedup();
    let mut spans = Vec::new();
    if let Some(view) = &app.view {
        let mut present: Vec<Severity> = view
            .panes
            .iter()
            .flat_map(|p| p.lint.groups.iter().map(|g| g.finding.severity))
            .collect();
        present.sort_unstable();
        present.dedup();
        for severity in present {
            spans.push(Span::styled(
                severity_glyph(severity),
                theme.severity(severity),
            ));
            spans.push(Span::raw(format!(" {}  ", severity.name())));
        }
    }
    for mark in marks {
        spans.push(Span::styled(mark.glyph(), theme.mark(mark)));
        spans.push(Span::raw(format!(" {}  ", mark.label())));
    }
    if app.change_count().is_some() {
        spans.push(Span::styled("+Δ-", theme.changed()));
        spans.push(Span::raw(if app.server.is_some() {
            " added/changed/removed in the server's last list  "
        } else {
            " added/changed/removed in the last save  "
        }));
    }
    spans.push(Span::styled("*", theme.required()));
    spans.push(Span::raw(" required  "));
    spans.push(Span::styled("underline", theme.linked()));
    spans.push(Span::raw(" linked"));
    Line::from(spans)
}

/// The engine lowered the default recursion depth to fit its budget: the title says so, as
/// the tree would otherwise look cut for no reason (the root's detail says why).
fn lowered_depth_span(projection: &schemalens::Projection, theme: Theme) -> Option<Span<'static>> {
    projection.trace.iter().find_map(|e| match e.detail {
        Detail::RecursionLowered {
            requested, used, ..
        } => Some(Span::styled(
            format!("· ↺ depth {used} of {requested} "),
            theme.mark(Mark::RecursionCut),
        )),
        _ => None,
    })
}

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let theme = app.theme;
    let mut spans: Vec<Span<'static>> = Vec::new();
    if let Some(input) = &app.input {
        let prompt = match input.purpose {
            InputPurpose::Filter => "filter tools: ".to_owned(),
            InputPurpose::Search(side) => format!("search {}: /", side.title().to_lowercase()),
            InputPurpose::Why => "why: paste the provider's error, then Enter".to_owned(),
        };
        spans.push(Span::styled(prompt, theme.key()));
        if input.purpose != InputPurpose::Why {
            spans.push(Span::raw(escape(&input.text).into_owned()));
        }
        spans.push(Span::styled("▏", theme.key()));
        if let Some(m) = &app.message {
            spans.push(Span::raw(format!("  {}", clip(m, 60))));
        }
    } else {
        // First, so that a narrow terminal still shows that something is being done: the
        // view of the same tool stays on screen meanwhile, with nothing else to say so.
        let busy = app.busy_with();
        if let Some((doing, elapsed)) = busy {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(spinner(elapsed), theme.heading()));
            spans.push(Span::raw(format!(
                " {doing} {:.1} s",
                elapsed.as_secs_f64()
            )));
        }
        if let Some(entry) = app.current_entry() {
            if busy.is_some() {
                spans.push(Span::raw(" │"));
            }
            if let Some(source) = app.source_of(entry) {
                spans.push(Span::raw(format!(" {}", clip(file_name(&source.path), 40))));
            }
            if let Some((_, tool)) = app.tool(entry) {
                spans.push(Span::raw(" › "));
                spans.push(Span::styled(clip(&tool.name, 40), theme.heading()));
            }
            spans.push(Span::raw(format!(
                " ({}/{})",
                app.cursor + 1,
                app.visible.len()
            )));
        }
        spans.push(Span::raw(" │ "));
        spans.push(Span::styled(app.options.mode.to_string(), theme.heading()));
        if app.options.mode == Mode::Flat {
            spans.push(Span::raw(" · "));
            spans.push(Span::styled(
                app.options.open_branches.to_string(),
                theme.heading(),
            ));
        }
        if let Some(profile) = app.profile {
            spans.push(Span::raw(" │ lint "));
            spans.push(Span::styled(profile.name(), theme.heading()));
        }
        spans.push(Span::raw(" │ "));
        spans.extend(super::server::status_spans(app));
        spans.extend(watch_spans(app));
        spans.push(Span::raw(" │ "));
        if let Some(n) = app.change_count() {
            spans.push(Span::styled(format!("↻ {n} changed"), theme.changed()));
            spans.push(Span::raw(" │ "));
        }
        let stale = app
            .current_entry()
            .and_then(|e| app.source_of(e))
            .filter(|s| s.manifest.is_ok())
            .and_then(|s| {
                let text = s.stale.as_ref()?.describe(&s.path);
                // The bar is narrow: the file name says which file; the detail pane has it all.
                Some(match text.strip_prefix(s.path.as_str()) {
                    Some(rest) => format!("{}{rest}", file_name(&s.path)),
                    None => text,
                })
            });
        if let Some(stale) = stale {
            // The newest save's error comes before any hint: it is why the screen is old.
            spans.push(Span::styled(
                format!("⚠ {}", clip(&stale, 100)),
                theme.error(),
            ));
            spans.push(Span::raw(" (last good version shown) │ "));
        }
        match &app.message {
            Some(m) => spans.push(Span::styled(clip(m, 80), theme.key())),
            None => {
                let mut used: usize = spans.iter().map(Span::width).sum();
                for (key, hint) in keys::hints(app.context()) {
                    let text = format!(" {hint}  ");
                    // Whole hints only: a cut one reads as a different key.
                    let w = Span::raw(key.as_str()).width() + Span::raw(text.as_str()).width();
                    if used + w > area.width as usize + 2 {
                        break;
                    }
                    used += w;
                    spans.push(Span::styled(key, theme.key()));
                    spans.push(Span::raw(text));
                }
            }
        }
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(theme.status()),
        area,
    );
}

/// Whether the files are followed, and how.
fn watch_spans(app: &App) -> Vec<Span<'static>> {
    use super::live::WatchMode;
    let theme = app.theme;
    if let Some(e) = &app.live.error {
        return vec![Span::styled(
            format!("watch error: {}", clip(e, 60)),
            theme.error(),
        )];
    }
    let text = match app.live.mode {
        WatchMode::Off => "watch off".to_owned(),
        WatchMode::Events => "watching".to_owned(),
        WatchMode::Polling(every) => format!("polling {} ms", every.as_millis()),
    };
    vec![Span::styled(text, theme.dim())]
}

/// The help overlay: generated from the key table, then the legend and the row format.
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut lines = Vec::new();
    for scope in Scope::ORDER {
        lines.push(Line::from(Span::styled(scope.title(), theme.heading())));
        for binding in BINDINGS.iter().filter(|b| b.scope == scope) {
            let label = keys::keys_label(binding.keys);
            lines.push(Line::from(vec![
                Span::styled(format!("  {label:<22}"), theme.key()),
                Span::raw(binding.help),
            ]));
        }
        if scope == Scope::Global {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<22}", "mouse"), theme.key()),
                Span::raw(if app.mouse {
                    "click selects (again: folds), wheel scrolls the pane under it"
                } else {
                    "off (--no-mouse): the terminal's own text selection works"
                }),
            ]));
        }
        lines.push(Line::from(""));
    }
    lines.push(Line::from(Span::styled(
        "Highlights (from the trace)",
        theme.heading(),
    )));
    for mark in Mark::ALL {
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(mark.glyph(), theme.mark(mark)),
            Span::raw(format!(" {}", mark.label())),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Provider lint (p picks the provider)",
        theme.heading(),
    )));
    for severity in [Severity::Error, Severity::Warn, Severity::Info] {
        let meaning = match severity {
            Severity::Error => {
                "error: the provider rejects it, or the model cannot tell what to send"
            }
            Severity::Warn => "warning: accepted, but something is lost, ignored or risky",
            Severity::Info => "info: worth knowing; nothing breaks",
        };
        lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(severity_glyph(severity), theme.severity(severity)),
            Span::raw(format!(" {meaning}")),
        ]));
    }
    lines.push(Line::from(
        "  A row carries the worst finding on its node; the detail pane quotes the provider.",
    ));
    lines.push(Line::from(
        "  A tool is linted in the request of every tool of its file: a name another tool has is",
    ));
    lines.push(Line::from(
        "  refused on the root, and anthropic-strict says whether it is sent strict, and why not.",
    ));
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled("Rows", theme.heading())));
    lines.push(Line::from(vec![
        Span::raw("  marks name"),
        Span::styled("*", theme.required()),
        Span::raw("  "),
        Span::styled("type", theme.kind()),
        Span::styled(" (children)", theme.dim()),
        Span::raw("  "),
        Span::styled("constraints", theme.dim()),
        Span::raw("     * = required"),
    ]));
    lines.push(Line::from(
        "  Selecting a node selects its counterpart in the other tree; all linked nodes are underlined.",
    ));
    lines
}

/// `lines` word-wrapped to `width` columns (words longer than a line are split). Done here
/// rather than by `Paragraph` so that scroll limits count exactly the rows that are drawn.
pub fn wrap(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    let width = width.max(1) as usize;
    let mut out = Vec::new();
    for line in lines {
        if line.width() <= width {
            out.push(line.clone());
            continue;
        }
        let mut row: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        for span in &line.spans {
            for word in span.content.split_inclusive(' ') {
                let mut word = word.to_owned();
                loop {
                    let w = Span::raw(word.as_str()).width();
                    // A trailing space may hang past the edge, where it is clipped unseen.
                    let visible = Span::raw(word.trim_end()).width();
                    if used + visible <= width {
                        used += w;
                        row.push(Span::styled(word, span.style));
                        break;
                    }
                    if used > 0 && visible <= width {
                        out.push(Line::from(std::mem::take(&mut row)).style(line.style));
                        used = 0;
                        continue;
                    }
                    // Split a word that cannot fit on any line at the column limit.
                    let mut head = String::new();
                    let mut head_width = 0;
                    let mut rest = word.as_str();
                    while let Some(c) = rest.chars().next() {
                        let cw = Span::raw(c.to_string()).width();
                        if used + head_width + cw > width && (used + head_width) > 0 {
                            break;
                        }
                        head.push(c);
                        head_width += cw;
                        rest = &rest[c.len_utf8()..];
                    }
                    row.push(Span::styled(head, span.style));
                    out.push(Line::from(std::mem::take(&mut row)).style(line.style));
                    used = 0;
                    if rest.is_empty() {
                        break;
                    }
                    word = rest.to_owned();
                }
            }
        }
        if !row.is_empty() {
            out.push(Line::from(row).style(line.style));
        }
    }
    out
}
