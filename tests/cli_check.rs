//! `schemalens check` end to end: the bundled payloads, the SPEC wrong-branch example, error
//! pointers on both trees, unreadable payloads, JSON Lines, an unsound projection, and the exit
//! codes that scripts rely on.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::cli::{self, Run};

const PYDANTIC: &str = "samples/nested-union-pydantic.json";
const PYDANTIC_PAYLOADS: &str = "samples/nested-union-pydantic.payloads";

/// `schemalens check ARGS…`
fn run_with(args: &[&str], stdin: Option<&str>) -> Run {
    let all: Vec<&str> = std::iter::once("check")
        .chain(args.iter().copied())
        .collect();
    cli::run_with(&all, stdin)
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

fn payload(file: &str) -> String {
    format!("{PYDANTIC_PAYLOADS}/{file}.json")
}

fn samples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(support::root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    found
}

fn payload_files(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            n += payload_files(&path);
        } else if path.extension().is_some_and(|e| e == "json") {
            n += 1;
        }
    }
    n
}

/// What a sample payload's name promises, per mode, under the default `--open-branches
/// declared` (samples/README.md).
fn promised(file_name: &str, class: &str, mode: &str) -> bool {
    if file_name.starts_with("foreign-key-") {
        match mode {
            "flat" => class == "foreign-key",
            _ => class == "both-accept",
        }
    } else if file_name.starts_with("valid-") {
        class == "both-accept"
    } else if file_name.starts_with("invalid-") {
        class == "both-reject"
    } else if file_name.starts_with("wrong-branch-") {
        match mode {
            "flat" => class == "projection-looser",
            _ => class == "projection-looser" || class == "both-reject",
        }
    } else {
        panic!("unnamed sample payload {file_name}")
    }
}

#[test]
fn every_sample_is_checked_against_the_payloads_beside_it() {
    for sample in samples() {
        let rel = sample
            .strip_prefix(support::root())
            .unwrap()
            .to_str()
            .unwrap();
        let dir = sample.with_extension("payloads");
        let expected_rows = payload_files(&dir);
        for mode in ["flat", "inline"] {
            let r = run(&[rel, "--mode", mode, "--format", "json"]);
            // Every sample has invalid payloads, so the original rejects some: exit 1.
            r.expect_code(1, "check");
            let rows = r.json_array();
            assert_eq!(rows.len(), expected_rows, "{rel} --mode {mode}");
            for row in &rows {
                let path = row["payload"].as_str().unwrap();
                let name = Path::new(path).file_name().unwrap().to_str().unwrap();
                let class = row["class"].as_str().unwrap();
                assert!(
                    promised(name, class, mode),
                    "{rel} --mode {mode}: {path} is {class}"
                );
                assert_eq!(row["mode"], mode);
                // A multi-tool manifest's payload sits in the folder of its tool.
                if path.matches('/').count() > 2 {
                    let folder = Path::new(path).parent().unwrap().file_name().unwrap();
                    assert_eq!(row["tool"].as_str(), folder.to_str(), "{path}");
                }
            }
        }
    }
}

#[test]
fn spec_wrong_branch_example_is_looser_and_names_the_correlation() {
    let file = payload("wrong-branch-delete-with-payload");
    let r = run(&[PYDANTIC, &file, "--format", "json"]);
    r.expect_code(1, "check");
    let rows = r.json_array();
    let row = &rows[0];
    assert_eq!(row["class"], "projection-looser");
    assert_eq!(row["original"]["valid"], false);
    assert_eq!(row["projection"]["valid"], true);
    assert_eq!(
        row["lost"][0]["message"],
        "action is \"delete\" but `payload` only exists when action is \"create\""
    );
    assert_eq!(row["lost"][0]["rule"], "required-intersection");
    assert_eq!(row["lost"][0]["at"], "/properties/op/properties/payload");

    let text = run(&[PYDANTIC, &file]);
    text.expect_code(1, "check");
    let line = text
        .stdout
        .lines()
        .find(|l| l.contains("wrong-branch-delete-with-payload"))
        .unwrap();
    assert!(line.contains("✗    ✓     projection-looser"), "{line}");
    assert!(
        text.stdout.contains(
            "lost       action is \"delete\" but `payload` only exists when action is \"create\""
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn valid_create_and_delete_exit_zero() {
    let files = [
        payload("valid-create-full"),
        payload("valid-create-stub"),
        payload("valid-delete"),
    ];
    for mode in ["flat", "inline"] {
        let mut args = vec![PYDANTIC, "--mode", mode];
        args.extend(files.iter().map(String::as_str));
        let r = run(&args);
        r.expect_code(0, "check");
        let rows: Vec<&str> = r.stdout.lines().filter(|l| l.contains(".json")).collect();
        assert_eq!(rows.len(), 4, "{}", r.stdout); // the header names the manifest
        for f in &files {
            let row = rows.iter().find(|l| l.ends_with(f.as_str())).unwrap();
            assert!(row.contains("✓    ✓     both-accept"), "{row}");
        }
        assert!(
            r.stdout.ends_with(
                "3 payloads: 3 both-accept, 0 both-reject, 0 projection-looser, 0 unsound\n"
            ),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn a_payload_both_reject_exits_one() {
    let r = run(&[
        PYDANTIC,
        &payload("invalid-user-id-string"),
        "--format",
        "json",
    ]);
    r.expect_code(1, "check");
    let row = &r.json_array()[0];
    assert_eq!(row["class"], "both-reject");
    assert_eq!(row["original"]["errors"][0]["instance_path"], "/op/user_id");
    assert_eq!(
        row["projection"]["errors"][0]["instance_path"],
        "/op/user_id"
    );
}

#[test]
fn error_pointers_name_nodes_of_both_trees() {
    let r = run(&[
        PYDANTIC,
        &payload("invalid-name-not-string"),
        "--format",
        "json",
    ]);
    r.expect_code(1, "check");
    let row = &r.json_array()[0];
    let o = &row["original"]["errors"][0];
    assert_eq!(o["instance_path"], "/op/payload/name");
    assert_eq!(o["node"], "/$defs/StubUser/properties/name");
    assert_eq!(o["keyword_pointer"], "/$defs/StubUser/properties/name/type");
    assert_eq!(
        o["schema_path"],
        "/properties/op/oneOf/0/$ref/properties/payload/oneOf/1/$ref/properties/name/type"
    );
    assert_eq!(
        o["via"],
        json!([
            {"keyword_pointer": "/properties/op/oneOf", "instance_path": "/op", "branch": 0},
            {"keyword_pointer": "/$defs/CreateUser/properties/payload/oneOf", "instance_path": "/op/payload", "branch": 1}
        ])
    );
    let p = &row["projection"]["errors"][0];
    assert_eq!(
        p["node"],
        "/properties/op/properties/payload/properties/name"
    );
    let originals = p["originals"].as_array().unwrap();
    assert!(
        originals.contains(&json!("/$defs/StubUser/properties/name")),
        "{p}"
    );

    // Every pointer resolves in the document it claims to point into.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(support::root().join(PYDANTIC)).unwrap())
            .unwrap();
    assert!(manifest.pointer(o["node"].as_str().unwrap()).is_some());
    let projected = schemalens::project(&manifest, &schemalens::Options::flat()).unwrap();
    assert!(
        projected
            .schema
            .pointer(p["node"].as_str().unwrap())
            .is_some()
    );
}

#[test]
fn malformed_payload_json_is_an_input_error_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"op\": {\n    \"action\": \"create\",\n  }\n}\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let r = run(&[PYDANTIC, bad]);
    r.expect_code(2, "check");
    assert!(
        r.stderr
            .contains(&format!("error: {bad}:4:3: invalid JSON: trailing comma")),
        "{}",
        r.stderr
    );
    // The other payloads are still checked and reported; the exit code stays 2.
    let r = run(&[PYDANTIC, bad, &payload("valid-delete"), "--format", "json"]);
    r.expect_code(2, "check");
    let rows = r.json_array();
    assert_eq!(rows.len(), 2);
    assert!(
        rows[0]["error"]
            .as_str()
            .unwrap()
            .ends_with(":4:3: invalid JSON: trailing comma")
    );
    assert_eq!(rows[1]["class"], "both-accept");
}

#[test]
fn json_lines_are_reported_by_line_and_a_bad_line_is_an_error_for_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"op\": {\"action\": \"delete\", \"user_id\": 1}}\n",
            "{\"op\": {\"action\": \"delete\", \"user_id\": 1, \"payload\": {\"kind\": \"stub\", \"name\": \"x\"}}}\n",
            "\n",
            "{\"op\": {\"action\": \n",
            "{\"op\": {\"action\": \"delete\", \"user_id\": \"1\"}}\n",
        ),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let r = run(&[PYDANTIC, file, "--format", "jsonl"]);
    r.expect_code(2, "check");
    let rows = r.jsonl();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["payload"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            format!("{file}:1"),
            format!("{file}:2"),
            format!("{file}:4"),
            format!("{file}:5")
        ]
    );
    assert_eq!(rows[0]["class"], "both-accept");
    assert_eq!(rows[1]["class"], "projection-looser");
    assert!(
        rows[2]["error"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{file}:4:"))
    );
    assert!(rows[2].get("class").is_none());
    assert_eq!(rows[3]["class"], "both-reject");
    assert!(
        r.stderr.contains(&format!("error: {file}:4:")),
        "{}",
        r.stderr
    );
}

#[test]
fn a_projection_that_rejects_a_valid_payload_is_unsound_and_exits_three() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    // `user_id` narrowed to a string: the original's delete alternative says integer.
    std::fs::write(
        &broken,
        json!({
            "type": "object",
            "properties": {"op": {
                "type": "object",
                "properties": {
                    "action": {"enum": ["create", "delete"]},
                    "user_id": {"type": "string"}
                },
                "required": ["action"]
            }},
            "required": ["op"]
        })
        .to_string(),
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    let args = [
        PYDANTIC,
        "--projection-file",
        broken,
        &payload("valid-delete"),
        &payload("valid-create-stub"),
        &payload("invalid-missing-op"),
    ];
    let r = run(&args);
    r.expect_code(3, "check");
    assert!(r.stdout.contains("UNSOUND"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("rejected by projection #/properties/op/properties/user_id/type"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("accepted by original   #/$defs/DeleteUser/properties/user_id"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("error: 1 payload(s) UNSOUND"),
        "{}",
        r.stderr
    );

    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let r = run(&json_args);
    r.expect_code(3, "check");
    let rows = r.json_array();
    assert_eq!(rows[0]["class"], "unsound");
    assert_eq!(
        rows[0]["unsound"][0]["original_node"],
        "/$defs/DeleteUser/properties/user_id"
    );
    assert_eq!(rows[1]["class"], "both-accept");
    assert_eq!(rows[2]["class"], "both-reject");
}

#[test]
fn payloads_from_standard_input_and_folders() {
    let text = std::fs::read_to_string(support::root().join(payload("valid-delete"))).unwrap();
    let r = run_with(&[PYDANTIC, "-"], Some(&text));
    r.expect_code(0, "check");
    assert!(
        r.stdout.contains("both-accept        <stdin>"),
        "{}",
        r.stdout
    );

    // A folder: every payload file in it.
    let r = run(&[PYDANTIC, PYDANTIC_PAYLOADS, "--format", "json"]);
    r.expect_code(1, "check");
    assert_eq!(r.json_array().len(), 13);

    // A multi-tool payload root: the subfolders say which tool.
    let r = run(&[
        "samples/mcp-tools-list.json",
        "samples/mcp-tools-list.payloads",
        "--format",
        "json",
    ]);
    r.expect_code(1, "check");
    let tools: std::collections::BTreeSet<String> = r
        .json_array()
        .iter()
        .map(|row| row["tool"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools.len(), 4, "{tools:?}");
}

#[test]
fn a_multi_tool_manifest_needs_to_know_each_payloads_tool() {
    let dir = tempfile::tempdir().unwrap();
    let loose = dir.path().join("call.json");
    std::fs::write(&loose, r#"{"query": "x"}"#).unwrap();
    let loose = loose.to_str().unwrap();
    let r = run(&["samples/mcp-tools-list.json", loose]);
    r.expect_code(2, "check");
    assert!(
        r.stderr.contains("which tool is this payload for?"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--tool"), "{}", r.stderr);

    let r = run(&[
        "samples/mcp-tools-list.json",
        "--tool",
        "search",
        loose,
        "--format",
        "json",
    ]);
    assert_eq!(r.json_array()[0]["tool"], "search");

    // A tool's own folder says which tool it is.
    let r = run(&[
        "samples/mcp-tools-list.json",
        "samples/mcp-tools-list.payloads/search",
        "--format",
        "json",
    ]);
    let rows = r.json_array();
    assert!(!rows.is_empty() && rows.iter().all(|row| row["tool"] == "search"));

    // `--tool` narrows discovery to that tool's folder.
    let r = run(&[
        "samples/mcp-tools-list.json",
        "--tool",
        "move_file",
        "--format",
        "json",
    ]);
    let rows = r.json_array();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|row| row["tool"] == "move_file"));
    assert_eq!(
        rows.len(),
        payload_files(&support::root().join("samples/mcp-tools-list.payloads/move_file"))
    );
}

#[test]
fn usage_errors_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let lonely = dir.path().join("lonely.json");
    std::fs::write(&lonely, r#"{"type": "object"}"#).unwrap();
    let r = run(&[lonely.to_str().unwrap()]);
    r.expect_code(2, "check");
    assert!(
        r.stderr.contains("no payloads given and none found in"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("lonely.payloads"), "{}", r.stderr);

    let schema = std::fs::read_to_string(support::root().join(PYDANTIC)).unwrap();
    let r = run_with(&["-", "-"], Some(&schema));
    r.expect_code(2, "check");
    assert!(
        r.stderr.contains("standard input can be read only once"),
        "{}",
        r.stderr
    );

    let r = run_with(&["-"], Some(&schema));
    r.expect_code(2, "check");
    assert!(r.stderr.contains("no payloads given"), "{}", r.stderr);

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let r = run(&[PYDANTIC, empty.to_str().unwrap()]);
    r.expect_code(2, "check");
    assert!(
        r.stderr
            .contains("no *.json or *.jsonl payloads in this folder"),
        "{}",
        r.stderr
    );

    let r = run(&[PYDANTIC, "no/such/payload.json"]);
    r.expect_code(2, "check");
    assert!(
        r.stderr.contains("no/such/payload.json: cannot read"),
        "{}",
        r.stderr
    );

    // A schema the validator cannot use ends with a message naming the side and the place.
    std::fs::write(
        &lonely,
        r##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##,
    )
    .unwrap();
    let r = run(&[lonely.to_str().unwrap(), &payload("valid-delete")]);
    r.expect_code(2, "check");
    assert!(
        r.stderr
            .contains("the original schema cannot be used for validation"),
        "{}",
        r.stderr
    );
}

#[test]
fn unsound_wins_over_unreadable_wins_over_findings() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, r#"{"type": "object", "required": ["nope"]}"#).unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let (broken, bad) = (broken.to_str().unwrap(), bad.to_str().unwrap());
    let invalid = payload("invalid-missing-op");
    let valid = payload("valid-delete");
    run(&[PYDANTIC, &invalid]).expect_code(1, "check");
    run(&[PYDANTIC, &invalid, bad]).expect_code(2, "check");
    run(&[PYDANTIC, "--projection-file", broken, &invalid, bad, &valid]).expect_code(3, "check");
}

#[test]
fn payload_text_cannot_drive_the_terminal() {
    // serde_json escapes C0 controls in messages, but a C1 control such as U+009B (CSI) would
    // reach the terminal as is.
    let r = run_with(
        &[PYDANTIC, "-"],
        Some(r#"{"op": {"action": "delete", "user_id": "\u009b31m"}}"#),
    );
    r.expect_code(1, "check");
    assert!(!r.stdout.contains('\u{9b}'), "{:?}", r.stdout);
    assert!(r.stdout.contains("\\u{9b}31m"), "{}", r.stdout);
}

const PYDANTIC_DEFAULT: &str = "samples/nested-union-pydantic-default.json";

#[test]
fn a_foreign_key_is_its_own_class_with_exit_five_and_strict_accepts_it() {
    let file =
        "samples/nested-union-pydantic-default.payloads/foreign-key-delete-with-payload-note.json";
    let valid = "samples/nested-union-pydantic-default.payloads/valid-delete.json";
    let r = run(&[PYDANTIC_DEFAULT, file, valid, "--format", "json"]);
    r.expect_code(5, "check");
    let rows = r.json_array();
    assert_eq!(rows[0]["class"], "foreign-key");
    assert_eq!(rows[0]["open_branches"], "declared");
    let f = &rows[0]["foreign"][0];
    assert_eq!(f["instance_path"], "/op/payload");
    assert_eq!(f["property"], "payload");
    assert_eq!(f["tag"], "delete");
    assert_eq!(f["tolerating"][0]["from"], "/$defs/DeleteUser");
    assert_eq!(
        f["declaring"][0]["from"],
        "/$defs/CreateUser/properties/payload"
    );
    assert_eq!(f["at"], "/properties/op/properties/payload");
    assert!(rows[0]["unsound"].as_array().unwrap().is_empty());
    assert!(
        r.stderr.contains("foreign-key"),
        "the note on stderr: {}",
        r.stderr
    );
    // Text output names the key, the tolerating and the declaring alternative.
    let text = run(&[PYDANTIC_DEFAULT, file]);
    text.expect_code(5, "check");
    assert!(text.stdout.contains("foreign-key"), "{}", text.stdout);
    assert!(
        text.stdout.contains(
            "`payload` is not declared by its alternative (action = \"delete\", #/$defs/DeleteUser)"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("declared by \"create\" (#/$defs/CreateUser/properties/payload)"),
        "{}",
        text.stdout
    );
    // Strict accepts it; an invalid payload beside it wins with 1; unsound still wins with 3.
    run(&[PYDANTIC_DEFAULT, file, "--open-branches", "strict"]).expect_code(0, "check");
    let invalid = "samples/nested-union-pydantic-default.payloads/invalid-missing-op.json";
    run(&[PYDANTIC_DEFAULT, file, invalid]).expect_code(1, "check");
}

/// `schemalens check ARGS…` with its payloads judged on `threads` threads.
fn run_on_threads(args: &[&str], threads: usize) -> Run {
    let output = support::cli::command()
        .arg("check")
        .args(args)
        .env("SCHEMALENS_THREADS", threads.to_string())
        .output()
        .expect("the binary starts");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

#[test]
fn payloads_judged_in_parallel_read_exactly_as_one_after_the_other() {
    // Every class of row at once: unreadable JSON, JSON Lines (one row per line, a bad line
    // among them), payloads both sides accept and payloads the projection is looser on.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"op\": {\"action\": \"create\",}}\n").unwrap();
    let lines = dir.path().join("calls.jsonl");
    std::fs::write(
        &lines,
        concat!(
            "{\"op\": {\"action\": \"delete\", \"user_id\": 1}}\n",
            "{\"op\": {\"action\": \n",
            "{\"op\": {\"action\": \"delete\", \"user_id\": \"1\"}}\n",
        ),
    )
    .unwrap();
    let (bad, lines) = (bad.to_str().unwrap(), lines.to_str().unwrap());
    let mixed = [PYDANTIC, bad, PYDANTIC_PAYLOADS, lines];
    let mut cases: Vec<Vec<&str>> = vec![mixed.to_vec()];
    let samples = samples();
    let sample_paths: Vec<String> = samples
        .iter()
        .filter(|s| s.with_extension("payloads").is_dir())
        .map(|s| s.to_str().unwrap().to_owned())
        .collect();
    assert!(
        sample_paths.len() > 5,
        "samples with payloads: {sample_paths:?}"
    );
    for sample in &sample_paths {
        cases.push(vec![sample.as_str()]);
    }
    // Tailoring notes, one per tool, come from the threads that build the checkers.
    let tailored = ["samples/mcp-tools-list.json", "--provider", "openai-strict"];
    cases.push(tailored.to_vec());
    // Payloads of two tools given in turn: each tool's checker is built and dropped once, its
    // rows still stand where its payloads were given.
    let payload =
        |tool: &str, name: &str| format!("samples/anthropic-tools.payloads/{tool}/{name}");
    let interleaved = [
        "samples/anthropic-tools.json".to_owned(),
        payload("lookup_customer", "invalid-boolean.json"),
        payload("get_stock_price", "invalid-ticker-number.json"),
        payload("lookup_customer", "valid-id.json"),
    ];
    cases.push(interleaved.iter().map(String::as_str).collect());
    for args in cases {
        for format in ["text", "jsonl"] {
            let args: Vec<&str> = args.iter().copied().chain(["--format", format]).collect();
            let one = run_on_threads(&args, 1);
            let rows = one.stdout.lines().count();
            assert!(
                rows > 2,
                "{args:?}: too few rows to judge in parallel:\n{}",
                one.stdout
            );
            let many = run_on_threads(&args, 4);
            assert_eq!(one.stdout, many.stdout, "{args:?}: stdout");
            assert_eq!(one.stderr, many.stderr, "{args:?}: stderr");
            assert_eq!(one.code, many.code, "{args:?}: exit code");
        }
    }
    let tailored = run_on_threads(&tailored, 4);
    let notes: Vec<&str> = tailored
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: tool "))
        .collect();
    assert!(notes.len() > 2, "{}", tailored.stderr);
    let interleaved: Vec<&str> = interleaved.iter().map(String::as_str).collect();
    let rows = run_on_threads(&interleaved, 4).stdout;
    let at = |name: &str| rows.find(name).unwrap_or_else(|| panic!("{name}: {rows}"));
    assert!(at("invalid-boolean.json") < at("invalid-ticker-number.json"));
    assert!(at("invalid-ticker-number.json") < at("valid-id.json"));
    let mixed = run_on_threads(&mixed, 4);
    mixed.expect_code(2, "mixed payloads");
    assert!(
        mixed.stderr.contains(&format!("error: {bad}:1:")),
        "{}",
        mixed.stderr
    );
}

#[test]
fn the_header_says_the_mode_and_the_provider_the_payloads_are_tailored_for() {
    let adapted = "tailored for openai-strict (payloads adapted before the projection sees them)";
    for (mode, said) in [
        ("inline", format!("inline mode, {adapted}")),
        (
            "flat",
            format!("flat mode, open branches declared, {adapted}"),
        ),
    ] {
        let run = run(&[PYDANTIC, "--mode", mode, "--provider", "openai-strict"]);
        run.expect_code(1, mode);
        let header = run.stdout.lines().next().unwrap_or_default();
        assert_eq!(header, format!("UserOp · {said} · {PYDANTIC}"), "{mode}");
    }
}

#[test]
fn a_key_the_provider_form_cannot_hold_beside_a_renamed_property_is_reported_not_exact() {
    // Gemini takes no `-` in a name: `user-id` is sent as `user_id`, and the object stays open,
    // so a payload's own `user_id` has nowhere to go.
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("ids.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"user-id": {"type": "string"}}}).to_string(),
    )
    .unwrap();
    let schema = schema.to_str().unwrap();
    let clash = r#"{"user-id": "a", "user_id": 1}"#;
    let r = run_with(&[schema, "-", "--provider", "gemini"], Some(clash));
    r.expect_code(0, "check");
    assert!(
        r.stdout.contains("not exact")
            && r.stdout.contains("/user_id")
            && r.stdout
                .contains("sent under the provider's names: /user-id"),
        "{}",
        r.stdout
    );
    let plain = r#"{"user-id": "a", "other": 1}"#;
    let r = run_with(&[schema, "-", "--provider", "gemini"], Some(plain));
    r.expect_code(0, "check");
    assert!(!r.stdout.contains("not exact"), "{}", r.stdout);
}
