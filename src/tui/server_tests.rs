//! The inspector on a live server: state transitions driven by the session's events (listed,
//! list changed, server gone, reconnect, calls), snapshots of how each looks, and one run with
//! the real fixture server behind a real session.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use schemalens::Options;
use schemalens::mcp::{
    CallOutcome, Config, Failure, ListReason, McpError, McpEvent, ServerInfo, ServerSpec, Session,
    ToolList,
};

use super::app::{App, update};
use super::keys::{Action, Pane};
use super::live::{Change, Msg, handle};
use super::live_tests::{change_at, detail_text, pointer, screen, snap, status_line};
use super::overlay::Overlay;
use super::server::{CallState, ServerRequest, ServerState};
use super::theme::Theme;
use super::tree::Side;

#[path = "../../tests/support/mcp.rs"]
mod fixture;

const PLAIN: Theme = Theme { color: false };

fn spec() -> ServerSpec {
    ServerSpec::stdio("fixture-server", ["--page-size", "3"])
}

fn info() -> ServerInfo {
    ServerInfo {
        name: "schemalens-fixture".into(),
        version: "1.2.3".into(),
        title: None,
        protocol_version: "2025-06-18".into(),
        list_changed: true,
        instructions: None,
    }
}

fn tools(list: Vec<Value>) -> ToolList {
    ToolList {
        tools: list,
        pages: 3,
    }
}

/// The fixture's tools after `fixture_change` with mode `edit`.
fn edited() -> Vec<Value> {
    let mut list = fixture::tools();
    let search = &mut list[0]["inputSchema"];
    search["properties"]["limit"]["anyOf"][0]["maximum"] = json!(50);
    search["properties"]["sort"] =
        json!({"enum": ["newest", "oldest", "votes"], "title": "Sort", "type": "string"});
    list
}

struct Live {
    app: App,
    _payloads: tempfile::TempDir,
    generation: u64,
}

/// The inspector as `schemalens mcp -- fixture-server` opens it, before the server answered.
fn live() -> Live {
    let payloads = tempfile::tempdir().unwrap();
    let echo = payloads.path().join("echo");
    std::fs::create_dir_all(&echo).unwrap();
    std::fs::write(echo.join("valid-hello.json"), r#"{"message": "hello"}"#).unwrap();
    let mut app = App::live(
        &spec(),
        payloads.path().to_path_buf(),
        Options::flat(),
        PLAIN,
        true,
    );
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 40,
        },
    );
    if let Some(server) = &mut app.server {
        server.connecting(1);
    }
    Live {
        app,
        _payloads: payloads,
        generation: 1,
    }
}

impl Live {
    fn event(&mut self, event: McpEvent) {
        handle(&mut self.app, Msg::Mcp(self.generation, event));
    }

    fn connect(&mut self) {
        self.event(McpEvent::Connected(info()));
        self.event(McpEvent::Tools {
            tools: tools(fixture::tools()),
            reason: ListReason::Connected,
        });
    }

    fn state(&self) -> &ServerState {
        &self.app.server.as_ref().unwrap().state
    }
}

fn tool_names(app: &App) -> Vec<String> {
    app.sources[0]
        .manifest
        .as_ref()
        .map(|m| m.tools.iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default()
}

fn exited() -> Failure {
    Failure::new(
        McpError::Exited {
            status: Some("exit status: 3".into()),
        },
        vec![
            "fixture: crashing as asked".into(),
            "\u{1b}[31mred alert\u{1b}[0m".into(),
        ],
    )
}

#[test]
fn the_first_list_is_shown_without_marks() {
    let mut l = live();
    snap("mcp_connecting", screen(&l.app));
    l.connect();
    assert_eq!(*l.state(), ServerState::Connected);
    assert_eq!(tool_names(&l.app).len(), 7);
    assert_eq!(
        l.app.change_count(),
        None,
        "what the server has is no change"
    );
    assert!(l.app.live.changed_tools.is_empty());
    snap("mcp_connected", screen(&l.app));
}

#[test]
fn list_changed_reprojects_with_the_kept_selection_and_marks() {
    let mut l = live();
    l.connect();
    l.app
        .select_pointer(Side::Original, "/properties/filter/anyOf/0");
    let notified = Instant::now();
    l.event(McpEvent::Tools {
        tools: tools(edited()),
        reason: ListReason::ListChanged { notified },
    });
    assert_eq!(
        pointer(&l.app, Side::Original),
        "/properties/filter/anyOf/0",
        "the selection is kept, as across a file save"
    );
    assert_eq!(l.app.focus, Pane::Original);
    assert_eq!(
        change_at(&l.app, Side::Original, "/properties/limit/anyOf/0"),
        Some(Change::Changed)
    );
    assert_eq!(
        change_at(&l.app, Side::Original, "/properties/sort"),
        Some(Change::Added)
    );
    assert_eq!(change_at(&l.app, Side::Original, "/properties/query"), None);
    assert_eq!(l.app.change_count(), Some(2));
    assert!(
        l.app
            .live
            .changed_tools
            .contains(&(0, "search_issues".to_owned()))
    );
    // The loop measures from the notice to the frame that shows it.
    let server = l.app.server.as_mut().unwrap();
    assert_eq!(server.redraw_pending, Some(notified));
    assert!(server.drawn(notified + Duration::from_millis(12)));
    assert_eq!(server.last_refresh, Some(Duration::from_millis(12)));
    assert!(!server.drawn(Instant::now()), "measured once");
    let status = status_line(&l.app);
    assert!(status.contains("list_changed→screen 12 ms"), "{status}");
    assert!(status.contains("↻ 2 changed"), "{status}");
    snap("mcp_list_changed", screen(&l.app));
}

#[test]
fn the_same_list_again_is_no_change() {
    let mut l = live();
    l.connect();
    l.event(McpEvent::Tools {
        tools: tools(fixture::tools()),
        reason: ListReason::ListChanged {
            notified: Instant::now(),
        },
    });
    assert_eq!(l.app.change_count(), None);
}

#[test]
fn a_server_that_is_gone_leaves_its_last_tools_and_says_why() {
    let mut l = live();
    l.connect();
    l.app.select_pointer(Side::Original, "/properties/labels");
    l.event(McpEvent::Disconnected(exited()));
    assert!(matches!(l.state(), ServerState::Disconnected(_)));
    assert_eq!(tool_names(&l.app).len(), 7, "the last good tools stay");
    assert_eq!(pointer(&l.app, Side::Original), "/properties/labels");
    let detail = detail_text(&l.app);
    assert!(
        detail.starts_with(
            "The server is gone; these are the last tools it listed (r reconnects)\nthe server exited (exit status: 3)"
        ),
        "{detail}"
    );
    assert!(
        detail.contains("  | \\u{1b}[31mred alert\\u{1b}[0m"),
        "stderr is escaped: {detail}"
    );
    let status = status_line(&l.app);
    assert!(status.contains("⚠ server gone · r reconnects"), "{status}");
    snap("mcp_server_gone", screen(&l.app));
}

#[test]
fn a_server_that_never_listed_shows_why_in_place() {
    let mut l = live();
    l.event(McpEvent::Disconnected(Failure::new(
        McpError::NotMcp {
            detail: "\"Server v1 starting\"".into(),
        },
        vec!["booting".into()],
    )));
    let text = screen(&l.app);
    assert!(
        text.contains("The server's tools could not be listed"),
        "{text}"
    );
    assert!(text.contains("not MCP on its standard output"), "{text}");
    snap("mcp_never_listed", text);
}

#[test]
fn reconnecting_ignores_the_old_session_and_marks_what_changed() {
    let mut l = live();
    l.connect();
    l.event(McpEvent::Disconnected(exited()));
    update(&mut l.app, Action::Reconnect);
    assert_eq!(l.app.server_requests(), vec![ServerRequest::Reconnect]);
    assert!(l.app.server_requests().is_empty(), "taken once");
    // The event loop started session 2.
    l.app.server.as_mut().unwrap().connecting(2);
    assert_eq!(*l.state(), ServerState::Connecting);
    assert!(detail_text(&l.app).starts_with("Reconnecting to fixture-server --page-size 3"));
    // A late event of session 1 changes nothing.
    l.event(McpEvent::Disconnected(exited()));
    assert_eq!(*l.state(), ServerState::Connecting);

    l.generation = 2;
    l.event(McpEvent::Connected(info()));
    l.event(McpEvent::Tools {
        tools: tools(edited()),
        reason: ListReason::Connected,
    });
    assert_eq!(*l.state(), ServerState::Connected);
    assert_eq!(
        change_at(&l.app, Side::Original, "/properties/sort"),
        Some(Change::Added),
        "a restarted server's changes are marked like any other"
    );
    assert_eq!(
        l.app.message.as_deref(),
        Some("reconnected: marks show what changed since the last list")
    );
}

#[test]
fn a_list_that_does_not_load_keeps_the_last_good_one() {
    let mut l = live();
    l.connect();
    let mut broken = fixture::tools();
    broken[2] = json!({"description": "a tool without a name"});
    l.event(McpEvent::Tools {
        tools: tools(broken),
        reason: ListReason::ListChanged {
            notified: Instant::now(),
        },
    });
    assert_eq!(tool_names(&l.app).len(), 7);
    let detail = detail_text(&l.app);
    assert!(
        detail
            .starts_with("The server's newest tool list cannot be used; this is the last good one"),
        "{detail}"
    );
    // And a listing that fails outright, the connection still up:
    l.event(McpEvent::ListFailed(Failure::new(
        McpError::Timeout {
            what: "tools/list".into(),
            after: Duration::from_secs(30),
        },
        vec![],
    )));
    assert!(
        detail_text(&l.app)
            .starts_with("Listing the tools failed; these are the last tools listed\nno answer to tools/list within 30 s")
    );
    assert!(status_line(&l.app).contains("● schemalens-fixture 1.2.3 ⚠ listing failed"));
}

/// Shows `echo` with its payload selected in the payload panel.
fn echo_payload(l: &mut Live) {
    l.connect();
    update(&mut l.app, Action::Top);
    l.app.focus = Pane::Tools;
    update(&mut l.app, Action::Down);
    update(&mut l.app, Action::Down);
    update(&mut l.app, Action::FocusNext);
    assert_eq!(l.app.focus, Pane::Payloads);
    let row = l.app.payload_row().expect("the echo payload");
    assert_eq!(row.name(), "valid-hello.json");
}

#[test]
fn a_call_is_sent_only_after_the_confirmation() {
    let mut l = live();
    echo_payload(&mut l);
    update(&mut l.app, Action::CallPayload);
    assert_eq!(l.app.overlay, Some(Overlay::ConfirmCall));
    snap("mcp_confirm_call", screen(&l.app));
    // Anything but `y` leaves it unsent.
    for key in [Action::Down, Action::Jump, Action::CloseOverlay] {
        update(&mut l.app, key);
        assert!(l.app.server_requests().is_empty(), "{key:?} sent it");
    }
    assert_eq!(l.app.overlay, None);
    assert_eq!(l.app.message.as_deref(), Some("not sent"));

    update(&mut l.app, Action::CallPayload);
    update(&mut l.app, Action::ConfirmCall);
    assert_eq!(l.app.overlay, None);
    let requests = l.app.server_requests();
    let [ServerRequest::Call(call)] = requests.as_slice() else {
        panic!("one call: {requests:?}");
    };
    assert_eq!(call.key.tool, "echo");
    assert_eq!(call.arguments, json!({"message": "hello"}));
}

#[test]
fn the_answer_is_kept_with_the_payload() {
    let mut l = live();
    echo_payload(&mut l);
    update(&mut l.app, Action::CallPayload);
    update(&mut l.app, Action::ConfirmCall);
    let Some(ServerRequest::Call(call)) = l.app.server_requests().pop() else {
        panic!("no call");
    };
    // The event loop hands it to the session, which numbers it 7.
    let server = l.app.server.as_mut().unwrap();
    server.sent(7, call.key.clone(), call.arguments.clone());
    assert!(detail_text(&l.app).contains("server: waiting for the answer to tools/call"));
    assert!(screen(&l.app).contains("S⋯ valid-hello.json"));
    // Another x while it waits sends nothing.
    update(&mut l.app, Action::CallPayload);
    assert_eq!(l.app.overlay, None);

    l.event(McpEvent::CallDone {
        id: 7,
        outcome: CallOutcome {
            tool: "echo".into(),
            arguments: call.arguments.clone(),
            result: Ok(json!({"content": [
                {"type": "text", "text": "echo: hello\n\u{1b}]52;c;evil\u{7}"},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
            ], "structuredContent": {"echoed": "hello"}})),
            elapsed: Duration::from_millis(4),
        },
    });
    assert!(matches!(
        l.app.server.as_ref().unwrap().calls.get(&call.key),
        Some(CallState::Answered(_))
    ));
    let detail = detail_text(&l.app);
    assert!(detail.contains("server: answered in 4 ms"), "{detail}");
    assert!(
        detail.contains("    \\u{1b}]52;c;evil\\u{7}"),
        "the answer is escaped: {detail}"
    );
    assert!(
        detail.contains("image image/png (12 bytes of base64)"),
        "{detail}"
    );
    assert!(screen(&l.app).contains("S✓ valid-hello.json"));
    snap("mcp_call_answered", screen(&l.app));

    // A tool error is the server's verdict too.
    l.app
        .server
        .as_mut()
        .unwrap()
        .sent(8, call.key.clone(), call.arguments.clone());
    l.event(McpEvent::CallDone {
        id: 8,
        outcome: CallOutcome {
            tool: "echo".into(),
            arguments: call.arguments,
            result: Ok(json!({"content": [{"type": "text", "text": "no"}], "isError": true})),
            elapsed: Duration::from_millis(3),
        },
    });
    assert!(screen(&l.app).contains("S✗ valid-hello.json"));
    assert!(detail_text(&l.app).contains("server: the tool reported an error (isError)"));
}

/// Read as a call the model made for openai-strict (`c`), a payload reaches the server as the
/// adapter gives it to the tool: the `null` strict mode asked for in place of an absent
/// property is not sent.
#[test]
fn a_call_from_the_model_is_sent_as_the_tool_gets_it() {
    let mut l = live();
    let dir = l._payloads.path().join("delete_everything");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("call.json"), r#"{"confirm": null}"#).unwrap();
    l.connect();
    update(&mut l.app, Action::Top);
    l.app.focus = Pane::Tools;
    for _ in 0..3 {
        update(&mut l.app, Action::Down);
    }
    while l.app.profile != Some(schemalens::lint::Profile::OpenAiStrict) {
        update(&mut l.app, Action::CycleProfile);
    }
    update(&mut l.app, Action::FocusNext);
    assert_eq!(l.app.focus, Pane::Payloads);
    update(&mut l.app, Action::ToggleCalls);
    let row = l.app.payload_row().expect("the call");
    assert_eq!(row.name(), "call.json");
    let given = &row
        .received
        .as_ref()
        .expect("read as a call")
        .received
        .given;
    assert_eq!(given.payload, json!({}));
    update(&mut l.app, Action::CallPayload);
    update(&mut l.app, Action::ConfirmCall);
    let requests = l.app.server_requests();
    let [ServerRequest::Call(call)] = requests.as_slice() else {
        panic!("one call: {requests:?}");
    };
    assert_eq!(call.key.tool, "delete_everything");
    assert_eq!(call.arguments, json!({}));
}

#[test]
fn calling_needs_a_connected_live_server() {
    let mut l = live();
    echo_payload(&mut l);
    l.event(McpEvent::Disconnected(exited()));
    update(&mut l.app, Action::CallPayload);
    assert_eq!(l.app.overlay, None);
    assert_eq!(
        l.app.message.as_deref(),
        Some("not connected to the server: r reconnects")
    );

    let mut file = App::new(Vec::new(), Options::flat(), PLAIN, true);
    update(&mut file, Action::CallPayload);
    assert!(
        file.message
            .as_deref()
            .unwrap()
            .starts_with("x calls the tool on a live server")
    );
    update(&mut file, Action::Reconnect);
    assert!(
        file.message
            .as_deref()
            .unwrap()
            .starts_with("r reconnects a live server")
    );
}

/// The real thing: the fixture server behind a real session, its events fed to `update` as
/// the event loop does.
#[test]
fn a_real_server_drives_the_inspector() {
    let mut l = live();
    let (tx, rx) = mpsc::channel();
    let spec = ServerSpec::stdio(
        fixture::server().display().to_string(),
        Vec::<String>::new(),
    );
    let mut session = Session::start(spec, Config::default(), move |e| {
        let _ = tx.send(e);
    });
    let pump = |app: &mut App, until: &dyn Fn(&App) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !until(app) {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = rx.recv_timeout(left).expect("the server answers in time");
            handle(app, Msg::Mcp(1, event));
        }
    };
    pump(&mut l.app, &|app| {
        app.server.as_ref().unwrap().listings == 1
    });
    assert_eq!(tool_names(&l.app).len(), 7);
    l.app
        .select_pointer(Side::Original, "/properties/filter/anyOf/0");

    session.call("fixture_change", json!({"mode": "edit"}));
    pump(&mut l.app, &|app| {
        app.server.as_ref().unwrap().listings == 2
    });
    assert_eq!(
        pointer(&l.app, Side::Original),
        "/properties/filter/anyOf/0"
    );
    assert_eq!(
        change_at(&l.app, Side::Original, "/properties/sort"),
        Some(Change::Added)
    );
    assert!(l.app.server.as_ref().unwrap().redraw_pending.is_some());

    session.call("fixture_crash", json!({}));
    pump(&mut l.app, &|app| {
        matches!(
            app.server.as_ref().unwrap().state,
            ServerState::Disconnected(_)
        )
    });
    assert_eq!(tool_names(&l.app).len(), 7);
    let detail = detail_text(&l.app);
    assert!(
        detail.contains("the server exited (exit status: 3)"),
        "{detail}"
    );
    assert!(detail.contains("| fixture: crashing as asked"), "{detail}");
}
