//! Output pinned byte for byte: every sample tool and every corpus tool, under every projection
//! configuration the soundness suites use, must project to exactly the schema bytes, trace and
//! links recorded in `tests/data/projection-digests.txt`.
//!
//! The engine is rewritten for speed (issue 13) under the promise that nothing a user sees
//! changes; this suite is what holds it to that. A deliberate change of output regenerates the
//! file, and the diff of the digest file then shows which tools changed:
//!
//! ```sh
//! SCHEMALENS_CORPUS=../shared/corpus SCHEMALENS_PIN_UPDATE=1 cargo test --test output_pinned
//! ```

mod common;
mod support;

use std::collections::BTreeMap;
use std::path::Path;

use schemalens::manifest::{self, Manifest, Tool};
use schemalens::projection::TraceEntry;
use schemalens::{
    Linking, Options, Projection, ProjectionError, project_tool, project_tool_linking,
    project_tool_written,
};

const DIGESTS: &str = "tests/data/projection-digests.txt";
const CORPUS_PREFIX: &str = "corpus:";

/// FNV-1a, 64 bits: a regression pin needs a stable, well-spread hash, not a cryptographic one.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What `project` prints for the tool (its pretty-printed schema: length and hash), then the
/// trace as JSON and the links both ways.
fn digest(projection: &Projection) -> String {
    let schema = serde_json::to_string_pretty(&projection.schema).expect("JSON serializes");
    let trace = serde_json::to_string(&projection.trace).expect("the trace serializes");
    let mut links = String::new();
    let mut originals: Vec<&String> = Vec::new();
    for (at, from) in projection.links.iter() {
        links.push_str(&format!("{at}<-{from:?}\n"));
        originals.extend(from);
    }
    originals.sort();
    originals.dedup();
    for original in originals {
        let back = projection.links.projections(original);
        links.push_str(&format!("{original}->{back:?}\n"));
    }
    format!(
        "{}\t{:016x}\t{:016x}\t{:016x}",
        schema.len(),
        fnv1a(schema.as_bytes()),
        fnv1a(trace.as_bytes()),
        fnv1a(links.as_bytes())
    )
}

fn pin(manifest: &Manifest, prefix: &str, into: &mut BTreeMap<String, String>) {
    for tool in &manifest.tools {
        for (label, options) in common::configs(None) {
            let key = format!("{prefix}/{}/{label}", tool.name);
            let value = match project_tool(tool, &options) {
                Ok(p) => digest(&p),
                Err(e) => format!("error\t{:016x}", fnv1a(e.to_string().as_bytes())),
            };
            assert!(
                into.insert(key.clone(), value).is_none(),
                "{key} twice: tool names must be unique within a manifest"
            );
        }
    }
}

fn current(corpus: Option<&Path>) -> BTreeMap<String, String> {
    let mut pins = BTreeMap::new();
    for sample in support::samples() {
        pin(&support::load(&sample), &support::stem(&sample), &mut pins);
    }
    if let Some(corpus) = corpus {
        for path in support::corpus_manifests(&corpus.join("mcp")) {
            let manifest = manifest::load_path(&path, None)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let stem = support::stem(&path);
            pin(&manifest, &format!("{CORPUS_PREFIX}{stem}"), &mut pins);
        }
    }
    pins
}

fn recorded() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(support::root().join(DIGESTS))
        .unwrap_or_else(|e| panic!("{DIGESTS}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (key, value) = l.split_once('\t').expect("key TAB digest");
            (key.to_owned(), value.to_owned())
        })
        .collect()
}

fn write(pins: &BTreeMap<String, String>) {
    let mut text = String::from(
        "# Projection output pins (tests/output_pinned.rs): tool/config TAB bytes of the pretty\n\
         # schema, FNV-1a 64 of the schema, of the trace JSON and of the links. Regenerate with\n\
         # SCHEMALENS_CORPUS=../shared/corpus SCHEMALENS_PIN_UPDATE=1 cargo test --test output_pinned\n",
    );
    for (key, value) in pins {
        text.push_str(&format!("{key}\t{value}\n"));
    }
    std::fs::write(support::root().join(DIGESTS), text).expect("digest file is writable");
}

#[test]
fn projections_equal_the_pinned_output() {
    let corpus = support::corpus_dir();
    let now = current(corpus.as_deref());
    if std::env::var_os("SCHEMALENS_PIN_UPDATE").is_some() {
        assert!(
            corpus.is_some(),
            "regenerating the pins needs SCHEMALENS_CORPUS, or the corpus pins would be lost"
        );
        write(&now);
        eprintln!("wrote {} pins to {DIGESTS}", now.len());
        return;
    }
    let mut pinned = recorded();
    if corpus.is_none() {
        eprintln!("corpus part skipped: SCHEMALENS_CORPUS is not set (samples still checked)");
        pinned.retain(|k, _| !k.starts_with(CORPUS_PREFIX));
    }
    let mut differences = Vec::new();
    for (key, was) in &pinned {
        match now.get(key) {
            Some(is) if is == was => {}
            Some(is) => differences.push(format!("{key}: pinned {was}, now {is}")),
            None => differences.push(format!("{key}: pinned, but no longer projected")),
        }
    }
    for key in now.keys().filter(|k| !pinned.contains_key(*k)) {
        differences.push(format!("{key}: projected, but not pinned"));
    }
    assert!(
        differences.is_empty(),
        "{} of {} pinned projections differ (regenerate only for a deliberate change; see the \
         top of tests/output_pinned.rs):\n{}",
        differences.len(),
        pinned.len(),
        differences.join("\n")
    );
    eprintln!("{} pinned projections unchanged", pinned.len());
}

/// Every sample manifest, and every corpus manifest when `SCHEMALENS_CORPUS` is set.
fn samples_and_corpus() -> Vec<Manifest> {
    let mut manifests: Vec<Manifest> = support::samples()
        .iter()
        .map(|s| support::load(s))
        .collect();
    if let Some(corpus) = support::corpus_dir() {
        for path in support::corpus_manifests(&corpus.join("mcp")) {
            manifests.push(
                manifest::load_path(&path, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            );
        }
    }
    manifests
}

/// Hands `check` the pinned projection (`project_tool`) and `other`'s of every sample and
/// corpus tool under every configuration, with a label naming them; where one fails, both must
/// fail alike. Returns how many were compared.
fn against_pinned<T>(
    other: impl Fn(&Tool, &Options) -> Result<T, ProjectionError>,
    check: impl Fn(&str, Projection, T),
) -> usize {
    let manifests = samples_and_corpus();
    let mut compared = 0;
    for tool in manifests.iter().flat_map(|m| &m.tools) {
        for (label, options) in common::configs(None) {
            let label = format!("{}/{label}", tool.name);
            match (project_tool(tool, &options), other(tool, &options)) {
                (Ok(pinned), Ok(made)) => check(&label, pinned, made),
                (Err(pinned), Err(made)) => {
                    assert_eq!(made.to_string(), pinned.to_string(), "{label}")
                }
                (pinned, made) => {
                    panic!("{label}: pinned {:?}, other {:?}", pinned.err(), made.err())
                }
            }
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} projections compared");
    compared
}

fn trace_json(trace: &[TraceEntry]) -> String {
    serde_json::to_string(trace).expect("the trace serializes")
}

/// `project` without `--provider` projects without links (`Linking::Skip`), and then records
/// fewer notes as it walks (none per node in inline mode): its schema and trace must be the
/// ones pinned above, made with the links, for every tool and configuration.
#[test]
fn projections_without_links_have_the_pinned_schema_and_trace() {
    let compared = against_pinned(
        |tool, options| project_tool_linking(tool, options, Linking::Skip),
        |label, with, without| {
            assert!(without.links.is_empty(), "{label}: links made");
            assert_eq!(without.schema, with.schema, "{label}: schema");
            assert_eq!(
                trace_json(&without.trace),
                trace_json(&with.trace),
                "{label}: trace"
            );
        },
    );
    eprintln!("{compared} projections without links equal those with");
}

/// `project` without `--provider` writes the projection as it is held, each `$ref` target
/// inlined at several places shared rather than copied (inline mode): the bytes it writes, its
/// trace and its value copied out must be those pinned above, for every tool and configuration.
#[test]
fn written_projections_print_the_pinned_bytes_and_trace() {
    let compared = against_pinned(project_tool_written, |label, pinned, written| {
        assert_eq!(
            serde_json::to_string_pretty(&written.schema).expect("JSON serializes"),
            serde_json::to_string_pretty(&pinned.schema).expect("JSON serializes"),
            "{label}: written bytes"
        );
        assert_eq!(
            trace_json(&written.trace),
            trace_json(&pinned.trace),
            "{label}: trace"
        );
        assert_eq!(written.schema.into_value(), pinned.schema, "{label}: value");
    });
    eprintln!("{compared} written projections equal the pinned ones");
}
