//! The MCP server schemalens's tests talk to, built on rmcp's server side. Not a product: it
//! exists so that the client is tested against a real server over real pipes and sockets.
//!
//! It serves the tools of `tests/mcp/fixture-tools.json` in pages, exactly as written there
//! (key order, and fields rmcp's typed `Tool` does not know, the way a server written in
//! another language sends them), and can be told, through its own tools or flags, to change its
//! tools (and send `notifications/tools/list_changed`), to crash, or to stall.
//!
//! ```text
//! mcp_fixture_server [--page-size N] [--tools FILE] [--not-mcp] [--stall-handshake]
//!                    [--exit-at-start CODE]
//!                    [--http 127.0.0.1:0 [--require-header 'Name: value'] [--json]]
//! ```
//! With `--http` it serves Streamable HTTP and prints its URL on the first line of stdout.
//! `--tools FILE` serves the tools of an MCP `tools/list` result instead (a real server's,
//! for measurements), followed by the fixture's control tools.

use std::convert::Infallible;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage, ContentBlock,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    ServerJsonRpcMessage, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const TOOLS: &str = include_str!("../tests/mcp/fixture-tools.json");

struct State {
    /// The tools as they go on the wire.
    tools: Mutex<Vec<Value>>,
    page_size: usize,
    stalled: AtomicBool,
    changes: AtomicUsize,
}

#[derive(Clone)]
struct Fixture(Arc<State>);

impl Fixture {
    async fn stall_if_asked(&self) {
        if self.0.stalled.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
    }

    fn tools(&self) -> Vec<Value> {
        self.0.tools.lock().unwrap().clone()
    }

    fn change(&self, mode: &str) -> String {
        let n = self.0.changes.fetch_add(1, Ordering::SeqCst) + 1;
        let mut tools = self.0.tools.lock().unwrap();
        match mode {
            "edit" => {
                let schema = &mut tools[0]["inputSchema"];
                if let Some(max) = schema.pointer_mut("/properties/limit/anyOf/0/maximum") {
                    *max = json!(50);
                }
                schema["properties"]["sort"] = json!({"enum": ["newest", "oldest", "votes"], "title": "Sort", "type": "string"});
            }
            "add" => tools.push(json!({
                "name": format!("added_{n}"),
                "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}
            })),
            "remove" => tools.retain(|t| t["name"] != "echo"),
            other => return format!("unknown mode {other:?}"),
        }
        format!("change {n}: {mode}")
    }
}

fn text(s: impl Into<String>) -> Vec<ContentBlock> {
    vec![ContentBlock::text(s)]
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("schemalens-fixture", "1.2.3"))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.stall_if_asked().await;
        let tools = self.tools();
        let page: usize = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c
                .strip_prefix("page-")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| ErrorData::invalid_params("unknown cursor", None))?,
        };
        let start = (page * self.0.page_size).min(tools.len());
        let end = (start + self.0.page_size).min(tools.len());
        let typed = tools[start..end]
            .iter()
            .map(|t| serde_json::from_value::<Tool>(t.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut result = ListToolsResult::with_all_items(typed);
        if end < tools.len() {
            result.next_cursor = Some(format!("page-{}", page + 1));
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.stall_if_asked().await;
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let result = match request.name.as_ref() {
            "echo" => CallToolResult::success(text(format!("echo: {args}"))),
            "search_issues" | "create_shape" => {
                CallToolResult::success(text(format!("{} called with {args}", request.name)))
            }
            "delete_everything" => {
                CallToolResult::error(text("refused: this fixture deletes nothing"))
            }
            "fixture_change" => {
                let mode = args["mode"].as_str().unwrap_or("edit").to_owned();
                let said = self.change(&mode);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(text(said))
            }
            "fixture_crash" => {
                eprintln!("fixture: crashing as asked");
                eprintln!("fixture: goodbye");
                std::process::exit(3);
            }
            "fixture_stall" => {
                self.0.stalled.store(true, Ordering::SeqCst);
                CallToolResult::success(text("stalling from now on"))
            }
            other if other.starts_with("added_") => CallToolResult::success(text("added tool")),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// Puts the tools of a `tools/list` answer back as they are written in the fixture file: what
/// rmcp's typed `Tool` dropped or reordered.
fn restore_raw_tools(message: &mut Value, raw: &[Value]) {
    let Some(tools) = message
        .get_mut("result")
        .and_then(|r| r.get_mut("tools"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for tool in tools {
        if let Some(original) = raw.iter().find(|r| r["name"] == tool["name"]) {
            *tool = original.clone();
        }
    }
}

struct Options {
    page_size: usize,
    tools: Option<String>,
    http: Option<String>,
    require_header: Option<(String, String)>,
    json: bool,
    not_mcp: bool,
    stall_handshake: bool,
    exit_at_start: Option<i32>,
}

fn options() -> Options {
    let mut o = Options {
        page_size: 3,
        tools: None,
        http: None,
        require_header: None,
        json: false,
        not_mcp: false,
        stall_handshake: false,
        exit_at_start: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--page-size" => o.page_size = args.next().and_then(|n| n.parse().ok()).unwrap_or(3),
            "--http" => o.http = args.next(),
            "--tools" => o.tools = args.next(),
            "--require-header" => {
                o.require_header = args.next().and_then(|h| {
                    let (k, v) = h.split_once(':')?;
                    Some((k.trim().to_owned(), v.trim().to_owned()))
                })
            }
            "--json" => o.json = true,
            "--not-mcp" => o.not_mcp = true,
            "--stall-handshake" => o.stall_handshake = true,
            "--exit-at-start" => o.exit_at_start = args.next().and_then(|n| n.parse().ok()),
            other => {
                eprintln!("fixture: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    o
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let o = options();
    if let Some(code) = o.exit_at_start {
        eprintln!("fixture: starting");
        eprintln!("Error: cannot open the database (told to fail at start)");
        std::process::exit(code);
    }
    if o.stall_handshake {
        eprintln!("fixture: stalling before the handshake");
        std::future::pending::<()>().await;
    }
    let mut tools: Vec<Value> = serde_json::from_str(TOOLS).expect("fixture tools");
    if let Some(path) = &o.tools {
        let text = std::fs::read_to_string(path).expect("--tools FILE is readable");
        let document: Value = serde_json::from_str(&text).expect("--tools FILE is JSON");
        let mut served = document["tools"]
            .as_array()
            .cloned()
            .expect("a tools array");
        served.extend(tools.into_iter().filter(|t| {
            t["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("fixture_"))
        }));
        tools = served;
    }
    let fixture = Fixture(Arc::new(State {
        tools: Mutex::new(tools),
        page_size: o.page_size.max(1),
        stalled: AtomicBool::new(false),
        changes: AtomicUsize::new(0),
    }));
    match o.http.clone() {
        Some(addr) => serve_http(fixture, &addr, o).await,
        None => serve_stdio(fixture, o.not_mcp).await,
    }
}

async fn serve_stdio(fixture: Fixture, not_mcp: bool) {
    let mut stdout = tokio::io::stdout();
    if not_mcp {
        let _ = stdout
            .write_all(b"Fixture server v1.2.3 starting (a banner on stdout)\n")
            .await;
        let _ = stdout.flush().await;
    }
    eprintln!("fixture: serving on stdio");
    let state = fixture.clone();
    let sink = futures::sink::unfold(stdout, move |mut out, message: ServerJsonRpcMessage| {
        let raw = state.tools();
        async move {
            let mut value = serde_json::to_value(&message).map_err(std::io::Error::other)?;
            restore_raw_tools(&mut value, &raw);
            let mut line = serde_json::to_vec(&value).map_err(std::io::Error::other)?;
            line.push(b'\n');
            out.write_all(&line).await?;
            out.flush().await?;
            Ok::<_, std::io::Error>(out)
        }
    });
    let stream = lines(BufReader::new(tokio::io::stdin()))
        .filter_map(|line| async move { serde_json::from_str::<ClientJsonRpcMessage>(&line).ok() });
    let running = fixture
        .serve((Box::pin(sink), Box::pin(stream)))
        .await
        .expect("fixture: handshake");
    let _ = running.waiting().await;
    eprintln!("fixture: stdin closed, exiting");
}

fn lines(reader: BufReader<tokio::io::Stdin>) -> impl futures::Stream<Item = String> + Send {
    futures::stream::unfold(reader, |mut reader| async move {
        let mut line = String::new();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => None,
            Ok(_) => Some((line, reader)),
        }
    })
}

type Body = BoxBody<Bytes, Infallible>;

async fn serve_http(fixture: Fixture, addr: &str, o: Options) {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    println!("{url}");
    let _ = std::io::stdout().flush();
    let state = fixture.clone();
    let config = StreamableHttpServerConfig::default()
        .with_json_response(o.json)
        .with_legacy_session_mode(!o.json);
    let service = StreamableHttpService::new(
        move || Ok(state.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    let required = Arc::new(o.require_header);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = service.clone();
        let fixture = fixture.clone();
        let required = required.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let fixture = fixture.clone();
                let required = required.clone();
                async move { Ok::<_, Infallible>(handle(service, fixture, &required, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

async fn handle(
    mut service: StreamableHttpService<Fixture, LocalSessionManager>,
    fixture: Fixture,
    required: &Option<(String, String)>,
    request: Request<Incoming>,
) -> Response<Body> {
    if let Some((name, value)) = required {
        let sent = request
            .headers()
            .get(name.as_str())
            .and_then(|v| v.to_str().ok());
        if sent != Some(value.as_str()) {
            // Like careless servers do, the refusal quotes what it was sent.
            let body = format!("unauthorized: {name} was {sent:?}");
            return Response::builder()
                .status(401)
                .body(Full::new(Bytes::from(body)).boxed())
                .unwrap();
        }
    }
    let post = request.method() == hyper::Method::POST;
    let response = tower_service::Service::call(&mut service, request)
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    if !post {
        return Response::from_parts(parts, body.map_err(|e| match e {}).boxed());
    }
    // A POST's stream ends with its answer: read it whole and put the raw tools back.
    let bytes = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let raw = fixture.tools();
    let rewritten = if text.trim_start().starts_with('{') {
        rewrite_json(&text, &raw)
    } else {
        text.split_inclusive('\n')
            .map(|line| match line.strip_prefix("data:") {
                Some(data) if data.trim_start().starts_with('{') => {
                    format!("data: {}\n", rewrite_json(data.trim(), &raw))
                }
                _ => line.to_owned(),
            })
            .collect()
    };
    let mut response = Response::from_parts(parts, Full::new(Bytes::from(rewritten)).boxed());
    response.headers_mut().remove(hyper::header::CONTENT_LENGTH);
    response
}

fn rewrite_json(text: &str, raw: &[Value]) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(mut value) => {
            restore_raw_tools(&mut value, raw);
            value.to_string()
        }
        Err(_) => text.to_owned(),
    }
}
