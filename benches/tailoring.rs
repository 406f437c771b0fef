//! What `project --provider P` costs over `project`, per provider: the projection the provider
//! wants plus its tailoring. Issue 10 asks that this follow the input's size; a step that is
//! quadratic in the schema (as removing the records under each JSON-text carrier was, ~1,000
//! carriers per tool in `pydantic-qdrant-models` for openai-strict) shows as a ratio far above
//! the others.
//!
//! On the bundled samples by default. The real set is what shows it: build it with
//! `scripts/realset/build.sh DIR` and run
//!
//! ```sh
//! SCHEMALENS_REALSET=DIR cargo bench --bench tailoring
//! ```
//!
//! The 3 KB ref-fan reproducer of issue 10 (definitions that each refer to the next 8 times, 5
//! levels deep: 4,096 inlined copies of the last one, each with a value carried as text) is
//! always among the inputs: while removing the records under each carrier read every record
//! made so far, its ratios were gemini 15.2× and anthropic-strict 16.0× (5.1× and 7.2× since).
//!
//! So is one object with 2,000 properties, most of them optional (see `wide_object_input`).
//!
//! It prints, per manifest and provider, the time of tailoring every tool over the time of
//! projecting them (the minimum of interleaved rounds: the machines are shared and noisy, only
//! ratios within one run compare), then criterion times the provider's slowest manifest
//! (unless `SCHEMALENS_BENCH_SUMMARY_ONLY` is set).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use schemalens::lint::Profile;
use schemalens::manifest::{self, Tool};
use schemalens::{Options, project_tool, tailor_tool};

// The same allocator as the `schemalens` binary, so the figures are what users get.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PROFILES: [Profile; 3] = [
    Profile::OpenAiStrict,
    Profile::Gemini,
    Profile::AnthropicStrict,
];
const ROUNDS: usize = 3;

#[path = "../tests/support/ref_fan.rs"]
mod ref_fan;

struct Input {
    name: String,
    tools: Vec<Tool>,
}

/// The manifests of `SCHEMALENS_REALSET`, else the bundled samples; then the ref fan.
fn inputs() -> Vec<Input> {
    let dir = std::env::var_os("SCHEMALENS_REALSET").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("samples"),
        PathBuf::from,
    );
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the inputs' folder")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".json") && !name.ends_with(".cases.json")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let origin = path.display().to_string();
            let tools = manifest::load_str(&text, &origin, None).ok()?.tools;
            let name = path.file_stem()?.to_string_lossy().into_owned();
            Some(Input { name, tools })
        })
        .chain([ref_fan_input(), wide_object_input()])
        .collect()
}

fn ref_fan_input() -> Input {
    let doc = ref_fan::document(8, 5, true).to_string();
    let tools = manifest::load_str(&doc, "ref-fan.json", None)
        .expect("the ref fan loads")
        .tools;
    Input {
        name: "ref-fan-8x5".into(),
        tools,
    }
}

/// One object with 2,000 properties as Pydantic writes a wide model: two in three
/// `Optional[str] = None` (`anyOf` with `null`, `default: null`), the rest required integers
/// with a bound. Anthropic strict's limit of 24 optional properties moves them into a bundle
/// one at a time, each after a scan of the schema; while the scan looked every property up in
/// the list of required names, `project --provider anthropic-strict` of it took 4.9 s (1.1 s
/// since, the ratio 50×: the scans are what is left).
fn wide_object_input() -> Input {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for i in 0..2000 {
        let name = format!("field_{i}");
        let schema = if i % 3 == 0 {
            required.push(serde_json::Value::String(name.clone()));
            serde_json::json!({"type": "integer", "minimum": 0})
        } else {
            serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null})
        };
        properties.insert(name, schema);
    }
    let doc = serde_json::json!({"type": "object", "properties": properties, "required": required});
    let tools = manifest::load_str(&doc.to_string(), "wide-object.json", None)
        .expect("the wide object loads")
        .tools;
    Input {
        name: "wide-object-2000".into(),
        tools,
    }
}

fn project_all(tools: &[Tool], options: &Options) -> usize {
    tools
        .iter()
        .filter_map(|t| project_tool(t, options).ok())
        .map(|p| p.trace.len())
        .sum()
}

fn tailor_all(tools: &[Tool], options: &Options, profile: Profile) -> usize {
    tools
        .iter()
        .filter_map(|t| tailor_tool(t, options, profile).ok())
        .map(|t| t.adapters.len())
        .sum()
}

fn seconds(run: impl Fn() -> usize) -> f64 {
    let start = Instant::now();
    black_box(run());
    start.elapsed().as_secs_f64()
}

fn bench(c: &mut Criterion) {
    let options = Options::flat();
    let inputs = inputs();
    // Per provider, its slowest manifest (by tailoring time), for criterion below.
    let mut slowest: Vec<(f64, usize)> = vec![(0.0, 0); PROFILES.len()];
    for (i, input) in inputs.iter().enumerate() {
        let mut project = f64::MAX;
        let mut tailor = [f64::MAX; PROFILES.len()];
        for _ in 0..ROUNDS {
            project = project.min(seconds(|| project_all(&input.tools, &options)));
            for (k, &profile) in PROFILES.iter().enumerate() {
                tailor[k] = tailor[k].min(seconds(|| tailor_all(&input.tools, &options, profile)));
            }
        }
        let ratios: Vec<String> = PROFILES
            .iter()
            .zip(tailor)
            .map(|(p, t)| format!("{} {:.1}×", p.name(), t / project))
            .collect();
        eprintln!(
            "tailoring: {} ({} tools, project {:.2} ms): {}",
            input.name,
            input.tools.len(),
            project * 1e3,
            ratios.join(", ")
        );
        for (k, t) in tailor.into_iter().enumerate() {
            if t > slowest[k].0 {
                slowest[k] = (t, i);
            }
        }
    }
    if std::env::var_os("SCHEMALENS_BENCH_SUMMARY_ONLY").is_some() {
        return;
    }
    let mut group = c.benchmark_group("tailoring");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (&profile, (_, i)) in PROFILES.iter().zip(slowest) {
        let input = &inputs[i];
        group.bench_function(format!("{}/{}", profile.name(), input.name), |b| {
            b.iter(|| tailor_all(&input.tools, &options, profile))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
