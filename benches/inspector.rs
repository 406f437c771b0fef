//! The inspector's own costs, measured through its state and rendering (no terminal):
//!
//! - `open`: from the file on disk to the first frame drawn, as `schemalens FILE` does it;
//! - `frame`: one frame with both trees unfolded everywhere (the row count is printed);
//! - `save`: a save that changes the shown tool, until the frame after it, and how long a key
//!   pressed as it arrives waits; of a ~1 MB manifest and of the big schema.
//!
//! Inputs: `SCHEMALENS_BENCH_INPUTS=DIR` names a folder with the large real inputs (see the
//! issue-13 notes: `github-components-schema.json`, `github-rest-mcp.json`); whatever of them
//! is missing is replaced by a generated input of the same shape, so the bench always runs.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Map, Value, json};

use schemalens::Options;
use schemalens::tui::App;
use schemalens::tui::app::update;
use schemalens::tui::keys::{Action, Pane};
use schemalens::tui::live::{self, Msg};
use schemalens::tui::projecting::Worker;
use schemalens::tui::render::render;
use schemalens::tui::theme::Theme;
use schemalens::tui::tree::Side;
use schemalens::watch::{WatchEvent, content_hash};

// The binary's allocator, so the figures are what users get.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const WIDTH: u16 = 160;
const HEIGHT: u16 = 45;

/// A bare schema of about 100 k tree nodes: many objects whose fields are nullable unions,
/// with a discriminated union in each, as generators emit them.
fn generated_big_schema() -> Value {
    let mut properties = Map::new();
    for p in 0..1_500 {
        let mut fields = Map::new();
        for f in 0..18 {
            fields.insert(
                format!("field_{f}"),
                json!({"anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}],
                       "description": format!("Field {f} of record {p}.")}),
            );
        }
        fields.insert(
            "shape".to_owned(),
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "number"}}},
                {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "string"}}}
            ], "discriminator": {"propertyName": "kind"}}),
        );
        properties.insert(
            format!("record_{p}"),
            json!({"type": "object", "properties": fields}),
        );
    }
    json!({"type": "object", "properties": properties})
}

/// An MCP `tools/list` of about 1 MB: many modest tools, like a REST API's operations.
fn generated_manifest() -> Value {
    let tools: Vec<Value> = (0..900)
        .map(|t| {
            let mut properties = Map::new();
            for f in 0..12 {
                properties.insert(
                    format!("param_{f}"),
                    json!({"type": ["string", "null"], "description": format!("Parameter {f} of operation {t}, as documented.")}),
                );
            }
            json!({"name": format!("operation_{t}"), "description": "An operation.",
                   "inputSchema": {"type": "object", "properties": properties}})
        })
        .collect();
    json!({ "tools": tools })
}

/// The real input `name` from `SCHEMALENS_BENCH_INPUTS`, else `generate()` written to `scratch`.
fn input(name: &str, scratch: &Path, generate: fn() -> Value) -> PathBuf {
    if let Some(dir) = std::env::var_os("SCHEMALENS_BENCH_INPUTS") {
        let path = Path::new(&dir).join(name);
        if path.is_file() {
            return path;
        }
        eprintln!("{}: not found, using a generated input", path.display());
    }
    let path = scratch.join(format!("generated-{name}"));
    std::fs::write(&path, serde_json::to_vec(&generate()).expect("json")).expect("write");
    path
}

/// The app as `schemalens FILE` opens it: projecting in the background.
fn open(path: &Path) -> App {
    let mut app = App::load_with_worker(
        &[path.to_path_buf()],
        Options::flat(),
        Theme { color: true },
        false,
        Some(Worker::start(|| {})),
    );
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    app
}

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("terminal")
}

/// Waits until the shown tool is projected, drawing frames as the event loop would; how long
/// that took.
fn settle(app: &mut App, terminal: &mut Terminal<TestBackend>) -> Duration {
    let start = Instant::now();
    app.settle();
    terminal.draw(|f| render(app, f)).expect("draw");
    start.elapsed()
}

fn bench_open(c: &mut Criterion, big: &Path) {
    let mut group = c.benchmark_group("inspector_open");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    let name = file_name(big);
    group.bench_function(format!("first_frame/{name}"), |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let mut app = open(big);
                let mut terminal = terminal();
                // As the event loop does before its first frame.
                app.wait_projection(Duration::from_millis(50));
                terminal.draw(|f| render(&app, f)).expect("draw");
                total += start.elapsed();
                // Not timed: the background work finishes before the next open starts.
                app.settle();
                black_box(&mut app);
            }
            total
        })
    });
    group.finish();
    let start = Instant::now();
    let mut app = open(big);
    let mut terminal = terminal();
    app.wait_projection(Duration::from_millis(50));
    terminal.draw(|f| render(&app, f)).expect("draw");
    let first = start.elapsed();
    let rest = settle(&mut app, &mut terminal);
    eprintln!(
        "inspector_open {name}: first frame {first:.2?}, projected and drawn {:.2?} later; peak RSS so far {} MB",
        rest,
        peak_rss_mb()
    );
}

fn bench_frame(c: &mut Criterion, big: &Path) {
    let mut app = open(big);
    let mut terminal = terminal();
    settle(&mut app, &mut terminal);
    for pane in [Pane::Original, Pane::Projection] {
        app.focus = pane;
        update(&mut app, Action::ExpandAll);
    }
    let rows: Vec<usize> = [Side::Original, Side::Projection]
        .iter()
        .map(|&s| app.view.as_ref().map_or(0, |v| v.pane(s).visible_rows()))
        .collect();
    let name = file_name(big);
    eprintln!(
        "inspector_frame {name}: unfolded rows original {} projection {}",
        rows[0], rows[1]
    );
    let mut group = c.benchmark_group("inspector_frame");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function(format!("all_unfolded/{name}"), |b| {
        b.iter(|| terminal.draw(|f| render(&app, f)).expect("draw").area)
    });
    // Moving the selection down a page in each tree: a frame the user waits for.
    group.bench_function(format!("page_down_and_draw/{name}"), |b| {
        b.iter(|| {
            update(&mut app, Action::PageDown);
            terminal.draw(|f| render(&app, f)).expect("draw").area
        })
    });
    group.finish();
}

/// Two versions of `path` that differ in the first tool's schema (a description), as a user's
/// save of it would.
fn two_versions(path: &Path) -> [Vec<u8>; 2] {
    let text = std::fs::read(path).expect("read");
    let manifest = schemalens::manifest::load_reader(text.as_slice(), "bench", None).expect("load");
    let pointer = manifest.tools[0].schema_pointer.clone().unwrap_or_default();
    let document: Value = serde_json::from_slice(&text).expect("json");
    let mut versions = [document.clone(), document];
    for (i, doc) in versions.iter_mut().enumerate() {
        if let Some(Value::Object(schema)) = doc.pointer_mut(&pointer) {
            schema.insert(
                "description".to_owned(),
                json!(format!("saved, version {i}")),
            );
        }
    }
    versions.map(|v| serde_json::to_vec(&v).expect("json"))
}

/// The watcher's report of `content` as a new version of `path`.
fn saved(path: &Path, content: &[u8]) -> Msg {
    Msg::Watch(WatchEvent::Changed {
        path: path.to_path_buf(),
        hash: content_hash(content),
        content: content.to_vec(),
    })
}

/// A save of `manifest` that changes its shown tool, until the frame after it: the event
/// loop's share (the report handled, a key pressed at once answered and drawn) and the
/// whole (until the new version is projected and drawn).
fn bench_save(c: &mut Criterion, manifest: &Path, samples: usize) {
    let versions = two_versions(manifest);
    let mut app = open(manifest);
    let mut terminal = terminal();
    settle(&mut app, &mut terminal);
    let name = file_name(manifest);
    let mut group = c.benchmark_group("inspector_save");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(samples);
    group.measurement_time(Duration::from_secs(10));
    let mut n = 0;
    group.bench_function(format!("reproject_and_draw/{name}"), |b| {
        b.iter(|| {
            n += 1;
            live::handle(&mut app, saved(manifest, &versions[n % 2]));
            settle(&mut app, &mut terminal)
        })
    });
    // `?` pressed as the save arrives: what the user waits for while the save is read and
    // projected. The save is then let finish, untimed.
    let mut whole = Vec::new();
    group.bench_function(format!("key_during_save/{name}"), |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                n += 1;
                let event = saved(manifest, &versions[n % 2]);
                let start = Instant::now();
                live::handle(&mut app, event);
                update(&mut app, Action::Help);
                terminal.draw(|f| render(&app, f)).expect("draw");
                total += start.elapsed();
                update(&mut app, Action::CloseOverlay);
                settle(&mut app, &mut terminal);
                whole.push(start.elapsed());
            }
            total
        })
    });
    group.finish();
    whole.sort();
    if let Some(median) = whole.get(whole.len() / 2) {
        eprintln!(
            "inspector_save {name}: save to screen, median of {} saves with a key pressed: {median:.2?}",
            whole.len()
        );
    }
    // Only when some save ran: a filter may leave both functions out.
    assert!(
        n == 0 || (app.sources[0].stale.is_none() && app.change_count().is_some()),
        "the save was not applied: {:?}",
        app.sources[0].stale
    );
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The process's peak resident set so far (Linux), in MB; 0 where it cannot be read.
fn peak_rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

fn benches(c: &mut Criterion) {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let big = input(
        "github-components-schema.json",
        scratch.path(),
        generated_big_schema,
    );
    let manifest = input("github-rest-mcp.json", scratch.path(), generated_manifest);
    bench_open(c, &big);
    bench_frame(c, &big);
    bench_save(c, &manifest, 20);
    bench_save(c, &big, 10);
}

criterion_group!(inspector, benches);
criterion_main!(inspector);
