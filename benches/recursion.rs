//! Rule 2 costs: projecting the recursive samples at the default depth (the unrolling budget
//! picks it), and how fast inputs that must be refused are refused (SPEC: well under a second,
//! whatever the input). Compare ratios within one run; the machines are shared.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use schemalens::{Mode, Options, project};
use serde_json::{Map, Value, json};

// The same allocator as the `schemalens` binary, so the figures are what users get.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn read(path: &str) -> Value {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    serde_json::from_str(&std::fs::read_to_string(full).expect("readable")).expect("JSON")
}

/// 40 definitions, each an array of two `$ref`s to the next: 2^40 nodes once inlined.
fn ref_bomb() -> Value {
    let mut defs = Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(
            format!("d{i}"),
            json!({"type": "array", "prefixItems": [next.clone(), next]}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})
}

/// `k` definitions, each with a property referring to every definition: every ordering of
/// first entries is a distinct path, so even the `$defs` form multiplies past the budget.
fn fan(k: usize) -> Value {
    let defs: Map<String, Value> = (0..k)
        .map(|i| {
            let props: Map<String, Value> = (0..k)
                .map(|j| (format!("p{j}"), json!({"$ref": format!("#/$defs/d{j}")})))
                .collect();
            (
                format!("d{i}"),
                json!({"type": "object", "properties": props}),
            )
        })
        .collect();
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

fn recursion(c: &mut Criterion) {
    let mut group = c.benchmark_group("recursion");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, path) in [
        ("expression-tree", "samples/expression-tree-pydantic.json"),
        (
            "filesystem-entries",
            "samples/filesystem-entries-pydantic.json",
        ),
        ("json-value", "samples/json-value-pydantic.json"),
        ("order-root-ref", "tests/data/order-with-root-ref.json"),
        (
            "expression-tree-allof",
            "tests/data/expression-tree-allof.json",
        ),
    ] {
        let schema = read(path);
        for mode in [Mode::Inline, Mode::Flat] {
            let options = Options {
                mode,
                ..Options::default()
            };
            assert!(project(&schema, &options).is_ok(), "{name} projects");
            group.bench_function(format!("project/{name}/{mode}"), |b| {
                b.iter(|| project(black_box(&schema), &options))
            });
        }
    }
    for (name, schema) in [("ref-bomb-2^40", ref_bomb()), ("fan-40", fan(40))] {
        let options = Options::default();
        assert!(project(&schema, &options).is_err(), "{name} is refused");
        group.bench_function(format!("refuse/{name}"), |b| {
            b.iter(|| project(black_box(&schema), &options))
        });
    }
    group.finish();
}

criterion_group!(benches, recursion);
criterion_main!(benches);
