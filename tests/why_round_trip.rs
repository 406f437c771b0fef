//! Round trip: every lint finding with a provider message, on the bundled samples and on the
//! real-manifest corpus, is written the way that provider writes it — its location in the
//! provider's own syntax, inside the body the provider returns, half of them with an HTTP
//! status line and a JSON error body around them — and `why` must lead back to the same tool
//! and node.
//!
//! Counted per finding: `exact` (the same tool, schema and node), `equivalent` (another schema
//! the provider may have received has the very same message at the node `why` chose: the text
//! cannot tell them apart), `candidate` (a message that names no place: the node is among the
//! places listed), `elsewhere` (a message that names no place, and a schema other than the one
//! linted has that problem too: `why` lists the places in the schema it prefers), `missed`.
//! Every message that names a place must be found; the figures are printed (`--nocapture`)
//! for the closing note.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemalens::lint::{self, Finding, Profile, Subject};
use schemalens::manifest::{Manifest, ManifestFormat};
use schemalens::why::{Report, Session, Variant};
use schemalens::{Mode, Options, project_tool};
use serde_json::json;

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    exact: usize,
    equivalent: usize,
    candidate: usize,
    elsewhere: usize,
    missed: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.exact + self.equivalent + self.candidate + self.elsewhere + self.missed
    }

    fn add(&mut self, o: Tally) {
        self.exact += o.exact;
        self.equivalent += o.equivalent;
        self.candidate += o.candidate;
        self.elsewhere += o.elsewhere;
        self.missed += o.missed;
    }
}

/// The body a provider returns around its message (every other finding gets one).
fn as_sent(profile: Profile, m: &Manifest, tool: usize, message: &str, wrap: bool) -> String {
    if !wrap {
        return message.to_owned();
    }
    let name = &m.tools[tool].name;
    let body = match profile {
        Profile::OpenAiStrict | Profile::OpenAi => {
            let message = if message.starts_with("Invalid schema for function") {
                message.to_owned()
            } else {
                format!("Invalid schema for function '{name}': {message}")
            };
            json!({"error": {"message": message, "type": "invalid_request_error",
                "param": format!("tools[{tool}].function.parameters"),
                "code": "invalid_function_parameters"}})
        }
        Profile::Gemini | Profile::GeminiJsonSchema => {
            json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
        }
        Profile::Anthropic | Profile::AnthropicStrict => {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        }
        Profile::Ollama => json!({"error": message}),
        Profile::Bedrock | Profile::Mcp => json!({"message": message}),
    };
    format!("HTTP/1.1 400 Bad Request\ncontent-type: application/json\n\n{body}")
}

fn same_keyword(got: Option<&str>, want: Option<&str>) -> bool {
    want.is_none() || got == want
}

fn judge(report: &Report, tool: usize, name: &str, variant: Variant, f: &Finding) -> Tally {
    let mut t = Tally::default();
    for d in &report.diagnoses {
        let (Some(found), Some(node)) = (&d.tool, &d.node) else {
            continue;
        };
        let at_node = found.index == tool
            && node.pointer == f.pointer
            && same_keyword(node.keyword.as_deref(), f.keyword.as_deref());
        let in_schema = node.schema == variant
            || d.received
                .as_ref()
                .is_some_and(|r| r.also.contains(&variant));
        if at_node && in_schema {
            t.exact = 1;
            return t;
        }
        if d.candidates.iter().any(|c| {
            c.tool == name
                && c.pointer == f.pointer
                && same_keyword(c.keyword.as_deref(), f.keyword.as_deref())
        }) {
            t.candidate = 1;
            return t;
        }
        let said = d.rule.as_ref().and_then(|r| r.provider_message.as_deref());
        if found.index == tool && said.is_some() && said == f.provider_message.as_deref() {
            t.equivalent = 1;
            return t;
        }
        let names_a_place = d.location.is_some()
            || d.tool
                .as_ref()
                .is_some_and(|t| t.by == "index" || t.by == "declaration");
        if !names_a_place && node.schema != variant {
            t.elsewhere = 1;
            return t;
        }
    }
    t.missed = 1;
    t
}

/// Lints `m` for every profile, original and flat projection, and asks `why` about every
/// finding that has a provider message. Returns tallies per profile and a few misses.
fn round_trip(path: &Path, m: &Manifest) -> (BTreeMap<Profile, Tally>, Vec<String>) {
    let named = m.format != ManifestFormat::BareSchema;
    let projections: Vec<Option<serde_json::Value>> = m
        .tools
        .iter()
        .map(|t| project_tool(t, &Options::flat()).ok().map(|p| p.schema))
        .collect();
    let session = Session::new(m, Options::flat(), &path.display().to_string());
    let mut tallies: BTreeMap<Profile, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut n = 0usize;
    for profile in Profile::ALL {
        let sides = [
            (
                Variant::Original,
                m.tools.iter().map(|t| Some(&*t.schema)).collect::<Vec<_>>(),
            ),
            (
                Variant::Projection { mode: Mode::Flat },
                projections.iter().map(Option::as_ref).collect(),
            ),
        ];
        for (variant, schemas) in sides {
            if schemas.iter().any(Option::is_none) {
                continue;
            }
            let subjects: Vec<Subject<'_>> = m
                .tools
                .iter()
                .zip(&schemas)
                .map(|(t, s)| Subject {
                    name: named.then_some(t.name.as_str()),
                    schema: s.expect("checked above"),
                })
                .collect();
            for (tool, findings) in lint::lint_tools(profile, &subjects).iter().enumerate() {
                for f in findings {
                    let Some(message) = &f.provider_message else {
                        continue;
                    };
                    n += 1;
                    let text = as_sent(profile, m, tool, message, n.is_multiple_of(2));
                    let report = session.report(&text, None, Some(profile));
                    let t = judge(&report, tool, &m.tools[tool].name, variant, f);
                    if t.missed == 1 && misses.len() < 8 {
                        let got = report.diagnoses.first().map(|d| {
                            (
                                d.tool.as_ref().map(|t| t.name.clone()),
                                d.node
                                    .as_ref()
                                    .map(|n| (n.schema, n.pointer.clone(), n.keyword.clone())),
                            )
                        });
                        misses.push(format!(
                            "{}: {profile} {} {} #{} {:?}: {message}\n    got {got:?}",
                            path.display(),
                            variant.describe(),
                            m.tools[tool].name,
                            f.pointer,
                            f.keyword
                        ));
                    }
                    tallies.entry(profile).or_default().add(t);
                }
            }
        }
    }
    (tallies, misses)
}

fn report(label: &str, tallies: &BTreeMap<Profile, Tally>) -> Tally {
    let mut all = Tally::default();
    println!("{label}:");
    for (profile, t) in tallies {
        println!(
            "  {:<18} {:>6} messages: {:>6} exact, {:>5} equivalent, {:>5} among candidates, {:>4} elsewhere, {:>4} missed",
            profile.name(),
            t.total(),
            t.exact,
            t.equivalent,
            t.candidate,
            t.elsewhere,
            t.missed
        );
        all.add(*t);
    }
    println!(
        "  {:<18} {:>6} messages: {:>6} exact, {:>5} equivalent, {:>5} among candidates, {:>4} elsewhere, {:>4} missed ({:.2}% found)",
        "all",
        all.total(),
        all.exact,
        all.equivalent,
        all.candidate,
        all.elsewhere,
        all.missed,
        100.0 * (all.total() - all.missed) as f64 / all.total().max(1) as f64
    );
    all
}

fn run_over(label: &str, files: &[PathBuf]) -> (Tally, Vec<String>) {
    let mut tallies: BTreeMap<Profile, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    for path in files {
        let m = support::load(path);
        let (t, miss) = round_trip(path, &m);
        for (p, x) in t {
            tallies.entry(p).or_default().add(x);
        }
        misses.extend(miss);
    }
    (report(label, &tallies), misses)
}

#[test]
fn every_sample_finding_is_found_again_from_the_providers_message() {
    let (all, misses) = run_over("samples", &support::samples());
    assert!(all.total() > 50, "the samples have findings with messages");
    assert!(misses.is_empty(), "missed:\n{}", misses.join("\n"));
}

#[test]
fn every_corpus_finding_is_found_again_from_the_providers_message() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("mcp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.to_string_lossy().ends_with(".cases.json")
                && p.file_name().is_some_and(|n| n != "SOURCES.json")
        })
        .collect();
    files.sort();
    let (all, misses) = run_over("corpus/mcp", &files);
    assert!(
        all.total() > 1000,
        "the corpus has many findings with messages"
    );
    assert!(misses.is_empty(), "missed:\n{}", misses.join("\n"));
}
