//! "Why" in the inspector: paste a provider's error (`!`, or just paste), and the inspector
//! goes to the tool and the node it is about in both trees, switches the lint to that
//! provider, and the detail pane explains — all read from [`schemalens::why`], the same
//! diagnosis `schemalens why` prints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use schemalens::why::{Diagnosis, Outcome, Report, Session, Variant};

use super::app::{App, Entry, InputPurpose};
use super::text::{clip, escape};
use super::tree::Side;

/// The last pasted error and where it led.
#[derive(Debug, Clone)]
pub struct WhyView {
    pub report: Report,
    /// The located diagnosis the trees show, if any.
    pub diagnosis: Option<usize>,
    /// The tool entry it selected.
    pub entry: Option<usize>,
    /// The pointer selected in each tree, so the detail pane explains while the user stays on
    /// the node (and stops when they move on).
    pub selected: [Option<String>; 2],
}

impl WhyView {
    pub fn shown(&self) -> Option<&Diagnosis> {
        self.report.diagnoses.get(self.diagnosis?)
    }
}

impl App {
    /// Reads `text` against the open manifests (the shown one first) and goes to the node.
    pub fn explain_error(&mut self, text: &str) {
        if text.trim().is_empty() {
            self.message = Some("why: nothing pasted".to_owned());
            return;
        }
        let current = self
            .current_entry()
            .and_then(|e| match self.entries.get(e) {
                Some(Entry::Tool { source, .. } | Entry::Problem { source }) => Some(*source),
                None => None,
            })
            .unwrap_or(0);
        let order =
            std::iter::once(current).chain((0..self.sources.len()).filter(|s| *s != current));
        let mut best: Option<(usize, Report)> = None;
        for s in order {
            let Some(Ok(manifest)) = self.sources.get(s).map(|src| &src.manifest) else {
                continue;
            };
            let session = Session::new(manifest, self.options.clone(), &self.sources[s].path);
            let report = session.report(text, None, None);
            let located = report.diagnoses.iter().any(Diagnosis::located);
            let better = best
                .as_ref()
                .is_none_or(|(_, b)| report.outcome.code() < b.outcome.code());
            if located || better {
                best = Some((s, report));
            }
            if located {
                break;
            }
        }
        let Some((source, report)) = best else {
            self.message = Some("why: no manifest is loaded".to_owned());
            return;
        };
        let diagnosis = report.diagnoses.iter().position(Diagnosis::located);
        let mut view = WhyView {
            report,
            diagnosis,
            entry: None,
            selected: [None, None],
        };
        let Some(d) = view.shown().cloned() else {
            self.message = Some(match view.report.outcome {
                Outcome::Unrecognised => {
                    "why: not a message schemalens knows; the detail pane lists the closest"
                        .to_owned()
                }
                _ => "why: recognised, but not placed in this manifest; see the detail pane"
                    .to_owned(),
            });
            self.focus = super::keys::Pane::Detail;
            self.detail_scroll = 0;
            self.why = Some(view);
            return;
        };
        let (Some(tool), Some(node)) = (&d.tool, &d.node) else {
            return;
        };
        let wanted = Entry::Tool {
            source,
            tool: tool.index,
        };
        let Some(entry) = self.entries.iter().position(|e| *e == wanted) else {
            return;
        };
        if !self.visible.contains(&entry) {
            self.filter.clear();
            self.apply_filter();
        }
        if let Some(at) = self.visible.iter().position(|e| *e == entry) {
            self.cursor = at;
            self.show_cursor_entry();
            // What follows goes on in the tool's view.
            self.settle();
        }
        if let Variant::Projection { mode } = node.schema
            && mode != self.options.mode
        {
            self.set_mode(mode);
            self.settle();
        }
        if d.profile.is_some() && d.profile != self.profile {
            self.profile = d.profile;
            self.relint();
        }
        let (side, at) = match node.schema {
            Variant::Projection { .. } => (Side::Projection, node.pointer.clone()),
            // The inspector shows no tailored tree: its original counterpart stands in.
            _ => (
                Side::Original,
                node.original.first().cloned().unwrap_or_default(),
            ),
        };
        self.select_pointer(side, &at);
        view.entry = Some(entry);
        view.selected = [
            self.selected_pointer(Side::Original).map(str::to_owned),
            self.selected_pointer(Side::Projection).map(str::to_owned),
        ];
        let rule = d
            .rule
            .as_ref()
            .map(|r| format!("{}/{}", r.profile, r.id))
            .unwrap_or_else(|| d.recognised.id.unwrap_or("location").to_owned());
        let shown = if node.tool_entry {
            "the tool entry".to_owned()
        } else {
            format!("#{}", node.pointer)
        };
        let more = view.report.diagnoses.len().saturating_sub(1);
        self.message = Some(format!(
            "why: {} · {rule} at {shown} in the {}{} — the detail pane explains",
            d.recognised.provider.label(),
            node.schema.describe(),
            if more > 0 {
                format!(" (+{more} more message(s) in the text)")
            } else {
                String::new()
            }
        ));
        self.why = Some(view);
    }
}

/// The explanation at the top of the detail pane: while the user is on the node the last
/// pasted error led to, or always when it led nowhere.
pub fn detail_lines(app: &App) -> Vec<Line<'static>> {
    let Some(view) = &app.why else {
        return Vec::new();
    };
    let theme = app.theme;
    match view.shown() {
        Some(d) => {
            let side = app.active_side();
            let here = app.selected_pointer(side).map(str::to_owned);
            let on_entry = view.entry.is_some() && app.current_entry() == view.entry;
            if !on_entry || here.is_none() || here != view.selected[side.index()] {
                return Vec::new();
            }
            let mut out = diagnosis_lines(d, theme);
            out.push(Line::from(""));
            out
        }
        None => {
            let mut out = Vec::new();
            for d in &view.report.diagnoses {
                out.extend(diagnosis_lines(d, theme));
            }
            if view.report.outcome == Outcome::Unrecognised {
                out.push(Line::from(Span::styled(
                    "Not a message schemalens knows. Closest known messages:",
                    theme.heading(),
                )));
                if view.report.closest.is_empty() {
                    out.push(Line::from("  (none resembles it)"));
                }
                for c in &view.report.closest {
                    out.push(Line::from(format!(
                        "  {:.0}% {} ({}): {}",
                        c.score * 100.0,
                        c.id,
                        c.provider.label(),
                        escape(c.example)
                    )));
                }
            }
            out.push(Line::from(""));
            out
        }
    }
}

fn diagnosis_lines(d: &Diagnosis, theme: super::theme::Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled("! ", theme.error()),
        Span::styled(
            format!("{} said: ", d.recognised.provider.label()),
            theme.heading(),
        ),
        Span::raw(escape(d.message.trim()).into_owned()),
    ])];
    let field = |name: &str, text: String| {
        Line::from(vec![
            Span::styled(format!("  {name}: "), theme.dim()),
            Span::raw(text),
        ])
    };
    if let Some(r) = &d.received {
        out.push(field("received", r.summary.clone()));
    }
    if let Some(rule) = &d.rule {
        out.push(field(
            "rule",
            format!(
                "{}/{} ({}){}: {}",
                rule.profile,
                rule.id,
                rule.severity,
                if rule.lint_agrees {
                    ""
                } else {
                    " — lint does not report it here"
                },
                escape(&rule.explanation)
            ),
        ));
    }
    if let Some(fix) = &d.fix {
        out.push(field(
            "fix",
            format!(
                "the {}{}",
                fix.schema.describe(),
                if fix.lossy {
                    " (lossy: payload adapter)"
                } else {
                    ""
                }
            ),
        ));
        for step in &fix.steps {
            out.push(field(
                "  step",
                format!("{}: {}", step.rule, escape(&step.message)),
            ));
        }
        out.push(Line::from(vec![
            Span::styled("  $ ", theme.dim()),
            Span::styled(escape(&fix.command).into_owned(), theme.key()),
        ]));
    }
    if let Some(advice) = d.advice {
        out.push(field("advice", advice.to_owned()));
    }
    for note in &d.notes {
        out.push(field("note", escape(note).into_owned()));
    }
    out
}

/// The prompt: a box over the screen holding what was pasted so far.
pub fn render_prompt(app: &App, frame: &mut Frame) {
    let Some(input) = app
        .input
        .as_ref()
        .filter(|i| i.purpose == InputPurpose::Why)
    else {
        return;
    };
    let area = frame.area();
    let width = area.width.saturating_sub(8).clamp(20, 110);
    let height = area.height.saturating_sub(6).clamp(5, 16);
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let theme = app.theme;
    let inner_width = width.saturating_sub(2).max(1) as usize;
    let inner_height = height.saturating_sub(2) as usize;
    let (body, rows): (Vec<Line<'static>>, usize) = if input.text.is_empty() {
        (
            vec![
                Line::from(Span::styled(
                    "Paste the provider's error: the bare message, the JSON body, a traceback.",
                    theme.dim(),
                )),
                Line::from(Span::styled(
                    "Enter finds the tool and the node; Esc cancels.",
                    theme.dim(),
                )),
            ],
            2,
        )
    } else {
        let lines: Vec<String> = input.text.lines().map(|l| escape(l).into_owned()).collect();
        // Rows once wrapped, so that the end of a long paste (what was just pasted) shows.
        let rows = lines
            .iter()
            .map(|l| l.chars().count().div_ceil(inner_width).max(1))
            .sum();
        (lines.into_iter().map(Line::from).collect(), rows)
    };
    let scroll = rows.saturating_sub(inner_height).min(u16::MAX as usize) as u16;
    let title = format!(
        " why: paste a provider's error ({} line(s), {} chars) — Enter explains, Esc cancels ",
        input.text.lines().count(),
        input.text.chars().count()
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.key())
                    .title(Span::styled(
                        clip(&title, width as usize - 2),
                        theme.heading(),
                    )),
            ),
        rect,
    );
}
