//! Projection throughput on a large, generated MCP `tools/list` manifest, against plain
//! serde_json parse + serialize of the same bytes as the floor.
//!
//! The manifest is generated here, deterministically, so that the numbers are comparable
//! between machines and commits without a multi-megabyte fixture in the repository.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use schemalens::manifest;
use schemalens::{Options, project_tool};

// The same allocator as the `schemalens` binary, so the figures are what users get.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use serde_json::{Map, Value, json};

/// Large enough that per-call overheads vanish and the manifest is at least 5 MB.
const TOOLS: usize = 600;
const MIN_BYTES: usize = 5 * 1024 * 1024;

/// xorshift64: a fixed seed per tool gives the same manifest on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "account",
    "booking",
    "customer",
    "delivery",
    "estimate",
    "forecast",
    "gateway",
    "handler",
    "invoice",
    "journal",
    "kernel",
    "ledger",
    "manifest",
    "network",
    "order",
    "payment",
    "quota",
    "record",
    "shipment",
    "ticket",
    "update",
    "vendor",
    "warehouse",
    "region",
    "currency",
    "the",
    "a",
    "for",
    "with",
    "when",
    "is",
    "of",
    "to",
    "and",
    "or",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut text: Vec<&str> = (0..words).map(|_| WORDS[rng.below(WORDS.len())]).collect();
    text[0] = "Describes";
    format!("{}.", text.join(" "))
}

/// An enum of `min` to `min + spread - 1` values.
fn string_enum(rng: &mut Rng, prefix: &str, min: usize, spread: usize) -> Value {
    let n = min + rng.below(spread);
    let values: Vec<Value> = (0..n)
        .map(|i| json!(format!("{prefix}_{i}_{}", rng.below(1000))))
        .collect();
    json!({"type": "string", "enum": values, "description": sentence(rng, 8)})
}

/// One discriminated union over `tags`, each branch a `$ref` into `$defs`, the way Pydantic
/// emits them.
fn union(tag: &str, branches: &[(&str, &str)]) -> Value {
    let refs: Vec<Value> = branches
        .iter()
        .map(|(_, def)| json!({"$ref": format!("#/$defs/{def}")}))
        .collect();
    let mapping: Map<String, Value> = branches
        .iter()
        .map(|(t, def)| ((*t).to_owned(), json!(format!("#/$defs/{def}"))))
        .collect();
    json!({"oneOf": refs, "discriminator": {"propertyName": tag, "mapping": mapping}})
}

fn branch(tag: &str, value: &str, title: &str, mut props: Map<String, Value>) -> Value {
    let mut properties = Map::new();
    properties.insert(
        tag.to_owned(),
        json!({"const": value, "title": "Kind", "type": "string"}),
    );
    let required: Vec<Value> = std::iter::once(json!(tag))
        .chain(props.keys().take(2).map(|k| json!(k)))
        .collect();
    properties.append(&mut props);
    json!({
        "additionalProperties": false,
        "description": format!("The {value} variant."),
        "properties": properties,
        "required": required,
        "title": title,
        "type": "object"
    })
}

fn props(entries: Vec<(&str, Value)>) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

/// A tool of moderate size: shared `$defs` reached from several places, a two-level
/// discriminated union (payment method, then card network / bank scheme), enums and prose.
fn tool(index: usize) -> Value {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0x2545_F491));
    let rng = &mut rng;
    let r = |name: &str| json!({"$ref": format!("#/$defs/{name}")});

    let mut defs = Map::new();
    defs.insert(
        "Address".into(),
        json!({
            "type": "object",
            "description": sentence(rng, 14),
            "properties": {
                "street": {"type": "string", "maxLength": 120, "description": sentence(rng, 10)},
                "city": {"type": "string", "description": sentence(rng, 6)},
                "postal_code": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
                "country": string_enum(rng, "country", 12, 12)
            },
            "required": ["street", "city", "country"],
            "additionalProperties": false
        }),
    );
    defs.insert(
        "Money".into(),
        json!({
            "type": "object",
            "properties": {
                "amount": {"type": "number", "minimum": 0, "description": sentence(rng, 9)},
                "currency": string_enum(rng, "cur", 6, 6)
            },
            "required": ["amount", "currency"],
            "additionalProperties": false
        }),
    );
    defs.insert(
        "Contact".into(),
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": sentence(rng, 7)},
                "email": {"type": "string", "format": "email"},
                "phone": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "address": r("Address")
            },
            "required": ["name", "email"],
            "additionalProperties": false
        }),
    );
    defs.insert(
        "Visa".into(),
        branch(
            "network",
            "visa",
            "Visa",
            props(vec![
                ("last4", json!({"type": "string", "pattern": "^[0-9]{4}$"})),
                (
                    "expiry",
                    json!({"type": "string", "description": sentence(rng, 6)}),
                ),
                ("three_ds", json!({"type": "boolean"})),
            ]),
        ),
    );
    defs.insert(
        "Amex".into(),
        branch(
            "network",
            "amex",
            "Amex",
            props(vec![
                ("last4", json!({"type": "string", "pattern": "^[0-9]{4}$"})),
                (
                    "expiry",
                    json!({"type": "string", "description": sentence(rng, 6)}),
                ),
                ("member_id", json!({"type": "integer", "minimum": 1})),
            ]),
        ),
    );
    defs.insert(
        "Sepa".into(),
        branch(
            "scheme",
            "sepa",
            "Sepa",
            props(vec![
                (
                    "iban",
                    json!({"type": "string", "pattern": "^[A-Z]{2}[0-9A-Z]{13,32}$"}),
                ),
                (
                    "mandate",
                    json!({"type": "string", "description": sentence(rng, 8)}),
                ),
            ]),
        ),
    );
    defs.insert(
        "Swift".into(),
        branch(
            "scheme",
            "swift",
            "Swift",
            props(vec![
                (
                    "bic",
                    json!({"type": "string", "minLength": 8, "maxLength": 11}),
                ),
                ("account", json!({"type": "integer"})),
                ("correspondent", r("Address")),
            ]),
        ),
    );
    defs.insert(
        "Card".into(),
        branch(
            "method",
            "card",
            "Card",
            props(vec![
                ("amount", r("Money")),
                (
                    "network",
                    union("network", &[("visa", "Visa"), ("amex", "Amex")]),
                ),
                ("billing", r("Address")),
                ("holder", r("Contact")),
            ]),
        ),
    );
    defs.insert(
        "Bank".into(),
        branch(
            "method",
            "bank",
            "Bank",
            props(vec![
                ("amount", r("Money")),
                (
                    "route",
                    union("scheme", &[("sepa", "Sepa"), ("swift", "Swift")]),
                ),
                ("owner", r("Contact")),
            ]),
        ),
    );
    defs.insert(
        "Wallet".into(),
        branch(
            "method",
            "wallet",
            "Wallet",
            props(vec![
                ("amount", json!({"type": "integer", "minimum": 0})),
                ("provider", string_enum(rng, "wallet", 4, 4)),
            ]),
        ),
    );

    let mut properties = Map::new();
    properties.insert("customer".into(), r("Contact"));
    properties.insert("shipping".into(), r("Address"));
    properties.insert(
        "payment".into(),
        union(
            "method",
            &[("card", "Card"), ("bank", "Bank"), ("wallet", "Wallet")],
        ),
    );
    properties.insert(
        "items".into(),
        json!({
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "description": sentence(rng, 6)},
                    "quantity": {"type": "integer", "minimum": 1},
                    "price": r("Money")
                },
                "required": ["sku", "quantity"]
            }
        }),
    );
    // Tool-specific fields, so that tools differ in shape and not only in text.
    for extra in 0..rng.below(6) {
        properties.insert(format!("option_{extra}"), string_enum(rng, "opt", 3, 8));
    }
    properties.insert(
        "note".into(),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}),
    );

    let words = 30 + rng.below(40);
    json!({
        "name": format!("tool_{index:04}"),
        "description": sentence(rng, words),
        "inputSchema": {
            "$defs": defs,
            "properties": properties,
            "required": ["customer", "payment", "items"],
            "title": format!("tool_{index:04}Arguments"),
            "type": "object"
        }
    })
}

fn manifest_text() -> String {
    let tools: Vec<Value> = (0..TOOLS).map(tool).collect();
    let doc = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}});
    let text = serde_json::to_string_pretty(&doc).expect("serializable");
    assert!(
        text.len() >= MIN_BYTES,
        "generated manifest is {} bytes; raise TOOLS",
        text.len()
    );
    text
}

/// What `schemalens project` does: load, project every tool, write back, serialize.
fn project_all(text: &str, options: &Options) -> String {
    let manifest = manifest::load_str(text, "bench.json", None).expect("generated manifest loads");
    let replacements: Vec<(usize, Value)> = manifest
        .tools
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            let projection = project_tool(tool, options).expect("generated tools project");
            (i, projection.schema)
        })
        .collect();
    serde_json::to_string(&manifest.with_schemas(&replacements)).expect("serializable")
}

fn projection(c: &mut Criterion) {
    let text = manifest_text();
    eprintln!(
        "manifest: {TOOLS} tools, {:.2} MB; flat output {:.2} MB, inline output {:.2} MB",
        text.len() as f64 / 1e6,
        project_all(&text, &Options::flat()).len() as f64 / 1e6,
        project_all(&text, &Options::inline()).len() as f64 / 1e6,
    );

    let mut group = c.benchmark_group("projection");
    // Each iteration takes tens to hundreds of milliseconds on a small shared machine: flat
    // sampling with few samples keeps a run to about a minute.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Bytes(text.len() as u64));

    group.bench_function("serde_json parse+serialize (baseline)", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_str(black_box(&text)).expect("valid JSON");
            serde_json::to_string(&value).expect("serializable")
        })
    });
    let flat = Options::flat();
    group.bench_function("flat: load+project+write", |b| {
        b.iter(|| project_all(black_box(&text), &flat))
    });
    let inline = Options::inline();
    group.bench_function("inline: load+project+write", |b| {
        b.iter(|| project_all(black_box(&text), &inline))
    });
    group.finish();
}

criterion_group!(benches, projection);
criterion_main!(benches);
