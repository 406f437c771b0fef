//! Full-screen views over the panes: help (from the key table), the JSON of the whole tool,
//! and the rules screen (every rule with a before/after the engine computes live).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use serde_json::Value;

use schemalens::lint::Profile;
use schemalens::projection::{Rule, tailor};
use schemalens::{Options, Recursion};

use super::app::App;
use super::render::{help_lines, wrap};
use super::text::escape;
use super::theme::Theme;

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help {
        scroll: u16,
    },
    /// Built when opened: serializing a large schema on every frame would be slow.
    Json {
        scroll: u16,
        original: Vec<Line<'static>>,
        projection: Vec<Line<'static>>,
    },
    Rules {
        scroll: u16,
        lines: Vec<Line<'static>>,
    },
    /// The provider's findings, read from the shown tool's view on every frame (they are
    /// computed when the profile or the tool changes). `selected` counts findings, `offset` rows.
    Lint {
        selected: usize,
        offset: usize,
    },
    /// What changed since the baseline; built when its report arrives (`diffing` until
    /// then: the lines say it is being computed).
    Changes {
        scroll: u16,
        lines: Vec<Line<'static>>,
        diffing: bool,
    },
    /// What an Ollama model sees of the original and of the projection; built when opened.
    Model {
        scroll: u16,
        original: Vec<Line<'static>>,
        projection: Vec<Line<'static>>,
    },
    /// Asks before a payload is sent to the live server (what is asked is the server view's
    /// pending call).
    ConfirmCall,
}

impl Overlay {
    pub fn scroll(&self) -> u16 {
        match self {
            Overlay::Help { scroll }
            | Overlay::Json { scroll, .. }
            | Overlay::Rules { scroll, .. }
            | Overlay::Changes { scroll, .. }
            | Overlay::Model { scroll, .. } => *scroll,
            Overlay::Lint { offset, .. } => (*offset).min(u16::MAX as usize) as u16,
            Overlay::ConfirmCall => 0,
        }
    }

    pub fn set_scroll(&mut self, value: u16) {
        match self {
            Overlay::Help { scroll }
            | Overlay::Json { scroll, .. }
            | Overlay::Rules { scroll, .. }
            | Overlay::Changes { scroll, .. }
            | Overlay::Model { scroll, .. } => *scroll = value,
            // The lint list scrolls with its selection (see `update`).
            Overlay::Lint { .. } | Overlay::ConfirmCall => {}
        }
    }

    fn title(&self) -> &'static str {
        match self {
            Overlay::Help { .. } => " Help ",
            Overlay::Json { .. } => " JSON ",
            Overlay::Rules { .. } => " Rules: what the projection does, with examples ",
            Overlay::Changes { .. } => " Changes: what callers and the model see differently (D) ",
            Overlay::Lint { .. } => " Lint ",
            Overlay::Model { .. } => {
                " What an Ollama model sees: its Go structs drop every other key "
            }
            Overlay::ConfirmCall => " Call the tool on the server? ",
        }
    }
}

/// Where the overlay goes in a terminal of `area`: all of it but the status bar.
pub fn frame_area(area: Rect) -> Rect {
    Rect::new(area.x, area.y, area.width, area.height.saturating_sub(1))
}

/// The last useful scroll position.
pub fn max_scroll(app: &App, overlay: &Overlay, area: Rect) -> u16 {
    let inner = Block::bordered().inner(frame_area(area));
    let rows = match overlay {
        Overlay::Help { .. } => wrap(&help_lines(app), inner.width).len(),
        Overlay::Rules { lines, .. } | Overlay::Changes { lines, .. } => {
            wrap(lines, inner.width).len()
        }
        // JSON lines are cut, not wrapped.
        Overlay::Json {
            original,
            projection,
            ..
        }
        | Overlay::Model {
            original,
            projection,
            ..
        } => original.len().max(projection.len()),
        Overlay::Lint { .. } | Overlay::ConfirmCall => 0,
    };
    rows.saturating_sub(inner.height as usize)
        .min(u16::MAX as usize) as u16
}

pub fn render(app: &App, overlay: &Overlay, frame: &mut Frame) {
    if *overlay == Overlay::ConfirmCall {
        return super::server::render_confirm(app, frame);
    }
    let area = frame_area(frame.area());
    let scroll = overlay.scroll().min(max_scroll(app, overlay, frame.area()));
    let title = match (overlay, app.profile) {
        (Overlay::Lint { .. }, Some(p)) => {
            format!(" Lint · {} · {} ", p.name(), escape(p.label()))
        }
        _ => overlay.title().to_owned(),
    };
    let keys = match overlay {
        Overlay::Lint { .. } if area.width >= 90 => {
            " j/k select · Enter go to the node or payload · p next provider · w model view · Esc close "
        }
        Overlay::Lint { .. } => " Enter go to the node or payload · p next provider · Esc close ",
        _ => " j/k scroll · Esc close ",
    };
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .title(title)
        .title_bottom(Line::from(keys).right_aligned())
        .border_style(app.theme.border(true));
    frame.render_widget(Clear, area);
    let width = block.inner(area).width;
    match overlay {
        Overlay::Help { .. } => frame.render_widget(
            Paragraph::new(wrap(&help_lines(app), width))
                .block(block)
                .scroll((scroll, 0)),
            area,
        ),
        Overlay::Rules { lines, .. } | Overlay::Changes { lines, .. } => frame.render_widget(
            Paragraph::new(wrap(lines, width))
                .block(block)
                .scroll((scroll, 0)),
            area,
        ),
        Overlay::Lint { selected, offset } => {
            super::lint::render_list(app, *selected, *offset, frame, area, block)
        }
        Overlay::ConfirmCall => {}
        Overlay::Json {
            original,
            projection,
            ..
        }
        | Overlay::Model {
            original,
            projection,
            ..
        } => {
            let inner = block.inner(area);
            frame.render_widget(block, area);
            let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
                .spacing(2)
                .areas(inner);
            let mode = app.options.mode;
            for (rect, lines, title) in [
                (left, original, "original".to_owned()),
                (right, projection, format!("projection ({mode})")),
            ] {
                let mut shown = vec![Line::styled(title, app.theme.heading())];
                shown.extend(lines.iter().skip(scroll as usize).cloned());
                frame.render_widget(Paragraph::new(shown), rect);
            }
        }
    }
}

/// Pretty JSON, one styled line each: keys, strings, numbers and literals coloured (NO_COLOR
/// leaves them plain), text escaped. Stops after `limit` lines.
pub fn json_lines(value: &Value, theme: Theme, limit: usize) -> Vec<Line<'static>> {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut out: Vec<Line<'static>> = text
        .lines()
        .take(limit)
        .map(|l| highlight_json_line(&escape(l), theme))
        .collect();
    let total = text.lines().count();
    if total > limit {
        out.push(Line::styled(
            format!("… {} more lines", total - limit),
            theme.dim(),
        ));
    }
    out
}

/// Colours one line of pretty-printed JSON; strings are the only tokens that can contain
/// structural characters, so scanning for them first is enough.
fn highlight_json_line(line: &str, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(start) = rest.find('"') {
            if start > 0 {
                spans.push(scalar_span(&rest[..start], theme));
            }
            let after = &rest[start + 1..];
            let mut end = None;
            let mut escaped = false;
            for (i, c) in after.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.map_or(rest.len(), |e| start + 1 + e + 1);
            let token = &rest[start..end];
            let is_key = rest[end..].trim_start().starts_with(':');
            let style = if is_key {
                theme.kind()
            } else {
                theme.json_string()
            };
            spans.push(Span::styled(token.to_owned(), style));
            rest = &rest[end..];
        } else {
            spans.push(scalar_span(rest, theme));
            break;
        }
    }
    Line::from(spans)
}

fn scalar_span(text: &str, theme: Theme) -> Span<'static> {
    let t = text.trim_matches(|c: char| c.is_whitespace() || ",:[]{}".contains(c));
    let style = if t.is_empty() {
        Default::default()
    } else if matches!(t, "true" | "false" | "null") {
        theme.json_literal()
    } else {
        theme.json_number()
    };
    Span::styled(text.to_owned(), style)
}

/// One small example per rule, kept in `assets/rules.json` so the rules are taught from data
/// anyone can read; projected by the engine when the screen opens, so the "after" is always
/// what this build does.
struct Example {
    rule: Rule,
    summary: String,
    before: Value,
    /// For a tailoring step: the provider the projection is tailored for.
    profile: Option<Profile>,
}

const RULE_EXAMPLES: &str = include_str!("../../assets/rules.json");

/// The examples, in file order; an entry naming an unknown rule or profile is skipped (the
/// tests check that every rule has one).
fn examples() -> Vec<Example> {
    let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(RULE_EXAMPLES) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|e| {
            let rule = Rule::from_id(e.get("rule")?.as_str()?)?;
            let profile = match e.get("profile").and_then(Value::as_str) {
                Some(name) => Some(name.parse().ok()?),
                None => None,
            };
            Some(Example {
                rule,
                summary: e.get("summary")?.as_str()?.to_owned(),
                before: e.get("before")?.clone(),
                profile,
            })
        })
        .collect()
}

/// The rules screen: every rule, what it does, and a before/after from the engine.
pub fn rules_lines(theme: Theme) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::from("inline mode applies rules 1–5; flat mode (the default) applies all of them."),
        Line::from(
            "Every rule keeps I-sound: whatever the original accepts, the projection accepts.",
        ),
        Line::from(
            "Tailoring steps run after them, for one provider; the lossy ones come with a payload adapter.",
        ),
        Line::from(""),
    ];
    for example in examples() {
        let rule = example.rule;
        let number = match (rule.number(), example.profile) {
            (Some(n), _) => format!("rule {n}"),
            (None, Some(p)) => format!("tailoring for {}", p.name()),
            (None, None) => "guard".to_owned(),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{number} · {}", rule.id()), theme.heading()),
            Span::raw(format!("  {}", example.summary)),
        ]));
        let before = &example.before;
        out.push(Line::from(vec![
            Span::styled("  before  ", theme.dim()),
            Span::raw(escape(&before.to_string()).into_owned()),
        ]));
        let options = Options {
            recursion: match rule {
                Rule::Recursion => Recursion::Unroll(1),
                Rule::TailorRefSiblings => Recursion::Keep,
                _ => Recursion::Unroll(3),
            },
            ..Options::flat()
        };
        let projected = schemalens::project(before, &options).map(|p| match example.profile {
            Some(profile) => tailor(p, profile).projection,
            None => p,
        });
        match projected {
            Ok(p) => {
                out.push(Line::from(vec![
                    Span::styled("  after   ", theme.dim()),
                    Span::raw(escape(&p.schema.to_string()).into_owned()),
                ]));
                let own: Vec<_> = p.trace.iter().filter(|e| e.rule == rule).collect();
                for e in own.iter().take(3) {
                    out.push(Line::from(vec![
                        Span::styled("  why     ", theme.dim()),
                        Span::raw(escape(&e.message()).into_owned()),
                    ]));
                }
                if own.is_empty() {
                    out.push(Line::styled(
                        "  (this example did not trigger the rule in this build)",
                        theme.dim(),
                    ));
                }
            }
            Err(e) => out.push(Line::styled(format!("  after   error: {e}"), theme.error())),
        }
        out.push(Line::from(""));
    }
    out
}
