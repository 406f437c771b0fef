//! The inspector's view of a schema change: `--diff OLD NEW` (the changes screen, class marks on
//! both trees, the classification and witness in the detail pane) and `D` in a normal session,
//! which compares with the file as it was opened while the watch delivers new versions.

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use schemalens::Options;
use schemalens::diff::Class;
use schemalens::manifest;
use schemalens::watch::{WatchEvent, content_hash};

use super::app::{App, update};
use super::changes;
use super::keys::Action;
use super::live::{Msg, handle};
use super::overlay::Overlay;
use super::render::render;
use super::theme::Theme;
use super::tree::Side;

const PLAIN: Theme = Theme { color: false };

/// Relative, as a user types it (tests run in the crate's folder): the changes screen names
/// the files, and a snapshot must not depend on where the checkout is.
fn pair(name: &str) -> PathBuf {
    PathBuf::from("samples/diff").join(name)
}

fn screen(app: &App) -> String {
    let mut terminal =
        Terminal::new(TestBackend::new(app.size.width, app.size.height)).expect("terminal");
    terminal.draw(|f| render(app, f)).expect("draw");
    terminal.backend().to_string()
}

fn snap(name: &str, value: impl std::fmt::Display) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("snapshots");
    settings.bind(|| insta::assert_snapshot!(name, value.to_string()));
}

/// `schemalens --diff orders-v1.json orders-v2.json`, as `run` sets it up.
fn diff_app(width: u16, height: u16) -> App {
    let mut app = App::load(&[pair("orders-v2.json")], Options::flat(), PLAIN, true);
    update(&mut app, Action::Resize { width, height });
    let old = manifest::load_path(&pair("orders-v1.json"), None).unwrap();
    app.set_baseline(old);
    app
}

#[test]
fn diff_mode_opens_on_the_changes_screen() {
    let app = diff_app(130, 40);
    assert!(matches!(app.overlay, Some(Overlay::Changes { .. })));
    let text = screen(&app);
    assert!(text.contains("orders-v1.json → "), "{text}");
    assert!(text.contains("alternative-removed"), "{text}");
    assert!(
        text.contains("witness (OLD accepts, NEW rejects)"),
        "{text}"
    );
    snap("diff_changes_screen", text);
}

#[test]
fn changed_nodes_carry_their_class_in_both_trees() {
    let mut app = diff_app(130, 40);
    update(&mut app, Action::CloseOverlay);
    let view = app.view.as_ref().unwrap();
    let diff = view.diff.as_ref().expect("create_order changed");
    // The payment union lost `voucher`: breaking, on the original's union node.
    let original = view.pane(Side::Original);
    let payment = original.tree.find("/properties/payment").unwrap();
    assert_eq!(original.diff_marks.get(&payment), Some(&Class::Breaking));
    // Its flattened form in the projection is marked too.
    let projected = view.pane(Side::Projection);
    let flat = projected.tree.find("/properties/payment").unwrap();
    assert_eq!(projected.diff_marks.get(&flat), Some(&Class::Breaking));
    assert!(diff.changes.iter().any(|c| c.kind == "alternative-removed"));
    let text = screen(&app);
    assert!(text.contains(changes::glyph(Class::Breaking)), "{text}");
    snap("diff_marks", text);
}

#[test]
fn the_detail_pane_gives_the_class_and_the_witness() {
    let mut app = diff_app(130, 40);
    update(&mut app, Action::CloseOverlay);
    assert!(app.select_pointer(Side::Original, "/properties/payment"));
    let lines = super::detail::lines(&app, 128);
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
    assert!(text.contains("Changed since"), "{text}");
    assert!(
        text.contains("↓ breaking: NEW rejects a payload OLD accepted"),
        "{text}"
    );
    assert!(
        text.contains("alternative removed: the one with method=\"voucher\""),
        "{text}"
    );
    assert!(text.contains("\"method\":\"voucher\""), "{text}");
}

#[test]
fn d_compares_with_the_file_as_it_was_opened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    std::fs::copy(pair("orders-v1.json"), &path).unwrap();
    let mut app = App::load(std::slice::from_ref(&path), Options::flat(), PLAIN, true);
    update(
        &mut app,
        Action::Resize {
            width: 120,
            height: 40,
        },
    );
    update(&mut app, Action::Changes);
    assert!(screen(&app).contains("Nothing changed."));
    update(&mut app, Action::CloseOverlay);

    // A save drops the `cancelled` status; the watch delivers it, the baseline stays.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let statuses = doc
        .pointer_mut("/tools/1/inputSchema/$defs/Status/enum")
        .unwrap()
        .as_array_mut()
        .unwrap();
    statuses.retain(|s| s != "cancelled");
    let content = serde_json::to_vec_pretty(&doc).unwrap();
    handle(
        &mut app,
        Msg::Watch(WatchEvent::Changed {
            path: path.clone(),
            hash: content_hash(&content),
            content,
        }),
    );
    update(&mut app, Action::Changes);
    let text = screen(&app);
    assert!(text.contains("as it was opened → as it is now"), "{text}");
    assert!(text.contains("list_orders  changed"), "{text}");
    assert!(text.contains("{\"status\":\"cancelled\"}"), "{text}");
    // A second save keeps measuring from the first version, not the previous save.
    update(&mut app, Action::CloseOverlay);
    let content = serde_json::to_vec_pretty(&doc).unwrap().repeat(1);
    let mut spaced = content.clone();
    spaced.push(b'\n');
    handle(
        &mut app,
        Msg::Watch(WatchEvent::Changed {
            path,
            hash: content_hash(&spaced),
            content: spaced,
        }),
    );
    update(&mut app, Action::Changes);
    assert!(screen(&app).contains("{\"status\":\"cancelled\"}"));
}

/// `schemalens orders-v2.json` with a worker that computes only when `run` says.
fn by_hand_app() -> App {
    let worker = super::projecting::Worker::by_hand();
    let mut app = App::load_with_worker(
        &[pair("orders-v2.json")],
        Options::flat(),
        PLAIN,
        true,
        Some(worker),
    );
    update(
        &mut app,
        Action::Resize {
            width: 130,
            height: 40,
        },
    );
    app
}

/// Computes the request waiting in the worker and lets the app take it; its generation.
fn run(app: &mut App) -> Option<u64> {
    let generation = app.worker.as_ref().expect("a worker").run_one();
    app.poll_projection();
    generation
}

#[test]
fn the_change_marks_come_with_a_view_computed_in_the_background() {
    let mut app = by_hand_app();
    run(&mut app);
    app.set_baseline(manifest::load_path(&pair("orders-v1.json"), None).unwrap());
    assert!(app.pending.is_some(), "the tool is asked for again, marked");
    // The changes screen says that its report is being computed.
    assert!(matches!(
        app.overlay,
        Some(Overlay::Changes { diffing: true, .. })
    ));
    snap("diff_changes_diffing", screen(&app));
    run(&mut app);
    let mut inline = diff_app(130, 40);
    let marks = |app: &App, i: usize| app.view.as_ref().unwrap().panes[i].diff_marks.clone();
    assert!(!marks(&app, 0).is_empty());
    assert_eq!(marks(&app, 0), marks(&inline, 0));
    assert_eq!(marks(&app, 1), marks(&inline, 1));
    assert_eq!(screen(&app), screen(&inline));

    // `D` again: the report alone is computed, the view stays and keys work meanwhile.
    update(&mut app, Action::CloseOverlay);
    let before = app.view.as_ref().map(|v| v.panes[0].tree.nodes.len());
    update(&mut app, Action::Changes);
    let pending = app.pending.as_ref().expect("diffed in the background");
    assert_eq!(pending.doing, "diffing");
    assert!(screen(&app).contains("Diffing every tool"));
    update(&mut app, Action::CloseOverlay);
    update(&mut app, Action::Down);
    assert_eq!(
        app.view.as_ref().map(|v| v.panes[0].tree.nodes.len()),
        before
    );
    // Opened again while it is computed: the same request is waited for.
    let generation = app.pending.as_ref().map(|p| p.generation);
    update(&mut app, Action::Changes);
    assert_eq!(app.pending.as_ref().map(|p| p.generation), generation);
    assert_eq!(run(&mut app), generation);
    assert!(app.pending.is_none());
    for action in [Action::CloseOverlay, Action::Down, Action::Changes] {
        update(&mut inline, action);
    }
    assert!(matches!(
        app.overlay,
        Some(Overlay::Changes { diffing: false, .. })
    ));
    assert_eq!(screen(&app), screen(&inline));
}

#[test]
fn a_changes_screen_closed_before_its_report_stays_closed() {
    let mut app = by_hand_app();
    run(&mut app);
    update(&mut app, Action::Changes);
    update(&mut app, Action::CloseOverlay);
    run(&mut app);
    assert!(app.overlay.is_none());
    assert!(app.pending.is_none());
    assert!(app.view.is_some());
}
