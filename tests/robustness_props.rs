//! I-total on anything a user can hand in: arbitrary JSON, and the bundled samples mutated at
//! random, go through loading, projection (both modes, recursion unrolled by default and kept
//! as `$defs`), payload checks (against the projection and against each tailored one), lint and
//! tailoring for every provider profile, the payload skeleton and Ollama's view. Each step must
//! end in a result or an error that says something; none may panic or hang.
//!
//! Cases per property: `PROPTEST_CASES` (default 48, so that the default `cargo test` stays
//! quick); run with a large value to search longer. Failures are shrunk and printed; their
//! minimal forms are kept in `MINIMAL_CASES` below.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use schemalens::lint::{Profile, Subject, lint_tools, ollama_view};
use schemalens::manifest::{self, Manifest};
use schemalens::projection::tailor::tailor;
use schemalens::validate::{Checker, skeleton};
use schemalens::{Mode, Options, Recursion, project_tool};
use serde_json::{Map, Value, json};

/// Far above what any case needs in a debug build on a loaded machine; only a hang reaches it.
const CASE_TIMEOUT: Duration = Duration::from_secs(60);

/// Tools of one manifest that are exercised (a generated manifest may list many).
const TOOLS_PER_CASE: usize = 3;

/// What the cases reached, so that a run shows it exercised more than the loader's errors.
static LOADED: AtomicUsize = AtomicUsize::new(0);
static REFUSED_LOADS: AtomicUsize = AtomicUsize::new(0);
static PROJECTED: AtomicUsize = AtomicUsize::new(0);
static REFUSED_PROJECTIONS: AtomicUsize = AtomicUsize::new(0);
static CHECKS: AtomicUsize = AtomicUsize::new(0);

fn count(counter: &AtomicUsize) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        // Regression files would land next to this source; minimal cases are kept below.
        failure_persistence: None,
        ..Config::default()
    })
}

fn outcome<T: std::fmt::Debug>(what: &str, result: Result<(), TestError<T>>) {
    match result {
        Ok(()) => eprintln!(
            "{what}: {} cases, no panic, no hang (so far in this run: {} documents loaded, {} refused; {} projections, {} refused; {} payload checks)",
            cases(),
            LOADED.load(Ordering::Relaxed),
            REFUSED_LOADS.load(Ordering::Relaxed),
            PROJECTED.load(Ordering::Relaxed),
            REFUSED_PROJECTIONS.load(Ordering::Relaxed),
            CHECKS.load(Ordering::Relaxed),
        ),
        Err(TestError::Fail(reason, value)) => {
            panic!("{what}: minimal failing case:\n{reason}\n  input: {value:?}")
        }
        Err(TestError::Abort(reason)) => panic!("{what}: aborted: {reason}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Arbitrary JSON, biased towards what schemas are made of.

const KEYS: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "$id",
    "$anchor",
    "$schema",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalItems",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "enum",
    "const",
    "discriminator",
    "propertyName",
    "mapping",
    "nullable",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "default",
    "description",
    "title",
    "contains",
    "minContains",
    "maxContains",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minItems",
    "maxItems",
    "multipleOf",
    "tools",
    "inputSchema",
    "name",
    "function",
    "parameters",
    "input_schema",
    "functionDeclarations",
    "result",
    "jsonrpc",
    "a",
    "b",
    "x",
];

const STRINGS: &[&str] = &[
    "#",
    "#/",
    "#/$defs/a",
    "#/$defs/b",
    "#/definitions/a",
    "#/properties/a",
    "#/properties",
    "#/items",
    "#/anyOf/0",
    "#/oneOf/1",
    "#a",
    "#/%24defs/a",
    "#/$defs/a~1b",
    "other.json",
    "https://example.com/s.json#/x",
    "urn:x",
    "object",
    "array",
    "string",
    "integer",
    "number",
    "boolean",
    "null",
    "a",
    "b",
    "kind",
    "op",
    "",
    "^[a-z]+$",
    "(",
    "date-time",
    "email",
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "2.0",
    "tools/list",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..40).prop_map(Value::from),
        prop::num::f64::NORMAL.prop_map(Value::from),
        prop::sample::select(STRINGS).prop_map(Value::from),
        "\\PC{0,6}".prop_map(Value::from),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KEYS).prop_map(str::to_owned),
        1 => "\\PC{0,4}",
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(7, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A schema as a bare document or inside one of the manifest shapes the loader detects.
fn arbitrary_document() -> impl Strategy<Value = Value> {
    (arbitrary_json(), 0..6usize, "[a-z_]{0,6}").prop_map(|(schema, shape, name)| match shape {
        0 => json!({"tools": [{"name": name, "inputSchema": schema}]}),
        1 => json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": name, "inputSchema": schema}]}}),
        2 => json!([{"type": "function", "function": {"name": name, "parameters": schema}}]),
        3 => json!([{"name": name, "input_schema": schema}]),
        4 => json!({"functionDeclarations": [{"name": name, "parameters": schema}]}),
        _ => schema,
    })
}

// ---------------------------------------------------------------------------------------------
// Mutations of the bundled samples: the shapes are real, the damage is arbitrary.

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the node with arbitrary JSON.
    Replace(Value),
    /// Remove it from its parent.
    Delete,
    /// Rename its key in the parent to a schema keyword.
    Rename(&'static str),
    /// Turn it into a `$ref` to another node of the document (cycles included).
    RefTo(usize),
    /// Copy another node of the document here.
    CopyFrom(usize),
    /// Wrap it in a union of itself.
    Wrap(&'static str),
}

fn mutation() -> impl Strategy<Value = (usize, Mutation)> {
    let kind = prop_oneof![
        arbitrary_json().prop_map(Mutation::Replace),
        Just(Mutation::Delete),
        prop::sample::select(KEYS).prop_map(Mutation::Rename),
        any::<usize>().prop_map(Mutation::RefTo),
        any::<usize>().prop_map(Mutation::CopyFrom),
        prop::sample::select(&["anyOf", "oneOf", "allOf"][..]).prop_map(Mutation::Wrap),
    ];
    (any::<usize>(), kind)
}

/// Every JSON pointer of the document, parents before children.
fn pointers(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(v, String::new())];
    while let Some((node, at)) = stack.pop() {
        match node {
            Value::Object(m) => {
                for (k, c) in m {
                    let escaped = k.replace('~', "~0").replace('/', "~1");
                    stack.push((c, format!("{at}/{escaped}")));
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    stack.push((c, format!("{at}/{i}")));
                }
            }
            _ => {}
        }
        out.push(at);
    }
    out
}

fn split(pointer: &str) -> Option<(&str, String)> {
    let (parent, last) = pointer.rsplit_once('/')?;
    Some((parent, last.replace("~1", "/").replace("~0", "~")))
}

fn apply(doc: &mut Value, (at, m): &(usize, Mutation)) {
    let all = pointers(doc);
    let target = all[at % all.len()].clone();
    match m {
        Mutation::Replace(v) => {
            if let Some(node) = doc.pointer_mut(&target) {
                *node = v.clone();
            }
        }
        Mutation::Delete | Mutation::Rename(_) => {
            let Some((parent, last)) = split(&target) else {
                return;
            };
            match (doc.pointer_mut(parent), m) {
                (Some(Value::Object(map)), Mutation::Rename(to)) => {
                    if let Some(v) = map.shift_remove(&last) {
                        map.insert((*to).to_owned(), v);
                    }
                }
                (Some(Value::Object(map)), _) => {
                    map.shift_remove(&last);
                }
                (Some(Value::Array(items)), _) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < items.len()
                    {
                        items.remove(i);
                    }
                }
                _ => {}
            }
        }
        Mutation::RefTo(other) => {
            let to = all[other % all.len()].clone();
            if let Some(node) = doc.pointer_mut(&target) {
                *node = json!({"$ref": format!("#{to}")});
            }
        }
        Mutation::CopyFrom(other) => {
            let from = all[other % all.len()].clone();
            let copy = doc.pointer(&from).cloned();
            if let (Some(copy), Some(node)) = (copy, doc.pointer_mut(&target)) {
                *node = copy;
            }
        }
        Mutation::Wrap(keyword) => {
            if let Some(node) = doc.pointer_mut(&target) {
                let inner = node.take();
                *node = json!({ *keyword: [inner.clone(), inner] });
            }
        }
    }
}

fn samples() -> Vec<Value> {
    support::samples()
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("readable sample");
            serde_json::from_str(&text).expect("sample is JSON")
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The pipeline, run on a worker so that a panic or a hang is a finding, not a crash.

fn guarded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("robustness".into())
        // The engine grows its own stack where it recurses; a small one shows where it does not.
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        })
        .map_err(|e| format!("could not spawn: {e}"))?;
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(payload)) => Err(format!("panicked: {}", panic_text(payload.as_ref()))),
        Err(_) => Err(format!("no answer within {CASE_TIMEOUT:?}")),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into())
}

/// Every step on one document; `Err` names the first step that panicked or said nothing.
fn exercise(document: Value, payload: Value) -> Result<(), String> {
    let text = document.to_string();
    // Loading from text too: the text path has its own depth and position handling.
    if let Err(e) = manifest::load_str(&text, "<case>", None) {
        nonempty("load_str", &e.to_string())?;
    }
    let manifest = match manifest::load_value(document, "<case>", None) {
        Ok(m) => m,
        Err(e) => {
            count(&REFUSED_LOADS);
            return nonempty("load_value", &e.to_string());
        }
    };
    count(&LOADED);
    lint_all(&manifest);
    for tool in manifest.tools.iter().take(TOOLS_PER_CASE) {
        for mode in [Mode::Inline, Mode::Flat] {
            for recursion in [Options::default().recursion, Recursion::Keep] {
                let options = Options {
                    mode,
                    recursion,
                    ..Options::default()
                };
                let projection = match project_tool(tool, &options) {
                    Ok(p) => p,
                    Err(e) => {
                        count(&REFUSED_PROJECTIONS);
                        nonempty("project", &e.to_string())?;
                        continue;
                    }
                };
                count(&PROJECTED);
                let _ = ollama_view(&projection.schema);
                let skeleton = skeleton(&projection);
                for profile in Profile::ALL {
                    let _ = schemalens::lint::lint_schema(profile, &projection.schema);
                    let tailored = tailor(projection.clone(), profile);
                    // Tailoring must hand back a schema its own validator can compile or a
                    // clear error, and judge any payload without panicking.
                    match Checker::tailored(tool, tailored) {
                        Ok(c) => {
                            let _ = c.check(&payload);
                            count(&CHECKS);
                        }
                        Err(e) => nonempty("tailored checker", &e.to_string())?,
                    }
                }
                match Checker::new(tool, projection) {
                    Ok(c) => {
                        for p in [&payload, &skeleton, &Value::Null, &json!({})] {
                            let _ = c.check(p);
                            count(&CHECKS);
                        }
                    }
                    Err(e) => nonempty("checker", &e.to_string())?,
                }
            }
        }
    }
    Ok(())
}

fn lint_all(manifest: &Manifest) {
    let subjects: Vec<Subject<'_>> = manifest
        .tools
        .iter()
        .map(|t| Subject {
            name: Some(&t.name),
            schema: &t.schema,
        })
        .collect();
    for profile in Profile::ALL {
        let _ = lint_tools(profile, &subjects);
    }
}

fn nonempty(step: &str, message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err(format!("{step}: an error without a message"));
    }
    Ok(())
}

fn check(document: Value, payload: Value) -> Result<(), TestCaseError> {
    let shown = document.to_string();
    match guarded(move || exercise(document, payload)) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(why)) | Err(why) => Err(TestCaseError::fail(format!("{why}\n  document: {shown}"))),
    }
}

#[test]
fn arbitrary_json_never_panics_or_hangs() {
    let mut runner = runner();
    let result = runner.run(
        &(arbitrary_document(), arbitrary_json()),
        |(doc, payload)| check(doc, payload),
    );
    outcome("arbitrary JSON", result);
}

#[test]
fn mutated_samples_never_panic_or_hang() {
    let samples = samples();
    let n = samples.len();
    let mut runner = runner();
    let strategy = (
        0..n,
        prop::collection::vec(mutation(), 1..5),
        arbitrary_json(),
    );
    let result = runner.run(&strategy, |(i, mutations, payload)| {
        let mut doc = samples[i].clone();
        for m in &mutations {
            apply(&mut doc, m);
        }
        check(doc, payload)
    });
    outcome("mutated samples", result);
}

/// Minimal forms of what these properties found, each once a panic or a hang.
const MINIMAL_CASES: &[(&str, &str)] = &[(
    "allOf merge met a number where a property schema belongs (panicked in conjoin)",
    r##"{"type":"object","properties":{"pet":{"oneOf":[{"$ref":"#/$defs/Cat"},{"$ref":"#/$defs/Dog"}]}},"$defs":{"Pet":{"type":"object","properties":{"petType":{"type":"string"}}},"Cat":{"allOf":[{"$ref":"#/$defs/Pet"},{"type":"object","properties":{"petType":0}}]},"Dog":{"allOf":[{"$ref":"#/$defs/Pet"},{"type":"object","properties":{"petType":{"const":"dog"}}}]}}}"##,
)];

#[test]
fn minimal_cases_stay_fixed() {
    for (what, document) in MINIMAL_CASES {
        let doc: Value = serde_json::from_str(document).expect("case is JSON");
        if let Err(why) = guarded(move || exercise(doc, json!({}))).and_then(|r| r) {
            panic!("{what}: {why}");
        }
    }
}
