//! A rendered [`Buffer`] as an SVG image, for the README's screenshots: what `TestBackend` holds
//! after `render`, so the pictures are the app's own output and are regenerated, never drawn.
//!
//! Text goes in runs of one style, each placed at its cell and stretched (`textLength`) to its
//! cells' width, so the grid holds whatever monospace font the viewer has. Characters outside
//! ASCII get a run of their own: they often come from a fallback font with another advance.
//! Box-drawing characters are drawn as lines rather than text, so borders join across rows
//! whatever the font's line height.

use std::collections::BTreeMap;
use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::text::Span;

const FONT_SIZE: f64 = 14.0;
/// 0.6 em: the advance of the common monospace fonts.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
/// From a row's top to the text baseline.
const BASELINE: f64 = 13.0;
const PAD: f64 = 12.0;

const BACKGROUND: &str = "#16181d";
const FOREGROUND: &str = "#d4d7dd";
const FONTS: &str = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace";

/// The 16 named colours, in ANSI order (black … white, then the bright ones).
const ANSI: [&str; 16] = [
    "#1e2127", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#abb2bf",
    "#636b78", "#ff7a85", "#b5e890", "#f0d58a", "#8cc8ff", "#e0a0f0", "#7fd7e0", "#ffffff",
];

fn hex(color: Color, default: &str) -> String {
    let ansi = |i: usize| ANSI[i].to_owned();
    match color {
        Color::Reset => default.to_owned(),
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) if i < 16 => ansi(i as usize),
        Color::Indexed(i) if i < 232 => {
            // The xterm 6×6×6 cube.
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = i - 16;
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level(i / 6 % 6),
                level(i % 6)
            )
        }
        Color::Indexed(i) => {
            let v = 8 + 10 * (i - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

/// Text as XML character data: markup characters as entities, characters XML 1.0 forbids (and
/// the C1 controls) as U+FFFD, and spaces as no-break spaces, which SVG never collapses.
fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            ' ' => out.push_str("&#160;"),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// Shortest decimal form, so the file stays small and diffs stay readable.
fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// One cell as drawn: colours resolved, reversed video applied.
#[derive(Debug, Clone, PartialEq)]
struct Cell<'a> {
    col: u16,
    /// Columns covered (2 for a wide character).
    width: u16,
    symbol: &'a str,
    fg: String,
    bg: String,
    bold: bool,
    italic: bool,
    dim: bool,
    hidden: bool,
    underline: bool,
    strike: bool,
}

impl Cell<'_> {
    fn text_style(&self) -> (&str, bool, bool, bool) {
        (&self.fg, self.bold, self.italic, self.dim)
    }
}

fn row_cells(buf: &Buffer, y: u16) -> Vec<Cell<'_>> {
    let area = buf.area;
    let mut out = Vec::new();
    let mut x = area.left();
    while x < area.right() {
        let cell = &buf[(x, y)];
        let symbol = match cell.symbol() {
            "" => " ",
            s => s,
        };
        let width = (Span::raw(symbol).width() as u16).clamp(1, area.right() - x);
        let m = cell.modifier;
        let (mut fg, mut bg) = (hex(cell.fg, FOREGROUND), hex(cell.bg, BACKGROUND));
        if m.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        out.push(Cell {
            col: x - area.left(),
            width,
            symbol,
            fg,
            bg,
            bold: m.contains(Modifier::BOLD),
            italic: m.contains(Modifier::ITALIC),
            dim: m.contains(Modifier::DIM),
            hidden: m.contains(Modifier::HIDDEN),
            underline: m.contains(Modifier::UNDERLINED),
            strike: m.contains(Modifier::CROSSED_OUT),
        });
        // The cells a wide character covers hold nothing of their own.
        x += width;
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Weight {
    Light,
    Heavy,
    Double,
}

/// The arms of a box-drawing character: up, down, left, right.
fn box_arms(symbol: &str) -> Option<[Option<Weight>; 4]> {
    use Weight::{Double as D, Heavy as H, Light as L};
    let mut chars = symbol.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let n = None;
    Some(match c {
        '─' => [n, n, Some(L), Some(L)],
        '│' => [Some(L), Some(L), n, n],
        '┌' | '╭' => [n, Some(L), n, Some(L)],
        '┐' | '╮' => [n, Some(L), Some(L), n],
        '└' | '╰' => [Some(L), n, n, Some(L)],
        '┘' | '╯' => [Some(L), n, Some(L), n],
        '├' => [Some(L), Some(L), n, Some(L)],
        '┤' => [Some(L), Some(L), Some(L), n],
        '┬' => [n, Some(L), Some(L), Some(L)],
        '┴' => [Some(L), n, Some(L), Some(L)],
        '┼' => [Some(L), Some(L), Some(L), Some(L)],
        '━' => [n, n, Some(H), Some(H)],
        '┃' => [Some(H), Some(H), n, n],
        '┏' => [n, Some(H), n, Some(H)],
        '┓' => [n, Some(H), Some(H), n],
        '┗' => [Some(H), n, n, Some(H)],
        '┛' => [Some(H), n, Some(H), n],
        '┣' => [Some(H), Some(H), n, Some(H)],
        '┫' => [Some(H), Some(H), Some(H), n],
        '┳' => [n, Some(H), Some(H), Some(H)],
        '┻' => [Some(H), n, Some(H), Some(H)],
        '╋' => [Some(H), Some(H), Some(H), Some(H)],
        '═' => [n, n, Some(D), Some(D)],
        '║' => [Some(D), Some(D), n, n],
        '╔' => [n, Some(D), n, Some(D)],
        '╗' => [n, Some(D), Some(D), n],
        '╚' => [Some(D), n, n, Some(D)],
        '╝' => [Some(D), n, Some(D), n],
        '╠' => [Some(D), Some(D), n, Some(D)],
        '╣' => [Some(D), Some(D), Some(D), n],
        '╦' => [n, Some(D), Some(D), Some(D)],
        '╩' => [Some(D), n, Some(D), Some(D)],
        '╬' => [Some(D), Some(D), Some(D), Some(D)],
        _ => return None,
    })
}

fn is_rounded(symbol: &str) -> bool {
    matches!(symbol, "╭" | "╮" | "╰" | "╯")
}

/// Path segments for one box-drawing cell with its top-left corner at (`x`, `y`).
fn box_path(symbol: &str, arms: [Option<Weight>; 4], x: f64, y: f64, d: &mut String) {
    let (cx, cy) = (x + CELL_W / 2.0, y + CELL_H / 2.0);
    // Unit vectors of up, down, left, right.
    const DIRS: [(f64, f64); 4] = [(0.0, -1.0), (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)];
    let edge = |i: usize| -> (f64, f64) {
        let (dx, dy) = DIRS[i];
        (cx + dx * CELL_W / 2.0, cy + dy * CELL_H / 2.0)
    };
    if is_rounded(symbol) {
        let present: Vec<usize> = (0..4).filter(|&i| arms[i].is_some()).collect();
        if let [a, b] = present[..] {
            let (ax, ay) = edge(a);
            let (bx, by) = edge(b);
            let _ = write!(
                d,
                "M{} {}Q{} {} {} {}",
                num(ax),
                num(ay),
                num(cx),
                num(cy),
                num(bx),
                num(by)
            );
            return;
        }
    }
    for (i, arm) in arms.iter().enumerate() {
        let Some(weight) = arm else { continue };
        let (dx, dy) = DIRS[i];
        let (ex, ey) = edge(i);
        if *weight != Weight::Double {
            let _ = write!(d, "M{} {}L{} {}", num(cx), num(cy), num(ex), num(ey));
            continue;
        }
        // Two parallel lines. Each starts past the centre when a crossing arm leaves on its
        // side (making room for that arm's inner line), before it when one leaves on the other
        // side only (the outer corner), and at the centre otherwise.
        const GAP: f64 = 1.6;
        let horizontal = dy == 0.0;
        let (side_neg, side_pos) = if horizontal {
            (arms[0].is_some(), arms[1].is_some())
        } else {
            (arms[2].is_some(), arms[3].is_some())
        };
        for s in [-1.0, 1.0] {
            let (mine, other) = if s < 0.0 {
                (side_neg, side_pos)
            } else {
                (side_pos, side_neg)
            };
            let start = if mine {
                GAP
            } else if other {
                -GAP
            } else {
                0.0
            };
            let (px, py) = if horizontal {
                (0.0, s * GAP)
            } else {
                (s * GAP, 0.0)
            };
            let _ = write!(
                d,
                "M{} {}L{} {}",
                num(cx + dx * start + px),
                num(cy + dy * start + py),
                num(ex + px),
                num(ey + py)
            );
        }
    }
}

fn stroke_width(weight: Weight) -> f64 {
    match weight {
        Weight::Light => 1.2,
        Weight::Heavy => 2.4,
        Weight::Double => 1.0,
    }
}

/// A run of cells drawn as one `<text>`.
struct Run<'a> {
    col: u16,
    cols: u16,
    text: String,
    style: (&'a str, bool, bool, bool),
}

/// `buf` as a standalone SVG document.
pub fn to_svg(buf: &Buffer) -> String {
    let area = buf.area;
    let width = PAD * 2.0 + f64::from(area.width) * CELL_W;
    let height = PAD * 2.0 + f64::from(area.height) * CELL_H;
    let mut backgrounds = String::new();
    let mut lines = String::new();
    let mut texts = String::new();
    // Box-drawing paths, one element per colour and weight.
    let mut paths: BTreeMap<(String, u8), String> = BTreeMap::new();
    // Colours used as text fill, given short class names in order of first use.
    let mut fills: Vec<String> = Vec::new();

    for y in area.top()..area.bottom() {
        let top = PAD + f64::from(y - area.top()) * CELL_H;
        let cells = row_cells(buf, y);

        // Backgrounds: one rectangle per stretch of one colour.
        let mut i = 0;
        while i < cells.len() {
            let start = i;
            while i < cells.len() && cells[i].bg == cells[start].bg {
                i += 1;
            }
            if cells[start].bg != BACKGROUND {
                let cols: u16 = cells[start..i].iter().map(|c| c.width).sum();
                let _ = writeln!(
                    backgrounds,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
                    num(PAD + f64::from(cells[start].col) * CELL_W),
                    num(top),
                    num(f64::from(cols) * CELL_W),
                    num(CELL_H),
                    cells[start].bg
                );
            }
        }

        // Underlines and strike-throughs cover spaces too, as in a terminal.
        for (flag, offset) in [(0usize, BASELINE + 2.0), (1, BASELINE - 4.0)] {
            let on = |c: &Cell<'_>| if flag == 0 { c.underline } else { c.strike };
            let mut i = 0;
            while i < cells.len() {
                if !on(&cells[i]) || cells[i].hidden {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < cells.len() && on(&cells[i]) && cells[i].fg == cells[start].fg {
                    i += 1;
                }
                let cols: u16 = cells[start..i].iter().map(|c| c.width).sum();
                let _ = writeln!(
                    lines,
                    r#"<rect x="{}" y="{}" width="{}" height="1" fill="{}"/>"#,
                    num(PAD + f64::from(cells[start].col) * CELL_W),
                    num(top + offset),
                    num(f64::from(cols) * CELL_W),
                    cells[start].fg
                );
            }
        }

        // Text runs.
        let mut runs: Vec<Run<'_>> = Vec::new();
        for cell in &cells {
            if cell.hidden {
                continue;
            }
            if let Some(arms) = box_arms(cell.symbol) {
                let weight = arms
                    .iter()
                    .flatten()
                    .next()
                    .copied()
                    .unwrap_or(Weight::Light);
                let key = (cell.fg.clone(), weight as u8);
                let d = paths.entry(key).or_default();
                let x = PAD + f64::from(cell.col) * CELL_W;
                box_path(cell.symbol, arms, x, top, d);
                continue;
            }
            // A character outside ASCII neither joins a run nor lets one join it.
            let ascii = cell.symbol.is_ascii() && cell.width == 1;
            let joins = runs.last().is_some_and(|r| {
                ascii
                    && r.col + r.cols == cell.col
                    && r.style == cell.text_style()
                    && r.text.is_ascii()
            });
            if joins && let Some(run) = runs.last_mut() {
                run.cols += cell.width;
                run.text.push_str(cell.symbol);
            } else {
                runs.push(Run {
                    col: cell.col,
                    cols: cell.width,
                    text: cell.symbol.to_owned(),
                    style: cell.text_style(),
                });
            }
        }
        for run in runs {
            let text = run.text.as_str();
            // Leading and trailing blanks are only positions: drop them from the text.
            let lead = text.len() - text.trim_start_matches(' ').len();
            let body = text.trim_matches(' ');
            if body.is_empty() {
                continue;
            }
            let col = run.col + lead as u16;
            let cols = if text.is_ascii() {
                body.len() as u16
            } else {
                run.cols
            };
            let (fg, bold, italic, dim) = run.style;
            let fill = match fills.iter().position(|f| f == fg) {
                Some(i) => i,
                None => {
                    fills.push(fg.to_owned());
                    fills.len() - 1
                }
            };
            let mut class = format!("c{fill}");
            for (on, name) in [(bold, " b"), (italic, " i"), (dim, " d")] {
                if on {
                    class.push_str(name);
                }
            }
            let length = if cols > 1 {
                format!(r#" textLength="{}""#, num(f64::from(cols) * CELL_W))
            } else {
                String::new()
            };
            let _ = write!(
                texts,
                r#"<text x="{}" y="{}" class="{class}"{length}>"#,
                num(PAD + f64::from(col) * CELL_W),
                num(top + BASELINE)
            );
            escape(body, &mut texts);
            texts.push_str("</text>\n");
        }
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
        w = num(width),
        h = num(height)
    );
    out.push_str("<style>\n");
    let _ = writeln!(
        out,
        "text {{ font-family: {FONTS}; font-size: {}px; white-space: pre; }}",
        num(FONT_SIZE)
    );
    out.push_str(".b { font-weight: bold; }\n.i { font-style: italic; }\n.d { opacity: 0.6; }\n");
    for (i, fill) in fills.iter().enumerate() {
        let _ = writeln!(out, ".c{i} {{ fill: {fill}; }}");
    }
    out.push_str("</style>\n");
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" rx="8" fill="{BACKGROUND}"/>"#
    );
    let _ = writeln!(out, r#"<g shape-rendering="crispEdges">"#);
    out.push_str(&backgrounds);
    out.push_str(&lines);
    out.push_str("</g>\n");
    out.push_str(r#"<g fill="none" stroke-linecap="square">"#);
    out.push('\n');
    for ((color, weight), d) in &paths {
        let weight = match weight {
            0 => Weight::Light,
            1 => Weight::Heavy,
            _ => Weight::Double,
        };
        let _ = writeln!(
            out,
            r#"<path stroke="{color}" stroke-width="{}" d="{d}"/>"#,
            num(stroke_width(weight))
        );
    }
    out.push_str("</g>\n");
    out.push_str(&texts);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn buffer(lines: &[&str]) -> Buffer {
        let width = lines
            .iter()
            .map(|l| Span::raw(*l).width())
            .max()
            .unwrap_or(0) as u16;
        let mut buf = Buffer::empty(Rect::new(0, 0, width, lines.len() as u16));
        for (y, line) in lines.iter().enumerate() {
            buf.set_string(0, y as u16, line, Style::new());
        }
        buf
    }

    /// The character data of every `<text>`, in order.
    fn texts(svg: &str) -> Vec<(String, String)> {
        svg.split("<text ")
            .skip(1)
            .map(|chunk| {
                let (attrs, rest) = chunk.split_once('>').expect("tag end");
                let (body, _) = rest.split_once("</text>").expect("closing tag");
                (attrs.to_owned(), body.to_owned())
            })
            .collect()
    }

    fn x_of(attrs: &str) -> String {
        let start = attrs.find("x=\"").expect("x") + 3;
        let end = start + attrs[start..].find('"').expect("quote");
        attrs[start..end].to_owned()
    }

    #[test]
    fn markup_characters_are_escaped() {
        let svg = to_svg(&buffer(&["a<b & \"c\">"]));
        let body: String = texts(&svg).into_iter().map(|(_, b)| b).collect();
        assert_eq!(body, "a&lt;b&#160;&amp;&#160;&quot;c&quot;&gt;");
        // Every `&` left in the document starts an entity.
        for (i, _) in svg.match_indices('&') {
            let rest = &svg[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#160;"]
                    .iter()
                    .any(|e| rest.starts_with(e)),
                "bare & at {i}"
            );
        }
    }

    #[test]
    fn control_characters_cannot_reach_the_document() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf[(0, 0)].set_symbol("\u{1b}");
        buf[(1, 0)].set_symbol("\u{7}");
        buf[(2, 0)].set_symbol("\u{FFFF}");
        let svg = to_svg(&buf);
        assert!(!svg.chars().any(|c| c.is_control() && c != '\n'));
        assert!(svg.contains("\u{FFFD}"));
        assert!(!svg.contains('\u{FFFF}'));
    }

    #[test]
    fn wide_characters_take_two_cells_and_the_grid_holds() {
        let svg = to_svg(&buffer(&["日本x ●y"]));
        let texts = texts(&svg);
        let placed: Vec<(String, &str)> =
            texts.iter().map(|(a, b)| (x_of(a), b.as_str())).collect();
        let at = |col: f64| num(PAD + col * CELL_W);
        // Each wide or non-ASCII character is placed on its own cell; the ASCII after a wide
        // character starts two columns on, not one.
        assert_eq!(
            placed,
            vec![
                (at(0.0), "日"),
                (at(2.0), "本"),
                (at(4.0), "x"),
                (at(6.0), "●"),
                (at(7.0), "y"),
            ]
        );
        let wide = &texts[0].0;
        assert!(
            wide.contains(&format!("textLength=\"{}\"", num(2.0 * CELL_W))),
            "{wide}"
        );
    }

    #[test]
    fn ascii_runs_are_stretched_to_their_cells() {
        let svg = to_svg(&buffer(&["  name  type"]));
        let texts = texts(&svg);
        assert_eq!(texts.len(), 1);
        let (attrs, body) = &texts[0];
        assert_eq!(body, "name&#160;&#160;type");
        assert_eq!(x_of(attrs), num(PAD + 2.0 * CELL_W));
        assert!(attrs.contains(&format!("textLength=\"{}\"", num(10.0 * CELL_W))));
    }

    #[test]
    fn styles_become_classes_fills_and_lines() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 1));
        buf.set_string(
            0,
            0,
            "bold",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        );
        buf.set_string(4, 0, "ital", Style::new().add_modifier(Modifier::ITALIC));
        buf.set_string(
            8,
            0,
            "un",
            Style::new()
                .bg(Color::Blue)
                .add_modifier(Modifier::UNDERLINED),
        );
        buf.set_string(10, 0, "rv", Style::new().add_modifier(Modifier::REVERSED));
        let svg = to_svg(&buf);
        let texts = texts(&svg);
        let class_of = |body: &str| {
            let (attrs, _) = texts.iter().find(|(_, b)| b == body).expect(body);
            let start = attrs.find("class=\"").unwrap() + 7;
            attrs[start..start + attrs[start..].find('"').unwrap()].to_owned()
        };
        let bold = class_of("bold");
        assert!(bold.split(' ').any(|c| c == "b"), "{bold}");
        let red = bold.split(' ').next().unwrap();
        assert!(svg.contains(&format!(".{red} {{ fill: {}; }}", ANSI[1])));
        assert!(class_of("ital").split(' ').any(|c| c == "i"));
        assert!(!class_of("ital").split(' ').any(|c| c == "b"));
        // Background and underline are rectangles under the text.
        let under_x = num(PAD + 8.0 * CELL_W);
        assert!(svg.contains(&format!(
            r#"<rect x="{under_x}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            num(PAD),
            num(2.0 * CELL_W),
            num(CELL_H),
            ANSI[4]
        )));
        assert!(svg.contains(&format!(
            r#"<rect x="{under_x}" y="{}" width="{}" height="1" fill="{FOREGROUND}"/>"#,
            num(PAD + BASELINE + 2.0),
            num(2.0 * CELL_W)
        )));
        // Reversed video: the default foreground becomes the background, and the text takes
        // the background colour.
        let rv = class_of("rv");
        assert!(svg.contains(&format!(".{rv} {{ fill: {BACKGROUND}; }}")));
        assert!(svg.contains(&format!("fill=\"{FOREGROUND}\"/>")));
    }

    #[test]
    fn box_drawing_is_drawn_not_typed() {
        let svg = to_svg(&buffer(&["┌─┐", "│x║", "└━╝"]));
        let texts = texts(&svg);
        assert_eq!(texts.len(), 1, "only the x is text");
        assert_eq!(texts[0].1, "x");
        // Light, heavy and double lines each get their own stroke width.
        for w in [1.2, 2.4, 1.0] {
            assert!(
                svg.contains(&format!("stroke-width=\"{}\"", num(w))),
                "no stroke {w}"
            );
        }
    }

    #[test]
    fn double_corners_meet() {
        let mut d = String::new();
        let arms = box_arms("╔").unwrap();
        box_path("╔", arms, 0.0, 0.0, &mut d);
        let (cx, cy) = (CELL_W / 2.0, CELL_H / 2.0);
        // The outer lines start together at the outer corner, the inner ones at the inner one.
        let outer = format!("M{} {}", num(cx - 1.6), num(cy - 1.6));
        let inner = format!("M{} {}", num(cx + 1.6), num(cy + 1.6));
        assert_eq!(d.matches(&outer).count(), 2, "{d}");
        assert_eq!(d.matches(&inner).count(), 2, "{d}");
    }

    #[test]
    fn colours_map_to_hex() {
        assert_eq!(hex(Color::Reset, "#000000"), "#000000");
        assert_eq!(hex(Color::Rgb(1, 2, 255), ""), "#0102ff");
        assert_eq!(hex(Color::Indexed(9), ""), ANSI[9]);
        assert_eq!(hex(Color::Indexed(16), ""), "#000000");
        assert_eq!(hex(Color::Indexed(231), ""), "#ffffff");
        assert_eq!(hex(Color::Indexed(232), ""), "#080808");
    }
}
