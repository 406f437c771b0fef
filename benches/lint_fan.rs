//! `lint --provider all` as the report computes it (projection, tailoring and lint of the three
//! forms for the nine profiles) on two documents of about the same size: one whose
//! definitions each refer to the next `FAN` times (its inline projection repeats the last one
//! `FAN^(LEVELS-1)` times), and one with the same definitions and properties where only one
//! property refers on (no fan-out). Issue 10 asks that lint time follow the original's size:
//! the ratio of the two is the figure to watch (printed at the start; 1 would be the target).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use schemalens::lint::Profile;
use schemalens::lint::report::{ToolForms, lint_forms_for};
use schemalens::manifest::{self, Tool};
use schemalens::{Options, project_tool};
use serde_json::Value;

const FAN: usize = 8;
/// Six levels as in tests/lint.rs' 4 KB reproducer would take seconds per iteration; five
/// keep the fan at 4,096 copies of the last definition.
const LEVELS: usize = 5;

#[path = "../tests/support/ref_fan.rs"]
mod ref_fan;

fn document(fan_out: bool) -> Value {
    ref_fan::document(FAN, LEVELS, fan_out)
}

fn tool(doc: &Value) -> Tool {
    manifest::load_str(&doc.to_string(), "schema.json", None)
        .expect("the document loads")
        .tools
        .remove(0)
}

/// What `lint --provider all` computes for one tool, from its projection on.
fn lint_all(tool: &Tool, options: &Options) -> usize {
    let projection = project_tool(tool, options).map_err(|e| e.to_string());
    let forms = [ToolForms {
        name: None,
        tool,
        options,
        projection: projection.as_ref().map_err(String::as_str),
    }];
    lint_forms_for(&Profile::ALL, &forms)
        .iter()
        .flatten()
        .map(|p| p.forms.iter().map(|f| f.groups.len()).sum::<usize>())
        .sum()
}

fn median_seconds(tool: &Tool, options: &Options, rounds: usize) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            black_box(lint_all(tool, options));
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[rounds / 2]
}

fn bench(c: &mut Criterion) {
    let options = Options::inline();
    let fan = tool(&document(true));
    let plain = tool(&document(false));
    let size = |t: &Tool| t.schema.to_string().len();
    let projected = |t: &Tool| project_tool(t, &options).map_or(0, |p| p.schema.to_string().len());
    // Interleaved rounds, one median each: the machine is shared, a ratio from one run holds.
    let (mut fan_s, mut plain_s) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        fan_s.push(median_seconds(&fan, &options, 1));
        plain_s.push(median_seconds(&plain, &options, 5));
    }
    fan_s.sort_by(f64::total_cmp);
    plain_s.sort_by(f64::total_cmp);
    eprintln!(
        "lint_fan: fan-out {} B (projection {} B) {:.3} s, no fan-out {} B (projection {} B) {:.4} s: ratio {:.1}",
        size(&fan),
        projected(&fan),
        fan_s[1],
        size(&plain),
        projected(&plain),
        plain_s[1],
        fan_s[1] / plain_s[1]
    );
    let mut group = c.benchmark_group("lint_all_profiles");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("fan_out", |b| b.iter(|| lint_all(&fan, &options)));
    group.bench_function("no_fan_out", |b| b.iter(|| lint_all(&plain, &options)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
