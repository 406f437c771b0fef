//! The inspector's "why": `!` and bracketed paste open the prompt, Enter goes to the tool and
//! the node in both trees, the detail pane explains; `--why` starts there. Snapshots of the
//! prompt and of the screen it leads to.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use schemalens::Options;
use schemalens::lint::Profile;

use super::app::{App, InputPurpose, update};
use super::keys::{self, Action, Context, Pane};
use super::render::render;
use super::theme::Theme;
use super::tree::Side;

const PLAIN: Theme = Theme { color: false };

const GEMINI_BODY: &str = r#"HTTP/1.1 400 Bad Request
content-type: application/json; charset=UTF-8

{
  "error": {
    "code": 400,
    "message": "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[0].parameters.defs[1].value.properties[0].value': Cannot find field.",
    "status": "INVALID_ARGUMENT"
  }
}"#;

fn open(name: &str, width: u16, height: u16) -> App {
    // Relative (tests run in the crate's folder): the fix's command names the file as given,
    // and a snapshot must not hold this machine's path.
    let path = PathBuf::from("samples").join(name);
    let mut app = App::load(&[path], Options::flat(), PLAIN, true);
    update(&mut app, Action::Resize { width, height });
    app
}

fn screen(app: &App) -> String {
    let mut terminal =
        Terminal::new(TestBackend::new(app.size.width, app.size.height)).expect("terminal");
    terminal.draw(|f| render(app, f)).expect("draw");
    terminal.backend().to_string()
}

fn snap(name: &str, value: String) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("snapshots");
    settings.bind(|| insta::assert_snapshot!(name, value));
}

fn press(app: &mut App, code: KeyCode) {
    let event = KeyEvent::new(code, KeyModifiers::NONE);
    if let Some(action) = keys::action_for_key(app.context(), &event) {
        update(app, action);
    }
}

fn paste(app: &mut App, text: &str) {
    for action in keys::actions_for_paste(app.context(), text) {
        update(app, action);
    }
}

fn detail_text(app: &App) -> String {
    super::tests::detail_text(app, 120)
}

fn tool_name(app: &App) -> String {
    let entry = app.current_entry().expect("an entry");
    app.tool(entry).expect("a tool").1.name.clone()
}

#[test]
fn bang_opens_a_prompt_that_keeps_every_pasted_line() {
    let mut app = open("mcp-tools-list.json", 140, 40);
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.context(), Context::Input);
    snap("why_prompt_empty", screen(&app));
    paste(&mut app, GEMINI_BODY);
    let input = app.input.as_ref().expect("the prompt is open");
    assert_eq!(input.purpose, InputPurpose::Why);
    assert_eq!(
        input.text, GEMINI_BODY,
        "newlines and quotes kept as pasted"
    );
    snap("why_prompt_pasted", screen(&app));
    press(&mut app, KeyCode::Esc);
    assert!(app.input.is_none());
    assert!(app.why.is_none(), "cancel explains nothing");
}

#[test]
fn enter_goes_to_the_tool_and_node_in_both_trees_and_explains() {
    let mut app = open("mcp-tools-list.json", 140, 40);
    // Start elsewhere: the error is about the first tool.
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(tool_name(&app), "search");
    press(&mut app, KeyCode::Char('!'));
    paste(&mut app, GEMINI_BODY);
    press(&mut app, KeyCode::Enter);

    assert_eq!(tool_name(&app), "create_issue");
    assert_eq!(
        app.profile,
        Some(Profile::Gemini),
        "the lint follows the provider"
    );
    assert_eq!(
        app.selected_pointer(Side::Original),
        Some("/$defs/RepoTarget/properties/kind")
    );
    // The definition is inlined under the flattened union: its counterpart is selected too.
    assert_eq!(
        app.selected_pointer(Side::Projection),
        Some("/properties/target/properties/kind")
    );
    let text = detail_text(&app);
    assert!(
        text.contains("! Gemini said: Unknown name \"const\""),
        "{text}"
    );
    assert!(text.contains("rule: gemini/const (error)"), "{text}");
    assert!(
        text.contains("exists only in the original schema"),
        "{text}"
    );
    assert!(
        text.contains("$ schemalens project"),
        "the fix comes with its command: {text}"
    );
    snap("why_located", screen(&app));

    // Moving on leaves the explanation behind; coming back shows it again.
    press(&mut app, KeyCode::Char('k'));
    assert!(!detail_text(&app).contains("Gemini said"));
    press(&mut app, KeyCode::Char('j'));
    assert!(detail_text(&app).contains("Gemini said"));
}

#[test]
fn pasting_into_a_pane_opens_the_prompt_with_the_text() {
    let mut app = open("mcp-tools-list.json", 140, 40);
    assert_eq!(app.context(), Context::Pane(Pane::Original));
    paste(&mut app, "line one\r\nline two");
    let input = app.input.as_ref().expect("the prompt opened");
    assert_eq!(input.purpose, InputPurpose::Why);
    assert_eq!(input.text, "line one\nline two");
    // In a search, a pasted newline is a space: a search is one line.
    let mut app = open("mcp-tools-list.json", 140, 40);
    press(&mut app, KeyCode::Char('/'));
    paste(&mut app, "ti\ntle");
    assert_eq!(app.input.as_ref().unwrap().text, "ti tle");
}

#[test]
fn why_option_starts_on_the_node() {
    // `schemalens samples/openai-tools.json --why TEXT` calls this before the first frame.
    let mut app = open("openai-tools.json", 140, 40);
    app.explain_error(
        "openai.BadRequestError: Error code: 400 - {'error': {'message': \"Invalid schema for function 'update_booking': In context=('properties', 'change'), 'oneOf' is not permitted.\", 'type': 'invalid_request_error', 'param': 'tools[0].function.parameters'}}",
    );
    assert_eq!(tool_name(&app), "update_booking");
    assert_eq!(app.profile, Some(Profile::OpenAiStrict));
    assert_eq!(
        app.selected_pointer(Side::Original),
        Some("/properties/change")
    );
    let text = detail_text(&app);
    assert!(text.contains("openai-strict/oneof"), "{text}");
    assert!(text.contains("--mode inline"), "{text}");
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("why: OpenAI")),
        "{:?}",
        app.message
    );
}

#[test]
fn unknown_text_lists_the_closest_messages_in_the_detail_pane() {
    let mut app = open("openai-tools.json", 140, 40);
    app.explain_error("the server said no: 'oneOf' is not allowed here, sorry");
    assert_eq!(app.focus, Pane::Detail);
    let text = detail_text(&app);
    assert!(text.contains("Closest known messages"), "{text}");
    assert!(text.contains("openai-not-permitted"), "{text}");
    snap("why_unrecognised", screen(&app));
}
