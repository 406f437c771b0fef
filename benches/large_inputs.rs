//! Projection of large real inputs against the serde_json floor, and peak memory (issue 13).
//!
//! The inputs are built from GitHub's public API descriptions by
//! `scripts/bench-inputs/build.sh DIR`; point `SCHEMALENS_BENCH_INPUTS` at `DIR`:
//!
//! ```sh
//! scripts/bench-inputs/build.sh target/bench-inputs
//! SCHEMALENS_BENCH_INPUTS=target/bench-inputs cargo bench --bench large_inputs
//! ```
//!
//! Per input and mode it prints, from interleaved rounds (the machines are shared and noisy, so
//! only ratios within one run compare):
//! - `project / floor`: what `schemalens project` does in-process (load, project every tool,
//!   write back, pretty-print), over the floor: serde_json parse + pretty-print of the input
//!   plus parse + pretty-print of the projection produced;
//! - `1 thread`: the same on one thread (`SCHEMALENS_THREADS=1`) over the same floor. The
//!   floor runs on one thread and `project` spreads its tools over every core, so `×floor`
//!   compares one core with all of them: on an idle machine the cores hide work, on a busy
//!   one they do not. `1 thread` compares like with like and moves far less with the load;
//! - `rss / io`: the peak resident memory of the `schemalens project` process over the bytes it
//!   read plus wrote (the binary cargo builds for this bench, run with its output in a file);
//! - `heap / io`: the peak of live heap bytes in-process while projecting, over the same bytes.
//!
//! Criterion then times (unless `SCHEMALENS_BENCH_SUMMARY_ONLY` is set) the same three functions per input (filter with `cargo bench --bench
//! large_inputs -- NAME`).

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use schemalens::manifest::{ManifestFormat, Writeback};
use schemalens::{Mode, Options, project_tools_written};
use serde_json::Value;

/// The binary's allocator, counting live bytes while `COUNTING` is on.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const INPUTS: [&str; 3] = [
    "github-webhooks-mcp.json",
    "github-components-schema.json",
    "github-rest-mcp.json",
];
const ROUNDS: usize = 5;

fn inputs_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("SCHEMALENS_BENCH_INPUTS")?);
    Some(dir)
}

fn options(mode: Mode) -> Options {
    match mode {
        Mode::Flat => Options::flat(),
        Mode::Inline => Options::inline(),
    }
}

/// What `schemalens project FILE --mode MODE` prints, computed in-process the way the CLI does
/// it: each tool's schema kept as text until the thread that projects it parses it, the tools
/// projected in parallel a bounded way ahead, each projection written into the document as it
/// comes and dropped.
fn project_text(text: &str, origin: &str, options: &Options) -> String {
    let mut writeback =
        Writeback::load_reader(text.as_bytes(), origin, None).expect("bench input loads");
    let single = writeback.format == ManifestFormat::BareSchema;
    let order = if single { vec![0] } else { writeback.order() };
    let tools = writeback.take_tools(&order);
    let mut out = Vec::new();
    project_tools_written(tools, options, |projections| {
        let mut next = |_: usize| {
            let (_, written) = projections.next().expect("one projection per tool");
            Ok::<_, ()>(written.expect("bench inputs project").schema)
        };
        match single {
            true => serde_json::to_writer_pretty(&mut out, &next(0).expect("made"))
                .expect("JSON serializes"),
            false => writeback
                .write_pretty(&mut out, next)
                .expect("JSON serializes"),
        }
    });
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// serde_json parse + pretty-print of the input and of the projection.
fn floor(input: &str, output: &str) -> usize {
    let mut n = 0;
    for text in [input, output] {
        let value: Value = serde_json::from_str(text).expect("valid JSON");
        n += serde_json::to_string_pretty(&value)
            .expect("JSON serializes")
            .len();
    }
    n
}

// The allocator's collector, linked in with it (the `mimalloc` crate declares it only under a
// feature that pulls another dependency).
unsafe extern "C" {
    fn mi_collect(force: bool);
}

/// Gives the pages the heap holds free back to the system, so that every timed call starts from
/// the heap a fresh process has. Without it the calls did not start alike: each round's first
/// call (the project) came after the `schemalens` child process, a wait longer than the
/// allocator's 1 s purge delay, and paid the page faults of its whole working set, while the
/// floor right after it reused the pages the project had just freed. On the components schema
/// a 1.5 s pause before the project raised its CPU time from 335 to 423 ms, the floor's not.
fn from_a_fresh_heap() {
    // SAFETY: a plain call into the allocator this binary is linked with.
    unsafe { mi_collect(true) }
}

fn time<T>(f: impl FnOnce() -> T) -> Duration {
    from_a_fresh_heap();
    let start = Instant::now();
    black_box(f());
    start.elapsed()
}

/// `f` with the projection on one thread. Set only between calls, when no other thread of
/// this process runs (every worker of the calls before has been joined).
fn on_one_thread<T>(f: impl FnOnce() -> T) -> T {
    const THREADS: &str = "SCHEMALENS_THREADS";
    let before = std::env::var_os(THREADS);
    // SAFETY: no other thread reads or writes the environment meanwhile (see above).
    unsafe { std::env::set_var(THREADS, "1") };
    let result = f();
    match before {
        // SAFETY: as above.
        Some(v) => unsafe { std::env::set_var(THREADS, v) },
        None => unsafe { std::env::remove_var(THREADS) },
    }
    result
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Peak live heap bytes while projecting `text`.
fn peak_heap(text: &str, origin: &str, options: &Options) -> usize {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let output = project_text(text, origin, options);
    COUNTING.store(false, Ordering::Relaxed);
    drop(output);
    PEAK.load(Ordering::Relaxed)
}

/// GNU time, which reports the peak RSS of the process it runs. Reading the child's
/// `ru_maxrss` here would not do: a child spawned by this (large) process inherits its
/// high-water mark through exec.
const TIME: &str = "/usr/bin/time";

/// The `schemalens project` process on `input`: its peak RSS in bytes (when GNU time is
/// there), the bytes it wrote and its wall time.
fn cli_run(input: &Path, mode: Mode, scratch: &Path) -> (Option<u64>, u64, Duration) {
    let out_path = scratch.join("out.json");
    let rss_path = scratch.join("rss.txt");
    let out = std::fs::File::create(&out_path).expect("scratch file");
    let binary = env!("CARGO_BIN_EXE_schemalens");
    let timed = Path::new(TIME).exists();
    let mut command = if timed {
        let mut c = std::process::Command::new(TIME);
        c.args(["-f", "%M", "-o"]).arg(&rss_path).arg(binary);
        c
    } else {
        std::process::Command::new(binary)
    };
    let start = Instant::now();
    let status = command
        .arg("project")
        .arg(input)
        .args(["--mode", &mode.to_string()])
        .stdout(out)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the schemalens binary starts");
    let wall = start.elapsed();
    assert!(
        status.success(),
        "schemalens project {} --mode {mode} failed ({status})",
        input.display()
    );
    let written = std::fs::metadata(&out_path).expect("output written").len();
    let rss = timed.then(|| {
        let text = std::fs::read_to_string(&rss_path).expect("GNU time wrote the peak RSS");
        // KiB, on the last line.
        let kib: u64 = text
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("unexpected GNU time output: {text}"));
        kib * 1024
    });
    (rss, written, wall)
}

struct Row {
    input: String,
    mode: Mode,
    bytes_in: usize,
    bytes_out: usize,
    project: Duration,
    one_thread: Duration,
    floor: Duration,
    rss: Option<u64>,
    cli_wall: Duration,
    heap: usize,
}

fn summary(dir: &Path) {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let mut rows = Vec::new();
    for name in INPUTS {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (see scripts/bench-inputs)", path.display()));
        for mode in [Mode::Flat, Mode::Inline] {
            let opts = options(mode);
            let output = project_text(&text, name, &opts);
            let (mut project, mut one_thread, mut floor_times, mut rss, mut walls) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            // Interleaved: a burst of load from another build hits all of them alike.
            for _ in 0..ROUNDS {
                project.push(time(|| project_text(&text, name, &opts)));
                one_thread.push(on_one_thread(|| time(|| project_text(&text, name, &opts))));
                floor_times.push(time(|| floor(&text, &output)));
                let (peak, written, wall) = cli_run(&path, mode, scratch.path());
                assert_eq!(
                    written as usize,
                    output.len() + 1,
                    "the binary prints what project_text computes, and a newline"
                );
                rss.extend(peak);
                walls.push(wall);
            }
            rss.sort();
            rows.push(Row {
                input: name.to_owned(),
                mode,
                bytes_in: text.len(),
                bytes_out: output.len(),
                project: median(project),
                one_thread: median(one_thread),
                floor: median(floor_times),
                rss: rss.get(rss.len() / 2).copied(),
                cli_wall: median(walls),
                heap: peak_heap(&text, name, &opts),
            });
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!(
        "\nlarge inputs, median of {ROUNDS} interleaved rounds, {threads} thread(s) available:"
    );
    eprintln!(
        "{:<31} {:<6} {:>8} {:>8} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9} {:>8}",
        "input",
        "mode",
        "in MB",
        "out MB",
        "project",
        "floor",
        "×floor",
        "1 thread",
        "×floor",
        "cli wall",
        "rss MB",
        "rss/io",
        "heap/io"
    );
    for r in &rows {
        let io = (r.bytes_in + r.bytes_out) as f64;
        eprintln!(
            "{:<31} {:<6} {:>8.2} {:>8.2} {:>7.0}ms {:>7.0}ms {:>7.2}× {:>7.0}ms {:>8.2}× {:>7.0}ms {:>8.0} {:>8.2}× {:>7.2}×",
            r.input,
            r.mode.to_string(),
            r.bytes_in as f64 / 1e6,
            r.bytes_out as f64 / 1e6,
            r.project.as_secs_f64() * 1e3,
            r.floor.as_secs_f64() * 1e3,
            r.project.as_secs_f64() / r.floor.as_secs_f64(),
            r.one_thread.as_secs_f64() * 1e3,
            r.one_thread.as_secs_f64() / r.floor.as_secs_f64(),
            r.cli_wall.as_secs_f64() * 1e3,
            r.rss.map_or(f64::NAN, |b| b as f64 / 1e6),
            r.rss.map_or(f64::NAN, |b| b as f64 / io),
            r.heap as f64 / io,
        );
    }
    if !Path::new(TIME).exists() {
        eprintln!("rss: NaN, {TIME} (GNU time) is not installed");
    }
    eprintln!(
        "targets: ×floor ≤ 2 flat, ≤ 1.5 inline; rss/io ≤ 6 (the second ×floor is the \
         project on one thread, like the floor)\n"
    );
}

fn large_inputs(c: &mut Criterion) {
    let Some(dir) = inputs_dir() else {
        eprintln!(
            "large_inputs skipped: SCHEMALENS_BENCH_INPUTS is not set (build the inputs with \
             scripts/bench-inputs/build.sh DIR)"
        );
        return;
    };
    summary(&dir);
    if std::env::var_os("SCHEMALENS_BENCH_SUMMARY_ONLY").is_none() {
        criterion_groups(c, &dir);
    }
}

fn criterion_groups(c: &mut Criterion, dir: &Path) {
    for name in INPUTS {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (see scripts/bench-inputs)"));
        let mut group = c.benchmark_group(name.trim_end_matches(".json"));
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5));
        for mode in [Mode::Flat, Mode::Inline] {
            let opts = options(mode);
            let output = project_text(&text, name, &opts);
            group.bench_function(format!("floor ({mode} output)"), |b| {
                b.iter(|| floor(black_box(&text), &output))
            });
            group.bench_function(format!("project {mode}"), |b| {
                b.iter(|| project_text(black_box(&text), name, &opts))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, large_inputs);
criterion_main!(benches);
