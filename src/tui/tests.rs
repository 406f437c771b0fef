//! Render snapshots (insta + `TestBackend`) and state transitions driven by key actions.
//!
//! Snapshots are named without the module path so they survive the module moving between
//! crates. Samples are read from `samples/` next to the crate's manifest.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde_json::json;

use schemalens::manifest;
use schemalens::{Mode, Options};

use super::app::{App, Source, update};
use super::detail;
use super::keys::{self, Action, BINDINGS, Context, Pane};
use super::overlay;
use super::render::render;
use super::theme::{Mark, Theme};
use super::tree::Side;

const PLAIN: Theme = Theme { color: false };
const COLOR: Theme = Theme { color: true };

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn open(name: &str, theme: Theme, width: u16, height: u16) -> App {
    let mut app = App::load(&[sample(name)], Options::flat(), theme, true);
    update(&mut app, Action::Resize { width, height });
    app
}

/// An app over documents given inline; `origin` is what errors name.
fn open_text(docs: &[(&str, &str)], options: Options, width: u16, height: u16) -> App {
    let sources = docs
        .iter()
        .map(|(origin, text)| text_source(origin, text))
        .collect();
    let mut app = App::new(sources, options, PLAIN, true);
    update(&mut app, Action::Resize { width, height });
    app
}

/// A source read from `text`, named `origin`, with no file behind it.
fn text_source(origin: &str, text: &str) -> Source {
    Source {
        path: origin.to_owned(),
        manifest: manifest::load_str(text, origin, None).map_err(|e| e.to_string()),
        payload_files: Vec::new(),
        file: None,
        hash: None,
        stale: None,
        payload_dir: None,
        baseline: super::app::Baseline::Missing,
    }
}

fn draw(app: &App) -> Terminal<TestBackend> {
    let mut terminal =
        Terminal::new(TestBackend::new(app.size.width, app.size.height)).expect("terminal");
    terminal.draw(|f| render(app, f)).expect("draw");
    terminal
}

fn snap(name: &str, value: impl std::fmt::Display) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("snapshots");
    settings.bind(|| insta::assert_snapshot!(name, value.to_string()));
}

fn screen(app: &App) -> String {
    draw(app).backend().to_string()
}

fn buffer(app: &App) -> Buffer {
    draw(app).backend().buffer().clone()
}

/// Feeds keys through the key table, as the event loop does.
fn keys(app: &mut App, typed: &str) {
    for c in typed.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn key(app: &mut App, code: KeyCode) {
    let modifiers = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        KeyCode::BackTab => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    let event = KeyEvent::new(code, modifiers);
    if let Some(action) = keys::action_for_key(app.context(), &event) {
        update(app, action);
    }
}

pub(super) fn detail_text(app: &App, width: u16) -> String {
    detail::lines(app, width)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Position of the first cell showing `symbol` at or right of column `from_x`.
fn find_cell(buf: &Buffer, symbol: &str, from_x: u16) -> Option<(u16, u16)> {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        for x in from_x..area.right() {
            if buf[(x, y)].symbol() == symbol {
                return Some((x, y));
            }
        }
    }
    None
}

/// Position of the first occurrence of `text` at or right of column `from_x`.
fn find_text(buf: &Buffer, text: &str, from_x: u16) -> Option<(u16, u16)> {
    let area = buf.area;
    let n = text.chars().count() as u16;
    for y in area.top()..area.bottom() {
        for x in from_x..area.right().saturating_sub(n) {
            let here: String = (x..x + n)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect();
            if here == text {
                return Some((x, y));
            }
        }
    }
    None
}

/// The text inside one tree pane.
fn pane_text(app: &App, side: Side) -> String {
    let buf = buffer(app);
    let area = app.areas().trees[side.index()].expect("tree pane");
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn pointer(app: &App, side: Side) -> String {
    app.selected_pointer(side).unwrap_or("<none>").to_owned()
}

fn linked_pointers(app: &App, side: Side) -> Vec<String> {
    let pane = app.view.as_ref().expect("view").pane(side);
    pane.linked
        .iter()
        .map(|&id| pane.tree.node(id).pointer.to_string())
        .collect()
}

// ---------------------------------------------------------------- rendering

#[test]
fn trees_with_highlights_and_legend() {
    let app = open("nested-union-pydantic.json", COLOR, 160, 45);
    let buf = buffer(&app);
    snap("wide_nested_union_pydantic", draw(&app).backend());

    // Highlights are styled by kind, not only by glyph: the flattened union in the projection
    // tree (right half) is magenta and bold.
    let (x, y) = find_cell(&buf, "◆", 100).expect("flattened glyph in the projection tree");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    // The discriminator turned enum: its own glyph and colour.
    let (x, y) = find_cell(&buf, "#", 100).expect("tag enum glyph");
    assert_eq!(buf[(x, y)].fg, Color::LightMagenta);
    // Required dropped: italic yellow.
    let (x, y) = find_cell(&buf, "?", 100).expect("required dropped glyph");
    assert_eq!(buf[(x, y)].fg, Color::LightYellow);
    assert!(buf[(x, y)].modifier.contains(Modifier::ITALIC));
    // The legend (second to last row) lists the kinds present.
    let legend: String = (0..buf.area.width)
        .map(|x| buf[(x, buf.area.height - 2)].symbol().to_owned())
        .collect();
    for mark in [
        Mark::Flattened,
        Mark::TagEnum,
        Mark::RequiredDropped,
        Mark::RefInlined,
    ] {
        assert!(
            legend.contains(mark.label()),
            "legend lacks {:?}: {legend}",
            mark
        );
    }
}

#[test]
fn no_color_keeps_glyphs_and_modifiers() {
    let app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    let buf = buffer(&app);
    let (x, y) = find_cell(&buf, "◆", 100).expect("glyph without colour");
    assert_eq!(buf[(x, y)].fg, Color::Reset);
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    for cell in buf.content() {
        assert!(
            matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
            "colour used under NO_COLOR: {cell:?}"
        );
    }
}

#[test]
fn small_terminal_80x24() {
    let app = open("mcp-tools-list.json", PLAIN, 80, 24);
    snap("small_80x24_mcp_tools_list", screen(&app));
}

#[test]
fn small_terminal_shows_tools_when_focused() {
    let mut app = open("mcp-tools-list.json", PLAIN, 80, 24);
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Tools);
    keys(&mut app, "j");
    snap("small_80x24_tools_focused", screen(&app));
}

#[test]
fn tiny_terminal_says_so() {
    let app = open("mcp-tools-list.json", PLAIN, 30, 8);
    assert!(screen(&app).contains("Terminal too small"));
}

#[test]
fn help_overlay_is_generated_from_the_key_table() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 100, 62);
    keys(&mut app, "?");
    assert_eq!(app.context(), Context::Overlay);
    let text = screen(&app);
    snap("help_overlay", &text);
    for binding in BINDINGS.iter().filter(|b| b.scope != keys::Scope::Overlay) {
        assert!(text.contains(binding.help), "help lacks {:?}", binding.help);
    }
}

#[test]
fn detail_pane_for_rule_kinds() {
    let cases = [
        (
            "nested-union-pydantic.json",
            Side::Projection,
            "/properties/op",
            "flattened",
        ),
        (
            "nested-union-pydantic.json",
            Side::Projection,
            "/properties/op/properties/action",
            "tag_enum",
        ),
        (
            "nested-union-pydantic.json",
            Side::Projection,
            "/properties/op/properties/user_id",
            "required_dropped",
        ),
        (
            "nested-union-pydantic.json",
            Side::Original,
            "/properties/op/oneOf/0",
            "ref_inlined_original",
        ),
        (
            "scalar-collisions.json",
            Side::Projection,
            "/properties/charge/properties/code",
            "widened",
        ),
        (
            "object-array-collision.json",
            Side::Projection,
            "/properties/entry/properties/value",
            "alternatives",
        ),
        (
            "recursive-expression.json",
            Side::Projection,
            "/properties/expr/properties/left/properties/arg/properties/arg",
            "recursion_cut",
        ),
        (
            "openapi-allof-inheritance.json",
            Side::Projection,
            "/properties/pet",
            "allof_merged",
        ),
    ];
    for (file, side, at, name) in cases {
        let mut app = open(file, PLAIN, 120, 40);
        assert!(app.select_pointer(side, at), "{file}: no node at {at}");
        assert_eq!(pointer(&app, side), at);
        snap(&format!("detail_{name}"), detail_text(&app, 118));
    }
}

#[test]
fn detail_pane_for_union_kept_says_why() {
    let mut app = open("anthropic-tools.json", PLAIN, 120, 40);
    keys(&mut app, "]]");
    assert!(app.select_pointer(Side::Projection, "/properties/identifier"));
    let text = detail_text(&app, 118);
    assert!(text.contains("not a discriminated union because"), "{text}");
    snap("detail_union_kept", text);
}

#[test]
fn detail_pane_for_deduplicated_and_unconstrained_joins() {
    let schema = json!({
        "title": "Joins",
        "type": "object",
        "properties": {"v": {"oneOf": [
            {"type": "object", "properties": {
                "k": {"const": "a"}, "same": {"type": "string", "description": "A's"},
                "free": {"type": "string"}},
             "required": ["k"]},
            {"type": "object", "properties": {
                "k": {"const": "b"}, "same": {"type": "string", "description": "B's"},
                "free": {}},
             "required": ["k"]}
        ]}}
    });
    let text = schema.to_string();
    let mut app = open_text(&[("joins.json", &text)], Options::flat(), 120, 40);
    assert!(app.select_pointer(Side::Projection, "/properties/v/properties/same"));
    let dedup = detail_text(&app, 118);
    assert!(app.select_pointer(Side::Projection, "/properties/v/properties/free"));
    let free = detail_text(&app, 118);
    snap("detail_deduplicated", &dedup);
    snap("detail_unconstrained", &free);
}

#[test]
fn detail_pane_stacks_before_and_after_when_narrow() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 80, 24);
    assert!(app.select_pointer(Side::Projection, "/properties/op/properties/action"));
    let text = detail_text(&app, 78);
    let before = text.find("before (original)").expect("before");
    let after = text.find("after (projection)").expect("after");
    assert!(before < after);
}

#[test]
fn bad_json_shows_file_line_and_column() {
    let app = open_text(
        &[(
            "broken.json",
            "{\n  \"type\": \"object\",\n  \"properties\": {,}\n}",
        )],
        Options::flat(),
        80,
        24,
    );
    let text = screen(&app);
    assert!(text.contains("broken.json:3:"), "{text}");
    snap("error_bad_json", text);
}

/// A depth lowered to fit the unrolling budget is the engine's decision, read from its trace:
/// the projection title says so on every screen, the root's detail says why.
#[test]
fn a_lowered_recursion_depth_is_shown() {
    let mut app = open("expression-tree-pydantic.json", PLAIN, 160, 45);
    let shown = screen(&app);
    assert!(shown.contains("↺ depth 1 of 3"), "{shown}");
    assert!(app.select_pointer(Side::Projection, ""), "the root");
    let detail = detail_text(&app, 158);
    assert!(
        detail.contains("Recursion unrolled to depth 1 instead of 3"),
        "{detail}"
    );
    let quiet = open("recursive-expression.json", PLAIN, 160, 45);
    assert!(
        !screen(&quiet).contains("↺ depth"),
        "not lowered, not shown"
    );
}

#[test]
fn projection_budget_error_names_the_pointer() {
    // Each level doubles: a small ref bomb, with a budget far below its expansion.
    let mut defs = serde_json::Map::new();
    defs.insert("L0".into(), json!({"type": "string"}));
    for i in 1..=12 {
        let prev = format!("#/$defs/L{}", i - 1);
        defs.insert(
            format!("L{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    let schema = json!({"title": "Bomb", "$defs": defs, "type": "object",
        "properties": {"x": {"$ref": "#/$defs/L12"}}});
    let options = Options {
        node_budget: Some(500),
        ..Options::flat()
    };
    let text = schema.to_string();
    let app = open_text(&[("bomb.json", &text)], options, 100, 30);
    let view = app.view.as_ref().expect("the original is still shown");
    let error = view.error.as_deref().expect("projection error");
    assert!(error.contains("bomb.json"), "{error}");
    assert!(error.contains("500"), "{error}");
    let screen = screen(&app);
    assert!(screen.contains("Projection failed"), "{screen}");
    snap("error_projection_budget", screen);
}

#[test]
fn untrusted_text_is_escaped() {
    let schema = json!({
        "title": "evil\u{1b}]0;pwned\u{7}",
        "type": "object",
        "description": "desc \u{1b}[2J with \u{202e} bidi",
        "properties": {"na\u{1b}[31mme": {"type": "string", "description": "line1\nline2\u{9b}"}}
    });
    let text = schema.to_string();
    let mut app = open_text(&[("evil.json", &text)], Options::flat(), 120, 40);
    assert!(app.select_pointer(Side::Original, "/properties/na\u{1b}[31mme"));
    let buf = buffer(&app);
    for cell in buf.content() {
        assert!(
            !cell
                .symbol()
                .chars()
                .any(|c| c.is_control() || c == '\u{202e}'),
            "raw control character in cell {cell:?}"
        );
    }
    let screen = draw(&app).backend().to_string();
    assert!(screen.contains("na\\u{1b}[31mme"), "{screen}");
    assert!(screen.contains("evil\\u{1b}]0;pwned\\u{7}"), "{screen}");
    assert!(screen.contains("line1\\nline2\\u{9b}"), "{screen}");
}

// ---------------------------------------------------------------- state transitions

#[test]
fn selecting_an_original_node_selects_its_projection() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert!(app.select_pointer(Side::Original, "/$defs/CreateUser/properties/action"));
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/action"
    );
    // Many-to-one: the projected tag came from both branches; both are linked.
    assert!(app.select_pointer(Side::Projection, "/properties/op/properties/action"));
    assert_eq!(
        linked_pointers(&app, Side::Original),
        [
            "/$defs/CreateUser/properties/action",
            "/$defs/DeleteUser/properties/action"
        ]
    );
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/CreateUser/properties/action"
    );
    // Both linked rows are marked in the original tree: the counterpart as selected, the other
    // underlined.
    let buf = buffer(&app);
    let row = (0..buf.area.height)
        .find(|&y| {
            let line: String = (0..80).map(|x| buf[(x, y)].symbol().to_owned()).collect();
            line.contains("action*") && line.contains("\"delete\"")
        })
        .expect("DeleteUser action row");
    let x = (0..80)
        .find(|&x| buf[(x, row)].symbol() == "a" && buf[(x + 1, row)].symbol() == "c")
        .expect("name");
    assert!(buf[(x, row)].modifier.contains(Modifier::UNDERLINED));
}

#[test]
fn keys_move_and_link() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert_eq!(app.focus, Pane::Original);
    assert_eq!(pointer(&app, Side::Original), "");
    keys(&mut app, "jj");
    assert_eq!(pointer(&app, Side::Original), "/properties/op/oneOf/0");
    assert_eq!(pointer(&app, Side::Projection), "/properties/op");
    keys(&mut app, "jjj");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/CreateUser/properties/action"
    );
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/action"
    );
    keys(&mut app, "k");
    assert_eq!(pointer(&app, Side::Original), "/$defs/CreateUser");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Projection);
    keys(&mut app, "G");
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/user_id"
    );
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/DeleteUser/properties/user_id"
    );
    keys(&mut app, "g");
    assert_eq!(pointer(&app, Side::Projection), "");
    key(&mut app, KeyCode::Down);
    assert_eq!(pointer(&app, Side::Projection), "/properties/op");
    key(&mut app, KeyCode::Up);
    assert_eq!(pointer(&app, Side::Projection), "");
}

#[test]
fn tab_into_the_other_tree_keeps_the_detail_pane_s_counterparts() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert!(app.select_pointer(Side::Original, "/$defs/CreateUser/properties/action"));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Projection);
    // Tab only moves the focus: both selections stay where they were.
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/action"
    );
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/CreateUser/properties/action"
    );
    // The projected tag came from both branches, and the detail pane says so.
    let detail = detail_text(&app, 160);
    assert!(
        detail.contains(
            "from original: #/$defs/CreateUser/properties/action, #/$defs/DeleteUser/properties/action"
        ),
        "{detail}"
    );
    assert!(!detail.contains("no original node"), "{detail}");
    assert!(!detail.contains("(no counterpart)"), "{detail}");
    assert_eq!(
        linked_pointers(&app, Side::Original),
        [
            "/$defs/CreateUser/properties/action",
            "/$defs/DeleteUser/properties/action"
        ]
    );
    // And back: from the projection into the original, by the other way round the panes.
    keys(&mut app, "j");
    let projected = pointer(&app, Side::Projection);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Original);
    let detail = detail_text(&app, 160);
    assert!(
        detail.contains(&format!("projected at: #{projected}")),
        "{detail}"
    );
    assert!(!detail.contains("nowhere"), "{detail}");
}

#[test]
fn fold_unfold_expand_collapse() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert!(app.select_pointer(Side::Original, "/$defs/CreateUser"));
    let at = "/$defs/CreateUser";
    let shown = |app: &App| pane_text(app, Side::Original).matches("action*").count();
    assert_eq!(shown(&app), 2);
    keys(&mut app, "h");
    assert_eq!(pointer(&app, Side::Original), at, "h folds before moving");
    assert_eq!(shown(&app), 1);
    keys(&mut app, "h");
    assert_eq!(
        pointer(&app, Side::Original),
        "",
        "h on a folded node goes up"
    );
    assert!(app.select_pointer(Side::Original, at));
    key(&mut app, KeyCode::Enter);
    assert_eq!(shown(&app), 2, "Enter unfolds");
    keys(&mut app, " ");
    assert_eq!(shown(&app), 1, "Space folds");
    keys(&mut app, "ll");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/CreateUser/properties/action",
        "l unfolds, then goes to the first child"
    );
    keys(&mut app, "H");
    assert_eq!(pointer(&app, Side::Original), at);
    keys(&mut app, "C");
    assert_eq!(shown(&app), 0, "C collapses all");
    assert_eq!(
        pointer(&app, Side::Original),
        at,
        "the selection stays visible"
    );
    keys(&mut app, "E");
    assert_eq!(shown(&app), 2, "E expands all");
    assert!(pane_text(&app, Side::Original).contains("oneOf[1]"));
}

#[test]
fn mode_switch_reprojects_and_keeps_the_selection() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert!(app.select_pointer(Side::Original, "/$defs/FullUser/properties/email"));
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/payload/properties/email"
    );
    keys(&mut app, "m");
    assert_eq!(app.options.mode, Mode::Inline);
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/FullUser/properties/email"
    );
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/anyOf/0/properties/payload/anyOf/0/properties/email"
    );
    assert!(screen(&app).contains("Projection · inline"));
    keys(&mut app, "m");
    assert_eq!(app.options.mode, Mode::Flat);
}

#[test]
fn search_with_n_and_shift_n() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    keys(&mut app, "/");
    assert_eq!(app.context(), Context::Input);
    // Descriptions are searched: both `name` properties say "Display name.".
    keys(&mut app, "display");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/FullUser/properties/name"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Pane(Pane::Original));
    keys(&mut app, "n");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/StubUser/properties/name"
    );
    keys(&mut app, "n");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/FullUser/properties/name",
        "n wraps around"
    );
    keys(&mut app, "N");
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/StubUser/properties/name"
    );
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/payload/properties/name",
        "a match links like any selection"
    );
    // Folded nodes are searched too, and unfolded to show the match.
    keys(&mut app, "C/user_id");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/DeleteUser/properties/user_id"
    );
    assert!(screen(&app).contains("user_id*"));
    // Esc while typing goes back to where the search started.
    keys(&mut app, "/zzz");
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/DeleteUser/properties/user_id"
    );
    assert!(!app.quit);
}

#[test]
fn tool_filter_as_you_type() {
    let mut app = open("mcp-tools-list.json", PLAIN, 120, 40);
    assert_eq!(app.visible.len(), 4);
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Tools);
    keys(&mut app, "/mov");
    assert_eq!(app.visible.len(), 1);
    let tool = app
        .tool(app.current_entry().unwrap())
        .unwrap()
        .1
        .name
        .clone();
    assert_eq!(tool, "move_file");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.filter, "mov");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Original, "Enter opens the tool");
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    keys(&mut app, "/");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.visible.len(), 4, "Esc clears the filter");
    assert_eq!(
        app.tool(app.current_entry().unwrap()).unwrap().1.name,
        "move_file",
        "the shown tool stays selected"
    );
    keys(&mut app, "]");
    assert_eq!(
        app.tool(app.current_entry().unwrap()).unwrap().1.name,
        "list_labels"
    );
    keys(&mut app, "[[");
    assert_eq!(
        app.tool(app.current_entry().unwrap()).unwrap().1.name,
        "search"
    );
}

#[test]
fn help_keys_and_quit() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 100, 30);
    keys(&mut app, "?");
    keys(&mut app, "jj");
    assert_eq!(app.overlay.as_ref().map(|o| o.scroll()), Some(2));
    keys(&mut app, "G");
    let bottom = app.overlay.as_ref().map(|o| o.scroll()).unwrap();
    keys(&mut app, "j");
    assert_eq!(
        app.overlay.as_ref().map(|o| o.scroll()),
        Some(bottom),
        "scroll stops at the end"
    );
    keys(&mut app, "q");
    assert!(app.overlay.is_none(), "q closes the help, it does not quit");
    assert!(!app.quit);
    key(&mut app, KeyCode::Esc);
    assert!(app.quit);
}

#[test]
fn detail_pane_scrolls_when_focused() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 80, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Detail);
    keys(&mut app, "jjj");
    assert_eq!(app.detail_scroll, 3);
    keys(&mut app, "g");
    assert_eq!(app.detail_scroll, 0);
}

#[test]
fn mouse_click_selects_and_wheel_scrolls() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    let buf = buffer(&app);
    let (x, y) = find_text(&buf, "user_id", 100).expect("user_id row in the projection tree");
    update(&mut app, Action::Click { column: x, row: y });
    assert_eq!(app.focus, Pane::Projection);
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/user_id"
    );
    assert_eq!(
        pointer(&app, Side::Original),
        "/$defs/DeleteUser/properties/user_id"
    );
    // Wheel scrolls the pane under the pointer without moving the selection.
    update(&mut app, Action::ScrollDown { column: x, row: y });
    assert_eq!(
        pointer(&app, Side::Projection),
        "/properties/op/properties/user_id"
    );
}

#[test]
fn every_bound_action_is_safe_in_every_context() {
    for file in ["nested-union-pydantic.json", "recursive-expression.json"] {
        for focus in Pane::CYCLE {
            let mut app = open(file, PLAIN, 80, 24);
            app.focus = focus;
            for binding in BINDINGS {
                for k in binding.keys {
                    let _ = buffer(&app);
                    if let Some(action) = keys::action_for_key(
                        app.context(),
                        &KeyEvent::new(k.code, KeyModifiers::NONE),
                    ) && action != Action::Quit
                    {
                        update(&mut app, action);
                    }
                }
            }
            let _ = buffer(&app);
        }
    }
}

#[test]
fn mode_switch_with_no_files_and_bad_files_does_not_crash() {
    let mut app = open_text(&[], Options::flat(), 80, 24);
    for c in "jkhlEC m/x".chars() {
        keys(&mut app, &c.to_string());
    }
    key(&mut app, KeyCode::Esc);
    assert!(screen(&app).contains("No tool selected"));
    let mut app = open_text(
        &[("a.json", "[1, 2"), ("b.json", "{\"tools\": []}")],
        Options::flat(),
        100,
        30,
    );
    keys(&mut app, "m]jE");
    assert!(screen(&app).contains("b.json"));
}

/// Not a pass/fail test: the figure for "a 100k-node schema stays responsive". Run with
/// `cargo test --release -- --ignored --nocapture large_tree_frame_time`.
#[test]
#[ignore]
fn large_tree_frame_time() {
    use std::time::Instant;
    // 100 objects × 10 objects × 100 string properties ≈ 101k nodes, all expanded.
    let mut outer = serde_json::Map::new();
    for i in 0..100 {
        let mut mid = serde_json::Map::new();
        for j in 0..10 {
            let mut leaf = serde_json::Map::new();
            for k in 0..100 {
                leaf.insert(format!("p{k}"), json!({"type": "string", "maxLength": k}));
            }
            mid.insert(
                format!("m{j}"),
                json!({"type": "object", "properties": leaf}),
            );
        }
        outer.insert(
            format!("o{i}"),
            json!({"type": "object", "properties": mid}),
        );
    }
    let schema = json!({"title": "Big", "type": "object", "properties": outer});
    let text = schema.to_string();
    let start = Instant::now();
    let projection = schemalens::project(&schema, &Options::flat()).unwrap();
    let project = start.elapsed();
    let start = Instant::now();
    let tree = super::tree::SchemaTree::build(&schema, Side::Original, &projection.trace, "root");
    let build = start.elapsed();
    drop(tree);
    eprintln!("project {project:?}, tree build {build:?}");
    let start = Instant::now();
    let mut app = open_text(&[("big.json", &text)], Options::flat(), 200, 50);
    let load = start.elapsed();
    let nodes = app
        .view
        .as_ref()
        .unwrap()
        .pane(Side::Original)
        .tree
        .nodes
        .len();
    keys(&mut app, "E");
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).unwrap();
    let frames = 20;
    let start = Instant::now();
    for _ in 0..frames {
        terminal.draw(|f| render(&app, f)).unwrap();
    }
    let frame = start.elapsed() / frames;
    let start = Instant::now();
    keys(&mut app, "G");
    let key = start.elapsed();
    eprintln!(
        "{nodes} nodes per tree: load+project+build {load:?}, frame (both trees expanded) {frame:?}, G {key:?}"
    );
}

#[test]
fn json_view_shows_both_schemas() {
    let mut app = open("object-array-collision.json", PLAIN, 100, 30);
    keys(&mut app, "v");
    assert_eq!(app.context(), Context::Overlay);
    snap("json_view", screen(&app));
    keys(&mut app, "v");
    assert!(app.overlay.is_none());
}

#[test]
fn json_view_colours_tokens() {
    let line = overlay::json_lines(&json!({"a": "s", "n": 1, "b": true}), COLOR, 10);
    let styled: Vec<(String, Option<Color>)> = line[1]
        .spans
        .iter()
        .map(|s| (s.content.to_string(), s.style.fg))
        .collect();
    assert_eq!(styled[1], ("\"a\"".to_owned(), Some(Color::Cyan)));
    assert_eq!(styled[3], ("\"s\"".to_owned(), Some(Color::Green)));
}

#[test]
fn rules_screen_lists_every_rule_with_engine_output() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 120, 40);
    keys(&mut app, "R");
    let Some(overlay::Overlay::Rules { lines, .. }) = &app.overlay else {
        panic!("rules screen not open");
    };
    let text: String = lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                + "\n"
        })
        .collect();
    for rule in schemalens::projection::Rule::ALL {
        assert!(text.contains(rule.id()), "rules screen lacks {}", rule.id());
    }
    // Each example shows its own rule at work, in this build.
    assert!(!text.contains("did not trigger"), "{text}");
    snap("rules_screen", text);
    keys(&mut app, "R");
    assert!(app.overlay.is_none());
}

#[test]
fn yank_puts_json_pointer_and_schema_on_the_clipboard() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 120, 40);
    assert!(app.select_pointer(Side::Projection, "/properties/op/properties/action"));
    keys(&mut app, "y");
    let node: serde_json::Value = serde_json::from_str(app.clipboard.as_deref().unwrap()).unwrap();
    assert_eq!(
        node,
        json!({"type": "string", "enum": ["create", "delete"]})
    );
    keys(&mut app, "#");
    assert_eq!(
        app.clipboard.as_deref(),
        Some("#/properties/op/properties/action")
    );
    keys(&mut app, "Y");
    let schema: serde_json::Value =
        serde_json::from_str(app.clipboard.as_deref().unwrap()).unwrap();
    assert_eq!(
        &schema,
        &app.view
            .as_ref()
            .unwrap()
            .projection
            .as_ref()
            .unwrap()
            .schema
    );
    assert!(screen(&app).contains("copied the projected schema"));
}

#[test]
fn wrap_breaks_at_words_and_splits_long_ones() {
    use ratatui::text::Line;
    let lines = [
        Line::from("alpha beta gamma delta"),
        Line::from("0123456789abcdef"),
        Line::from("short"),
    ];
    let wrapped = super::render::wrap(&lines, 10);
    let text: Vec<String> = wrapped.iter().map(|l| l.to_string()).collect();
    assert_eq!(
        text,
        [
            "alpha beta ",
            "gamma ",
            "delta",
            "0123456789",
            "abcdef",
            "short"
        ]
    );
    assert!(
        wrapped
            .iter()
            .all(|l| l.to_string().trim_end().chars().count() <= 10)
    );
}

// ---------------------------------------------------------------- payload panel

fn select_payload_named(app: &mut App, name: &str) {
    while app.focus != Pane::Payloads {
        key(app, KeyCode::Tab);
    }
    keys(app, "g");
    for _ in 0..100 {
        if app.payload_row().map(|r| r.name()) == Some(name.to_owned()) {
            return;
        }
        keys(app, "j");
    }
    panic!("no payload {name}");
}

fn payload_detail(app: &App) -> String {
    detail_text(app, 118)
}

#[test]
fn payload_panel_shows_each_class() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    let rows = &app.view.as_ref().unwrap().payloads;
    assert_eq!(rows.len(), 13);
    assert!(
        rows.iter().all(|r| r.agrees(&app.options) == Some(true)),
        "every sample payload is what its name says"
    );
    for (name, snapshot) in [
        ("valid-create-full.json", "payload_both_accept"),
        ("invalid-unknown-action.json", "payload_both_reject"),
        (
            "wrong-branch-delete-with-payload.json",
            "payload_projection_looser",
        ),
    ] {
        select_payload_named(&mut app, name);
        snap(snapshot, payload_detail(&app));
    }
    let text = payload_detail(&app);
    assert!(text.contains("why the projection accepts it"), "{text}");
    snap("payload_panel_screen", screen(&app));
}

#[test]
fn payload_panel_shows_each_payload_as_the_chosen_provider_is_sent_it() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    select_payload_named(&mut app, "valid-create-full.json");
    assert!(
        !payload_detail(&app).contains("sent to"),
        "nothing is sent without a provider"
    );
    keys(&mut app, "p");
    assert_eq!(app.profile, Some(schemalens::lint::Profile::OpenAiStrict));
    select_payload_named(&mut app, "valid-create-full.json");
    let text = payload_detail(&app);
    assert!(
        text.contains("sent to openai-strict: the tailored schema accepts"),
        "{text}"
    );
    // The optional `user_id` of the merged union is sent as null.
    assert!(text.contains("null for absent: /op/user_id"), "{text}");
    snap("payload_sent_openai_strict", text);
}

#[test]
fn selecting_a_payload_marks_the_rejecting_nodes() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    let rejecting = |app: &App, side: Side| {
        let pane = app.view.as_ref().unwrap().pane(side);
        pane.rejecting
            .iter()
            .map(|&id| pane.tree.node(id).pointer.to_string())
            .collect::<Vec<_>>()
    };
    assert!(
        rejecting(&app, Side::Original).is_empty(),
        "no marks before the panel is used"
    );
    select_payload_named(&mut app, "wrong-branch-delete-with-payload.json");
    assert!(!rejecting(&app, Side::Original).is_empty());
    assert!(
        rejecting(&app, Side::Projection).is_empty(),
        "the projection accepts it"
    );
    select_payload_named(&mut app, "invalid-user-id-string.json");
    assert!(!rejecting(&app, Side::Projection).is_empty());
    let buf = buffer(&app);
    assert!(
        find_text(&buf, " ✗", 32).is_some(),
        "rejecting rows carry a glyph"
    );
    key(&mut app, KeyCode::Enter);
    let first = rejecting(&app, Side::Original)[0].clone();
    assert_eq!(app.focus, Pane::Original);
    assert_eq!(pointer(&app, Side::Original), first);
}

#[test]
fn new_and_edit_ask_the_loop_for_an_editor_then_recheck() {
    let dir = std::env::temp_dir().join(format!("schemalens-tui-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("t.payloads")).unwrap();
    let manifest = dir.join("t.json");
    std::fs::write(
        &manifest,
        r#"{"title": "T", "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("t.payloads/valid-a.json"), r#"{"n": 1}"#).unwrap();
    let mut app = App::load(&[manifest], Options::flat(), PLAIN, true);
    update(
        &mut app,
        Action::Resize {
            width: 120,
            height: 40,
        },
    );
    select_payload_named(&mut app, "valid-a.json");
    keys(&mut app, "e");
    let Some(super::app::Effect::Edit { path, create: None }) = app.effect.clone() else {
        panic!("e did not ask for an editor: {:?}", app.effect);
    };
    // What the editor would do:
    std::fs::write(&path, r#"{"n": "one"}"#).unwrap();
    update(&mut app, Action::PayloadsChanged);
    assert_eq!(
        app.payload_row().and_then(|r| r.class()),
        Some(schemalens::validate::Class::BothReject),
        "checked again after the edit"
    );
    keys(&mut app, "n");
    let Some(super::app::Effect::Edit {
        path,
        create: Some(skeleton),
    }) = app.effect.clone()
    else {
        panic!("n did not ask for a new payload");
    };
    assert_eq!(path, dir.join("t.payloads/new-1.json"));
    let value: serde_json::Value = serde_json::from_str(&skeleton).unwrap();
    assert!(value.get("n").is_some(), "{skeleton}");
    std::fs::write(&path, &skeleton).unwrap();
    update(&mut app, Action::PayloadsChanged);
    assert_eq!(
        app.payload_row().map(|r| r.name()),
        Some("new-1.json".to_owned())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn link_and_reject_marks_stop_at_the_last_row() {
    let mut app = open("scalar-collisions.json", COLOR, 160, 45);
    assert!(app.select_pointer(Side::Projection, "/properties/charge/properties/code"));
    assert!(linked_pointers(&app, Side::Original).len() > 1);
    let buf = buffer(&app);
    let area = app.areas().trees[0].unwrap();
    // The original tree is shorter than its pane: its last inner row is empty, and stays bare.
    let y = area.bottom() - 2;
    let row: String = (area.x + 1..area.right() - 1)
        .map(|x| buf[(x, y)].symbol().to_owned())
        .collect();
    assert!(row.trim().is_empty(), "{row:?}");
    for x in area.x + 1..area.right() - 1 {
        assert!(
            !buf[(x, y)].modifier.contains(Modifier::UNDERLINED),
            "empty row underlined at {x}"
        );
    }
}

// ---------------------------------------------------------------- provider lint

use schemalens::lint::{Profile, Severity};

/// The worst finding on the node at `pointer`, as the tree shows it.
fn worst_at(app: &App, side: Side, pointer: &str) -> Option<Severity> {
    let pane = app.view.as_ref().expect("view").pane(side);
    pane.lint.worst(pane.tree.find(pointer).expect(pointer))
}

fn lint_app(profile: Profile, theme: Theme, width: u16, height: u16) -> App {
    let mut app = open("nested-union-pydantic.json", theme, width, height);
    while app.profile != Some(profile) {
        keys(&mut app, "p");
    }
    app
}

#[test]
fn p_cycles_from_none_through_every_profile_back_to_none() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 160, 45);
    assert_eq!(app.profile, None, "no lint until asked for");
    let mut seen = Vec::new();
    for _ in 0..Profile::ALL.len() {
        keys(&mut app, "p");
        let profile = app.profile.expect("a profile");
        seen.push(profile);
        let view = app.view.as_ref().unwrap();
        assert_eq!(view.profile, Some(profile), "findings follow the profile");
        assert!(
            screen(&app).contains(&format!("lint {}", profile.name())),
            "status bar names {profile}"
        );
    }
    assert_eq!(seen, Profile::ALL);
    keys(&mut app, "p");
    assert_eq!(app.profile, None);
    let view = app.view.as_ref().unwrap();
    assert!(view.panes.iter().all(|p| p.lint.groups.is_empty()));
    assert!(view.report.is_none());
    assert!(!screen(&app).contains("│ lint "));
}

/// Every copy a group stands for, as the ungrouped lint lists them: (pointer, rule).
fn copies(groups: &[schemalens::lint::Group]) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &str)> = groups
        .iter()
        .flat_map(|g| g.pointers.iter().map(move |p| (p.clone(), g.finding.rule)))
        .collect();
    out.sort();
    out
}

fn ungrouped(findings: Vec<schemalens::lint::Finding>) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &str)> = findings.into_iter().map(|f| (f.pointer, f.rule)).collect();
    out.sort();
    out
}

#[test]
fn findings_are_the_engines_and_follow_tool_and_mode() {
    let mut app = lint_app(Profile::OpenAiStrict, PLAIN, 160, 45);
    let check = |app: &App| {
        let view = app.view.as_ref().unwrap();
        let (_, tool) = app.tool(view.entry).unwrap();
        let projection = view.projection.as_ref().unwrap();
        // A bare schema: no tool name, as `schemalens lint` does it.
        assert_eq!(
            copies(&view.panes[0].lint.groups),
            ungrouped(schemalens::lint::lint_schema(
                Profile::OpenAiStrict,
                &tool.schema
            ))
        );
        assert_eq!(
            copies(&view.panes[1].lint.groups),
            ungrouped(schemalens::lint::lint_schema(
                Profile::OpenAiStrict,
                &projection.schema
            ))
        );
        // The tailored verdict is the one `project --provider` earns.
        let tailored =
            schemalens::projection::tailor((**projection).clone(), Profile::OpenAiStrict);
        let report = view.report.as_ref().expect("a report for the profile");
        assert_eq!(
            copies(&report.form(schemalens::lint::report::Form::Tailored).groups),
            ungrouped(schemalens::lint::lint_schema(
                Profile::OpenAiStrict,
                &tailored.projection.schema
            ))
        );
    };
    check(&app);
    let flat = app.view.as_ref().unwrap().panes[1].lint.groups.clone();
    keys(&mut app, "m");
    assert_eq!(app.options.mode, Mode::Inline);
    check(&app);
    assert_ne!(
        app.view.as_ref().unwrap().panes[1].lint.groups,
        flat,
        "projected again, linted again"
    );
    // The same findings survive frames untouched: rendering never lints.
    let before = app.view.as_ref().unwrap().panes[1].lint.groups.clone();
    let _ = screen(&app);
    assert_eq!(app.view.as_ref().unwrap().panes[1].lint.groups, before);
}

#[test]
fn trees_with_lint_markers_for_openai_strict() {
    let app = lint_app(Profile::OpenAiStrict, COLOR, 160, 45);
    // `oneOf` is refused: the finding names the keyword, the marker goes on its node.
    assert_eq!(
        worst_at(&app, Side::Original, "/properties/op"),
        Some(Severity::Error)
    );
    assert_eq!(
        worst_at(&app, Side::Original, "/$defs/CreateUser/properties/payload"),
        Some(Severity::Error)
    );
    assert_eq!(worst_at(&app, Side::Original, ""), None);
    // The projection has no oneOf left, but optional properties strict mode refuses.
    assert_eq!(
        worst_at(&app, Side::Projection, "/properties/op"),
        Some(Severity::Error)
    );
    assert_eq!(
        worst_at(&app, Side::Projection, "/properties/op/properties/action"),
        None
    );
    let buf = buffer(&app);
    let (x, y) = find_cell(&buf, "●", 100).expect("error marker in the projection tree");
    assert_eq!(buf[(x, y)].fg, Color::LightRed);
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));
    let text = draw(&app).backend().to_string();
    assert!(text.contains("● ◆ op*"), "{text}");
    snap("lint_trees_openai_strict", text);
}

#[test]
fn lint_list_lists_both_sides_and_enter_goes_to_the_node() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 120, 30);
    keys(&mut app, "L");
    assert!(app.overlay.is_none(), "no list without a provider");
    assert!(screen(&app).contains("p cycles"));
    keys(&mut app, "pL");
    assert_eq!(app.context(), Context::Overlay);
    let text = screen(&app);
    snap("lint_list", &text);
    // The answer first: the three verdicts.
    assert!(
        text.contains(
            "UserOp · openai-strict: original rejected · projection rejected · tailored accepted (adapter)"
        ),
        "{text}"
    );
    assert!(
        text.contains("Original — rejected — 2 errors, 2 warnings"),
        "{text}"
    );
    assert!(
        text.contains("Projection (flat) — rejected — 3 errors"),
        "{text}"
    );
    assert!(
        text.contains("Tailored for openai-strict — accepted — no findings"),
        "{text}"
    );
    assert!(
        text.contains("payload adapter: null-for-absent at #/properties/op"),
        "{text}"
    );
    // The fifth finding is the projection's first: `required` on the flattened object.
    keys(&mut app, "jjjj");
    let text = screen(&app);
    assert!(
        text.contains("provider says: Invalid schema for function"),
        "{text}"
    );
    key(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(app.focus, Pane::Projection);
    assert_eq!(pointer(&app, Side::Projection), "/properties/op");
    // Opened again from that node, the list starts at its first finding.
    keys(&mut app, "L");
    assert!(matches!(
        app.overlay,
        Some(super::overlay::Overlay::Lint { selected: 4, .. })
    ));
    // `p` in the list moves on to the next provider and starts from the top.
    keys(&mut app, "p");
    assert_eq!(app.profile, Some(Profile::OpenAi));
    assert!(matches!(
        app.overlay,
        Some(super::overlay::Overlay::Lint { selected: 0, .. })
    ));
    key(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
}

#[test]
fn lint_list_answers_whole_at_80_columns() {
    let mut app = open("nested-union-pydantic.json", PLAIN, 80, 24);
    keys(&mut app, "pL");
    let text = screen(&app);
    assert!(
        text.contains("original rejected · projection rejected · tailored accepted (adapter)"),
        "{text}"
    );
}

#[test]
fn lint_list_scrolls_with_its_selection() {
    // Ollama finds something on most nodes of the projection: more rows than a short screen.
    let mut app = lint_app(Profile::Ollama, PLAIN, 80, 24);
    keys(&mut app, "L");
    let total = super::lint::selectable(app.view.as_ref().unwrap());
    let height = super::lint::list_height(app.size);
    assert!(total + 4 > height, "{total} findings fit in {height} rows");
    keys(&mut app, "G");
    let Some(super::overlay::Overlay::Lint { selected, offset }) = app.overlay.clone() else {
        panic!("lint list closed");
    };
    assert_eq!(selected, total - 1);
    assert!(offset > 0);
    assert!(screen(&app).contains("▸ "), "the selected row is on screen");
    keys(&mut app, "g");
    assert!(matches!(
        app.overlay,
        Some(super::overlay::Overlay::Lint {
            selected: 0,
            offset: 0
        })
    ));
}

/// The tailored schema's rows come after the last finding and cannot be selected: going on
/// from the last finding to the first payload brings them into view.
#[test]
fn lint_list_end_shows_the_tailored_schema() {
    let mut app = lint_app(Profile::OpenAiStrict, PLAIN, 100, 16);
    keys(&mut app, "Lg");
    let view = app.view.as_ref().unwrap();
    let rows = super::lint::rows(view).len();
    let findings = super::lint::count(view);
    let height = super::lint::list_height(app.size);
    assert!(rows > height, "{rows} rows fit in {height}");
    assert!(!screen(&app).contains("Tailored for openai-strict"));
    for _ in 0..findings {
        keys(&mut app, "j");
    }
    let text = screen(&app);
    assert!(text.contains("Payloads sent to openai-strict"), "{text}");
    assert!(text.contains("▸ "), "the selected row is on screen: {text}");
    assert!(
        text.contains("Tailored for openai-strict — accepted — no findings"),
        "{text}"
    );
    assert!(
        text.contains("nothing to report for openai-strict"),
        "{text}"
    );
}

/// Selects, in the open lint list, the payload called `name`.
fn select_sent_payload(app: &mut App, name: &str) {
    let view = app.view.as_ref().unwrap();
    let index = view
        .payloads
        .iter()
        .position(|r| r.name() == name)
        .unwrap_or_else(|| panic!("no payload {name}"));
    let steps = super::lint::count(view) + index;
    keys(app, "g");
    for _ in 0..steps {
        keys(app, "j");
    }
    let view = app.view.as_ref().unwrap();
    let Some(super::overlay::Overlay::Lint { selected, .. }) = app.overlay.clone() else {
        panic!("lint list closed");
    };
    assert_eq!(super::lint::payload_at(view, selected), Some(index));
}

/// A copy of the `json-value-pydantic` sample whose payload folder holds calls as a model
/// makes them for openai-strict's tailored schema: one as the adapter sends a valid payload,
/// one with made-up text where JSON text belongs, one with the map sent as an object (the
/// tailored schema wants its entries).
fn calls_app(dir: &std::path::Path) -> App {
    std::fs::copy(sample("json-value-pydantic.json"), dir.join("tool.json")).unwrap();
    let calls = dir.join("tool.payloads");
    std::fs::create_dir(&calls).unwrap();
    let good = json!({
        "key": "limits",
        "value": {"json": "{\"cpu\":[1,2.5,{\"burst\":true}]}"},
        "labels": [{"key": "owner", "value": "\"ops\""}, {"key": "tier", "value": "3"}],
        "more": null
    });
    let mut made_up = good.clone();
    made_up["value"]["json"] = json!("not json");
    let mut as_object = good.clone();
    as_object["labels"] = json!({"owner": "ops"});
    for (name, call) in [
        ("a-good.json", good),
        ("b-made-up.json", made_up),
        ("c-object.json", as_object),
    ] {
        std::fs::write(calls.join(name), call.to_string()).unwrap();
    }
    let mut app = App::load(&[dir.join("tool.json")], Options::flat(), PLAIN, true);
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 45,
        },
    );
    app
}

/// With a provider chosen, `c` reads each payload as the model's call: the tailored schema's
/// verdict, the text the adapter could not read, what the tool gets and the original's verdict
/// on it, as `check --from-model` gives them.
#[test]
fn payload_panel_reads_calls_from_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = calls_app(dir.path());
    while app.focus != Pane::Payloads {
        key(&mut app, KeyCode::Tab);
    }
    keys(&mut app, "c");
    assert!(!app.calls, "no provider, no tailored form to read calls in");
    assert!(
        screen(&app).contains("choose one with p"),
        "{}",
        screen(&app)
    );
    while app.profile != Some(Profile::OpenAiStrict) {
        keys(&mut app, "p");
    }
    keys(&mut app, "c");
    assert!(app.calls);
    let rows = &app.view.as_ref().unwrap().payloads;
    let read: Vec<(String, bool, bool, Vec<String>)> = rows
        .iter()
        .map(|r| {
            let c = &r.received.as_ref().expect("read as a call").received;
            (
                r.name(),
                c.call.valid,
                c.original.valid,
                c.given.unread.clone(),
            )
        })
        .collect();
    assert_eq!(
        read,
        vec![
            ("a-good.json".to_owned(), true, true, vec![]),
            (
                "b-made-up.json".to_owned(),
                true,
                true,
                vec!["/value".to_owned()]
            ),
            ("c-object.json".to_owned(), false, true, vec![]),
        ]
    );
    assert_eq!(
        rows[0].received.as_ref().unwrap().received.given.payload,
        json!({"key": "limits", "value": {"cpu": [1, 2.5, {"burst": true}]}, "labels": {"owner": "ops", "tier": 3}})
    );
    keys(&mut app, "j");
    let text = screen(&app);
    snap("payload_panel_calls_from_the_model", &text);
    assert!(text.contains("Calls for openai-strict 3"), "{text}");
    assert!(text.contains("▸ ✓→✓ unread:1 b-made-up.json"), "{text}");
    assert!(text.contains("text the adapter could not read"), "{text}");
    assert!(text.contains(r#""json": "not json""#), "{text}");
    keys(&mut app, "j");
    let text = screen(&app);
    assert!(text.contains("the tailored schema: rejects"), "{text}");
    // The lint list counts them as calls too.
    keys(&mut app, "L");
    let text = screen(&app);
    assert!(
        text.contains("Calls from the model for openai-strict (call → the original on what the tool gets): 2 of 3 in the tailored schema, 0 the tool rejects, 1 with unread text"),
        "{text}"
    );
    assert!(
        text.contains(
            "  ✓→✓ accepted             a-good.json  · the tool gets what the original accepts"
        ),
        "{text}"
    );
    key(&mut app, KeyCode::Esc);
    // Back to the tool's payloads, and none read as calls once no provider is chosen.
    keys(&mut app, "c");
    assert!(
        app.view
            .as_ref()
            .unwrap()
            .payloads
            .iter()
            .all(|r| r.received.is_none())
    );
    keys(&mut app, "c");
    while app.profile.is_some() {
        keys(&mut app, "p");
    }
    assert!(!app.calls);
    assert!(screen(&app).contains(" Payloads 3 "), "{}", screen(&app));
}

/// Under the tailored schema, the lint list shows each payload as the provider is sent it
/// (values it cannot take as they are go as JSON text or key/value entries), the tailored
/// schema's verdict, and whether the tool gets it back; Enter opens it in the payload panel.
#[test]
fn lint_list_shows_payloads_as_sent_and_back() {
    let mut app = open("json-value-pydantic.json", PLAIN, 120, 40);
    keys(&mut app, "pL");
    // The first payload comes with the heading that counts them all.
    let first = app.view.as_ref().unwrap().payloads[0].name();
    select_sent_payload(&mut app, &first);
    let text = screen(&app);
    assert!(
        text.contains("Payloads sent to openai-strict (original, projection → sent): "),
        "{text}"
    );
    assert!(text.contains(", 0 lost, all back exactly"), "{text}");
    select_sent_payload(&mut app, "valid-nested.json");
    let text = screen(&app);
    snap("lint_list_payloads_sent", &text);
    assert!(
        text.contains(
            "▸ ✓✓→✓ accepted             valid-nested.json  · back exactly · adapted: 4 in the provider's form · named valid"
        ),
        "{text}"
    );
    // The map's entries and the open value's JSON text, as sent.
    assert!(
        text.contains(r#""json": "{\"cpu\":[1,2.5,{\"burst\":true}]"#),
        "{text}"
    );
    assert!(text.contains(r#""key": "owner","#), "{text}");
    assert!(
        text.contains("back: un-adapted, the tool gets exactly this payload"),
        "{text}"
    );
    key(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    assert_eq!(app.focus, Pane::Payloads);
    assert_eq!(
        app.payload_row().map(|r| r.name()).as_deref(),
        Some("valid-nested.json")
    );
}

/// A payload with a key the object does not declare, where strict mode closes the object:
/// the key travels in the object's carrier and the tool gets the payload back whole (before,
/// the adapter dropped it and the list said "NOT back exactly").
#[test]
fn lint_list_says_a_payload_with_an_undeclared_key_comes_back_whole() {
    let mut app = open("nested-union-pydantic-default.json", PLAIN, 120, 40);
    keys(&mut app, "pL");
    select_sent_payload(&mut app, "valid-delete-with-unknown-property.json");
    let text = screen(&app);
    assert!(
        text.contains("valid-delete-with-unknown-property.json  · back exactly"),
        "{text}"
    );
    assert!(text.contains("in the provider's form: /op/more"), "{text}");
    assert!(
        text.contains("back: un-adapted, the tool gets exactly this payload"),
        "{text}"
    );
    let view = app.view.as_ref().unwrap();
    let row = view
        .payloads
        .iter()
        .find(|r| r.name() == "valid-delete-with-unknown-property.json")
        .unwrap();
    let sent = &row.sent.as_ref().expect("sent to openai-strict").sent;
    assert_eq!(
        sent.returned,
        json!({"op": {"action": "delete", "user_id": 42, "force": true}})
    );
    assert!(sent.round_trips);
}

#[test]
fn detail_pane_quotes_the_provider() {
    let mut app = lint_app(Profile::OpenAiStrict, PLAIN, 120, 40);
    assert!(app.select_pointer(Side::Original, "/properties/op"));
    let text = detail_text(&app, 118);
    assert!(
        text.contains("provider says: In context=('properties', 'op'), 'oneOf' is not permitted."),
        "{text}"
    );
    assert!(text.contains("[unconfirmed]"), "{text}");
    snap("detail_lint_openai_strict", text);
    assert!(app.select_pointer(Side::Original, "/properties/op/oneOf/0"));
    assert!(detail_text(&app, 118).contains("openai-strict: nothing to report on this node"));
}

#[test]
fn ollama_shows_what_the_model_sees() {
    let mut app = lint_app(Profile::Ollama, PLAIN, 160, 45);
    keys(&mut app, "w");
    let text = screen(&app);
    assert!(text.contains("dropped: 6 keys (1 structural)"), "{text}");
    assert!(
        text.contains("− structure  oneOf                 #/properties/op "),
        "{text}"
    );
    assert!(text.contains("what the model sees:"), "{text}");
    snap("ollama_model_view", &text);
    keys(&mut app, "w");
    assert!(app.overlay.is_none(), "w closes it again");
    // From the lint list, w leads there too.
    keys(&mut app, "Lw");
    assert!(matches!(
        app.overlay,
        Some(super::overlay::Overlay::Model { .. })
    ));
}

// ---------------------------------------------------------------- README screenshots

/// Writes `screenshots/*.svg`, the README's pictures, from the app's own render:
/// `cargo test --bin schemalens export_screenshots -- --ignored`. Ignored because it writes
/// into the source tree; run it after a change that shows on these screens.
#[test]
#[ignore = "writes screenshots/*.svg; run on purpose"]
fn export_screenshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    std::fs::create_dir_all(&dir).expect("screenshots/");
    let save = |name: &str, app: &App| {
        let svg = super::svg::to_svg(&buffer(app));
        std::fs::write(dir.join(format!("{name}.svg")), svg).expect("write svg");
    };

    // The main screen: a discriminated union flattened, its projection selected and linked.
    let mut app = open("nested-union-pydantic.json", COLOR, 160, 45);
    assert!(app.select_pointer(Side::Projection, "/properties/op"));
    save("main", &app);

    // The detail pane on a widened scalar collision.
    let mut app = open("scalar-collisions.json", COLOR, 160, 45);
    assert!(app.select_pointer(Side::Projection, "/properties/charge/properties/code"));
    save("detail-widened", &app);

    // The payload panel with a payload only the projection accepts.
    let mut app = open("nested-union-pydantic.json", COLOR, 160, 45);
    select_payload_named(&mut app, "wrong-branch-delete-with-payload.json");
    save("payloads", &app);

    let mut app = open("nested-union-pydantic.json", COLOR, 120, 45);
    keys(&mut app, "?");
    save("help", &app);

    let app = open("nested-union-pydantic.json", COLOR, 80, 24);
    save("small-80x24", &app);

    // Provider lint: openai-strict's findings on both trees, one of them in the detail pane.
    let mut app = open("nested-union-pydantic.json", COLOR, 160, 45);
    keys(&mut app, "p");
    assert!(app.select_pointer(Side::Projection, "/properties/op"));
    save("lint-openai-strict", &app);
    let mut app = open("nested-union-pydantic.json", COLOR, 120, 30);
    keys(&mut app, "pL");
    save("lint-list", &app);
    // Below the tailored schema, each payload as the provider is sent it, and back.
    let mut app = open("json-value-pydantic.json", COLOR, 120, 40);
    keys(&mut app, "pL");
    select_sent_payload(&mut app, "valid-nested.json");
    save("lint-payloads-sent", &app);

    // What an Ollama model sees of the original and of the projection.
    let mut app = open("nested-union-pydantic.json", COLOR, 160, 45);
    while app.profile != Some(schemalens::lint::Profile::Ollama) {
        keys(&mut app, "p");
    }
    keys(&mut app, "w");
    save("ollama-model-view", &app);

    // Why: a Gemini error body pasted with `!` led to its tool and node; the detail pane
    // explains. The sample is named relatively, as a user would, since the fix's command
    // shows the path.
    let mut app = App::load(
        &[PathBuf::from("samples/mcp-tools-list.json")],
        Options::flat(),
        COLOR,
        true,
    );
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 45,
        },
    );
    app.explain_error(concat!(
        "{\"error\": {\"code\": 400, \"message\": \"Invalid JSON payload received. Unknown name ",
        "\\\"const\\\" at 'tools[0].function_declarations[0].parameters.defs[1].value.properties[0].value': ",
        "Cannot find field.\", \"status\": \"INVALID_ARGUMENT\"}}"
    ));
    save("why", &app);

    // `schemalens --diff OLD NEW`: the changes screen, then the marks with a breaking change
    // selected.
    let pair = |name: &str| PathBuf::from("samples/diff").join(name);
    let mut app = App::load(&[pair("orders-v2.json")], Options::flat(), COLOR, true);
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 45,
        },
    );
    app.set_baseline(manifest::load_path(&pair("orders-v1.json"), None).expect("orders-v1"));
    save("diff-changes", &app);
    update(&mut app, Action::CloseOverlay);
    assert!(app.select_pointer(Side::Original, "/properties/payment"));
    save("diff-marks", &app);
}

/// An app over sample `name` whose projections wait in a worker the test runs by hand.
fn open_by_hand(name: &str, width: u16, height: u16) -> App {
    let worker = super::projecting::Worker::by_hand();
    let mut app =
        App::load_with_worker(&[sample(name)], Options::flat(), PLAIN, true, Some(worker));
    update(&mut app, Action::Resize { width, height });
    app
}

/// Computes the request waiting in the worker, and lets the app take what arrived.
fn run_worker(app: &mut App) -> Option<u64> {
    let generation = app.worker.as_ref().expect("a worker").run_one();
    app.poll_projection();
    generation
}

#[test]
fn a_tool_being_projected_shows_its_progress_then_the_same_screen_as_inline() {
    let mut app = open_by_hand("mcp-tools-list.json", 120, 30);
    assert!(app.view.is_none());
    let pending = app.pending.as_ref().expect("projecting in the background");
    assert_eq!(pending.entry, 0);
    snap("projecting_progress", screen(&app));
    // The indicator moves with the time the event loop's ticks report.
    let started = pending.started;
    super::live::handle(
        &mut app,
        super::live::Msg::Tick(started + std::time::Duration::from_millis(1250)),
    );
    let progress = screen(&app);
    assert!(progress.contains("⠹ projecting 1.2 s"), "{progress}");
    assert_eq!(run_worker(&mut app), Some(1));
    assert!(app.pending.is_none());
    assert_eq!(
        screen(&app),
        screen(&open("mcp-tools-list.json", PLAIN, 120, 30))
    );
}

#[test]
fn a_stale_projection_is_dropped_and_the_newest_shown() {
    let mut app = open_by_hand("mcp-tools-list.json", 120, 30);
    let worker = app.worker.as_ref().unwrap();
    // The first tool's result is computed but not taken yet when the user moves on.
    assert_eq!(worker.run_one(), Some(1));
    keys(&mut app, "]");
    assert_eq!(
        app.pending.as_ref().map(|p| (p.generation, p.entry)),
        Some((2, 1))
    );
    assert!(app.poll_projection(), "the first result arrives");
    assert!(
        app.view.is_none(),
        "and is dropped: it is not the tool asked for"
    );
    assert_eq!(app.pending.as_ref().map(|p| p.generation), Some(2));
    assert_eq!(run_worker(&mut app), Some(2));
    assert_eq!(app.view.as_ref().map(|v| v.entry), Some(1));
    assert!(app.pending.is_none());
}

#[test]
fn a_newer_request_supersedes_one_not_yet_started() {
    let mut app = open_by_hand("mcp-tools-list.json", 120, 30);
    keys(&mut app, "]]");
    // Only the newest request is left to compute.
    assert_eq!(run_worker(&mut app), Some(3));
    assert_eq!(app.worker.as_ref().unwrap().run_one(), None);
    assert_eq!(app.view.as_ref().map(|v| v.entry), Some(2));
}

#[test]
fn keys_work_while_projecting() {
    let mut app = open_by_hand("nested-union-pydantic.json", 120, 30);
    keys(&mut app, "?");
    assert_eq!(app.context(), Context::Overlay);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), Context::Pane(Pane::Original));
    // Moving in a tree that is not there yet does nothing, and breaks nothing.
    keys(&mut app, "jjlhE");
    // The mode switch asks again, under the new mode.
    keys(&mut app, "m");
    assert_eq!(app.options.mode, Mode::Inline);
    assert_eq!(app.pending.as_ref().map(|p| p.generation), Some(2));
    assert_eq!(run_worker(&mut app), Some(2));
    let mut inline = App::load(
        &[sample("nested-union-pydantic.json")],
        Options::inline(),
        PLAIN,
        true,
    );
    update(
        &mut inline,
        Action::Resize {
            width: 120,
            height: 30,
        },
    );
    assert_eq!(screen(&app), screen(&inline));
    // A switch while the view is shown keeps it on screen until the new one arrives.
    keys(&mut app, "m");
    assert!(app.view.is_some() && app.pending.is_some());
    assert!(screen(&app).contains("projecting 0.0 s"));
    assert_eq!(run_worker(&mut app), Some(3));
    assert!(app.message.as_deref().unwrap_or("").contains("flat mode"));
    keys(&mut app, "q");
    assert!(app.quit);
}

#[test]
fn the_lint_of_a_tool_projected_in_the_background_is_the_inline_one() {
    let mut inline = open("nested-union-pydantic.json", PLAIN, 160, 45);
    keys(&mut inline, "p");
    let expected = format!("{:?}", inline.view.as_ref().unwrap().report);
    assert!(inline.view.as_ref().unwrap().report.is_some());
    // The provider is chosen while the tool is projected: asked again, linted in the worker.
    let mut app = open_by_hand("nested-union-pydantic.json", 160, 45);
    keys(&mut app, "p");
    assert_eq!(app.pending.as_ref().map(|p| p.generation), Some(2));
    assert_eq!(run_worker(&mut app), Some(2));
    let view = app.view.as_ref().unwrap();
    assert_eq!(view.profile, inline.profile);
    assert_eq!(format!("{:?}", view.report), expected);
    // A reprojection lints in the worker, for the provider chosen.
    keys(&mut app, "mm");
    assert!(app.pending.is_some());
    run_worker(&mut app);
    keys(&mut inline, "mm");
    assert_eq!(screen(&app), screen(&inline));
    assert_eq!(format!("{:?}", app.view.as_ref().unwrap().report), expected);
}

#[test]
fn choosing_a_provider_lints_in_the_background_keeping_the_view() {
    let mut inline = open("nested-union-pydantic.json", PLAIN, 160, 45);
    keys(&mut inline, "jjlp");
    let mut app = open_by_hand("nested-union-pydantic.json", 160, 45);
    run_worker(&mut app);
    keys(&mut app, "jjl");
    let before = pointer(&app, Side::Original);
    keys(&mut app, "p");
    // The view stays, unlinted, until the lint arrives.
    let view = app.view.as_ref().expect("still shown");
    assert!(view.report.is_none());
    assert!(app.pending.is_some());
    assert!(screen(&app).contains("linting…"));
    assert_eq!(run_worker(&mut app), Some(2));
    assert!(app.view.as_ref().unwrap().report.is_some());
    assert_eq!(pointer(&app, Side::Original), before);
    assert_eq!(screen(&app), screen(&inline));
}

#[test]
fn moving_while_the_same_tool_is_linted_or_projected_again_is_kept() {
    let mut app = open_by_hand("nested-union-pydantic.json", 80, 24);
    run_worker(&mut app);
    // A provider chosen: the lint runs in the background, and a narrow status bar says so.
    keys(&mut app, "p");
    assert!(app.pending.is_some());
    let screen = screen(&app);
    let status = screen.lines().last().unwrap_or_default().trim_matches('"');
    assert!(status.starts_with(" ⠋ linting 0.0 s │ "), "{status}");
    // Keys keep working meanwhile, and what they did survives the lint's arrival.
    keys(&mut app, "jjjjj");
    let moved = pointer(&app, Side::Original);
    assert_eq!(moved, "/$defs/CreateUser/properties/action");
    keys(&mut app, "kh");
    let folded = pointer(&app, Side::Original);
    assert_eq!(folded, "/$defs/CreateUser");
    let opened = |app: &App| {
        let mut open = app.view.as_ref().unwrap().panes[0].opened_pointers();
        open.sort();
        open
    };
    let unfolded = opened(&app);
    assert!(!unfolded.iter().any(|p| p == "/$defs/CreateUser"));
    assert_eq!(run_worker(&mut app), Some(2));
    assert!(app.view.as_ref().is_some_and(|v| v.report.is_some()));
    assert_eq!(pointer(&app, Side::Original), folded);
    assert_eq!(opened(&app), unfolded);
    // The same for another open-branches policy and another mode.
    keys(&mut app, "o");
    keys(&mut app, "j");
    let moved = pointer(&app, Side::Original);
    assert_ne!(moved, folded);
    run_worker(&mut app);
    assert_eq!(pointer(&app, Side::Original), moved);
    keys(&mut app, "m");
    keys(&mut app, "j");
    let moved = pointer(&app, Side::Original);
    run_worker(&mut app);
    assert_eq!(app.options.mode, Mode::Inline);
    assert_eq!(pointer(&app, Side::Original), moved);
}

#[test]
fn a_superseded_projection_is_cancelled_and_its_result_never_shown() {
    use super::projecting::{Step, Worker, tests::until_running};
    let big = schemalens::projection::doubling(18);
    let text = json!({"tools": [
        {"name": "big", "inputSchema": big},
        {"name": "small", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    ]})
    .to_string();
    let source = text_source("m.json", &text);
    // Unbounded, so that the big tool projects for seconds instead of being refused.
    let options = Options {
        node_budget: Some(1 << 40),
        ..Options::flat()
    };
    let worker = Worker::start(|| {});
    let mut app = App::with_worker(vec![source], options, PLAIN, true, Some(worker));
    update(
        &mut app,
        Action::Resize {
            width: 120,
            height: 30,
        },
    );
    until_running(app.worker.as_ref().unwrap(), 1);
    keys(&mut app, "]");
    app.settle();
    assert_eq!(app.view.as_ref().map(|v| v.entry), Some(1));
    let worker = app.worker.as_ref().unwrap();
    assert_eq!(worker.stopped(), vec![(1, Step::Projection)]);
    assert!(worker.try_result().is_none(), "nothing of the big tool");
    assert!(pane_text(&app, Side::Projection).contains('q'));
}

#[test]
fn payload_verdicts_come_with_a_view_computed_in_the_background() {
    let mut app = open_by_hand("nested-union-pydantic.json", 120, 30);
    assert_eq!(run_worker(&mut app), Some(1));
    let inline = open("nested-union-pydantic.json", PLAIN, 120, 30);
    let rows = |app: &App| format!("{:?}", app.view.as_ref().unwrap().payloads);
    assert!(!app.view.as_ref().unwrap().payloads.is_empty());
    assert_eq!(rows(&app), rows(&inline));
    // With a provider, each payload is also judged as sent to it.
    keys(&mut app, "p");
    assert_eq!(run_worker(&mut app), Some(2));
    let mut inline = inline;
    keys(&mut inline, "p");
    assert_eq!(rows(&app), rows(&inline));
    assert_eq!(screen(&app), screen(&inline));
}

#[test]
fn a_request_shares_the_tool_s_schema_and_finds_its_projection_by_address() {
    let app = open("nested-union-pydantic.json", PLAIN, 120, 30);
    let manifest = app.sources[0].manifest.as_ref().unwrap();
    let request = app.request_for(0, manifest, 0, &[], true);
    // The worker gets the manifest's schema itself, not a copy of it.
    assert!(std::sync::Arc::ptr_eq(
        &request.tool.schema,
        &manifest.tools[0].schema
    ));
    // The view shown was kept in the cache: asked again, only the trees are left to build.
    let shown = app
        .view
        .as_ref()
        .and_then(|v| v.projection.clone())
        .unwrap();
    let cached = request
        .cached
        .expect("the shown projection, from the cache");
    assert!(std::sync::Arc::ptr_eq(&cached, &shown));
}

// ---------------------------------------------------------------- tool-list verdicts

use schemalens::lint::report::{Form, ToolForms, Verdict};

/// An Anthropic tool list of `n` tools strict tool use takes (one optional property each);
/// tool `repeat`, when given, is named as tool 0 is.
fn anthropic_tools(n: usize, repeat: Option<usize>) -> String {
    let tools: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let name = if Some(i) == repeat { 0 } else { i };
            // Closed, as Zod servers write them: an open object would get one more optional
            // property (the carrier of its other keys) and exhaust the request's budget of
            // optional properties before its cap of strict tools.
            json!({"name": format!("t{name}"), "input_schema": {"type": "object",
                "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["q"], "additionalProperties": false}})
        })
        .collect();
    serde_json::Value::Array(tools).to_string()
}

fn choose(app: &mut App, profile: Profile) {
    while app.profile != Some(profile) {
        keys(app, "p");
    }
}

/// Shows tool `index` of the first file.
fn go_to_tool(app: &mut App, index: usize) {
    while app.view.as_ref().map(|v| v.entry) != Some(index) {
        keys(app, "]");
    }
}

/// What `lint` of the whole file says of tool `index`: the report the inspector must show.
fn whole_file_lint(app: &App, profile: Profile, index: usize) -> String {
    let manifest = app.sources[0].manifest.as_ref().expect("loads");
    let projections: Vec<_> = manifest
        .tools
        .iter()
        .map(|t| schemalens::project_tool(t, &app.options).map_err(|e| e.to_string()))
        .collect();
    let forms: Vec<ToolForms<'_>> = manifest
        .tools
        .iter()
        .zip(&projections)
        .map(|(tool, p)| ToolForms {
            name: Some(tool.name.as_str()),
            tool,
            options: &app.options,
            projection: p.as_ref().map_err(String::as_str),
        })
        .collect();
    format!(
        "{:?}",
        schemalens::lint::report::lint_forms(profile, &forms)[index]
    )
}

#[test]
fn a_repeated_tool_name_is_rejected_on_the_tool_that_repeats_it() {
    let text = anthropic_tools(3, Some(2));
    let mut app = open_text(&[("tools.json", &text)], Options::flat(), 120, 30);
    choose(&mut app, Profile::Anthropic);
    let first = app.view.as_ref().unwrap().report.clone().unwrap();
    assert_eq!(first.verdict(Form::Tailored), Verdict::Accepted);
    go_to_tool(&mut app, 2);
    let report = app.view.as_ref().unwrap().report.as_ref().unwrap();
    for form in Form::ALL {
        assert_eq!(report.verdict(form), Verdict::Rejected, "{form}");
    }
    assert_eq!(
        format!("{report:?}"),
        whole_file_lint(&app, Profile::Anthropic, 2)
    );
    // The finding is about the tool entry: the root carries it, and the detail pane quotes
    // the provider.
    assert_eq!(worst_at(&app, Side::Original, ""), Some(Severity::Error));
    assert_eq!(worst_at(&app, Side::Projection, ""), Some(Severity::Error));
    let detail = detail_text(&app, 120);
    assert!(
        detail.contains("provider says: tools: Tool names must be unique."),
        "{detail}"
    );
    keys(&mut app, "L");
    let text = screen(&app);
    assert!(
        text.contains(
            "t0 · anthropic: original rejected · projection rejected · tailored rejected"
        ),
        "{text}"
    );
    assert!(
        text.contains("tool-name-unique (the tool entry)  Tool name `t0` is already used by tool #0 of this list."),
        "{text}"
    );
    snap("lint_list_repeated_name", text);
}

#[test]
fn anthropic_strict_says_which_tools_the_request_sends_strict() {
    let text = anthropic_tools(22, None);
    let mut app = open_text(&[("tools.json", &text)], Options::flat(), 160, 40);
    choose(&mut app, Profile::AnthropicStrict);
    let detail = detail_text(&app, 160);
    assert!(detail.contains("anthropic-strict: sent strict"), "{detail}");
    go_to_tool(&mut app, 21);
    let report = app.view.as_ref().unwrap().report.as_ref().unwrap();
    assert_eq!(
        format!("{report:?}"),
        whole_file_lint(&app, Profile::AnthropicStrict, 21)
    );
    let sent = report.sent.as_ref().expect("the plan decides");
    assert!(!sent.strict);
    assert!(
        app.message
            .as_deref()
            .is_none_or(|m| !m.contains("tailored accepted · strict")),
        "{:?}",
        app.message
    );
    // The tool entry says how it is sent, and why not strict.
    let detail = detail_text(&app, 160);
    assert!(
        detail.contains(
            "anthropic-strict: sent non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"
        ),
        "{detail}"
    );
    keys(&mut app, "L");
    let text = screen(&app);
    assert!(
        text.contains(
            "t21 · anthropic-strict: original accepted · projection accepted · tailored accepted · non-strict"
        ),
        "{text}"
    );
    assert!(
        text.contains("sent non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"),
        "{text}"
    );
    assert!(
        text.contains("one request takes 20 of the 22 tools strict"),
        "{text}"
    );
    snap("lint_list_strict_plan", text);
}

#[test]
fn the_tool_list_facts_are_made_once_per_file_version_and_in_the_background() {
    let text = anthropic_tools(22, Some(21));
    let mut inline = open_text(&[("tools.json", &text)], Options::flat(), 160, 40);
    choose(&mut inline, Profile::AnthropicStrict);
    go_to_tool(&mut inline, 21);
    let sources = vec![text_source("tools.json", &text)];
    let worker = super::projecting::Worker::by_hand();
    let mut app = App::with_worker(sources, Options::flat(), PLAIN, true, Some(worker));
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 40,
        },
    );
    run_worker(&mut app);
    keys(&mut app, "p");
    while app.pending.is_some() || app.profile != Some(Profile::AnthropicStrict) {
        if app.pending.is_some() {
            run_worker(&mut app);
        } else {
            keys(&mut app, "p");
        }
    }
    let set = app
        .view
        .as_ref()
        .unwrap()
        .tool_set
        .clone()
        .expect("made in the worker");
    for _ in 0..21 {
        keys(&mut app, "]");
        run_worker(&mut app);
    }
    let view = app.view.as_ref().unwrap();
    assert_eq!(view.entry, 21);
    let again = view.tool_set.as_ref().expect("found made");
    assert!(
        std::sync::Arc::ptr_eq(&set, again),
        "made once for the file"
    );
    assert_eq!(
        format!("{:?}", view.report),
        format!("{:?}", inline.view.as_ref().unwrap().report)
    );
    let rules: Vec<&str> = view
        .report
        .as_ref()
        .unwrap()
        .form(Form::Tailored)
        .groups
        .iter()
        .map(|g| g.finding.rule)
        .collect();
    assert_eq!(rules, ["tool-name-unique"]);
}
