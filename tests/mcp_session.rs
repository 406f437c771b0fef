//! `schemalens::mcp::Session` against a real MCP server (the fixture), over stdio and over
//! Streamable HTTP: listing, `list_changed`, calls, a crash, a stall.

mod support;

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use schemalens::mcp::{
    CallOutcome, Config, Failure, ListReason, McpError, McpEvent, ServerSpec, Session, ToolList,
};
use serde_json::{Value, json};
use support::mcp::{self, HttpServer};

/// Generous: only there so a hang fails the test instead of stalling CI.
const WAIT: Duration = Duration::from_secs(30);

fn stdio(args: &[&str]) -> ServerSpec {
    ServerSpec::stdio(mcp::server().display().to_string(), args.iter().copied())
}

struct Events(Receiver<McpEvent>);

impl Events {
    fn next(&self) -> McpEvent {
        self.0
            .recv_timeout(WAIT)
            .expect("an event within the hang guard")
    }

    fn connected_and_listed(&self) -> ToolList {
        match self.next() {
            McpEvent::Connected(info) => {
                assert_eq!(info.name, "schemalens-fixture");
                assert_eq!(info.version, "1.2.3");
                assert!(info.list_changed, "the fixture declares listChanged");
            }
            other => panic!("expected Connected, got {other:?}"),
        }
        match self.next() {
            McpEvent::Tools {
                tools,
                reason: ListReason::Connected,
            } => tools,
            other => panic!("expected the first tool list, got {other:?}"),
        }
    }

    fn call_done(&self, id: u64) -> CallOutcome {
        match self.next() {
            McpEvent::CallDone { id: got, outcome } if got == id => outcome,
            other => panic!("expected call {id} to be answered, got {other:?}"),
        }
    }
}

fn start(spec: ServerSpec, config: Config) -> (Session, Events) {
    let (tx, rx) = mpsc::channel();
    let session = Session::start(spec, config, move |e| {
        let _ = tx.send(e);
    });
    (session, Events(rx))
}

fn names(tools: &ToolList) -> Vec<String> {
    tools
        .tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

fn text_of(outcome: &CallOutcome) -> String {
    let result = outcome.result.as_ref().expect("an answer");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

/// Lists, follows a change, and calls: the same over every transport.
fn lists_follows_changes_and_calls(spec: ServerSpec) {
    let (mut session, events) = start(spec, Config::default());
    let first = events.connected_and_listed();
    assert_eq!(first.tools, mcp::tools(), "every page, as sent");
    assert_eq!(first.pages, 3);

    let echo = session.call("echo", json!({"message": "hi"}));
    let outcome = events.call_done(echo);
    assert_eq!(text_of(&outcome), r#"echo: {"message":"hi"}"#);
    assert!(!outcome.is_tool_error());
    assert_eq!(outcome.arguments, json!({"message": "hi"}));

    let refused = session.call("delete_everything", json!({"confirm": true}));
    let outcome = events.call_done(refused);
    assert!(outcome.is_tool_error(), "isError is the tool's own verdict");

    let unknown = session.call("no_such_tool", json!({}));
    match events.call_done(unknown).result {
        Err(Failure {
            error: McpError::Rpc {
                method, message, ..
            },
            ..
        }) => {
            assert_eq!(method, "tools/call");
            assert!(message.contains("no tool named no_such_tool"), "{message}");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    // The server changes its tools and says so: the list comes again, by itself.
    let change = session.call("fixture_change", json!({"mode": "add"}));
    let mut answered = false;
    let mut relisted = None;
    while !(answered && relisted.is_some()) {
        match events.next() {
            McpEvent::CallDone { id, outcome } if id == change => {
                assert_eq!(text_of(&outcome), "change 1: add");
                answered = true;
            }
            McpEvent::Tools {
                tools,
                reason: ListReason::ListChanged { .. },
            } => relisted = Some(tools),
            other => panic!("unexpected {other:?}"),
        }
    }
    let relisted = relisted.unwrap();
    assert_eq!(relisted.tools.len(), 8);
    assert_eq!(names(&relisted).last().unwrap(), "added_1");
    assert_eq!(relisted.tools[..7], mcp::tools()[..], "the rest unchanged");

    session.refresh();
    match events.next() {
        McpEvent::Tools {
            tools,
            reason: ListReason::Requested,
        } => assert_eq!(tools, relisted),
        other => panic!("expected the requested list, got {other:?}"),
    }
}

#[test]
fn stdio_session_lists_follows_changes_and_calls() {
    lists_follows_changes_and_calls(stdio(&[]));
}

#[test]
fn http_session_lists_follows_changes_and_calls() {
    let server = HttpServer::start(&[]);
    lists_follows_changes_and_calls(ServerSpec::http(server.url.clone(), vec![]));
}

#[test]
fn a_crash_ends_the_session_with_the_exit_status_and_stderr() {
    let (mut session, events) = start(stdio(&[]), Config::default());
    events.connected_and_listed();
    let crash = session.call("fixture_crash", json!({}));
    let outcome = events.call_done(crash);
    assert!(outcome.result.is_err(), "no answer from a dead server");
    match events.next() {
        McpEvent::Disconnected(failure) => {
            assert_eq!(
                failure.error,
                McpError::Exited {
                    status: Some("exit status: 3".into())
                }
            );
            assert!(
                failure
                    .stderr
                    .contains(&"fixture: crashing as asked".to_owned()),
                "{:?}",
                failure.stderr
            );
        }
        other => panic!("expected Disconnected, got {other:?}"),
    }
}

#[test]
fn a_stalled_server_times_out_request_by_request() {
    let config = Config {
        request_timeout: Duration::from_millis(700),
        ..Config::default()
    };
    let (mut session, events) = start(stdio(&[]), config);
    events.connected_and_listed();
    let stall = session.call("fixture_stall", json!({}));
    assert_eq!(text_of(&events.call_done(stall)), "stalling from now on");

    session.refresh();
    match events.next() {
        McpEvent::ListFailed(failure) => assert_eq!(
            failure.error,
            McpError::Timeout {
                what: "tools/list".into(),
                after: Duration::from_millis(700)
            }
        ),
        other => panic!("expected ListFailed, got {other:?}"),
    }
    let echo = session.call("echo", json!({"message": "anyone?"}));
    match events.call_done(echo).result {
        Err(Failure {
            error: McpError::Timeout { what, .. },
            stderr,
        }) => {
            assert_eq!(what, "tools/call");
            assert!(stderr.contains(&"fixture: serving on stdio".to_owned()));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

fn expect_lost(events: &Events) {
    match events.next() {
        McpEvent::Disconnected(failure) => {
            let text = failure.to_string();
            assert!(
                text.contains("lost") || text.contains("Connection refused"),
                "{text}"
            );
        }
        other => panic!("expected Disconnected, got {other:?}"),
    }
}

#[test]
fn an_idle_http_session_notices_the_server_is_gone() {
    let mut server = HttpServer::start(&[]);
    let (_session, events) = start(
        ServerSpec::http(server.url.clone(), vec![]),
        Config::default(),
    );
    events.connected_and_listed();
    server.kill();
    // No request is made: the server's event stream is what finds out.
    expect_lost(&events);
}

#[test]
fn a_call_to_a_dead_http_server_fails_and_ends_the_session() {
    let mut server = HttpServer::start(&["--json"]);
    let (mut session, events) = start(
        ServerSpec::http(server.url.clone(), vec![]),
        Config::default(),
    );
    events.connected_and_listed();
    server.kill();
    let id = session.call("echo", json!({"message": "still there?"}));
    let mut answered = false;
    loop {
        match events.next() {
            McpEvent::CallDone { id: got, outcome } if got == id => {
                assert!(outcome.result.is_err());
                answered = true;
            }
            McpEvent::Disconnected(_) => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        answered,
        "the call is answered (with an error) before the end"
    );
}

#[test]
fn arguments_that_are_not_an_object_are_not_sent() {
    let (mut session, events) = start(stdio(&[]), Config::default());
    events.connected_and_listed();
    let id = session.call("echo", Value::Array(vec![]));
    match events.call_done(id).result {
        Err(Failure {
            error: McpError::Usage(m),
            ..
        }) => assert!(m.contains("not a JSON object"), "{m}"),
        other => panic!("expected a usage error, got {other:?}"),
    }
}

#[test]
fn session_failures_never_carry_a_header_value() {
    let server = HttpServer::start(&["--require-header", "X-Api-Key: right-s3cret-value"]);
    let wrong = "wrong-s3cret-value";
    let header = schemalens::mcp::Header::parse(&format!("X-Api-Key: {wrong}")).unwrap();
    let (_session, events) = start(
        ServerSpec::http(server.url.clone(), vec![header]),
        Config::default(),
    );
    // The fixture's refusal quotes the header it was sent.
    match events.next() {
        McpEvent::Disconnected(failure) => {
            let text = format!("{failure} {failure:?}");
            assert!(text.contains("401"), "{text}");
            assert!(!text.contains(wrong), "the header value leaks: {text}");
        }
        other => panic!("expected Disconnected, got {other:?}"),
    }
}
