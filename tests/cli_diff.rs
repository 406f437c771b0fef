//! `schemalens diff` end to end: exit codes for each `--fail-on`, the JSON shape, the markdown
//! report, payload verdict changes, standard input, `REV:PATH` from a git repository, and the
//! errors a user gets for bad input.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use support::cli::{self, Run};

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.display().to_string()
}

fn tools(schema: Value) -> Value {
    json!({"tools": [{"name": "create", "description": "Create it", "inputSchema": schema}]})
}

fn v1() -> Value {
    tools(json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 100},
        "role": {"enum": ["admin", "member"]}
    }, "required": ["name"]}))
}

/// v1 with the `admin` role gone: breaking.
fn v2_breaking() -> Value {
    tools(json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 100},
        "role": {"enum": ["member"]}
    }, "required": ["name"]}))
}

/// v1 with a longer name allowed and a new role: widening only.
fn v2_widening() -> Value {
    tools(json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 200, "description": "Full name"},
        "role": {"enum": ["admin", "member", "guest"]}
    }, "required": ["name"]}))
}

fn diff(args: &[&str]) -> Run {
    let all: Vec<&str> = std::iter::once("diff")
        .chain(args.iter().copied())
        .collect();
    cli::run(&all)
}

fn valid(schema: &Value, payload: &Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(payload)
}

#[test]
fn exit_codes_follow_fail_on() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.json", &v1());
    let broken = write(dir.path(), "broken.json", &v2_breaking());
    let wider = write(dir.path(), "wider.json", &v2_widening());

    diff(&[&old, &broken]).expect_code(1, "breaking by default");
    diff(&[&old, &broken, "--fail-on", "none"]).expect_code(0, "none");
    diff(&[&old, &wider]).expect_code(0, "widening is not breaking");
    diff(&[&old, &wider, "--fail-on", "any"]).expect_code(1, "any change");
    diff(&[&old, &old, "--fail-on", "any"]).expect_code(0, "no change");
    // The open object gains `additionalProperties: false`: OpenAI strict mode wanted it, so
    // a provider error is resolved, none introduced; the reverse introduces it.
    let closed = {
        let mut v = v1();
        v["tools"][0]["inputSchema"]["additionalProperties"] = json!(false);
        write(dir.path(), "closed.json", &v)
    };
    diff(&[
        &old,
        &closed,
        "--fail-on",
        "provider",
        "--provider",
        "openai-strict",
    ])
    .expect_code(0, "resolves a provider error");
    let r = diff(&[
        &closed,
        &old,
        "--fail-on",
        "provider",
        "--provider",
        "openai-strict",
    ]);
    r.expect_code(1, "introduces a provider error");
    assert!(
        r.stdout
            .contains("+ [original and projection] error additional-properties"),
        "{}",
        r.stdout
    );
}

#[test]
fn json_has_the_documented_shape_and_true_witnesses() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.json", &v1());
    let new = write(dir.path(), "new.json", &v2_breaking());
    let r = diff(&[&old, &new, "--format", "json"]);
    r.expect_code(1, "breaking");
    let doc = r.json();
    assert_eq!(
        doc.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["tools"]
    );
    let tool = &doc["tools"][0];
    let mut keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["changes", "lint", "payloads", "status", "tool"]);
    assert_eq!(tool["tool"], "create");
    assert_eq!(tool["status"], "changed");
    let allowed = [
        "side",
        "old_pointer",
        "new_pointer",
        "kind",
        "class",
        "message",
        "witness",
    ];
    let old_schema = &v1()["tools"][0]["inputSchema"];
    let new_schema = &v2_breaking()["tools"][0]["inputSchema"];
    let mut breaking = 0;
    for c in tool["changes"].as_array().unwrap() {
        for k in c.as_object().unwrap().keys() {
            assert!(allowed.contains(&k.as_str()), "unexpected key {k}");
        }
        assert!(["original", "projection"].contains(&c["side"].as_str().unwrap()));
        if c["class"] == "breaking" {
            breaking += 1;
            let w = &c["witness"];
            if c["side"] == "original" {
                assert!(valid(old_schema, w) && !valid(new_schema, w), "{c}");
            }
        } else {
            assert!(c.get("witness").is_none(), "{c}");
        }
    }
    assert!(breaking >= 1);
    let removed = tool["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "enum-values-removed" && c["side"] == "original")
        .unwrap();
    assert_eq!(removed["old_pointer"], "/properties/role");
    assert_eq!(removed["witness"], json!({"name": "", "role": "admin"}));
}

#[test]
fn markdown_reads_as_a_review_comment() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.json", &v1());
    let new = write(dir.path(), "new.json", &v2_breaking());
    let r = diff(&[&old, &new, "--format", "markdown", "--fail-on", "none"]);
    r.expect_code(0, "markdown");
    let md = &r.stdout;
    assert!(md.starts_with("## Schema changes:"), "{md}");
    let table = md
        .find("| tool | status | breaking |")
        .expect("summary table");
    let section = md.find("### `create` — changed").expect("tool section");
    assert!(table < section, "summary first");
    assert!(
        md.contains("| **breaking** | enum-values-removed | `#/properties/role` |"),
        "{md}"
    );
    assert!(
        md.contains("```json\n{\"name\":\"\",\"role\":\"admin\"}\n```"),
        "{md}"
    );
}

#[test]
fn payloads_whose_verdict_changes_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "tools.json", &v1());
    write(
        dir.path(),
        "tools.payloads/valid-admin.json",
        &json!({"name": "a", "role": "admin"}),
    );
    write(
        dir.path(),
        "tools.payloads/valid-member.json",
        &json!({"name": "b", "role": "member"}),
    );
    let new = write(dir.path(), "next.json", &v2_breaking());
    let r = diff(&[&old, &new, "--format", "json", "--fail-on", "none"]);
    r.expect_code(0, "fail-on none");
    let payloads = &r.json()["tools"][0]["payloads"];
    assert_eq!(payloads.as_array().unwrap().len(), 1, "{payloads}");
    assert!(
        payloads[0]["payload"]
            .as_str()
            .unwrap()
            .ends_with("valid-admin.json")
    );
    assert_eq!(payloads[0]["old"], "both-accept");
    assert_eq!(payloads[0]["new"], "both-reject");
}

#[test]
fn one_version_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let new = write(dir.path(), "new.json", &v2_widening());
    let text = serde_json::to_string(&v1()).unwrap();
    let r = cli::run_with(&["diff", "-", &new], Some(&text));
    r.expect_code(0, "stdin");
    assert!(
        r.stdout.contains("schemalens diff <stdin> →"),
        "{}",
        r.stdout
    );
    let r = cli::run_with(&["diff", "-", "-"], Some(&text));
    r.expect_code(2, "both stdin");
    assert!(r.error_line().contains("only one of OLD and NEW"));
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let out = cli::command()
        .current_dir(dir)
        .arg("diff")
        .args(args)
        .output()
        .expect("the binary starts");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn a_version_from_git() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    git(path, &["init", "-q"]);
    write(path, "tools.json", &v1());
    git(path, &["add", "tools.json"]);
    git(path, &["commit", "-qm", "v1"]);
    write(path, "tools.json", &v2_breaking());

    let r = run_in(path, &["HEAD:tools.json", "tools.json"]);
    r.expect_code(1, "HEAD vs working tree");
    assert!(
        r.stdout.contains("HEAD:tools.json → tools.json"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("enum-values-removed"), "{}", r.stdout);

    let r = run_in(path, &["HEAD:missing.json", "tools.json"]);
    r.expect_code(2, "missing path at the revision");
    assert!(r.error_line().contains("HEAD:missing.json"), "{}", r.stderr);
    assert!(r.error_line().contains("does not exist"), "{}", r.stderr);

    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "tools.json", &v1());
    let r = run_in(outside.path(), &["HEAD:tools.json", "tools.json"]);
    r.expect_code(2, "not a repository");
    assert!(
        r.error_line().contains("not inside a git repository"),
        "{}",
        r.stderr
    );
}

#[test]
fn bad_input_is_a_usage_error_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.json", &v1());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"tools\": [,]\n}").unwrap();
    let r = diff(&[&old, bad.to_str().unwrap()]);
    r.expect_code(2, "invalid JSON");
    assert!(r.error_line().contains("bad.json:2:"), "{}", r.stderr);
    let r = diff(&[&old, &old, "--tool", "nope"]);
    r.expect_code(2, "unknown tool");
}

#[test]
fn a_renamed_definition_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let schema = |def: &str| {
        tools(json!({
            "type": "object",
            "properties": {"address": {"$ref": format!("#/$defs/{def}")}},
            "$defs": {def: {"type": "object", "properties": {"zip": {"type": "string"}}}}
        }))
    };
    let old = write(dir.path(), "old.json", &schema("Address"));
    let new = write(dir.path(), "new.json", &schema("PostalAddress"));
    let r = diff(&[&old, &new, "--fail-on", "any"]);
    r.expect_code(0, "same meaning");
    assert!(r.stdout.contains("unchanged: create"), "{}", r.stdout);
}
