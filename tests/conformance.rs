//! I-sound and I-deterministic against the official JSON-Schema-Test-Suite.
//!
//! For every draft 2020-12 and draft-07 schema of the suite (including `optional/`), every
//! instance that a real validator accepts under the original must be accepted under the
//! projection, in every mode. The validator, not the suite's `valid` flag, decides which
//! instances count: the question is whether projection loses instances, and the validator's own
//! gaps (counted separately) would otherwise show up as false alarms.
//!
//! Point `SCHEMALENS_CONFORMANCE` at a checkout of the suite to run it:
//! `SCHEMALENS_CONFORMANCE=/work/shared/conformance cargo test --test conformance -- --nocapture`

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{Outcome, configs, keyword_sites, oracle, project_guarded};
use schemalens::Recursion;
use schemalens::lint::Profile;
use schemalens::projection::tailor::tailor;
use schemalens::schema::Draft;
use serde_json::Value;

/// Failures that are real, minimised, reported to the lead and not fixed yet. Each entry
/// silences exactly one (file, schema, instance, config) case; the run prints every entry it
/// used and fails on entries that no longer reproduce, so a fix forces the entry out.
/// `instance` is the suite's test description, or `""` for a failure of the projection itself
/// (error, panic, uncompilable output, nondeterminism, inline invariant).
struct KnownBug {
    file: &'static str,
    schema: &'static str,
    instance: &'static str,
    config: &'static str,
    why: &'static str,
}

// Empty: the allOf-merge cases found by this run (if/then/else assembled from two parts,
// contains dropped under unevaluatedItems) are fixed; their minimal forms stay in
// `tests/soundness_props.rs` (`MINIMAL_CASES`) as regression tests.
const KNOWN_ENGINE_BUGS: &[KnownBug] = &[];

const DRAFTS: &[(&str, Draft)] = &[
    ("draft2020-12", Draft::Draft2020),
    ("draft7", Draft::Draft7),
];

#[derive(Default)]
struct Tally {
    files: usize,
    schemas: usize,
    schemas_checked: usize,
    instances: usize,
    /// The suite's `valid` differs from the validator's verdict on the original.
    suite_disagreements: Vec<String>,
    rejected_by_original: usize,
    /// Per config: instances the original accepts, each checked against the projection.
    checked: BTreeMap<&'static str, usize>,
    /// Reason → (what was skipped, how many instances it held).
    skipped: BTreeMap<String, Vec<(String, usize)>>,
    projection_errors: BTreeMap<&'static str, usize>,
    findings: Vec<Finding>,
    known_hits: Vec<usize>,
}

struct Finding {
    file: String,
    schema: String,
    instance: String,
    config: &'static str,
    what: String,
}

impl Tally {
    fn skip(&mut self, reason: impl Into<String>, what: String, instances: usize) {
        self.skipped
            .entry(reason.into())
            .or_default()
            .push((what, instances));
    }

    /// Records a failure unless it is a listed known bug.
    fn find(&mut self, f: Finding) {
        let known = KNOWN_ENGINE_BUGS.iter().position(|k| {
            k.file == f.file
                && k.schema == f.schema
                && k.instance == f.instance
                && k.config == f.config
        });
        match known {
            Some(i) => self.known_hits.push(i),
            None => self.findings.push(f),
        }
    }
}

#[test]
fn official_suite_is_sound_in_every_mode() {
    let Some(root) = std::env::var_os("SCHEMALENS_CONFORMANCE") else {
        eprintln!("conformance: skipped (SCHEMALENS_CONFORMANCE not set)");
        return;
    };
    let root = PathBuf::from(root).join("tests");
    assert!(
        root.is_dir(),
        "SCHEMALENS_CONFORMANCE must point at a JSON-Schema-Test-Suite checkout (no {} folder)",
        root.display()
    );
    let mut tally = Tally::default();
    for &(dir, draft) in DRAFTS {
        let base = root.join(dir);
        let mut files = Vec::new();
        collect_json(&base, &mut files);
        files.sort();
        for path in files {
            let rel = format!(
                "{dir}/{}",
                path.strip_prefix(&base).unwrap().to_string_lossy()
            );
            run_file(&path, &rel, draft, &mut tally);
        }
    }
    let report = summary(&tally);
    // Printed through stderr so that it shows in CI logs even without `--nocapture`.
    eprintln!("{report}");
    check_outcome(&tally);
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_json(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn run_file(path: &Path, rel: &str, draft: Draft, tally: &mut Tally) {
    let text = std::fs::read_to_string(path).unwrap();
    let groups: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: not a suite file: {e}"));
    tally.files += 1;
    let is_format_file = rel.contains("/optional/format/");
    for group in &groups {
        let description = group["description"].as_str().unwrap_or("?").to_owned();
        let schema = &group["schema"];
        let tests = group["tests"].as_array().cloned().unwrap_or_default();
        tally.schemas += 1;
        tally.instances += tests.len();
        let what = format!("{rel}: {description}");
        // Remote refs are to a server this run never starts; projection turns them into `{}`
        // and the validator cannot compile them, so there is no oracle for them.
        if rel.ends_with("/refRemote.json") {
            tally.skip(
                "refRemote.json (needs the suite's remote server)",
                what,
                tests.len(),
            );
            continue;
        }
        // The format files expect `format` to assert; everywhere else the draft's default holds.
        let formats = is_format_file.then_some(true);
        let original = match oracle(schema, draft, formats) {
            Ok(v) => v,
            Err(e) => {
                tally.skip(compile_skip_reason(&e), what, tests.len());
                continue;
            }
        };
        if is_format_file && !format_supported(schema, draft) {
            let format = schema["format"].as_str().unwrap_or("?");
            tally.skip(
                format!("format assertion unsupported by the validator (`{format}`)"),
                what,
                tests.len(),
            );
            continue;
        }
        tally.schemas_checked += 1;

        let mut accepted = Vec::new();
        for test in &tests {
            let data = &test["data"];
            let verdict = original.is_valid(data);
            if Some(verdict) != test["valid"].as_bool() {
                tally.suite_disagreements.push(format!(
                    "{what} / {} (suite: {}, validator: {verdict})",
                    test["description"].as_str().unwrap_or("?"),
                    test["valid"]
                ));
            }
            if verdict {
                accepted.push(test);
            } else {
                tally.rejected_by_original += 1;
            }
        }

        for (config, options) in configs(Some(draft)) {
            let finding = |instance: &str, what: String| Finding {
                file: rel.to_owned(),
                schema: description.clone(),
                instance: instance.to_owned(),
                config,
                what,
            };
            let projection = match project_guarded(schema, &options) {
                Outcome::Projected(p) => p,
                Outcome::Failed(e) => {
                    *tally.projection_errors.entry(config).or_default() += 1;
                    tally.find(finding("", format!("projection error: {e}")));
                    continue;
                }
                Outcome::Panicked(msg) => {
                    tally.find(finding("", format!("panic: {msg}")));
                    continue;
                }
                Outcome::TimedOut => {
                    tally.find(finding("", "projection did not terminate in time".into()));
                    continue;
                }
            };
            check_determinism(schema, &options, &projection, &mut |w| {
                tally.find(finding("", w))
            });
            if options.mode == schemalens::Mode::Inline
                && !matches!(options.recursion, Recursion::Keep)
            {
                for keyword in ["$ref", "oneOf", "discriminator"] {
                    let sites = keyword_sites(&projection.schema, keyword);
                    if !sites.is_empty() {
                        tally.find(finding(
                            "",
                            format!("inline projection still has `{keyword}` at {sites:?}"),
                        ));
                    }
                }
            }
            let projected = match oracle(&projection.schema, draft, formats) {
                Ok(v) => v,
                Err(e) => {
                    tally.find(finding(
                        "",
                        format!(
                            "projection does not compile ({e}): {}",
                            serde_json::to_string(&projection.schema).unwrap()
                        ),
                    ));
                    continue;
                }
            };
            if config == "flat" {
                tailored_modes(&projection, draft, formats, &accepted, tally, &finding);
            }
            for test in &accepted {
                *tally.checked.entry(config).or_default() += 1;
                let data = &test["data"];
                if !projected.is_valid(data) {
                    tally.find(finding(
                        test["description"].as_str().unwrap_or("?"),
                        format!(
                            "original accepts, projection rejects\n    schema:     {}\n    projection: {}\n    instance:   {}",
                            serde_json::to_string(schema).unwrap(),
                            serde_json::to_string(&projection.schema).unwrap(),
                            serde_json::to_string(data).unwrap()
                        ),
                    ));
                }
            }
        }
    }
}

/// Provider tailoring of the flat projection, sound modulo its payload adapter: every instance
/// the original accepts, adapted, the tailored schema accepts (judged by a validator configured
/// as the original's, as `check --provider` does).
fn tailored_modes(
    projection: &schemalens::Projection,
    draft: Draft,
    formats: Option<bool>,
    accepted: &[&Value],
    tally: &mut Tally,
    finding: &dyn Fn(&str, String) -> Finding,
) {
    const TAILORED: [(Profile, &str); 4] = [
        (Profile::OpenAiStrict, "flat→openai-strict"),
        (Profile::Gemini, "flat→gemini"),
        (Profile::AnthropicStrict, "flat→anthropic-strict"),
        (Profile::Ollama, "flat→ollama"),
    ];
    for (profile, label) in TAILORED {
        let t = tailor(projection.clone(), profile);
        let schema = t.validation_schema();
        let validator = match oracle(&schema, draft, formats) {
            Ok(v) => v,
            Err(e) => {
                let mut f = finding(
                    "",
                    format!("tailored schema does not compile ({e}): {schema}"),
                );
                f.config = label;
                tally.find(f);
                continue;
            }
        };
        let adapter = t.payload_adapter(common::oracle_draft(draft));
        for test in accepted {
            *tally.checked.entry(label).or_default() += 1;
            let adapted = adapter.adapt(&test["data"]).payload;
            if !validator.is_valid(&adapted) {
                let mut f = finding(
                    test["description"].as_str().unwrap_or("?"),
                    format!(
                        "original accepts, tailored rejects the adapted instance\n    tailored:   {}\n    instance:   {}\n    adapted:    {adapted}",
                        serde_json::to_string(&t.projection.schema).unwrap(),
                        serde_json::to_string(&test["data"]).unwrap()
                    ),
                );
                f.config = label;
                tally.find(f);
            }
        }
    }
}

/// I-deterministic: a second projection of the same input gives the same bytes.
fn check_determinism(
    schema: &Value,
    options: &schemalens::Options,
    first: &schemalens::Projection,
    report: &mut dyn FnMut(String),
) {
    let Outcome::Projected(second) = project_guarded(schema, options) else {
        report("second projection of the same input did not succeed".into());
        return;
    };
    let a = serde_json::to_string(&first.schema).unwrap();
    let b = serde_json::to_string(&second.schema).unwrap();
    if a != b {
        report(format!("nondeterministic schema bytes:\n    {a}\n    {b}"));
    }
    let ta = serde_json::to_string(&first.trace).unwrap();
    let tb = serde_json::to_string(&second.trace).unwrap();
    if ta != tb {
        report("nondeterministic trace bytes".into());
    }
}

/// The validator treats formats it cannot check as annotations; with unknown formats made an
/// error the compile fails instead, which is how an unsupported assertion is told apart from a
/// supported one.
fn format_supported(schema: &Value, draft: Draft) -> bool {
    jsonschema::options()
        .with_draft(common::oracle_draft(draft))
        .offline()
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
        .is_ok()
}

fn compile_skip_reason(error: &str) -> String {
    let lower = error.to_lowercase();
    let kind = if lower.contains("localhost:1234") {
        "remote ref (http://localhost:1234/...)"
    } else if lower.contains("vocabular") {
        "unsupported vocabulary"
    } else if lower.contains("meta-schema") || lower.contains("metaschema") {
        "unknown metaschema"
    } else if lower.contains("http://") || lower.contains("https://") || lower.contains("urn:") {
        "unresolvable remote/absolute ref"
    } else {
        "other compile error"
    };
    format!("validator cannot compile the original: {kind}")
}

fn summary(t: &Tally) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "== conformance summary ==");
    let _ = writeln!(
        s,
        "files: {}  schemas: {} ({} checked, {} skipped)  instances: {} ({} rejected by the original, not checked)",
        t.files,
        t.schemas,
        t.schemas_checked,
        t.schemas - t.schemas_checked,
        t.instances,
        t.rejected_by_original,
    );
    for (config, n) in &t.checked {
        let errors = t.projection_errors.get(config).copied().unwrap_or(0);
        let _ = writeln!(
            s,
            "  {config:<12} instances accepted by the original and checked: {n}  projection errors: {errors}"
        );
    }
    let _ = writeln!(s, "skipped, by reason:");
    for (reason, items) in &t.skipped {
        let instances: usize = items.iter().map(|(_, n)| n).sum();
        let _ = writeln!(
            s,
            "  {reason}: {} schemas, {instances} instances",
            items.len()
        );
        for (what, n) in items {
            let _ = writeln!(s, "    - {what} ({n} instances)");
        }
    }
    let _ = writeln!(
        s,
        "suite vs validator disagreements (validator gaps, not projection findings): {}",
        t.suite_disagreements.len()
    );
    for d in &t.suite_disagreements {
        let _ = writeln!(s, "    - {d}");
    }
    let _ = writeln!(s, "KNOWN_ENGINE_BUGS: {} listed", KNOWN_ENGINE_BUGS.len());
    for (i, k) in KNOWN_ENGINE_BUGS.iter().enumerate() {
        let hits = t.known_hits.iter().filter(|&&h| h == i).count();
        let _ = writeln!(
            s,
            "    - [{}] {} / {} / {:?}: {} (matched {hits} time(s))",
            k.config, k.file, k.schema, k.instance, k.why
        );
    }
    let _ = writeln!(s, "new findings: {}", t.findings.len());
    for f in &t.findings {
        let _ = writeln!(
            s,
            "  ! [{}] {} / {} / {:?}: {}",
            f.config, f.file, f.schema, f.instance, f.what
        );
    }
    s
}

fn check_outcome(t: &Tally) {
    let stale: Vec<_> = KNOWN_ENGINE_BUGS
        .iter()
        .enumerate()
        .filter(|(i, _)| !t.known_hits.contains(i))
        .map(|(_, k)| {
            format!(
                "{} / {} / {:?} [{}]",
                k.file, k.schema, k.instance, k.config
            )
        })
        .collect();
    assert!(
        t.findings.is_empty(),
        "{} soundness/totality finding(s) on the official suite; see the summary above",
        t.findings.len()
    );
    assert!(
        stale.is_empty(),
        "KNOWN_ENGINE_BUGS entries that no longer reproduce (fixed? remove them): {stale:#?}"
    );
    assert!(
        t.checked.values().all(|&n| n > 0),
        "no instance was checked in some mode; the run proves nothing"
    );
}

/// Minimising aid, not part of the suite: `SCHEMALENS_REPRO=case.json cargo test --test
/// conformance repro -- --ignored --nocapture`, where `case.json` is
/// `{"draft": "draft7" | "draft2020-12", "schema": …, "instances": […]}`. Prints every config's
/// projection and each instance's verdict under the original and the projection.
#[test]
#[ignore]
fn repro() {
    let path = std::env::var("SCHEMALENS_REPRO").expect("SCHEMALENS_REPRO=case.json");
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let draft = match case["draft"].as_str() {
        Some("draft7") => Draft::Draft7,
        _ => Draft::Draft2020,
    };
    let schema = &case["schema"];
    let original = oracle(schema, draft, None).expect("original compiles");
    let instances = case["instances"].as_array().cloned().unwrap_or_default();
    for (config, options) in configs(Some(draft)) {
        match project_guarded(schema, &options) {
            Outcome::Projected(p) => {
                println!("[{config}] {}", serde_json::to_string(&p.schema).unwrap());
                let projected = oracle(&p.schema, draft, None);
                for i in &instances {
                    let verdict = match &projected {
                        Ok(v) => v.is_valid(i).to_string(),
                        Err(e) => format!("uncompilable ({e})"),
                    };
                    println!(
                        "    {i}: original {}, projection {verdict}",
                        original.is_valid(i)
                    );
                }
            }
            Outcome::Failed(e) => println!("[{config}] error: {e}"),
            Outcome::Panicked(m) => println!("[{config}] panic: {m}"),
            Outcome::TimedOut => println!("[{config}] timed out"),
        }
    }
}
