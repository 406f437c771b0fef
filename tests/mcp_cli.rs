//! `schemalens mcp list` against a real MCP server (the fixture, built on rmcp's server side),
//! over stdio and over Streamable HTTP on a loopback port.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::cli::run;
use support::mcp::{self, HttpServer};

fn fixture() -> String {
    mcp::server().display().to_string()
}

/// What `mcp list` must print: the fixture's tools exactly as written, key order included.
fn expected() -> String {
    serde_json::to_string_pretty(&json!({"tools": mcp::tools()})).unwrap()
}

fn list(args: &[&str]) -> support::cli::Run {
    let mut all = vec!["mcp", "list"];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn stdio_list_is_every_page_exactly_as_sent() {
    let server = fixture();
    for page_size in ["1", "3", "100"] {
        let out = list(&["--", &server, "--page-size", page_size]);
        out.expect_code(0, "mcp list over stdio");
        assert_eq!(
            out.stdout.trim_end(),
            expected(),
            "page size {page_size}: the pages merged in order, each tool as sent (unknown keys such as `x-origin` and `execution` kept, key order kept)"
        );
    }
}

#[test]
fn a_saved_list_is_read_by_every_other_command() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("tools.json");
    let saved_arg = saved.display().to_string();
    let out = list(&["--save", &saved_arg, "--", &fixture()]);
    out.expect_code(0, "mcp list --save");
    assert!(out.stdout.is_empty(), "the list goes to the file");
    assert!(
        out.stderr
            .contains("saved 7 tools (3 pages) from schemalens-fixture 1.2.3"),
        "{}",
        out.stderr
    );
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(text.trim_end(), expected());

    let projected = run(&["project", &saved_arg, "--tool", "create_shape"]);
    projected.expect_code(0, "project on the saved list");
    let schema = projected.json();
    assert_eq!(
        schema["properties"]["shape"]["properties"]["kind"]["enum"],
        json!(["circle", "rect"]),
        "the discriminated union is flattened"
    );
    let linted = run(&["lint", &saved_arg, "--provider", "openai-strict"]);
    assert!(
        linted.code == Some(0) || linted.code == Some(1),
        "lint reads it: {}",
        linted.stderr
    );
    let explained = run(&["explain", &saved_arg, "--tool", "search_issues"]);
    explained.expect_code(0, "explain on the saved list");
}

#[test]
fn http_list_matches_stdio_in_both_response_modes() {
    for mode in [&[][..], &["--json"][..]] {
        let server = HttpServer::start(mode);
        let out = list(&["--url", &server.url]);
        out.expect_code(0, "mcp list over Streamable HTTP");
        assert_eq!(
            out.stdout.trim_end(),
            expected(),
            "mode {mode:?}: SSE and JSON answers both kept raw"
        );
    }
}

#[test]
fn headers_reach_the_server_and_are_never_echoed() {
    let secret = "s3cret-key-4242";
    let server = HttpServer::start(&["--require-header", &format!("X-Api-Key: {secret}")]);
    let good = list(&[
        "--url",
        &server.url,
        "--header",
        &format!("X-Api-Key: {secret}"),
    ]);
    good.expect_code(0, "the right header");
    assert_eq!(good.stdout.trim_end(), expected());

    // The fixture's refusal quotes the header it was sent, as careless servers do.
    let wrong = "wrong-s3cret-value";
    let refused = list(&[
        "--url",
        &server.url,
        "--header",
        &format!("X-Api-Key: {wrong}"),
    ]);
    refused.expect_code(4, "a refused header");
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);
    assert!(
        !refused.stderr.contains(wrong) && !refused.stdout.contains(wrong),
        "the header value is echoed: {}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("(header value hidden)"),
        "{}",
        refused.stderr
    );

    // Arguments that are not headers, or headers without a URL: usage errors, value unsaid.
    for bad in [
        vec!["--url", &server.url, "--header", "Bearer s3cret-no-colon"],
        vec!["--url", &server.url, "--header", "X-Key: s3cret\u{1}ctl"],
        vec!["--header", "X-Key: s3cret-without-url", "--", "true"],
    ] {
        let out = list(&bad);
        out.expect_code(2, "a malformed header");
        assert!(!out.stderr.contains("s3cret"), "{}", out.stderr);
    }
}

#[test]
fn a_server_that_fails_at_start_is_reported_with_its_stderr() {
    let out = list(&["--", &fixture(), "--exit-at-start", "7"]);
    out.expect_code(4, "a server that exits at once");
    let error = out.error_line();
    assert!(
        error.contains("the server exited (exit status: 7)"),
        "{error}"
    );
    assert!(
        out.stderr
            .contains("| Error: cannot open the database (told to fail at start)"),
        "{}",
        out.stderr
    );
}

#[test]
fn output_that_is_not_mcp_is_reported() {
    let out = list(&["--", &fixture(), "--not-mcp"]);
    out.expect_code(4, "a banner on stdout");
    assert!(
        out.error_line().contains(
            "the server wrote something that is not MCP on its standard output: \"Fixture server v1.2.3 starting (a banner on stdout)\""
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn a_stalled_handshake_times_out() {
    let started = Instant::now();
    let out = list(&[
        "--connect-timeout",
        "1",
        "--",
        &fixture(),
        "--stall-handshake",
    ]);
    out.expect_code(4, "a server that never answers");
    assert!(
        out.error_line()
            .contains("no answer to the initialize handshake within 1 s"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("| fixture: stalling before the handshake"),
        "{}",
        out.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "gave up after {:?}",
        started.elapsed()
    );
}

#[test]
fn servers_that_are_not_there() {
    let missing = list(&["--", "/nonexistent/mcp-server", "--flag"]);
    missing.expect_code(4, "a command that does not exist");
    assert!(
        missing
            .error_line()
            .contains("cannot start /nonexistent/mcp-server --flag"),
        "{}",
        missing.stderr
    );
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = list(&["--url", &format!("http://127.0.0.1:{port}/mcp")]);
    refused.expect_code(4, "nothing listening");
    assert!(
        refused.error_line().contains("Connection refused"),
        "{}",
        refused.stderr
    );

    let none = list(&[]);
    none.expect_code(2, "no server named");
    let both = list(&["--url", "http://127.0.0.1:1/mcp", "--", "true"]);
    both.expect_code(2, "two servers named");
}

#[test]
fn the_list_is_json_a_script_can_read() {
    let out = list(&["--", &fixture()]);
    let doc: Value = out.json();
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "search_issues",
            "create_shape",
            "echo",
            "delete_everything",
            "fixture_change",
            "fixture_crash",
            "fixture_stall"
        ]
    );
}
