//! Live reprojection: `update` driven by synthetic watcher reports, snapshots of how a reload
//! and a bad save look, and one run against a real file and a real `Watcher`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

use schemalens::Options;
use schemalens::watch::{Target, WatchConfig, WatchEvent, Watcher, content_hash};

use super::AppEvent;
use super::app::{App, update};
use super::detail;
use super::keys::{Action, Pane};
use super::live::{CHANGE_MARKS_FOR, Change, Msg, Stale, WatchMode, handle};
use super::render::render;
use super::theme::Theme;
use super::tree::Side;

const PLAIN: Theme = Theme { color: false };

fn manifest(search: Value) -> Value {
    json!({"tools": [
        {"name": "search", "inputSchema": search},
        {"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}
    ]})
}

fn search_v1() -> Value {
    json!({"type": "object", "required": ["q"], "properties": {
        "q": {"type": "string", "description": "query"},
        "limit": {"type": "integer", "minimum": 1},
        "filter": {"type": "object", "properties": {
            "kind": {"type": "string"},
            "since": {"type": "string", "format": "date"}
        }}
    }})
}

/// A manifest written to a fresh folder, opened as the command line would open it.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    app: App,
}

fn fixture(doc: &Value, options: Options) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tools.json");
    std::fs::write(&path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    let app = open_with(&path, options, None);
    Fixture {
        _dir: dir,
        path,
        app,
    }
}

fn changed(path: &Path, content: &[u8]) -> Msg {
    Msg::Watch(WatchEvent::Changed {
        path: path.to_path_buf(),
        content: content.to_vec(),
        hash: content_hash(content),
    })
}

fn save(f: &mut Fixture, doc: &Value) {
    let bytes = serde_json::to_vec_pretty(doc).unwrap();
    handle(&mut f.app, changed(&f.path, &bytes));
}

pub(super) fn pointer(app: &App, side: Side) -> String {
    app.selected_pointer(side).unwrap_or("?").to_owned()
}

pub(super) fn change_at(app: &App, side: Side, at: &str) -> Option<Change> {
    let pane = app.view.as_ref()?.pane(side);
    let id = pane.tree.find(at)?;
    pane.changes.marks.get(&id).copied()
}

/// The screen, with the temporary folder (different on every run) cut from the paths. Shared
/// with `server_tests`.
pub(super) fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    terminal.draw(|f| render(app, f)).unwrap();
    let text = terminal.backend().to_string();
    match app.sources[0].file.as_deref().and_then(Path::parent) {
        Some(dir) => {
            let dir = format!("{}/", dir.display());
            // Same width, so the borders stay where they are.
            let masked = format!("{:…<width$}", "…", width = dir.chars().count());
            text.replace(&dir, &masked)
        }
        None => text,
    }
}

pub(super) fn status_line(app: &App) -> String {
    screen(app)
        .lines()
        .last()
        .unwrap_or_default()
        .trim_matches('"')
        .trim_end()
        .to_owned()
}

pub(super) fn detail_text(app: &App) -> String {
    detail::lines(app, 100)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn snap(name: &str, value: impl std::fmt::Display) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("snapshots");
    settings.bind(|| insta::assert_snapshot!(name, value.to_string()));
}

#[test]
fn the_first_report_of_what_is_shown_is_no_reload() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    let bytes = std::fs::read(&f.path).unwrap();
    handle(&mut f.app, changed(&f.path, &bytes));
    assert_eq!(f.app.change_count(), None);
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
}

#[test]
fn selection_folds_and_focus_are_kept_across_a_reload() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app
        .select_pointer(Side::Projection, "/properties/filter/properties/since");
    update(&mut f.app, Action::CollapseAll);
    f.app
        .select_pointer(Side::Projection, "/properties/filter/properties/since");
    let opened = f.app.view.as_ref().unwrap().panes[1].opened_pointers();
    assert!(opened.contains(&"/properties/filter".to_owned()));

    let mut v2 = search_v1();
    v2["properties"]["limit"]["minimum"] = json!(5);
    v2["properties"]["page"] = json!({"type": "integer"});
    save(&mut f, &manifest(v2));

    assert_eq!(f.app.focus, Pane::Projection);
    assert_eq!(
        pointer(&f.app, Side::Projection),
        "/properties/filter/properties/since"
    );
    // The other tree follows through the links, as it did before.
    assert_eq!(
        pointer(&f.app, Side::Original),
        "/properties/filter/properties/since"
    );
    let mut after = f.app.view.as_ref().unwrap().panes[1].opened_pointers();
    let mut before = opened;
    after.sort();
    before.sort();
    assert_eq!(after, before, "the same nodes are unfolded");
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/limit"),
        Some(Change::Changed)
    );
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/page"),
        Some(Change::Added)
    );
    assert_eq!(change_at(&f.app, Side::Original, "/properties/q"), None);
    assert_eq!(
        change_at(&f.app, Side::Original, ""),
        None,
        "children are their own"
    );
    assert_eq!(f.app.change_count(), Some(2));
    assert!(status_line(&f.app).contains("↻ 2 changed"));
}

#[test]
fn a_removed_node_leaves_the_selection_on_its_nearest_ancestor() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app
        .select_pointer(Side::Original, "/properties/filter/properties/since");
    let mut v2 = search_v1();
    v2["properties"]["filter"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("since");
    save(&mut f, &manifest(v2));

    assert_eq!(pointer(&f.app, Side::Original), "/properties/filter");
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/filter"),
        Some(Change::Removed)
    );
    assert_eq!(f.app.change_count(), Some(1));
    let detail = detail_text(&f.app);
    assert!(
        detail.contains("removed #/properties/filter/properties/since"),
        "{detail}"
    );
}

#[test]
fn the_selected_tool_is_kept_by_name_when_tools_move() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    update(&mut f.app, Action::NextTool);
    f.app.select_pointer(Side::Original, "/properties/url");
    let mut doc = manifest(search_v1());
    let tools = doc["tools"].as_array_mut().unwrap();
    tools.swap(0, 1);
    tools.insert(0, json!({"name": "new", "inputSchema": {"type": "object"}}));
    save(&mut f, &doc);
    let entry = f.app.current_entry().unwrap();
    assert_eq!(f.app.tool(entry).unwrap().1.name, "fetch");
    assert_eq!(f.app.view.as_ref().unwrap().entry, entry);
    assert_eq!(pointer(&f.app, Side::Original), "/properties/url");
    assert!(
        f.app
            .live
            .changed_tools
            .iter()
            .any(|(_, name)| name == "new")
    );
}

#[test]
fn invalid_json_keeps_the_last_good_view_and_the_next_good_save_recovers() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    // Half-written, as an editor that truncates and then writes can leave it.
    handle(
        &mut f.app,
        changed(&f.path, b"{\"tools\": [\n  {\"name\": \"search\",,"),
    );
    let source = &f.app.sources[0];
    let Some(Stale::Invalid(error)) = &source.stale else {
        panic!("{:?}", source.stale);
    };
    assert!(error.contains("tools.json:2:21"), "{error}");
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    assert_eq!(f.app.entries.len(), 2, "the last good tools stay listed");
    assert!(status_line(&f.app).contains("⚠"), "{}", status_line(&f.app));
    assert!(detail_text(&f.app).contains("tools.json:2:21"));

    let mut v2 = search_v1();
    v2["properties"]["limit"]["maximum"] = json!(50);
    save(&mut f, &manifest(v2));
    assert_eq!(f.app.sources[0].stale, None);
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/limit"),
        Some(Change::Changed),
        "changes are counted from the last good version"
    );
    assert!(!status_line(&f.app).contains("⚠"));
}

/// The save of a tool past the node budget (500) was refused; `/properties/q` stays selected
/// in the last good view.
fn assert_over_budget_and_last_good_view_kept(app: &App) {
    let Some(Stale::Invalid(error)) = &app.sources[0].stale else {
        panic!("{:?}", app.sources[0].stale);
    };
    assert!(error.contains("500"), "{error}");
    let view = app.view.as_ref().unwrap();
    assert!(view.projection.is_some(), "the last good projection stays");
    assert!(
        view.pane(Side::Original)
            .tree
            .find("/properties/x")
            .is_none()
    );
    assert_eq!(pointer(app, Side::Original), "/properties/q");
}

#[test]
fn a_projection_error_keeps_the_last_good_view() {
    let options = Options {
        node_budget: Some(500),
        ..Options::flat()
    };
    let mut f = fixture(&manifest(search_v1()), options);
    f.app.select_pointer(Side::Original, "/properties/q");
    // Each level doubles: far beyond the budget once expanded.
    let mut defs = serde_json::Map::new();
    defs.insert("L0".into(), json!({"type": "string"}));
    for i in 1..=12 {
        let prev = format!("#/$defs/L{}", i - 1);
        defs.insert(
            format!("L{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": prev}, "b": {"$ref": prev}}}),
        );
    }
    let mut bomb = search_v1();
    bomb["$defs"] = Value::Object(defs);
    bomb["properties"]["x"] = json!({"$ref": "#/$defs/L12"});
    save(&mut f, &manifest(bomb));

    assert_over_budget_and_last_good_view_kept(&f.app);

    save(&mut f, &manifest(search_v1()));
    assert_eq!(f.app.sources[0].stale, None);
}

#[test]
fn a_deleted_manifest_is_missing_and_comes_back_when_recreated() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    handle(
        &mut f.app,
        Msg::Watch(WatchEvent::Missing {
            path: f.path.clone(),
        }),
    );
    assert_eq!(f.app.sources[0].stale, Some(Stale::Missing));
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    assert!(status_line(&f.app).contains("missing"));

    // The watcher reports a recreated file even with the bytes it had.
    let bytes = std::fs::read(&f.path).unwrap();
    handle(&mut f.app, changed(&f.path, &bytes));
    assert_eq!(f.app.sources[0].stale, None);
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
}

#[test]
fn a_file_missing_at_start_appears_when_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("later.json");
    let mut app = App::load(std::slice::from_ref(&path), Options::flat(), PLAIN, true);
    assert!(app.view.is_none());
    let bytes = serde_json::to_vec(&manifest(search_v1())).unwrap();
    handle(&mut app, changed(&path, &bytes));
    let entry = app.current_entry().unwrap();
    assert_eq!(app.tool(entry).unwrap().1.name, "search");
    assert!(app.view.is_some());
}

#[test]
fn change_marks_expire() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    let mut v2 = search_v1();
    v2["properties"]["q"]["minLength"] = json!(1);
    save(&mut f, &manifest(v2.clone()));
    assert_eq!(f.app.change_count(), Some(1));
    handle(&mut f.app, Msg::Tick(Instant::now()));
    assert_eq!(f.app.change_count(), Some(1), "not yet");
    handle(
        &mut f.app,
        Msg::Tick(Instant::now() + CHANGE_MARKS_FOR + Duration::from_secs(1)),
    );
    assert_eq!(f.app.change_count(), None);
    assert_eq!(change_at(&f.app, Side::Original, "/properties/q"), None);
    assert!(f.app.live.changed_tools.is_empty());

    // The next save marks only what it changed.
    v2["properties"]["limit"]["minimum"] = json!(2);
    save(&mut f, &manifest(v2));
    assert_eq!(change_at(&f.app, Side::Original, "/properties/q"), None);
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/limit"),
        Some(Change::Changed)
    );
}

#[test]
fn payload_files_appear_change_and_disappear() {
    let mut f = fixture(
        &json!({"type": "object", "title": "one", "properties": {"n": {"type": "integer"}}}),
        Options::flat(),
    );
    let dir = f.path.with_file_name("tools.payloads");
    let file = dir.join("a.json");
    update(&mut f.app, Action::FocusPrev); // the payload panel
    assert_eq!(f.app.focus, Pane::Payloads);
    let rows = |app: &App| app.view.as_ref().unwrap().payloads.len();
    assert_eq!(rows(&f.app), 0);

    // What the watcher read is what is checked, even before it is on disk.
    handle(&mut f.app, changed(&file, br#"{"n": 1}"#));
    assert_eq!(rows(&f.app), 0, "not on disk: not discovered");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&file, br#"{"n": "on disk"}"#).unwrap();
    handle(&mut f.app, changed(&file, br#"{"n": 2}"#));
    assert_eq!(rows(&f.app), 1);
    let row = &f.app.view.as_ref().unwrap().payloads[0];
    assert_eq!(row.value, Some(json!({"n": 2})));

    handle(&mut f.app, changed(&file, br#"{"n": "x"}"#));
    let row = &f.app.view.as_ref().unwrap().payloads[0];
    assert!(row.verdict.as_ref().is_ok_and(|v| !v.original.valid));

    std::fs::remove_file(&file).unwrap();
    handle(
        &mut f.app,
        Msg::Watch(WatchEvent::Missing { path: file.clone() }),
    );
    assert_eq!(rows(&f.app), 0);
}

#[test]
fn watch_state_in_the_status_bar() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    assert!(status_line(&f.app).contains("│ watching │"));
    f.app.live.mode = WatchMode::Polling(Duration::from_millis(500));
    assert!(status_line(&f.app).contains("│ polling 500 ms │"));
    f.app.live.mode = WatchMode::Off;
    assert!(status_line(&f.app).contains("│ watch off │"));
    handle(
        &mut f.app,
        Msg::Watch(WatchEvent::Error {
            path: None,
            message: "inotify limit".into(),
        }),
    );
    assert!(status_line(&f.app).contains("watch error: inotify limit"));
}

#[test]
fn snapshot_of_a_reload_with_change_marks() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    let mut v2 = search_v1();
    v2["properties"]["limit"]["minimum"] = json!(5);
    v2["properties"]["page"] = json!({"type": "integer"});
    v2["properties"]["filter"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("since");
    save(&mut f, &manifest(v2));
    snap("live_reload_change_marks", screen(&f.app));
}

#[test]
fn snapshot_of_a_bad_save() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    handle(
        &mut f.app,
        changed(&f.path, b"{\"tools\": [\n  {\"name\": \"search\",,"),
    );
    snap("live_bad_save", screen(&f.app));
}

/// Runs the event loop's watch half until `done` holds: reports applied as they come, the
/// targets kept in step with the tools. Fails after a generous timeout rather than sleeping
/// for a guessed time.
fn run_until(
    app: &mut App,
    watch: &mut super::Watch,
    rx: &mpsc::Receiver<AppEvent>,
    done: impl Fn(&App) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done(app) {
        let wake = watch.deadline().map_or(deadline, |d| d.min(deadline));
        match rx.recv_timeout(wake.saturating_duration_since(Instant::now())) {
            Ok(AppEvent::Watch(event)) => handle(app, Msg::Watch(event)),
            Ok(other) => panic!("{other:?}"),
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(e) => panic!("no report in time: {e}"),
        }
        watch.sync(app);
        watch.retry();
    }
}

#[test]
fn a_real_watcher_follows_saves_into_the_app() {
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    let (tx, rx) = mpsc::channel();
    let config = WatchConfig {
        debounce: Duration::from_millis(50),
        ..WatchConfig::default()
    };
    let mut watch = super::Watch::start(&mut f.app, Some(config), &tx);
    assert_eq!(f.app.live.mode, WatchMode::Events);
    assert_eq!(f.app.live.error, None);
    // The first report is what is shown already.
    let Ok(AppEvent::Watch(first)) = rx.recv_timeout(Duration::from_secs(5)) else {
        panic!("no first report");
    };
    handle(&mut f.app, Msg::Watch(first));
    assert_eq!(f.app.change_count(), None);

    // Renamed over the original, as vim and JetBrains save.
    let mut v2 = search_v1();
    v2["properties"]["limit"]["maximum"] = json!(9);
    let temp = f.path.with_file_name(".tools.json.swp");
    std::fs::write(&temp, serde_json::to_vec(&manifest(v2.clone())).unwrap()).unwrap();
    std::fs::rename(&temp, &f.path).unwrap();
    run_until(&mut f.app, &mut watch, &rx, |app| {
        app.change_count().is_some()
    });
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/limit"),
        Some(Change::Changed)
    );

    // Broken, then fixed in place.
    std::fs::write(&f.path, b"{\"tools\": [").unwrap();
    run_until(&mut f.app, &mut watch, &rx, |app| {
        app.sources[0].stale.is_some()
    });
    v2["properties"]["extra"] = json!({"type": "boolean"});
    std::fs::write(&f.path, serde_json::to_vec(&manifest(v2)).unwrap()).unwrap();
    run_until(&mut f.app, &mut watch, &rx, |app| {
        app.sources[0].stale.is_none()
            && change_at(app, Side::Original, "/properties/extra") == Some(Change::Added)
    });
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");

    // A payload folder made after the start, with the tool's subfolder in it: followed once
    // its parent exists.
    let sub = f.path.with_file_name("tools.payloads").join("search");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("ok.json"), br#"{"q": "x"}"#).unwrap();
    run_until(&mut f.app, &mut watch, &rx, |app| {
        app.view.as_ref().is_some_and(|v| v.payloads.len() == 1)
    });
    std::fs::remove_file(sub.join("ok.json")).unwrap();
    run_until(&mut f.app, &mut watch, &rx, |app| {
        app.view.as_ref().is_some_and(|v| v.payloads.is_empty())
    });
}

/// Save-to-screen latency for a ~1 MB manifest: `cargo test --release --bin schemalens
/// live_latency -- --ignored --nocapture`.
#[test]
#[ignore]
fn live_latency_for_a_1mb_manifest() {
    // 100 tools of ~10 KB: an edit touches one, the cache keeps the others' projections.
    let tool = |i: usize, limit: i64| {
        let mut props = serde_json::Map::new();
        for k in 0..60 {
            props.insert(
                format!("field_{k}"),
                json!({"type": "string", "description": format!("field {k} of tool {i}, described at some length so that the document reaches a realistic size"), "maxLength": 100 + k}),
            );
        }
        props.insert("limit".into(), json!({"type": "integer", "maximum": limit}));
        props.insert(
            "choice".into(),
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "a": {"type": "string"}}},
                {"type": "object", "properties": {"kind": {"const": "b"}, "b": {"type": "integer"}}}
            ], "discriminator": {"propertyName": "kind"}}),
        );
        json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object", "properties": props}})
    };
    let doc = |limit: i64| json!({"tools": (0..100).map(|i| tool(i, if i == 0 { limit } else { 10 })).collect::<Vec<_>>()});
    let mut f = fixture(&doc(10), Options::flat());
    let size = std::fs::metadata(&f.path).unwrap().len();
    f.app.select_pointer(Side::Original, "/properties/limit");
    update(&mut f.app, Action::ExpandAll);
    let debounce = Duration::from_millis(200);
    let (tx, rx) = mpsc::channel();
    let config = WatchConfig {
        debounce,
        ..WatchConfig::default()
    };
    let _watcher = Watcher::start([Target::file(&f.path)], config, move |e| {
        let _ = tx.send(e);
    })
    .unwrap();
    handle(
        &mut f.app,
        Msg::Watch(rx.recv_timeout(Duration::from_secs(5)).unwrap()),
    );
    let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
    eprintln!("manifest: {size} bytes, 100 tools; debounce {debounce:?}");
    for round in 1..=5 {
        let bytes = serde_json::to_vec_pretty(&doc(10 + round)).unwrap();
        let saved = Instant::now();
        std::fs::write(&f.path, &bytes).unwrap();
        let event = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let received = saved.elapsed();
        handle(&mut f.app, Msg::Watch(event));
        let reprojected = saved.elapsed();
        terminal.draw(|frame| render(&f.app, frame)).unwrap();
        let drawn = saved.elapsed();
        assert_eq!(f.app.change_count(), Some(1));
        eprintln!(
            "round {round}: event {received:?}, reprojected +{:?}, drawn +{:?}; save to frame {drawn:?}, {:?} beyond the debounce",
            reprojected - received,
            drawn - reprojected,
            drawn.saturating_sub(debounce),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Saves checked in the background
// ---------------------------------------------------------------------------------------------

/// The fixture with a worker that computes only when `run_worker` says, its first view shown.
fn fixture_by_hand(doc: &Value, options: Options) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tools.json");
    std::fs::write(&path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    let mut app = open_with(&path, options, Some(super::projecting::Worker::by_hand()));
    run_worker(&mut app);
    assert!(app.view.is_some());
    Fixture {
        _dir: dir,
        path,
        app,
    }
}

fn run_worker(app: &mut App) -> Option<u64> {
    let generation = app.worker.as_ref().expect("a worker").run_one();
    app.poll_projection();
    generation
}

fn search_v2() -> Value {
    let mut v2 = search_v1();
    v2["properties"]["limit"]["minimum"] = json!(5);
    v2["properties"]["page"] = json!({"type": "integer"});
    v2
}

/// The screen without its status bar (which shows the spinner while a save is checked).
fn panes(app: &App) -> String {
    let text = screen(app);
    let lines: Vec<&str> = text.lines().collect();
    lines[..lines.len() - 1].join("\n")
}

#[test]
fn a_save_is_projected_in_the_background_and_the_old_view_stays_until_then() {
    let mut f = fixture_by_hand(&manifest(search_v1()), Options::flat());
    f.app.select_pointer(Side::Original, "/properties/limit");
    let before = panes(&f.app);
    save(&mut f, &manifest(search_v2()));
    // Nothing is applied before the shown tool's new version is projected.
    assert!(f.app.pending.is_some());
    assert_eq!(panes(&f.app), before);
    assert!(status_line(&f.app).contains("projecting"));
    let generation = f.app.pending.as_ref().map(|p| p.generation);
    save(&mut f, &manifest(search_v2()));
    assert_eq!(
        f.app.pending.as_ref().map(|p| p.generation),
        generation,
        "the version being checked, reported again, is not asked for again"
    );

    assert_eq!(run_worker(&mut f.app), generation);
    assert!(f.app.pending.is_none());
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/page"),
        Some(Change::Added)
    );
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    // The same screen as when the save is applied inline.
    let mut inline = fixture(&manifest(search_v1()), Options::flat());
    inline
        .app
        .select_pointer(Side::Original, "/properties/limit");
    save(&mut inline, &manifest(search_v2()));
    assert_eq!(screen(&f.app), screen(&inline.app));
}

#[test]
fn a_save_that_no_longer_projects_is_found_in_the_background_and_keeps_the_view() {
    let options = Options {
        node_budget: Some(500),
        ..Options::flat()
    };
    let mut f = fixture_by_hand(&manifest(search_v1()), options);
    f.app.select_pointer(Side::Original, "/properties/q");
    let mut bomb = search_v1();
    bomb["$defs"] = crate::projection::doubling(12)["$defs"].clone();
    bomb["properties"]["x"] = json!({"$ref": "#/$defs/d0"});
    save(&mut f, &manifest(bomb));
    assert_eq!(f.app.sources[0].stale, None, "not known yet");
    assert!(run_worker(&mut f.app).is_some());
    assert_over_budget_and_last_good_view_kept(&f.app);
    assert!(f.app.pending.is_none());
}

#[test]
fn a_save_checked_while_the_user_moves_on_is_applied_after() {
    let mut f = fixture_by_hand(&manifest(search_v1()), Options::flat());
    save(&mut f, &manifest(search_v2()));
    // The user opens the other tool before the save's check ran.
    update(&mut f.app, Action::NextTool);
    assert_eq!(
        f.app.pending.as_ref().map(|p| p.tool.as_str()),
        Some("fetch")
    );
    run_worker(&mut f.app);
    assert_eq!(f.app.view.as_ref().map(|v| v.entry), Some(1));
    // The save is checked again against what is shown now, then applied.
    assert!(f.app.pending.is_some());
    run_worker(&mut f.app);
    assert!(f.app.pending.is_none());
    let search = &f.app.sources[0].manifest.as_ref().unwrap().tools[0];
    assert!(search.schema.pointer("/properties/page").is_some());
    assert_eq!(f.app.view.as_ref().map(|v| v.entry), Some(1));
}

#[test]
fn the_version_opened_is_kept_as_the_baseline_only_once_a_save_replaces_it() {
    use super::app::Baseline;
    let mut f = fixture(&manifest(search_v1()), Options::flat());
    assert!(matches!(f.app.sources[0].baseline, Baseline::Current));
    save(&mut f, &manifest(search_v2()));
    let Baseline::Kept(opened) = &f.app.sources[0].baseline else {
        panic!("the opened version is kept once replaced");
    };
    assert_eq!(*opened.tools[0].schema, search_v1());
    let mut v3 = search_v2();
    v3["properties"]["page"]["minimum"] = json!(1);
    save(&mut f, &manifest(v3));
    let baseline = f.app.sources[0].baseline().expect("a baseline");
    assert_eq!(
        *baseline.tools[0].schema,
        search_v1(),
        "still the version opened"
    );
}

/// A payload file saved while the tool is shown: its events, applied to `f`.
fn save_payload(f: &mut Fixture, content: &[u8]) -> PathBuf {
    let dir = f.path.with_file_name("tools.payloads");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.json");
    std::fs::write(&file, content).unwrap();
    handle(&mut f.app, changed(&file, content));
    file
}

#[test]
fn a_saved_payload_is_checked_in_the_background_and_the_view_stays_until_then() {
    let doc = json!({"type": "object", "title": "one", "properties": {"n": {"type": "integer"}}});
    let mut f = fixture_by_hand(&doc, Options::flat());
    let mut inline = fixture(&doc, Options::flat());
    for app in [&mut f.app, &mut inline.app] {
        update(app, Action::FocusPrev); // the payload panel
    }
    let rows = |app: &App| app.view.as_ref().unwrap().payloads.clone();

    save_payload(&mut f, br#"{"n": 1}"#);
    let before = panes(&f.app);
    let pending = f.app.pending.as_ref().expect("checked in the background");
    assert_eq!(pending.doing, "checking payloads");
    assert!(
        rows(&f.app).is_empty(),
        "nothing shown before it is checked"
    );
    assert!(status_line(&f.app).contains("checking payloads"));
    snap("live_payload_checking", screen(&f.app));
    // Keys work meanwhile, and the view is the one shown before.
    update(&mut f.app, Action::FocusNext);
    update(&mut f.app, Action::FocusPrev);
    assert_eq!(panes(&f.app), before);
    run_worker(&mut f.app);
    assert!(f.app.pending.is_none());
    assert_eq!(rows(&f.app).len(), 1);

    // A newer save of the file supersedes the check of an older one.
    save_payload(&mut f, br#"{"n": "x"}"#);
    let first = f.app.pending.as_ref().map(|p| p.generation);
    let file = save_payload(&mut f, br#"{"n": "y"}"#);
    let newest = f.app.pending.as_ref().map(|p| p.generation);
    assert_ne!(first, newest);
    assert!(
        rows(&f.app)[0]
            .verdict
            .as_ref()
            .is_ok_and(|v| v.original.valid),
        "the last checked verdict stays until the new one arrives"
    );
    assert_eq!(run_worker(&mut f.app), newest);
    assert!(f.app.pending.is_none());
    assert_eq!(rows(&f.app)[0].value, Some(json!({"n": "y"})));

    // The same saves inline give the same screen.
    let dir = inline.path.with_file_name("tools.payloads");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&file, dir.join("a.json")).unwrap();
    for content in [&br#"{"n": 1}"#[..], br#"{"n": "x"}"#, br#"{"n": "y"}"#] {
        handle(&mut inline.app, changed(&dir.join("a.json"), content));
    }
    assert_eq!(screen(&f.app), screen(&inline.app));
}

#[test]
fn a_payload_saved_while_a_save_is_projected_is_checked_with_it() {
    let mut f = fixture_by_hand(&manifest(search_v1()), Options::flat());
    save(&mut f, &manifest(search_v2()));
    let generation = f.app.pending.as_ref().map(|p| p.generation);
    let dir = f.path.with_file_name("tools.payloads").join("search");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.json");
    std::fs::write(&file, br#"{"q": "x", "page": 1}"#).unwrap();
    handle(&mut f.app, changed(&file, br#"{"q": "x", "page": 1}"#));
    // The save is asked again, with the payload.
    let pending = f.app.pending.as_ref().expect("the save is still checked");
    assert_ne!(Some(pending.generation), generation);
    assert_eq!(pending.doing, "projecting");
    run_worker(&mut f.app);
    assert!(f.app.pending.is_none());
    let search = &f.app.sources[0].manifest.as_ref().unwrap().tools[0];
    assert!(search.schema.pointer("/properties/page").is_some(), "saved");
    let rows = &f.app.view.as_ref().unwrap().payloads;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].value, Some(json!({"q": "x", "page": 1})));
}

// ---------------------------------------------------------------------------------------------
// Saves read off the event loop
// ---------------------------------------------------------------------------------------------

/// The by-hand fixture whose saves wait for `read_one` to be parsed and compared.
fn fixture_reading_by_hand(doc: &Value) -> Fixture {
    let mut f = fixture_by_hand(doc, Options::flat());
    f.app.saves = Some(super::saving::SaveReader::by_hand());
    f
}

/// Reads the oldest save waiting and takes what arrived; its generation.
fn read_one(app: &mut App) -> Option<u64> {
    let generation = app.saves.as_ref().expect("a save reader").run_one();
    app.poll_projection();
    generation
}

#[test]
fn a_save_is_read_off_the_loop_and_a_newer_one_replaces_it() {
    let mut f = fixture_reading_by_hand(&manifest(search_v1()));
    f.app.select_pointer(Side::Original, "/properties/limit");
    let before = panes(&f.app);
    let fetch = f.app.sources[0].manifest.as_ref().unwrap().tools[1]
        .schema
        .clone();
    let mut v3 = search_v2();
    v3["properties"]["page"]["maximum"] = json!(9);
    save(&mut f, &manifest(search_v2()));
    // Nothing parsed on the loop: nothing staged, the view as it was, keys answered.
    assert!(f.app.pending.is_none());
    assert_eq!(panes(&f.app), before);
    assert!(status_line(&f.app).contains("reading the save"));
    handle(&mut f.app, Msg::Action(Action::Help));
    assert!(f.app.overlay.is_some());
    handle(&mut f.app, Msg::Action(Action::CloseOverlay));
    // A newer save arrives while the first waits: only the newer one is read.
    save(&mut f, &manifest(v3.clone()));
    assert!(read_one(&mut f.app).is_some());
    assert_eq!(read_one(&mut f.app), None, "the older save was replaced");
    assert!(f.app.pending.is_some(), "the newer save is projected");
    run_worker(&mut f.app);
    let search = &f.app.sources[0].manifest.as_ref().unwrap().tools[0];
    assert_eq!(*search.schema, v3);
    // The other tool did not change: its schema is the one shown before, not a copy.
    let tools = &f.app.sources[0].manifest.as_ref().unwrap().tools;
    assert!(std::sync::Arc::ptr_eq(&tools[1].schema, &fetch));
    assert_eq!(f.app.live.changed_tools.len(), 1);
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/page"),
        Some(Change::Added)
    );
    let mut inline = fixture(&manifest(search_v1()), Options::flat());
    inline
        .app
        .select_pointer(Side::Original, "/properties/limit");
    save(&mut inline, &manifest(v3));
    assert_eq!(screen(&f.app), screen(&inline.app));
}

#[test]
fn a_save_read_while_a_newer_one_arrives_is_dropped() {
    let mut f = fixture_reading_by_hand(&manifest(search_v1()));
    save(&mut f, &manifest(search_v2()));
    // The reader has parsed it (its result is on the way) when the newer save comes.
    let older = f.app.saves.as_ref().unwrap().run_one();
    assert!(older.is_some());
    let mut v3 = search_v2();
    v3["properties"]["extra"] = json!({"type": "boolean"});
    save(&mut f, &manifest(v3.clone()));
    f.app.poll_projection();
    assert!(f.app.pending.is_none(), "the older result is dropped");
    assert_eq!(
        *f.app.sources[0].manifest.as_ref().unwrap().tools[0].schema,
        search_v1()
    );
    assert!(read_one(&mut f.app).is_some());
    run_worker(&mut f.app);
    assert_eq!(
        *f.app.sources[0].manifest.as_ref().unwrap().tools[0].schema,
        v3
    );
    // Deleted while a save is read: the save is dropped, the file said missing.
    save(&mut f, &manifest(search_v1()));
    handle(
        &mut f.app,
        Msg::Watch(WatchEvent::Missing {
            path: f.path.clone(),
        }),
    );
    read_one(&mut f.app);
    assert_eq!(f.app.sources[0].stale, Some(Stale::Missing));
    assert_eq!(
        *f.app.sources[0].manifest.as_ref().unwrap().tools[0].schema,
        v3
    );
}

#[test]
fn a_bad_save_read_off_the_loop_keeps_the_last_good_view_and_says_where() {
    let mut f = fixture_reading_by_hand(&manifest(search_v1()));
    f.app.select_pointer(Side::Original, "/properties/limit");
    handle(
        &mut f.app,
        changed(&f.path, b"{\"tools\": [\n  {\"name\": \"search\",,"),
    );
    assert_eq!(f.app.sources[0].stale, None, "not read yet");
    read_one(&mut f.app);
    let Some(Stale::Invalid(error)) = &f.app.sources[0].stale else {
        panic!("{:?}", f.app.sources[0].stale);
    };
    assert!(error.contains("tools.json:2:21: invalid JSON"), "{error}");
    assert!(f.app.pending.is_none());
    assert_eq!(pointer(&f.app, Side::Original), "/properties/limit");
    assert!(detail_text(&f.app).contains("tools.json:2:21"));
    // The last good view stays, its tools listed.
    assert_eq!(f.app.entries.len(), 2);
    assert!(panes(&f.app).contains("limit"));
    assert!(status_line(&f.app).contains("⚠"), "{}", status_line(&f.app));
    // The version shown, saved again, is no change; a good save then recovers.
    save(&mut f, &manifest(search_v1()));
    read_one(&mut f.app);
    assert_eq!(f.app.sources[0].stale, None);
    assert!(f.app.pending.is_none() && f.app.change_count().is_none());
    save(&mut f, &manifest(search_v2()));
    read_one(&mut f.app);
    run_worker(&mut f.app);
    assert_eq!(
        change_at(&f.app, Side::Original, "/properties/page"),
        Some(Change::Added)
    );
}

// ---------------------------------------------------------------------------------------------
// The files named, loaded in the background
// ---------------------------------------------------------------------------------------------

/// `path` opened as `schemalens FILE` opens it: loaded and projected by threads of their own.
fn open_threaded(path: &Path) -> App {
    open_with(
        path,
        Options::flat(),
        Some(super::projecting::Worker::start(|| {})),
    )
}

/// `path` opened with `worker` (none: everything inline), followed, on a 120×36 screen.
fn open_with(path: &Path, options: Options, worker: Option<super::projecting::Worker>) -> App {
    let mut app = App::load_with_worker(&[path.to_path_buf()], options, PLAIN, true, worker);
    app.live.mode = WatchMode::Events;
    update(
        &mut app,
        Action::Resize {
            width: 120,
            height: 36,
        },
    );
    app
}

#[test]
fn the_file_is_loaded_in_the_background_its_name_shown_then_the_same_screen_as_inline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tools.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&manifest(search_v1())).unwrap(),
    )
    .unwrap();
    let mut app = open_threaded(&path);
    // Nothing is taken from the loader until the loop asks: this is the first frame.
    assert!(app.loading.is_some());
    assert!(app.entries.is_empty() && app.view.is_none() && app.pending.is_none());
    snap("loading_progress", screen(&app));
    // Keys work meanwhile, on a list with nothing in it yet.
    for action in [Action::Down, Action::Help, Action::CloseOverlay] {
        handle(&mut app, Msg::Action(action));
    }
    app.settle();
    assert!(app.loading.is_none());
    let inline = fixture(&manifest(search_v1()), Options::flat());
    assert_eq!(screen(&app), screen(&inline.app));
}

#[test]
fn a_save_reported_while_the_file_loads_is_applied_once_it_is_in() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tools.json");
    let v1 = serde_json::to_vec_pretty(&manifest(search_v1())).unwrap();
    std::fs::write(&path, &v1).unwrap();
    let mut app = open_threaded(&path);
    assert!(app.loading.is_some());
    // The watcher's first report (the version being read), then a save.
    handle(&mut app, changed(&path, &v1));
    let v2 = serde_json::to_vec_pretty(&manifest(search_v2())).unwrap();
    handle(&mut app, changed(&path, &v2));
    app.settle();
    // The save is checked in the background like any other, then applied.
    app.settle();
    let source = &app.sources[0];
    assert_eq!(source.hash, Some(content_hash(&v2)));
    let tools = &source.manifest.as_ref().unwrap().tools;
    assert_eq!(*tools[0].schema, search_v2());
    let view = app.view.as_ref().expect("the saved version shown");
    assert!(
        view.pane(Side::Original)
            .tree
            .find("/properties/page")
            .is_some()
    );
}
