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
        // Two of the original's errors are `node-type` (tags written as `const` alone), which
        // Vertex AI refuses with the same `parameters` field.
        (Profile::Gemini, [15, 5, 0], [3, 0, 0], [0, 0, 0]),
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

/// `project --provider` prints what the library tailors for that provider, recursion included:
/// openai-strict keeps a recursive model as `$defs` + `$ref` instead of the unrolled default.
#[test]
fn project_with_a_provider_uses_the_providers_recursion() {
    let path = "samples/expression-tree-pydantic.json";
    let tool = schemalens::manifest::load_path(&support::root().join(path), None)
        .expect("sample loads")
        .tools
        .remove(0);
    for profile in PROFILES {
        let r = run(&["project", path, "--provider", profile.name()]);
        assert_eq!(r.code, Some(0), "{profile}: {}", r.stderr);
        let expected = schemalens::tailor_tool(&tool, &Options::flat(), profile)
            .expect("tailors")
            .projection
            .schema;
        let printed: Value = serde_json::from_str(&r.stdout).expect("JSON");
        assert_eq!(printed, expected, "{profile}");
        let keeps_refs = r.stdout.contains("\"$ref\"");
        assert_eq!(keeps_refs, profile == Profile::OpenAiStrict, "{profile}");
    }
}

/// A tool over OpenAI strict's counts when inlined (a ref fan of 16,969 properties) is sent
/// with its shared definitions under `$defs`, whatever `--recursion` asks for; `lint` says the
/// schema it tailors so is accepted.
#[test]
fn project_with_openai_strict_keeps_shared_definitions_under_any_recursion() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fan.json");
    let doc = support::ref_fan::document(8, 5, true);
    std::fs::write(&path, doc.to_string()).expect("written");
    let file = path.to_str().expect("utf-8 path");
    for recursion in [None, Some("keep"), Some("unroll=2")] {
        let mut args = vec!["project", file, "--provider", "openai-strict"];
        args.extend(recursion.iter().flat_map(|r| ["--recursion", *r]));
        let r = run(&args);
        assert_eq!(r.code, Some(0), "{recursion:?}: {}", r.stderr);
        let printed: Value = serde_json::from_str(&r.stdout).expect("JSON");
        let defs = printed["$defs"].as_object().map_or(0, |d| d.len());
        assert_eq!(defs, 4, "{recursion:?}");
        assert!(
            printed["properties"]["root"]["properties"].is_object(),
            "{recursion:?}"
        );
    }
    let r = run(&[
        "lint",
        file,
        "--provider",
        "openai-strict",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(
        report["tools"][0]["profiles"][0]["tailored"]["verdict"],
        json!("accepted"),
        "{}",
        r.stdout
    );
}

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
    // More parameters than OpenAI takes properties in one schema: each stays a property of its
    // own however it is sent (a subtree carried as JSON text only helps below the top).
    let properties: serde_json::Map<String, serde_json::Value> = (0..5001)
        .map(|i| (format!("p{i}"), serde_json::json!({"type": "string"})))
        .collect();
    let schema = serde_json::json!({"type": "object", "properties": properties});
    std::fs::write(&file, schema.to_string()).unwrap();
    let r = run(&[
        "project",
        file.to_str().unwrap(),
        "--provider",
        "openai-strict",
    ]);
    assert_eq!(r.code, Some(0));
    assert!(
        r.stderr.contains("# still fails `limit-properties`"),
        "{}",
        r.stderr
    );
}

/// Tailoring for Gemini stops short of an `allOf` whose two object parts declare one property
/// differently (no one object is their conjunction), and Gemini has no `allOf`: in inline mode
/// `lint` says the tailored schema is rejected, and `project` says so too, with every rule lint
/// rejects it with, rather than printing the schema as if it were sendable. In flat mode the
/// union is flattened and both accept: no warning there.
#[test]
fn project_warns_where_lint_rejects_the_tailored_schema() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("clash.json");
    std::fs::write(&file, support::all_of_clash().to_string()).unwrap();
    let file = file.to_str().unwrap();
    let mut verdicts = Vec::new();
    for mode in ["flat", "inline"] {
        let lint = run(&[
            "lint",
            file,
            "--provider",
            "gemini",
            "--mode",
            mode,
            "--format",
            "json",
        ]);
        let report: Value = serde_json::from_str(&lint.stdout).expect(&lint.stderr);
        let rejected: BTreeSet<String> = report["tools"][0]["profiles"][0]["tailored"]["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["rule"].as_str().unwrap().to_owned())
            .collect();
        let verdict = report["summary"][0]["tailored"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(verdict == "rejected", !rejected.is_empty(), "{mode}");
        let r = run(&["project", file, "--provider", "gemini", "--mode", mode]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        for rule in &rejected {
            assert!(
                r.stderr.contains(&format!("still fails `{rule}`")),
                "{mode}: lint rejects with `{rule}`; project says:\n{}",
                r.stderr
            );
        }
        if rejected.is_empty() {
            assert!(!r.stderr.contains("still fails"), "{mode}: {}", r.stderr);
        }
        verdicts.push(verdict);
    }
    assert_eq!(verdicts, ["accepted", "rejected"]);
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

// ---------------------------------------------------------------------------------------------
// Exact where a peer rehydrator is not (issue 10): every payload below is accepted by the
// original; adapted, the tailored schema accepts it; un-adapted, it is the payload again.

const STRICT: [Profile; 3] = [
    Profile::OpenAiStrict,
    Profile::Gemini,
    Profile::AnthropicStrict,
];

fn round_trips(schema: Value, payloads: &[Value]) {
    let original = jsonschema::validator_for(&schema).unwrap();
    for options in [Options::inline(), Options::flat()] {
        for profile in STRICT {
            let tool = Tool {
                schema: std::sync::Arc::new(schema.clone()),
                ..reproducer()
            };
            let t = schemalens::tailor_tool(&tool, &options, profile).unwrap();
            let tailored = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&t.validation_schema())
                .unwrap();
            let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
            let mut encoded = 0;
            for p in payloads {
                assert!(original.is_valid(p), "not a valid payload: {p}");
                let a = adapter.adapt(p);
                encoded += a.encoded.len();
                assert!(
                    tailored.is_valid(&a.payload),
                    "{profile} {:?}: {p} adapted to {} is rejected by {}",
                    options.mode,
                    a.payload,
                    t.projection.schema
                );
                assert_eq!(
                    &adapter.unadapt(&a.payload),
                    p,
                    "{profile} {:?}: sent as {} in {}",
                    options.mode,
                    a.payload,
                    t.projection.schema
                );
            }
            // Not vacuous: the values the provider cannot describe went through an encoding.
            assert!(
                encoded > 0,
                "{profile}: nothing encoded in {}",
                t.projection.schema
            );
        }
    }
}

#[test]
fn alternatives_sharing_an_encoded_field_decode_it_once() {
    // `data` may be anything in both alternatives; a string that is itself JSON text must come
    // back as that string, not decoded a second time.
    let schema = json!({
        "type": "object",
        "properties": {"event": {"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "data": {}}, "required": ["kind", "data"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "data": {}, "at": {"type": "integer"}}, "required": ["kind", "data"]}
        ]}},
        "required": ["event"]
    });
    round_trips(
        schema,
        &[
            json!({"event": {"kind": "a", "data": "{\"x\": 1}"}}),
            json!({"event": {"kind": "b", "data": {"x": [1, "2"]}, "at": 3}}),
            json!({"event": {"kind": "a", "data": null}}),
            json!({"event": {"kind": "b", "data": "\"quoted\""}}),
        ],
    );
}

#[test]
fn a_plain_string_beside_an_encoded_value_is_never_parsed_as_json() {
    // The last one: the string sibling is one union up from the JSON text.
    for other in [
        json!({}),
        json!({"type": "object"}),
        json!({"description": "anything"}),
        json!({"anyOf": [{"properties": {"k": {"type": "integer"}}}, {"type": "integer"}]}),
    ] {
        let schema = json!({
            "type": "object",
            "properties": {"v": {"anyOf": [{"type": "string"}, other]}},
            "required": ["v"]
        });
        let mut payloads = vec![
            json!({"v": "plain"}),
            json!({"v": "{}"}),
            json!({"v": "[1, 2]"}),
            json!({"v": "null"}),
            json!({"v": "\"x\""}),
            json!({"v": {"k": 1}}),
            json!({"v": {}}),
        ];
        // The untyped object alternative becomes an object for objects and JSON text for the
        // rest: values of the rest go through the encoding beside the plain strings.
        if other.get("anyOf").is_some() {
            payloads.extend([
                json!({"v": true}),
                json!({"v": [1, "a"]}),
                json!({"v": 2.5}),
            ]);
        }
        round_trips(schema, &payloads);
    }
}

#[test]
fn each_alternative_keeps_its_own_bounds() {
    // The same field with disjoint bounds in two alternatives, each beside an encoded field:
    // a value is judged, and decoded, by the alternative it belongs to.
    let schema = json!({
        "type": "object",
        "properties": {"size": {"anyOf": [
            {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}, "small": {}}, "required": ["n"], "additionalProperties": false},
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": 10}, "big": {"type": "object"}}, "required": ["n"], "additionalProperties": false}
        ]}},
        "required": ["size"]
    });
    round_trips(
        schema,
        &[
            json!({"size": {"n": 3, "small": [1, 2]}}),
            json!({"size": {"n": 12, "big": {"k": "v"}}}),
            json!({"size": {"n": 12}}),
            json!({"size": {"n": 0, "small": "x"}}),
        ],
    );
}

/// A model with an `Any` field, a `dict[str, str]` and an optional enum, written in `dir`.
fn any_field_manifest(dir: &std::path::Path) -> std::path::PathBuf {
    let manifest = dir.join("any.json");
    std::fs::write(
        &manifest,
        r#"{"type":"object","properties":{"data":{"description":"anything"},"labels":{"type":"object","additionalProperties":{"type":"string"}},"level":{"type":"integer","enum":[1,2]}},"required":["data"]}"#,
    )
    .unwrap();
    manifest
}

#[test]
fn check_with_a_provider_shows_the_payload_as_sent() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = any_field_manifest(dir.path());
    let payloads = dir.path().join("any.payloads");
    std::fs::create_dir(&payloads).unwrap();
    std::fs::write(
        payloads.join("valid-one.json"),
        r#"{"data": {"x": [1, 2]}, "labels": {"a": "b"}, "level": 2}"#,
    )
    .unwrap();
    let file = manifest.to_str().unwrap();
    let r = run(&["check", file, "--provider", "gemini"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains(
            r#"sent       {"data":"{\"x\":[1,2]}","labels":[{"key":"a","value":"b"}],"level":"2"}"#
        ),
        "{}",
        r.stdout
    );
    let r = run(&[
        "check",
        file,
        "--provider",
        "openai-strict",
        "--format",
        "json",
    ]);
    let rows: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(rows[0]["class"], "both-accept");
    assert_eq!(
        rows[0]["adapted"]["payload"]["labels"],
        json!([{"key": "a", "value": "b"}])
    );
    assert_eq!(rows[0]["adapted"]["encoded"], json!(["/data", "/labels"]));
}

/// `project` and `explain` with `--provider openai-strict` on a bare schema: the tailored
/// schema and the explanation, after checking that nothing was left unresolved.
fn tailored_for_openai_strict(schema: &str) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tool.json");
    std::fs::write(&file, schema).unwrap();
    let file = file.to_str().unwrap();
    let r = run(&["project", file, "--provider", "openai-strict"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.stderr.contains("still fails"), "{}", r.stderr);
    let tailored = serde_json::from_str(&r.stdout).unwrap();
    let explained = run(&["explain", file, "--provider", "openai-strict"]).stdout;
    (tailored, explained)
}

/// An array that says nothing about its items takes any: `items: {}` says the same, and each
/// item is then carried as JSON text.
#[test]
fn an_array_without_items_gets_an_item_schema() {
    let (out, explained) = tailored_for_openai_strict(
        r#"{"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]}"#,
    );
    assert_eq!(
        out["properties"]["tags"]["items"]["type"],
        json!("string"),
        "{out}"
    );
    assert!(
        explained.contains("the array said nothing about its items"),
        "{explained}"
    );
}

/// Declared properties beside a schema for the other keys (GitHub's app `permissions`): closed
/// like an open object — the declared keys stay, the others travel as `{key, value}` entries
/// in `more`, whose value schema is theirs.
#[test]
fn declared_properties_beside_typed_other_keys_are_closed_with_an_entries_carrier() {
    let (out, explained) = tailored_for_openai_strict(
        r#"{"type": "object", "properties": {"permissions": {"type": "object",
            "properties": {"issues": {"type": "string"}}, "additionalProperties": {"type": "string"}}},
            "required": ["permissions"]}"#,
    );
    assert_eq!(
        out["properties"]["permissions"]["additionalProperties"],
        json!(false),
        "{out}"
    );
    assert_eq!(
        out["properties"]["permissions"]["properties"]["more"]["items"]["properties"]["value"]["type"],
        json!("string"),
        "{out}"
    );
    assert!(
        explained.contains("it was a schema for the other keys"),
        "{explained}"
    );
}

/// The lint tailors without a trace (`Trace::Skipped`): everything it reads, the schema, its
/// links back to the original, the adapters and what is left unresolved, must be what
/// `project --provider` makes, on every sample in both modes for every profile; only the trace
/// (and the links' other direction) is left empty.
#[test]
fn tailoring_without_a_trace_changes_nothing_else() {
    use schemalens::projection::tailor::Trace;
    for path in support::samples() {
        for tool in &support::load(&path).tools {
            for options in [Options::flat(), Options::inline()] {
                let Ok(projection) = project_tool(tool, &options) else {
                    continue;
                };
                for profile in Profile::ALL {
                    let at = format!("{} {} {profile}", path.display(), tool.name);
                    let traced = schemalens::tailor_tool(tool, &options, profile).expect("tailors");
                    let untraced = schemalens::tailor_reusing(
                        tool,
                        &options,
                        profile,
                        Some(&projection),
                        Trace::Skipped,
                    )
                    .expect("tailors");
                    let (t, u) = (&traced.projection, &untraced.projection);
                    assert_eq!(u.schema, t.schema, "{at}");
                    // The lint reads the links from the tailored schema back to the original.
                    assert!(u.links.iter().eq(t.links.iter()), "{at}");
                    assert_eq!((u.mode, u.draft), (t.mode, t.draft), "{at}");
                    assert_eq!(untraced.adapters, traced.adapters, "{at}");
                    assert_eq!(untraced.unresolved, traced.unresolved, "{at}");
                    assert!(u.trace.is_empty(), "{at}");
                    let kept = schemalens::tailor_reusing(
                        tool,
                        &options,
                        profile,
                        Some(&projection),
                        Trace::Kept,
                    )
                    .expect("tailors");
                    assert_eq!(kept.projection.trace, t.trace, "{at}");
                }
            }
        }
    }
}

/// The lint takes the projection itself as the tailored schema where `unchanged_schema_by`
/// says tailoring would not change it (a root-only table, or Ollama's `const` step on a
/// projection without `const`). Checked against the walk on every sample in both modes, for
/// every profile; Ollama is spared the walk on some samples and not on others.
#[test]
fn a_projection_said_unchanged_is_what_tailoring_gives() {
    use schemalens::projection::tailor::unchanged_schema_by;
    let (mut spared, mut walked) = (0, 0);
    for path in support::samples() {
        for tool in &support::load(&path).tools {
            for options in [Options::flat(), Options::inline()] {
                let Ok(projection) = project_tool(tool, &options) else {
                    continue;
                };
                for profile in Profile::ALL {
                    let at = format!("{} {} {profile}", path.display(), tool.name);
                    let said = unchanged_schema_by(profile, &projection);
                    if profile == Profile::Ollama {
                        *if said.is_some() {
                            &mut spared
                        } else {
                            &mut walked
                        } += 1;
                    }
                    let Some(unresolved) = said else {
                        continue;
                    };
                    let t = tailor(projection.clone(), profile);
                    assert_eq!(t.projection.schema, projection.schema, "{at}");
                    assert!(t.adapters.is_empty(), "{at}");
                    assert_eq!(t.unresolved, unresolved, "{at}");
                }
            }
        }
    }
    assert!(
        spared > 0 && walked > 0,
        "Ollama: {spared} spared, {walked} walked"
    );
}

/// Ollama's Go structs have no field for a map's value schema (playwright's `browser_drop`
/// `data`, a map of strings): the model would see a bare object. As a list of entries the value
/// schema sits under `items`, which Ollama shows the model as written. A map of anything
/// (`additionalProperties: {}`) says no more than `type: object`, and a map already under
/// `items` reaches the model as it is: both stay objects.
#[test]
fn a_maps_value_schema_reaches_ollama_as_entries() {
    let schema = json!({
        "type": "object",
        "properties": {
            "data": {"type": "object", "propertyNames": {"type": "string"},
                     "additionalProperties": {"type": "string"}},
            "free": {"type": "object", "additionalProperties": {}},
            "rows": {"type": "array",
                     "items": {"type": "object", "additionalProperties": {"type": "integer"}}}
        },
        "required": ["data"]
    });
    let tool = Tool {
        schema: std::sync::Arc::new(schema.clone()),
        ..reproducer()
    };
    let errors = |s: &Value| -> Vec<String> {
        lint_schema(Profile::Ollama, s)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{} {}", f.rule, f.pointer))
            .collect()
    };
    assert_eq!(errors(&schema), vec!["dropped-structure /properties/data"]);
    for options in [Options::flat(), Options::inline()] {
        let t = schemalens::tailor_tool(&tool, &options, Profile::Ollama).unwrap();
        let out = &t.projection.schema;
        assert!(errors(out).is_empty(), "{:?}: {out}", errors(out));
        assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
        let sees = schemalens::lint::ollama::view(out).sees;
        assert_eq!(
            sees["properties"]["data"]["items"]["properties"]["value"],
            json!({"type": "string"}),
            "{sees}"
        );
        assert_eq!(out["properties"]["free"], schema["properties"]["free"]);
        assert_eq!(out["properties"]["rows"], schema["properties"]["rows"]);
        assert_eq!(
            serde_json::to_value(&t.adapters).unwrap(),
            json!([{"kind": "entries", "at": "/properties/data"}])
        );
        let traced = t
            .projection
            .trace
            .iter()
            .find(|e| e.at == "/properties/data")
            .map(|e| e.message())
            .unwrap_or_default();
        assert!(
            traced.contains("Ollama shows the model as written"),
            "{traced}"
        );
        let tailored = jsonschema::validator_for(&t.validation_schema()).unwrap();
        let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
        for p in [
            json!({"data": {"text/plain": "hello", "text/uri-list": "https://example.com"}}),
            json!({"data": {}, "free": {"k": [1, {"a": null}]}, "rows": [{"n": 1}, {}]}),
        ] {
            let a = adapter.adapt(&p);
            assert!(tailored.is_valid(&a.payload), "{} refused", a.payload);
            assert_eq!(adapter.unadapt(&a.payload), p);
        }
    }
}

/// `check --from-model`: calls as the model makes them for the tailored schema, read back for
/// the tool. A Pydantic `Any` field (JSON text), a `dict[str, str]` (entries) and an optional
/// field (nullable): a well-formed call gives the tool its payload; made-up text where JSON
/// text is asked for is named, and passed on; a call outside the tailored schema gives the
/// tool what the original refuses.
#[test]
fn check_from_model_reads_calls_back_for_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = any_field_manifest(dir.path());
    let file = manifest.to_str().unwrap();
    let call = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let good = call(
        "good.json",
        r#"{"data": "{\"x\": [1, 2]}", "labels": [{"key": "a", "value": "b"}], "level": null, "more": null}"#,
    );
    let made_up = call(
        "made-up.json",
        r#"{"data": "the whole thing", "labels": null, "level": 2, "more": null}"#,
    );
    let wrong = call(
        "wrong.json",
        r#"{"data": "1", "labels": [{"key": "a", "value": 5}], "level": null, "more": null}"#,
    );
    let check = |calls: &[&str], format: &str| {
        let mut argv = vec!["check", file];
        argv.extend_from_slice(calls);
        argv.extend([
            "--provider",
            "openai-strict",
            "--from-model",
            "--format",
            format,
        ]);
        run(&argv)
    };
    let r = check(&[&good, &made_up], "json");
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let rows: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(rows[0]["call"]["valid"], true);
    assert_eq!(
        rows[0]["tool_gets"],
        json!({"data": {"x": [1, 2]}, "labels": {"a": "b"}})
    );
    assert_eq!(rows[0]["unread"], json!([]));
    assert_eq!(rows[0]["original"]["valid"], true);
    // `data` takes anything, so the tool accepts the text itself: named all the same.
    assert_eq!(
        rows[1]["tool_gets"],
        json!({"data": "the whole thing", "level": 2})
    );
    assert_eq!(rows[1]["unread"], json!(["/data"]));
    assert_eq!(rows[1]["original"]["valid"], true);

    let r = check(&[&wrong], "text");
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    for line in [
        "  call tool  payload",
        r#"tool gets  {"data":1,"labels":{"a":5}}"#,
        "original   /labels/a:",
        "call       /labels/0/value:",
        "1 call: 0 the tool accepts, 1 the tool rejects, 1 outside the tailored schema, 0 with unread text",
    ] {
        assert!(r.stdout.contains(line), "{line}\n{}", r.stdout);
    }

    let r = run(&["check", file, &good, "--from-model"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
}
