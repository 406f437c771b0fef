//! Payloads checked per second against both schemas, validators compiled once: every bundled
//! sample payload, every sample tool, flat mode.
//!
//! Three figures: `classify` (both validators, class only — the floor), `check` (the full
//! verdict the CLI and the inspector use: errors placed on both trees, lost correlations read
//! from the trace), and `check/valid-only` (the payloads both sides accept, the common case in
//! an editing session). Criterion reports them as elements (payloads) per second.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use schemalens::Options;
use schemalens::manifest;
use schemalens::validate::{Checker, Class, discover, payload};
use serde_json::Value;

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("samples/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    found
}

/// Every sample tool's checker (compiled once) and every payload, paired with its checker.
fn load() -> (Vec<Checker>, Vec<(usize, Value)>) {
    let mut checkers = Vec::new();
    let mut payloads = Vec::new();
    for path in samples() {
        let m = manifest::load_path(&path, None).expect("sample loads");
        let base = checkers.len();
        for tool in &m.tools {
            checkers.push(Checker::for_tool(tool, &Options::flat()).expect("sample checks"));
        }
        for file in discover::discover(&path, &m).expect("payloads listed") {
            let text = std::fs::read_to_string(&file.path).expect("payload readable");
            let value = payload::parse(&text, "bench").expect("payload is JSON");
            payloads.push((base + file.tool, value));
        }
    }
    (checkers, payloads)
}

fn bench(c: &mut Criterion) {
    let (checkers, payloads) = load();
    let valid: Vec<(usize, Value)> = payloads
        .iter()
        .filter(|(i, p)| checkers[*i].classify(p) == Class::BothAccept)
        .cloned()
        .collect();
    eprintln!(
        "{} sample tools, {} payloads ({} accepted by both sides)",
        checkers.len(),
        payloads.len(),
        valid.len()
    );

    let mut group = c.benchmark_group("check");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));

    group.throughput(Throughput::Elements(payloads.len() as u64));
    group.bench_function("classify", |b| {
        b.iter(|| {
            for (i, p) in &payloads {
                black_box(checkers[*i].classify(black_box(p)));
            }
        })
    });
    group.bench_function("check", |b| {
        b.iter(|| {
            for (i, p) in &payloads {
                black_box(checkers[*i].check(black_box(p)));
            }
        })
    });
    group.throughput(Throughput::Elements(valid.len() as u64));
    group.bench_function("check/valid-only", |b| {
        b.iter(|| {
            for (i, p) in &valid {
                black_box(checkers[*i].check(black_box(p)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
