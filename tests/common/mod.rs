//! Helpers shared by the soundness suites (`conformance`, `soundness_props`).
//!
//! Each integration test is its own crate and uses only part of this module, hence the
//! crate-level `dead_code` allowance below rather than one per item.
#![allow(dead_code)]

use std::sync::mpsc;
use std::time::Duration;

use schemalens::schema::Draft;
use schemalens::{Mode, OpenBranches, Options, Projection, ProjectionError, Recursion, project};
use serde_json::Value;

/// The option sets every soundness check runs under: both modes, with recursion unrolled (the
/// default) and kept as `$defs` + `$ref`; flat mode under the default `--open-branches
/// declared` and under `strict` (which `inline` ignores).
pub fn configs(draft: Option<Draft>) -> Vec<(&'static str, Options)> {
    let make = |mode, recursion, open_branches| Options {
        mode,
        recursion,
        draft,
        open_branches,
        ..Options::default()
    };
    let unrolled = Options::default().recursion;
    let (declared, strict) = (OpenBranches::Declared, OpenBranches::Strict);
    vec![
        ("inline", make(Mode::Inline, unrolled, declared)),
        ("flat", make(Mode::Flat, unrolled, declared)),
        ("flat+strict", make(Mode::Flat, unrolled, strict)),
        ("inline+keep", make(Mode::Inline, Recursion::Keep, declared)),
        ("flat+keep", make(Mode::Flat, Recursion::Keep, declared)),
    ]
}

/// Whether a config may reject a foreign key the original accepts (SPEC I-sound's one stated
/// exception): flat mode under `--open-branches declared`.
pub fn keeps_declared_shapes(options: &Options) -> bool {
    options.mode == Mode::Flat && options.open_branches == OpenBranches::Declared
}

/// What one projection attempt ended in. A panic or a hang must be reported as a finding, not
/// take the whole run down with it, so the caller can keep counting and print every case.
pub enum Outcome {
    Projected(Box<Projection>),
    Failed(ProjectionError),
    Panicked(String),
    TimedOut,
}

/// SPEC asks for "well under a second"; the generous limit absorbs a debug build on a loaded
/// two-core machine while still catching real non-termination.
pub const PROJECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Projects on a worker thread so that a panic is caught and a hang is detected. A hung worker
/// cannot be killed; it is leaked and the test reports the case and fails.
pub fn project_guarded(schema: &Value, options: &Options) -> Outcome {
    let (tx, rx) = mpsc::channel();
    let schema = schema.clone();
    let options = options.clone();
    let spawned = std::thread::Builder::new()
        .name("project".into())
        .spawn(move || {
            let result = std::panic::catch_unwind(move || project(&schema, &options));
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Outcome::Panicked(format!("could not spawn worker: {e}"));
    }
    match rx.recv_timeout(PROJECT_TIMEOUT) {
        Ok(Ok(Ok(p))) => Outcome::Projected(Box::new(p)),
        Ok(Ok(Err(e))) => Outcome::Failed(e),
        Ok(Err(payload)) => Outcome::Panicked(panic_message(payload.as_ref())),
        Err(mpsc::RecvTimeoutError::Timeout) => Outcome::TimedOut,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Outcome::Panicked("worker vanished without an answer".into())
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

/// The validator dialect used as oracle for a given engine draft.
pub fn oracle_draft(draft: Draft) -> jsonschema::Draft {
    match draft {
        Draft::Draft7 => jsonschema::Draft::Draft7,
        Draft::Draft2019 => jsonschema::Draft::Draft201909,
        // OpenAPI 3.0 has no validator dialect; its projection is plain JSON Schema.
        Draft::Draft2020 | Draft::OpenApi30 => jsonschema::Draft::Draft202012,
    }
}

/// Builds the oracle. The original and its projection must be judged by identically configured
/// validators, or a verdict difference could come from configuration rather than projection;
/// the draft is forced because projections need not carry `$schema`, and nothing is fetched.
pub fn oracle(
    schema: &Value,
    draft: Draft,
    assert_formats: Option<bool>,
) -> Result<jsonschema::Validator, String> {
    let mut options = jsonschema::options()
        .with_draft(oracle_draft(draft))
        .offline();
    if let Some(yes) = assert_formats {
        options = options.should_validate_formats(yes);
    }
    options.build(schema).map_err(|e| e.to_string())
}

/// Calls `visit(pointer, schema_object)` for every schema object reachable through schema
/// positions only. Written independently of the engine's keyword table on purpose: the
/// invariant checks must not share a blind spot with the code they check. A property *named*
/// `oneOf` is data and is never mistaken for the keyword, since only the values under
/// `properties` are descended into, not its keys.
pub fn walk_schemas(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&str, &Value)) {
    let Some(map) = schema.as_object() else {
        return;
    };
    visit(pointer, schema);
    let esc = |s: &str| s.replace('~', "~0").replace('/', "~1");
    for (key, value) in map {
        let here = format!("{pointer}/{}", esc(key));
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies" => {
                if let Some(members) = value.as_object() {
                    for (name, sub) in members {
                        walk_schemas(sub, &format!("{here}/{}", esc(name)), visit);
                    }
                }
            }
            "additionalProperties"
            | "propertyNames"
            | "unevaluatedProperties"
            | "additionalItems"
            | "contains"
            | "unevaluatedItems"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contentSchema"
            | "items" => match value {
                Value::Array(list) => {
                    for (i, sub) in list.iter().enumerate() {
                        walk_schemas(sub, &format!("{here}/{i}"), visit);
                    }
                }
                other => walk_schemas(other, &here, visit),
            },
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                if let Some(list) = value.as_array() {
                    for (i, sub) in list.iter().enumerate() {
                        walk_schemas(sub, &format!("{here}/{i}"), visit);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Schema-position pointers at which `keyword` appears as a keyword.
pub fn keyword_sites(schema: &Value, keyword: &str) -> Vec<String> {
    let mut out = Vec::new();
    walk_schemas(schema, "", &mut |ptr, node| {
        if node.get(keyword).is_some() {
            out.push(format!("{ptr}/{keyword}"));
        }
    });
    out
}
