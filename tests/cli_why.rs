//! `schemalens why` end to end: the text as an argument or on standard input, JSON output, and
//! the exit codes scripts rely on (0 located, 1 recognised only, 2 unrecognised or bad input).

mod support;

use support::cli;

const OPENAI: &str = "samples/openai-tools.json";
const ONEOF: &str = "Invalid schema for function 'update_booking': In context=('properties', 'change'), 'oneOf' is not permitted.";

#[test]
fn located_message_exits_0_with_node_rule_and_fix() {
    let run = cli::run(&["why", OPENAI, ONEOF]);
    run.expect_code(0, "why");
    let out = &run.stdout;
    assert!(
        out.contains("update_booking (#0, named in the message)"),
        "{out}"
    );
    assert!(
        out.contains("#/properties/change  (keyword `oneOf`) in the original schema"),
        "{out}"
    );
    assert!(
        out.contains("in the file: #/0/function/parameters/properties/change"),
        "{out}"
    );
    assert!(out.contains("openai-strict/oneof (error)"), "{out}");
    assert!(
        out.contains(
            "$ schemalens project samples/openai-tools.json --tool update_booking --mode inline"
        ),
        "{out}"
    );
}

#[test]
fn text_on_standard_input_and_json_output() {
    let body = format!(
        "HTTP/1.1 400 Bad Request\n\n{}",
        serde_json::json!({"error": {"message": ONEOF, "param": "tools[0].function.parameters"}})
    );
    let run = cli::run_with(&["why", OPENAI, "-", "--format", "json"], Some(&body));
    run.expect_code(0, "why -");
    let report = run.json();
    assert_eq!(report["outcome"], "located");
    let d = &report["diagnoses"][0];
    assert_eq!(d["tool"]["name"], "update_booking");
    assert_eq!(d["node"]["pointer"], "/properties/change");
    assert_eq!(d["node"]["schema"]["schema"], "original");
    assert_eq!(d["rule"]["id"], "oneof");
    assert_eq!(d["fix"]["schema"]["mode"], "inline");
}

#[test]
fn recognised_but_not_located_exits_1() {
    let run = cli::run(&[
        "why",
        OPENAI,
        "In context=('properties', 'no_such_property'), 'oneOf' is not permitted.",
    ]);
    run.expect_code(1, "why, location absent");
    assert!(
        run.stdout.contains("openai-not-permitted"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("does not exist"), "{}", run.stdout);
}

#[test]
fn unrecognised_exits_2_with_the_closest_messages() {
    let run = cli::run(&[
        "why",
        OPENAI,
        "Invalid schema for function 'update_booking': In context=('properties', 'change'), 'oneOf' is forbidden.",
    ]);
    run.expect_code(2, "why, unknown wording");
    assert!(
        run.stdout.contains("Closest known messages"),
        "{}",
        run.stdout
    );
    // The location is still read.
    assert!(run.stdout.contains("#/properties/change"), "{}", run.stdout);
}

#[test]
fn bad_usage_exits_2() {
    cli::run(&["why", OPENAI, "--tool", "nope", ONEOF]).expect_code(2, "unknown tool");
    let run = cli::run_with(&["why", "-", "-"], Some("{}"));
    run.expect_code(2, "both on stdin");
    assert!(
        run.error_line().contains("standard input"),
        "{}",
        run.stderr
    );
    let run = cli::run_with(&["why", OPENAI], Some("   \n"));
    run.expect_code(2, "empty text");
}
