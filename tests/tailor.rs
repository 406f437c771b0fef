//! Provider tailoring on the bundled samples and through the binary: the nested-union
//! reproducer lints clean for openai-strict, gemini and ollama once tailored; whatever still
//! fails lint anywhere is listed as unresolved; no sample payload is judged `unsound` once
//! adapted; and `project`/`check`/`explain --provider` say what they did.

mod support;

use support::cli::run;

use std::collections::BTreeSet;
use std::path::Path;

use schemalens::lint::{Profile, Severity, lint_schema};
use schemalens::manifest::Tool;
use schemalens::projection::tailor::{Tailored, tailor};
use schemalens::validate::{Checker, Class};
use schemalens::{Options, project_tool};
use serde_json::{Value, json};

const PROFILES: [Profile; 4] = [
    Profile::OpenAiStrict,
    Profile::Gemini,
    Profile::Ollama,
    Profile::AnthropicStrict,
];

fn tailored(tool: &Tool, profile: Profile) -> Tailored {
    let projection = project_tool(tool, &Options::flat()).expect("projects");
    tailor(projection, profile)
}

fn counts(profile: Profile, schema: &Value) -> [usize; 3] {
    let findings = lint_schema(profile, schema);
    [Severity::Error, Severity::Warn, Severity::Info]
        .map(|s| findings.iter().filter(|f| f.severity == s).count())
}

fn reproducer() -> Tool {
    let manifest = support::load(&support::root().join("samples/nested-union-pydantic.json"));
    manifest.tools[0].clone()
}

#[test]
fn nested_union_reproducer_lints_clean_once_tailored() {
    let tool = reproducer();
    let flat = project_tool(&tool, &Options::flat()).unwrap();
    // [errors, warnings, infos]: the original, the flat projection, the tailored projection.
    type Counts = [usize; 3];
    let expected: [(Profile, Counts, Counts, Counts); 3] = [
        (Profile::OpenAiStrict, [2, 2, 0], [3, 0, 0], [0, 0, 0]),
        (Profile::Gemini, [13, 7, 0], [3, 0, 0], [0, 0, 0]),
        // Ollama's Go structs have no `additionalProperties`: the three closed objects lose
        // that constraint in what the model sees (a warning no schema can avoid), and titles
        // are dropped (info).
        (Profile::Ollama, [1, 1, 4], [0, 3, 7], [0, 3, 7]),
    ];
    for (profile, original, before, after) in expected {
        let t = tailored(&tool, profile);
        assert_eq!(
            counts(profile, &tool.schema),
            original,
            "{profile}: original"
        );
        assert_eq!(counts(profile, &flat.schema), before, "{profile}: flat");
        assert_eq!(
            counts(profile, &t.projection.schema),
            after,
            "{profile}: tailored"
        );
        assert!(t.unresolved.is_empty(), "{profile}: {:?}", t.unresolved);
    }
    let remaining: BTreeSet<(&str, Option<String>)> = lint_schema(
        Profile::Ollama,
        &tailored(&tool, Profile::Ollama).projection.schema,
    )
    .into_iter()
    .filter(|f| f.severity == Severity::Warn)
    .map(|f| (f.rule, f.keyword))
    .collect();
    assert_eq!(
        remaining,
        BTreeSet::from([(
            "dropped-constraint",
            Some("additionalProperties".to_owned())
        )])
    );
    // Only openai-strict needs the adapter: the three optional properties.
    assert!(tailored(&tool, Profile::Gemini).adapters.is_empty());
    assert_eq!(
        serde_json::to_value(&tailored(&tool, Profile::OpenAiStrict).adapters).unwrap(),
        json!([
            {"kind": "null-for-absent", "at": "/properties/op/properties/payload", "properties": ["email"]},
            {"kind": "null-for-absent", "at": "/properties/op", "properties": ["payload", "user_id"]}
        ])
    );
}

#[test]
fn every_remaining_lint_error_is_reported_as_unresolved() {
    for sample in support::samples() {
        let manifest = support::load(&sample);
        for tool in &manifest.tools {
            for profile in PROFILES {
                let t = tailored(tool, profile);
                let explained: BTreeSet<(&str, &str)> = t
                    .unresolved
                    .iter()
                    .map(|u| (u.rule, u.pointer.as_str()))
                    .collect();
                for f in lint_schema(profile, &t.projection.schema)
                    .iter()
                    .filter(|f| f.is_error())
                {
                    // An unresolved entry names the rule and the schema (or one of its
                    // keywords) the finding is about.
                    let covered = explained.iter().any(|(rule, at)| {
                        *rule == f.rule
                            && (f.pointer == *at
                                || at.starts_with(&format!("{}/", f.pointer))
                                || f.pointer.starts_with(&format!("{at}/")))
                    });
                    assert!(
                        covered,
                        "{} / {} / {profile}: `{}` at #{} is neither fixed nor reported ({})\n  unresolved: {:?}",
                        support::stem(&sample),
                        tool.name,
                        f.rule,
                        f.pointer,
                        f.message,
                        t.unresolved
                    );
                }
            }
        }
    }
}

fn payload_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn sample_payloads_are_never_unsound_once_adapted() {
    let mut adapted = 0;
    for sample in support::samples() {
        let manifest = support::load(&sample);
        for tool in &manifest.tools {
            let Some(dir) = support::payload_dir(&sample, &manifest, &tool.name) else {
                continue;
            };
            for profile in PROFILES {
                let checker = Checker::tailored(tool, tailored(tool, profile))
                    .and_then(|c| c.with_open_branch_reference(tool, &Options::flat()))
                    .unwrap();
                for file in payload_files(&dir) {
                    let payload: Value =
                        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                    let verdict = checker.check(&payload);
                    assert_ne!(
                        verdict.class,
                        Class::Unsound,
                        "{profile}: {} — {:?}",
                        file.display(),
                        verdict.unsound
                    );
                    let a = checker.adapt(&payload).unwrap();
                    if a.changed() {
                        adapted += 1;
                    }
                }
            }
        }
    }
    assert!(adapted > 20, "only {adapted} payloads needed the adapter");
}

// ---------------------------------------------------------------------------------------------
// Through the binary

const REPRO: &str = "samples/nested-union-pydantic.json";

#[test]
fn project_with_a_provider_prints_the_tailored_schema() {
    let r = run(&["project", REPRO, "--provider", "openai-strict"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let schema: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(counts(Profile::OpenAiStrict, &schema)[0], 0);
    assert_eq!(
        schema["properties"]["op"]["required"],
        json!(["action", "payload", "user_id"])
    );
    assert!(r.stderr.contains("lossy"), "{}", r.stderr);

    let r = run(&[
        "project",
        "samples/mcp-tools-list.json",
        "--provider",
        "gemini",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);

    let r = run(&["project", REPRO, "--provider", "nope"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("unknown provider"), "{}", r.stderr);
}

#[test]
fn project_with_a_provider_warns_about_unresolved_places() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tags.json");
    std::fs::write(
        &file,
        r#"{"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]}"#,
    )
    .unwrap();
    let r = run(&[
        "project",
        file.to_str().unwrap(),
        "--provider",
        "openai-strict",
    ]);
    assert_eq!(r.code, Some(0));
    assert!(
        r.stderr
            .contains("#/properties/tags still fails `array-items`"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_with_a_provider_adapts_payloads_and_says_so() {
    let payload = "samples/nested-union-pydantic.payloads/valid-delete.json";
    let r = run(&["check", REPRO, payload, "--provider", "openai-strict"]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("tailored for openai-strict"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("null sent for absent /op/payload"),
        "{}",
        r.stdout
    );

    let r = run(&[
        "check",
        REPRO,
        payload,
        "--provider",
        "openai-strict",
        "--format",
        "json",
    ]);
    let rows: Value = serde_json::from_str(&r.stdout).unwrap();
    let row = &rows[0];
    assert_eq!(row["provider"], "openai-strict");
    assert_eq!(row["class"], "both-accept");
    assert_eq!(row["adapted"]["filled"], json!(["/op/payload"]));
    assert_eq!(row["adapted"]["payload"]["op"]["payload"], Value::Null);

    // Every bundled payload of the reproducer, for each provider: nothing unsound.
    for provider in ["openai-strict", "gemini", "ollama", "anthropic-strict"] {
        let r = run(&["check", REPRO, "--provider", provider]);
        assert_eq!(r.code, Some(1), "{provider}: {}", r.stderr);
        assert!(r.stdout.contains(", 0 unsound"), "{provider}: {}", r.stdout);
    }

    let r = run(&[
        "check",
        REPRO,
        payload,
        "--provider",
        "gemini",
        "--projection-file",
        REPRO,
    ]);
    assert_eq!(r.code, Some(2));
}

#[test]
fn explain_with_a_provider_lists_the_tailoring_steps() {
    let r = run(&["explain", REPRO, "--provider", "openai-strict"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains("tailored for openai-strict"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("tailor-required-nullable"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("adapter"), "{}", r.stdout);

    let r = run(&["explain", REPRO, "--provider", "gemini", "--format", "json"]);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let tool = &doc["tools"][0];
    assert_eq!(tool["provider"], "gemini");
    let rules: BTreeSet<&str> = tool["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["rule"].as_str())
        .collect();
    assert!(rules.contains("tailor-drop-keyword"), "{rules:?}");
    assert_eq!(tool["unresolved"], json!([]));
}
