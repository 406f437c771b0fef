//! The `schemalens project` / `explain` binary, end to end: every bundled sample in both modes,
//! the SPEC reference example, and hostile inputs that must end with a message, never a panic
//! or a hang.

mod support;

use support::cli::{run, run_with};

use std::path::Path;

use schemalens::manifest;
use schemalens::{Options, project_tool};
use serde_json::{Value, json};

const MODES: [&str; 2] = ["inline", "flat"];

const RULE_IDS: &[&str] = &[
    "ref-inline",
    "recursion",
    "unresolvable",
    "oneof-to-anyof",
    "discriminator-strip",
    "du-detect",
    "du-object",
    "du-enum",
    "required-intersection",
    "collision-join",
    "object-policy",
    "nullable-optional",
    "allof-merge",
    "soundness-guard",
    "open-branch-declared",
];

fn options(mode: &str) -> Options {
    match mode {
        "inline" => Options::inline(),
        _ => Options::flat(),
    }
}

// ---------------------------------------------------------------------------------------------
// Every sample, both modes
// ---------------------------------------------------------------------------------------------

#[test]
fn every_sample_projects_to_the_same_document_shape() {
    for sample in support::samples() {
        let path = support::relative(&sample);
        let manifest = support::load(&sample);
        for mode in MODES {
            let what = format!("project {path} --mode {mode}");
            let run = run(&["project", &path, "--mode", mode]);
            run.expect_code(0, &what);
            let out = run.json();

            // The output is a manifest of the same format with the same tools where they were.
            let reloaded =
                manifest::load_value(out.clone(), &manifest.origin, Some(manifest.format))
                    .unwrap_or_else(|e| panic!("{what}: output is not a manifest: {e}"));
            let names = |m: &manifest::Manifest| -> Vec<(String, Option<String>)> {
                m.tools
                    .iter()
                    .map(|t| (t.name.clone(), t.schema_pointer.clone()))
                    .collect()
            };
            assert_eq!(names(&reloaded), names(&manifest), "{what}: tools differ");

            let mut original_rest = Value::clone(&manifest.document);
            let mut output_rest = out.clone();
            for tool in &manifest.tools {
                let Some(pointer) = tool.schema_pointer.as_deref() else {
                    continue;
                };
                let projected = out
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("{what}: nothing at {pointer:?}"));
                let library = project_tool(tool, &options(mode))
                    .unwrap_or_else(|e| panic!("{what}: library fails on {}: {e}", tool.name));
                assert_eq!(
                    projected, &library.schema,
                    "{what}: tool {} differs from the library's projection",
                    tool.name
                );
                if let Some(dialect) = tool.schema.get("$schema") {
                    assert_eq!(
                        projected.get("$schema"),
                        Some(dialect),
                        "{what}: tool {} lost its $schema",
                        tool.name
                    );
                }
                assert_provider_safe(projected, &format!("{what}, tool {}", tool.name));
                support::replace_at(&mut original_rest, pointer, Value::Null);
                support::replace_at(&mut output_rest, pointer, Value::Null);
            }
            assert_eq!(
                output_rest, original_rest,
                "{what}: something besides the parameter schemas changed"
            );
        }
    }
}

/// Rules 1, 4 and 5 hold in both modes (flat runs them first): nothing a provider rejects is
/// left in any schema position.
fn assert_provider_safe(schema: &Value, what: &str) {
    let mut offences = Vec::new();
    support::walk_schemas(schema, "", &mut |map, at| {
        for key in ["$ref", "oneOf", "discriminator"] {
            if map.contains_key(key) {
                offences.push(format!("{key} at {at:?}"));
            }
        }
    });
    assert!(offences.is_empty(), "{what}: {offences:?}");
}

#[test]
fn every_sample_matches_its_snapshot_and_is_deterministic() {
    for sample in support::samples() {
        let path = support::relative(&sample);
        for mode in MODES {
            let first = run(&["project", &path, "--mode", mode]);
            first.expect_code(0, &path);
            let second = run(&["project", &path, "--mode", mode]);
            assert_eq!(
                first.stdout, second.stdout,
                "{path} --mode {mode}: output differs between two runs"
            );
            insta::assert_snapshot!(
                format!("project__{}__{mode}", support::stem(&sample)),
                first.stdout
            );
        }
    }
}

/// `--open-branches strict` is the engine as it was before the policy existed: the
/// `*__flat-strict` snapshots are byte for byte the `*__flat` snapshots of main just before the
/// policy landed (42d4c41; the sample added with it has its own). Inline mode has no merged
/// unions, so the policy changes nothing there.
#[test]
fn strict_open_branches_give_exactly_the_output_from_before_the_policy() {
    for sample in support::samples() {
        let path = support::relative(&sample);
        let strict = run(&["project", &path, "--open-branches", "strict"]);
        strict.expect_code(0, &path);
        insta::assert_snapshot!(
            format!("project__{}__flat-strict", support::stem(&sample)),
            strict.stdout
        );
        let inline = run(&["project", &path, "--mode", "inline"]);
        let inline_strict = run(&[
            "project",
            &path,
            "--mode",
            "inline",
            "--open-branches",
            "strict",
        ]);
        assert_eq!(
            inline.stdout, inline_strict.stdout,
            "{path}: the policy changed an inline projection"
        );
    }
}

#[test]
fn explain_reports_every_tool_as_text_and_json() {
    for sample in support::samples() {
        let path = support::relative(&sample);
        let manifest = support::load(&sample);
        for mode in MODES {
            let what = format!("explain {path} --mode {mode}");
            let text = run(&["explain", &path, "--mode", mode]);
            text.expect_code(0, &what);
            for tool in &manifest.tools {
                assert!(
                    text.stdout.contains(&tool.name),
                    "{what}: text does not mention {}",
                    tool.name
                );
            }

            let run = run(&["explain", &path, "--mode", mode, "--format", "json"]);
            run.expect_code(0, &what);
            let doc = run.json();
            assert_eq!(doc["origin"], json!(path), "{what}: origin");
            let tools = doc["tools"].as_array().expect("tools is a list");
            assert_eq!(tools.len(), manifest.tools.len(), "{what}: tool count");
            for (report, tool) in tools.iter().zip(&manifest.tools) {
                assert_eq!(report["tool"], json!(tool.name), "{what}");
                assert_eq!(report["mode"], json!(mode), "{what}");
                assert_eq!(
                    report["schema_pointer"],
                    json!(tool.schema_pointer),
                    "{what}"
                );
                for entry in report["trace"].as_array().expect("trace is a list") {
                    assert_trace_entry(entry, &format!("{what}, tool {}", tool.name));
                }
            }
        }
    }
}

fn assert_trace_entry(entry: &Value, what: &str) {
    let rule = entry["rule"].as_str().unwrap_or_default();
    assert!(RULE_IDS.contains(&rule), "{what}: unknown rule in {entry}");
    assert!(entry["at"].is_string(), "{what}: `at` in {entry}");
    let from = entry["from"].as_array();
    assert!(
        from.is_some_and(|f| f.iter().all(Value::is_string)),
        "{what}: `from` in {entry}"
    );
    assert!(
        entry["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: `message` in {entry}"
    );
    assert!(
        entry.as_object().unwrap().contains_key("detail"),
        "{what}: `detail` missing in {entry}"
    );
}

#[test]
fn tool_flag_prints_just_that_tools_projection() {
    for sample in support::samples() {
        let path = support::relative(&sample);
        let manifest = support::load(&sample);
        for mode in MODES {
            let whole = run(&["project", &path, "--mode", mode]);
            whole.expect_code(0, &path);
            let whole = whole.json();
            for tool in &manifest.tools {
                let what = format!("project {path} --tool {} --mode {mode}", tool.name);
                let one = run(&["project", &path, "--tool", &tool.name, "--mode", mode]);
                one.expect_code(0, &what);
                let pointer = tool.schema_pointer.as_deref().unwrap_or("");
                assert_eq!(
                    Some(&one.json()),
                    whole.pointer(pointer),
                    "{what}: differs from the tool's schema in the whole output"
                );

                let explained = run(&[
                    "explain", &path, "--tool", &tool.name, "--mode", mode, "--format", "json",
                ]);
                explained.expect_code(0, &what);
                let tools = explained.json()["tools"].clone();
                assert_eq!(tools.as_array().map(Vec::len), Some(1), "{what}");
                assert_eq!(tools[0]["tool"], json!(tool.name), "{what}");
            }
        }
    }
}

#[test]
fn unknown_tool_exits_2_and_lists_the_tools() {
    for (file, tools) in [
        (
            "samples/mcp-tools-list.json",
            &["create_issue", "search", "move_file", "list_labels"][..],
        ),
        (
            "samples/openai-tools.json",
            &["update_booking", "get_weather", "search_flights"][..],
        ),
        ("samples/nested-union-pydantic.json", &["UserOp"][..]),
    ] {
        for command in ["project", "explain"] {
            let run = run(&[command, file, "--tool", "no_such_tool"]);
            run.expect_code(2, file);
            let line = run.error_line();
            assert!(line.contains("no_such_tool"), "{line}");
            for tool in tools {
                assert!(line.contains(tool), "{command} {file}: {line} lacks {tool}");
            }
            assert!(run.stdout.is_empty(), "nothing on stdout after an error");
        }
    }
}

#[test]
fn stdin_dash_reads_the_manifest() {
    for file in [
        "samples/nested-union-pydantic.json",
        "samples/mcp-tools-list.json",
    ] {
        let text = std::fs::read_to_string(support::root().join(file)).unwrap();
        let from_file = run(&["project", file]);
        from_file.expect_code(0, file);
        let from_stdin = run_with(&["project", "-"], Some(&text));
        from_stdin.expect_code(0, "project -");
        assert_eq!(from_stdin.stdout, from_file.stdout, "{file} via stdin");

        let explained = run_with(&["explain", "-", "--format", "json"], Some(&text));
        explained.expect_code(0, "explain -");
        assert_eq!(explained.json()["origin"], json!("<stdin>"));
    }
}

// ---------------------------------------------------------------------------------------------
// SPEC reference example (the seed reproducer)
// ---------------------------------------------------------------------------------------------

fn project_value(path: &str, mode: &str) -> Value {
    let run = run(&["project", path, "--mode", mode]);
    run.expect_code(0, path);
    run.json()
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn description(schema: &Value) -> &str {
    schema["description"].as_str().unwrap_or("")
}

#[test]
fn seed_reproducer_flat_mode() {
    for file in [
        "samples/nested-union-pydantic.json",
        "samples/nested-union-zod.json",
    ] {
        let out = project_value(file, "flat");
        let op = &out["properties"]["op"];
        assert_eq!(op["type"], "object", "{file}: op is one object: {op:#}");
        assert!(op.get("anyOf").is_none() && op.get("oneOf").is_none());
        let props = op["properties"].as_object().expect("op has properties");
        assert_eq!(
            props.keys().next().map(String::as_str),
            Some("action"),
            "{file}: the tag comes first"
        );
        assert_eq!(
            props["action"]["enum"],
            json!(["create", "delete"]),
            "{file}"
        );
        assert_eq!(required(op), ["action"], "{file}");

        let payload = &props["payload"];
        let user_id = &props["user_id"];
        let hint = description(payload);
        assert!(
            hint.contains("action") && hint.contains("\"create\""),
            "{file}: payload hint: {hint:?}"
        );
        let hint = description(user_id);
        assert!(
            hint.contains("action") && hint.contains("\"delete\""),
            "{file}: user_id hint: {hint:?}"
        );
        assert_eq!(user_id["type"], "integer", "{file}");

        assert_eq!(
            payload["type"], "object",
            "{file}: payload flattened: {payload:#}"
        );
        assert!(payload.get("anyOf").is_none(), "{file}");
        let inner = payload["properties"]
            .as_object()
            .expect("payload properties");
        assert_eq!(inner.keys().next().map(String::as_str), Some("kind"));
        assert_eq!(inner["kind"]["enum"], json!(["full", "stub"]), "{file}");
        assert_eq!(required(payload), ["kind", "name"], "{file}");
        assert_eq!(inner["name"]["type"], "string", "{file}");
        let hint = description(&inner["email"]);
        assert!(
            hint.contains("kind") && hint.contains("\"full\""),
            "{file}: email hint: {hint:?}"
        );
    }
}

#[test]
fn seed_reproducer_inline_mode() {
    let out = project_value("samples/nested-union-pydantic.json", "inline");
    assert_provider_safe(&out, "inline");
    assert!(out.get("$defs").is_none(), "unreferenced $defs removed");
    let branches = out["properties"]["op"]["anyOf"]
        .as_array()
        .expect("op stays a union in inline mode");
    assert_eq!(branches.len(), 2);
    let payload = &branches[0]["properties"]["payload"]["anyOf"];
    let payload = payload.as_array().expect("payload is an anyOf");
    assert_eq!(payload.len(), 2);
    for (branch, tag) in payload.iter().zip(["full", "stub"]) {
        assert_eq!(branch["type"], "object");
        assert_eq!(branch["properties"]["kind"]["const"], tag);
        assert_eq!(branch["additionalProperties"], false);
    }
}

#[test]
fn no_hints_leaves_descriptions_alone() {
    let run = run(&[
        "project",
        "samples/nested-union-pydantic.json",
        "--no-hints",
    ]);
    run.expect_code(0, "--no-hints");
    let out = run.json();
    let payload = &out["properties"]["op"]["properties"]["payload"];
    assert_eq!(description(payload), "The user to create.");
}

// ---------------------------------------------------------------------------------------------
// Bad and hostile input
// ---------------------------------------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn invalid_json_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a\": {\"type\": \"string\",}\n  }\n}\n";
    let path = write(dir.path(), "broken.json", text);
    for command in ["project", "explain"] {
        let run = run(&[command, &path]);
        run.expect_code(2, "invalid JSON");
        let line = run.error_line();
        let position = format!("{path}:4:");
        let rest = line
            .split_once(&position)
            .unwrap_or_else(|| panic!("{line:?} lacks {position}"))
            .1;
        let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
        assert!(
            column.parse::<usize>().is_ok_and(|c| c >= 1),
            "{line:?}: no column"
        );
        assert!(line.contains("invalid JSON"), "{line}");
    }
}

#[test]
fn unknown_manifest_shape_is_named() {
    for (text, found) in [("{\"foo\": 1}", "foo"), ("42", "number")] {
        let run = run_with(&["project", "-"], Some(text));
        run.expect_code(2, text);
        let line = run.error_line();
        assert!(line.contains("<stdin>"), "{line}");
        assert!(line.contains("unknown manifest shape"), "{line}");
        assert!(line.contains(found), "{line}");
    }
}

#[test]
fn unresolvable_refs_become_empty_schemas_with_a_warning() {
    let schema = json!({
        "type": "object",
        "properties": {
            "missing": {"$ref": "#/$defs/Missing"},
            "remote": {"$ref": "https://example.com/schemas/thing.json"},
            "fine": {"type": "string"}
        }
    });
    for mode in MODES {
        let run = run_with(&["project", "-", "--mode", mode], Some(&schema.to_string()));
        run.expect_code(0, "unresolvable");
        let out = run.json();
        assert_eq!(out["properties"]["missing"], json!({}));
        assert_eq!(out["properties"]["remote"], json!({}));
        assert_eq!(out["properties"]["fine"], json!({"type": "string"}));
        assert!(run.stderr.contains("warning"), "{}", run.stderr);
        assert!(run.stderr.contains("#/$defs/Missing"), "{}", run.stderr);
        assert!(
            run.stderr
                .contains("https://example.com/schemas/thing.json"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn cyclic_refs_finish_and_stay_sound() {
    let bare_cycle = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}
    });
    let object_cycle = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}
        }
    });
    // Deeper than the default unroll: the cut must accept what lies below it.
    let deep_instance = json!({"x": {"b": {"a": {"b": {"a": {"b": {"a": {"b": {}}}}}}}}});
    for (name, schema) in [("a→b→a", bare_cycle), ("a→b→a via objects", object_cycle)] {
        for mode in MODES {
            let run = run_with(&["project", "-", "--mode", mode], Some(&schema.to_string()));
            run.expect_code(0, name);
            assert!(
                run.stderr.contains("warning") && run.stderr.contains("#/$defs/"),
                "{name}: the cut is reported: {}",
                run.stderr
            );
            let out = run.json();
            assert_provider_safe(&out, name);
            let validator = jsonschema::validator_for(&out).expect("projection compiles");
            assert!(validator.is_valid(&deep_instance), "{name} {mode}: {out:#}");
        }
    }
}

/// 40 definitions, each an array of two refs to the next: 2^40 nodes once inlined, from a few
/// kilobytes of text.
fn ref_bomb_defs() -> serde_json::Map<String, Value> {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(
            format!("d{i}"),
            json!({"type": "array", "prefixItems": [next.clone(), next]}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    defs
}

#[test]
fn ref_bomb_fails_fast_naming_the_budget_and_the_chain() {
    let defs = ref_bomb_defs();
    let schema = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/d0"}},
        "$defs": defs
    });
    let run = run_with(
        &["project", "-", "--mode", "inline"],
        Some(&schema.to_string()),
    );
    run.expect_code(2, "ref bomb");
    let line = run.error_line();
    assert!(line.contains("schema nodes"), "mentions the budget: {line}");
    assert!(line.contains("#/$defs/d0"), "names the ref chain: {line}");
    assert!(line.contains('→'), "names the ref chain: {line}");
}

/// SPEC: an honest expansion inside the budget must project. 2^15 copies of one leaf are about
/// 165k JSON values, far below the 10^6-node floor, so this must finish well inside the guard.
#[test]
fn shared_ref_dag_within_the_budget_projects() {
    let levels = 15;
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(
            format!("d{i}"),
            json!({"type": "array", "prefixItems": [next.clone(), next]}),
        );
    }
    defs.insert(format!("d{levels}"), json!({"type": "string"}));
    let schema = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/d0"}},
        "$defs": defs
    });
    let run = run_with(
        &["project", "-", "--mode", "inline"],
        Some(&schema.to_string()),
    );
    run.expect_code(0, "2^15-leaf ref DAG");
    let out = run.json();
    assert_provider_safe(&out, "ref DAG");
    let mut leaves = 0;
    support::walk_schemas(&out, "", &mut |map, _| {
        leaves += usize::from(map.get("type") == Some(&json!("string")));
    });
    assert_eq!(leaves, 1 << levels);
}

#[test]
fn deeply_nested_text_is_rejected_with_a_position() {
    let depth = 3000;
    let mut text = String::from("{\"type\": \"string\"}");
    for _ in 0..depth {
        text = format!("{{\"type\": \"object\", \"properties\": {{\"a\": {text}}}}}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "deep.json", &text);
    let run = run(&["project", &path]);
    run.expect_code(2, "3000-deep schema");
    let line = run.error_line();
    assert!(
        line.contains(&format!("{path}:1:")),
        "line and column: {line}"
    );
    assert!(line.contains("recursion limit"), "names the cause: {line}");
}

#[test]
fn long_ref_chain_fails_on_depth_or_projects_correctly() {
    let length = 3000;
    let mut defs = serde_json::Map::new();
    for i in 0..length {
        defs.insert(
            format!("a{i}"),
            json!({
                "type": "object",
                "properties": {"n": {"$ref": format!("#/$defs/a{}", i + 1)}}
            }),
        );
    }
    defs.insert(format!("a{length}"), json!({"type": "string"}));
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/a0"}},
        "$defs": defs
    });
    let run = run_with(&["project", "-"], Some(&schema.to_string()));
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    match run.code {
        Some(2) => {
            let line = run.error_line();
            assert!(line.contains("deeper than"), "depth message: {line}");
            assert!(line.contains("#/$defs/a0"), "names the chain: {line}");
        }
        Some(0) => {
            // Too deep for serde_json's default limit, so the result is checked as text.
            assert_eq!(run.stdout.matches("\"n\": {").count(), length);
            assert!(!run.stdout.contains("$ref"));
        }
        other => panic!("exit {other:?}: {}", run.stderr),
    }
}

#[test]
fn bad_options_exit_2() {
    let run = run(&[
        "project",
        "samples/nested-union-pydantic.json",
        "--mode",
        "sideways",
    ]);
    run.expect_code(2, "--mode sideways");
    assert!(run.stderr.contains("sideways"), "{}", run.stderr);
    let run = run_with(&["project", "missing-file.json"], None);
    run.expect_code(2, "missing file");
    assert!(run.error_line().contains("missing-file.json"));
}

/// Tools project in parallel and their projections are written as they come; a tool that
/// fails does not take the others with it: every other tool is written projected, the failing
/// one as it was, its error on stderr (tool name and manifest pointer) in its place among the
/// warnings, as if the tools were made one after the other; the exit code is 2.
#[test]
fn a_failing_tool_is_reported_and_the_others_are_written_whatever_the_threads() {
    let warns = |name: String| {
        json!({"name": name, "inputSchema": {"type": "object",
            "properties": {"x": {"$ref": "#/$defs/missing"}}}})
    };
    let defs = ref_bomb_defs();
    let bomb_schema = json!({"type": "object",
        "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let bomb = json!({"name": "bomb", "inputSchema": bomb_schema});
    let mut tools: Vec<Value> = (0..12).map(|i| warns(format!("before{i}"))).collect();
    tools.push(bomb);
    tools.extend((0..12).map(|i| warns(format!("after{i}"))));
    let manifest = json!({ "tools": tools }).to_string();
    for threads in ["1", "2", "4"] {
        let mut cmd = support::cli::command();
        cmd.args(["project", "-", "--mode", "flat"])
            .env("SCHEMALENS_THREADS", threads)
            .write_stdin(manifest.clone());
        let output = cmd.output().expect("the binary starts");
        let stderr = String::from_utf8(output.stderr).expect("UTF-8");
        assert_eq!(output.status.code(), Some(2), "{threads} threads: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 25, "{threads} threads: {stderr}");
        for (i, line) in lines[..12].iter().enumerate() {
            assert!(
                line.starts_with(&format!("warning: tool \"before{i}\": `$ref`")),
                "{threads} threads, line {i}: {line}"
            );
        }
        assert!(
            lines[12].starts_with("error: <stdin> (tool \"bomb\", at /tools/12/inputSchema")
                && lines[12].ends_with("(written unprojected)"),
            "{threads} threads: {}",
            lines[12]
        );
        for (i, line) in lines[13..].iter().enumerate() {
            assert!(
                line.starts_with(&format!("warning: tool \"after{i}\": `$ref`")),
                "{threads} threads, line {}: {line}",
                13 + i
            );
        }
        let written: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{threads} threads: stdout is the document ({e})"));
        let written = written["tools"].as_array().expect("the tools");
        assert_eq!(
            written.len(),
            25,
            "{threads} threads: every tool is written"
        );
        assert_eq!(
            written[12]["inputSchema"], bomb_schema,
            "{threads} threads: the failing tool as it was"
        );
        for (i, tool) in written.iter().enumerate().filter(|(i, _)| *i != 12) {
            // Projected: the missing `$ref` is replaced by `{}`.
            assert_eq!(
                tool["inputSchema"]["properties"]["x"],
                json!({}),
                "{threads} threads, tool {i}"
            );
        }
    }
}

/// With a provider, a tool that fails is written as it was and the request plan sends it
/// non-strict; the others are tailored and written with their flags.
#[test]
fn a_failing_tool_is_sent_non_strict_by_the_request_plan() {
    let defs = ref_bomb_defs();
    let manifest = json!([
        {"name": "fine", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
        {"name": "bomb", "input_schema": {"type": "object",
            "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}}
    ]);
    let run = run_with(
        &["project", "-", "--provider", "anthropic-strict"],
        Some(&manifest.to_string()),
    );
    run.expect_code(2, "one tool fails");
    assert!(
        run.stderr
            .contains("error: <stdin> (tool \"bomb\", at /1/input_schema"),
        "{}",
        run.stderr
    );
    let written = run.json();
    assert_eq!(written[0]["strict"], json!(true), "{written}");
    assert_eq!(
        written[0]["input_schema"]["additionalProperties"],
        json!(false)
    );
    // Non-strict: no flag (an absent flag already means non-strict).
    assert_eq!(written[1]["strict"], Value::Null, "{written}");
    assert!(
        run.stderr
            .contains("note: tool \"bomb\": anthropic-strict: sent non-strict: strict mode refuses it (`no-schema`)"),
        "{}",
        run.stderr
    );
    assert_eq!(written[1]["input_schema"], manifest[1]["input_schema"]);
}

/// Tools that share a name are one request the provider refuses: `project --provider` warns of
/// it on the tool that repeats the name, as `lint` of the manifest rejects it.
#[test]
fn project_warns_of_a_name_another_tool_has() {
    let tool = |name: &str| json!({"name": name, "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}});
    let manifest = json!([tool("search"), tool("fetch"), tool("search")]).to_string();
    let run = run_with(
        &["project", "-", "--provider", "anthropic"],
        Some(&manifest),
    );
    run.expect_code(0, "project writes it");
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("tool-name-unique"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].starts_with("warning: tool \"search\": anthropic: # still fails `tool-name-unique`: Tool name `search` is already used by tool #0"),
        "{}",
        warnings[0]
    );
    let lint = run_with(
        &["lint", "-", "--provider", "anthropic", "--format", "json"],
        Some(&manifest),
    );
    lint.expect_code(1, "lint rejects the request");
    let summary = lint.json()["summary"].clone();
    assert_eq!(summary[2]["tailored"], json!("rejected"), "{summary}");
    assert_eq!(summary[0]["tailored"], json!("accepted"), "{summary}");
    // The same tool alone is no request of two: nothing to say.
    let alone = run_with(
        &[
            "project",
            "-",
            "--provider",
            "anthropic",
            "--tool",
            "search",
        ],
        Some(&manifest),
    );
    alone.expect_code(0, "one tool");
    assert!(
        !alone.stderr.contains("tool-name-unique"),
        "{}",
        alone.stderr
    );
}

/// `explain --provider anthropic-strict` says how the request of the tools explained sends
/// each one, as `lint` and `project` decide it: the first 20 strict, the others not, and why.
#[test]
fn explain_says_which_tools_are_sent_strict() {
    let tools: Vec<Value> = (0..22)
        .map(|i| {
            json!({"name": format!("t{i}"), "input_schema": {"type": "object",
                "properties": {"q": {"type": "string"}}, "required": ["q"]}})
        })
        .collect();
    let manifest = Value::Array(tools).to_string();
    let run = run_with(
        &["explain", "-", "--provider", "anthropic-strict"],
        Some(&manifest),
    );
    run.expect_code(0, "explain");
    let sent: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("sent "))
        .map(str::trim)
        .collect();
    assert_eq!(sent.len(), 22, "{}", run.stdout);
    assert!(
        sent[..20].iter().all(|l| l.ends_with(" strict")),
        "{sent:?}"
    );
    assert_eq!(
        sent[21],
        "sent                   non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"
    );
    let json = run_with(
        &[
            "explain",
            "-",
            "--provider",
            "anthropic-strict",
            "--format",
            "json",
        ],
        Some(&manifest),
    );
    json.expect_code(0, "explain json");
    let doc = json.json();
    assert_eq!(doc["tools"][0]["sent"]["strict"], json!(true));
    assert_eq!(doc["tools"][20]["sent"]["strict"], json!(false));
    assert_eq!(
        doc["tools"][20]["sent_why"],
        json!("the request has room for no more: with it, 21 strict tools (at most 20)")
    );
    // The same plan as `lint` of the manifest.
    let lint = run_with(
        &[
            "lint",
            "-",
            "--provider",
            "anthropic-strict",
            "--format",
            "json",
        ],
        Some(&manifest),
    );
    let summary = lint.json()["summary"].clone();
    for i in 0..22 {
        assert_eq!(
            summary[i]["sent"],
            json!(if i < 20 { "strict" } else { "non-strict" }),
            "{i}"
        );
    }
}

/// The document written as the projections come is the one written back at once, whatever
/// the number of threads.
#[test]
fn many_tools_are_written_back_in_place_whatever_the_threads() {
    let tools: Vec<Value> = (0..40)
        .map(|i| {
            json!({"name": format!("t{i}"), "description": "d", "inputSchema": {"type": "object",
                "properties": {"v": {"oneOf": [
                    {"type": "object", "properties": {"k": {"const": "a"}, "n": {"type": "integer"}}, "required": ["k"]},
                    {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
                ]}}}, "annotations": {"readOnlyHint": true}})
        })
        .collect();
    let text = json!({ "tools": tools, "nextCursor": "c" }).to_string();
    let loaded = manifest::load_str(&text, "-", None).expect("loads");
    let replacements: Vec<(usize, Value)> = loaded
        .tools
        .iter()
        .enumerate()
        .map(|(i, tool)| {
            (
                i,
                project_tool(tool, &options("flat"))
                    .expect("projects")
                    .schema,
            )
        })
        .collect();
    let expected = serde_json::to_string_pretty(&loaded.with_schemas(&replacements)).unwrap();
    for threads in ["1", "2", "3"] {
        let mut cmd = support::cli::command();
        cmd.args(["project", "-", "--mode", "flat"])
            .env("SCHEMALENS_THREADS", threads)
            .write_stdin(text.clone());
        let output = cmd.output().expect("the binary starts");
        assert_eq!(output.status.code(), Some(0), "{threads} threads");
        assert_eq!(
            String::from_utf8(output.stdout).expect("UTF-8"),
            format!("{expected}\n"),
            "{threads} threads"
        );
    }
}

/// A keyword value of the wrong shape is not carried through renamed (`"oneOf": 5` used to come
/// out as `"anyOf": 5` with exit 0): the tool is refused with the pointer of the bad value, as
/// any tool that cannot be projected is.
#[test]
fn a_malformed_keyword_is_refused_with_its_pointer() {
    let manifest = json!({"tools": [
        {"name": "broken", "inputSchema": {"type": "object", "properties": {
            "pet": {"oneOf": 5},
            "tags": {"type": "array", "items": {"type": "string"}}
        }}},
        {"name": "fine", "inputSchema": {"type": "object", "properties": {
            "q": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        }}}
    ]});
    let run = run_with(&["project", "-"], Some(&manifest.to_string()));
    run.expect_code(2, "malformed keyword");
    let line = run.error_line();
    assert!(
        line.contains("tool \"broken\", at /tools/0/inputSchema/properties/pet/oneOf"),
        "names the tool and the manifest pointer: {line}"
    );
    assert!(
        line.contains("`oneOf` must be a non-empty array of schemas"),
        "says what was expected: {line}"
    );
    assert!(!run.stdout.contains("\"anyOf\": 5"), "{}", run.stdout);
}
