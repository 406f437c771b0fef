//! A connection to one server: handshake, listing every page, following `list_changed`,
//! calling tools; and the synchronous faces the front ends use ([`list_tools`], [`Session`]).

use std::collections::HashSet;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, ListToolsRequest, PaginatedRequestParams, ProtocolVersion,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, PeerRequestOptions, RoleClient,
    RunningServiceCancellationToken,
};
use rmcp::{ClientHandler, Peer, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::sync::{Notify, mpsc, watch};

use super::stderr::StderrRing;
use super::stdio::{Broken, ChildGuard};
use super::tap::Tap;
use super::{
    CallOutcome, Config, Failure, ListReason, McpError, McpEvent, ServerInfo, ServerSpec, ToolList,
    http, stdio,
};

/// Names one `tools/call` of a [`Session`] in its [`McpEvent::CallDone`].
pub type CallId = u64;

/// More pages than any real server sends; past this the listing is taken to be a loop.
const MAX_PAGES: usize = 10_000;

/// Connects, lists every page of tools, and disconnects. For `schemalens mcp list`.
pub fn list_tools(spec: &ServerSpec, config: Config) -> Result<(ServerInfo, ToolList), Failure> {
    let secrets = spec.secrets();
    let runtime = runtime()?;
    let listed = runtime.block_on(async {
        let connection = Connection::open(spec, config).await?;
        let listed = connection.list_all().await;
        let listed = match listed {
            Ok(tools) => Ok((connection.info.clone(), tools)),
            Err(error) => Err(connection.failure(error).await),
        };
        connection.stop().await;
        listed
    });
    listed.map_err(|f| f.redact(&secrets))
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| McpError::Protocol(format!("cannot start the async runtime: {e}")).into())
}

/// What the client tells the server about itself: its name, and no capabilities (it never
/// answers sampling or roots requests).
fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("schemalens", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// rmcp's handler for what the server sends unasked; only `list_changed` matters here.
struct Handler {
    changed: mpsc::UnboundedSender<Instant>,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Instant::now());
    }

    fn get_info(&self) -> ClientConfig {
        client_info()
    }
}

/// An open connection.
struct Connection {
    peer: Peer<RoleClient>,
    cancel: RunningServiceCancellationToken,
    /// Turns true when rmcp's service loop ends: the transport closed.
    quit: watch::Receiver<bool>,
    changed: mpsc::UnboundedReceiver<Instant>,
    tap: Tap,
    stderr: StderrRing,
    broken: Broken,
    child: Option<ChildGuard>,
    /// HTTP: turns true when nothing answers at the server's address any more.
    lost: Option<watch::Receiver<bool>>,
    info: ServerInfo,
    config: Config,
    http: bool,
}

impl Connection {
    async fn open(spec: &ServerSpec, config: Config) -> Result<Connection, Failure> {
        let tap = Tap::default();
        let stderr = StderrRing::new(config.stderr_lines);
        let broken = Broken::default();
        let (changed_tx, changed) = mpsc::unbounded_channel();
        let handler = Handler {
            changed: changed_tx,
        };
        let label = spec.label();
        let mut lost = None;
        let (served, mut child) = match spec {
            ServerSpec::Stdio { program, args } => {
                let (child, transport) = stdio::spawn(
                    program,
                    args,
                    &label,
                    tap.clone(),
                    stderr.clone(),
                    broken.clone(),
                )?;
                let served =
                    tokio::time::timeout(config.connect_timeout, handler.serve(transport)).await;
                (served, Some(child))
            }
            ServerSpec::Http { url, headers } => {
                let (lost_tx, lost_rx) = watch::channel(false);
                lost = Some(lost_rx);
                let transport = http::transport(url, headers, tap.clone(), lost_tx)?;
                let served =
                    tokio::time::timeout(config.connect_timeout, handler.serve(transport)).await;
                (served, None)
            }
        };
        let running = match served {
            Ok(Ok(running)) => running,
            outcome => {
                let error = match outcome {
                    Err(_) => McpError::Timeout {
                        what: "the initialize handshake".to_owned(),
                        after: config.connect_timeout,
                    },
                    Ok(Err(e)) => handshake_error(e),
                    Ok(Ok(_)) => unreachable!("handled above"),
                };
                let error = match (broken.get(), child.as_mut()) {
                    (Some(not_mcp), _) => not_mcp,
                    // A server that exits at once: its exit status says more than rmcp's
                    // "connection closed".
                    (None, Some(child)) if !matches!(error, McpError::Timeout { .. }) => {
                        match child.exit_status(Duration::from_millis(500)).await {
                            Some(status) => McpError::Exited {
                                status: Some(status.to_string()),
                            },
                            None => error,
                        }
                    }
                    _ => error,
                };
                if let Some(mut child) = child {
                    child.drain_stderr(Duration::from_millis(300)).await;
                    let failure = Failure::new(error, stderr.tail());
                    child.stop().await;
                    return Err(failure);
                }
                return Err(Failure::new(error, stderr.tail()));
            }
        };
        let info = server_info(running.peer_info().as_deref());
        let peer = running.peer().clone();
        let cancel = running.cancellation_token();
        let (quit_tx, quit) = watch::channel(false);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            let _ = quit_tx.send(true);
        });
        Ok(Connection {
            peer,
            cancel,
            quit,
            changed,
            tap,
            stderr,
            broken,
            child,
            lost,
            info,
            config,
            http: matches!(spec, ServerSpec::Http { .. }),
        })
    }

    /// Every page of `tools/list`, in order.
    async fn list_all(&self) -> Result<ToolList, McpError> {
        list_all(&self.peer, &self.tap, self.config.request_timeout).await
    }

    /// `error` as the user should read it: if the connection is gone by now, why it went.
    async fn failure(&self, error: McpError) -> Failure {
        if let Some(not_mcp) = self.broken.get() {
            return Failure::new(not_mcp, self.stderr.tail());
        }
        Failure::new(error, self.stderr.tail())
    }

    /// Why the connection ended, once it has.
    async fn why_closed(&mut self) -> Failure {
        let mut error = match self.broken.get() {
            Some(not_mcp) => not_mcp,
            None => McpError::Closed,
        };
        if let Some(child) = &mut self.child {
            let status = child.exit_status(Duration::from_secs(1)).await;
            if error == McpError::Closed {
                error = McpError::Exited {
                    status: status.map(|s| s.to_string()),
                };
            }
            child.drain_stderr(Duration::from_millis(300)).await;
        } else if self.http {
            error = McpError::Http("the connection to the server was lost".to_owned());
        }
        Failure::new(error, self.stderr.tail())
    }

    /// Closes the connection and ends the server process.
    async fn stop(mut self) {
        self.cancel.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(1), self.quit.wait_for(|&q| q)).await;
        if let Some(child) = self.child {
            child.stop().await;
        }
    }
}

fn server_info(result: Option<&rmcp::model::ServerPeerInfo>) -> ServerInfo {
    match result {
        Some(r) => ServerInfo {
            name: r
                .server_info
                .as_ref()
                .map_or_else(|| "(unnamed server)".to_owned(), |i| i.name.clone()),
            version: r
                .server_info
                .as_ref()
                .map_or_else(String::new, |i| i.version.clone()),
            title: r.server_info.as_ref().and_then(|i| i.title.clone()),
            protocol_version: r.protocol_version.to_string(),
            list_changed: r
                .capabilities
                .tools
                .as_ref()
                .and_then(|t| t.list_changed)
                .unwrap_or(false),
            instructions: r.instructions.clone(),
        },
        None => ServerInfo {
            name: "(unnamed server)".to_owned(),
            version: String::new(),
            title: None,
            protocol_version: String::new(),
            list_changed: false,
            instructions: None,
        },
    }
}

async fn list_all(
    peer: &Peer<RoleClient>,
    tap: &Tap,
    timeout: Duration,
) -> Result<ToolList, McpError> {
    let mut list = ToolList::default();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        let page = request_raw(peer, tap, request, "tools/list", timeout).await?;
        list.pages += 1;
        let Value::Object(mut page) = page else {
            return Err(McpError::Protocol(format!(
                "page {} of tools/list is not a JSON object",
                list.pages
            )));
        };
        match page.remove("tools") {
            Some(Value::Array(tools)) => list.tools.extend(tools),
            _ => {
                return Err(McpError::Protocol(format!(
                    "page {} of tools/list has no \"tools\" array",
                    list.pages
                )));
            }
        }
        cursor = match page.remove("nextCursor") {
            // An empty cursor ends the list too: the TypeScript SDK's clients read it so, and
            // servers are written against them.
            None | Some(Value::Null) => None,
            Some(Value::String(c)) if c.is_empty() => None,
            Some(Value::String(c)) => {
                if !seen.insert(c.clone()) {
                    return Err(McpError::Protocol(format!(
                        "the server sent the cursor {c:?} twice: its pages would never end"
                    )));
                }
                Some(c)
            }
            Some(other) => {
                return Err(McpError::Protocol(format!(
                    "page {} of tools/list has a nextCursor that is not a string: {other}",
                    list.pages
                )));
            }
        };
        if cursor.is_none() {
            return Ok(list);
        }
        if list.pages >= MAX_PAGES {
            return Err(McpError::Protocol(format!(
                "more than {MAX_PAGES} pages of tools: taken for a loop"
            )));
        }
    }
}

/// Sends `request` and returns the raw `result` the server answered.
async fn request_raw(
    peer: &Peer<RoleClient>,
    tap: &Tap,
    request: ClientRequest,
    what: &str,
    timeout: Duration,
) -> Result<Value, McpError> {
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
        .await
        .map_err(|e| service_error(e, what, timeout))?;
    let id = handle.id.clone();
    handle
        .await_response()
        .await
        .map_err(|e| service_error(e, what, timeout))?;
    tap.take(&id).ok_or_else(|| {
        McpError::Protocol(format!("the answer to {what} could not be read as JSON"))
    })
}

/// An error and its causes on one line, each said once (reqwest and hyper repeat themselves).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut cause = cause_of(error);
    while let Some(e) = cause {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cause = cause_of(e);
    }
    parts.join(": ")
}

/// rmcp's HTTP error holds reqwest's error without naming it as its source.
fn cause_of<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a (dyn std::error::Error + 'static)> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(inner)) => Some(inner),
        _ => error.source(),
    }
}

fn handshake_error(e: ClientInitializeError) -> McpError {
    match e {
        ClientInitializeError::JsonRpcError(data) => McpError::Rpc {
            method: "initialize".to_owned(),
            code: data.code.0,
            message: data.message.into_owned(),
        },
        // The transport's own error, without rmcp's wrapping (which names Rust types).
        ClientInitializeError::TransportError { error, .. } => {
            McpError::Handshake(chain(error.error.as_ref()))
        }
        other => McpError::Handshake(chain(&other)),
    }
}

fn service_error(e: ServiceError, what: &str, timeout: Duration) -> McpError {
    match e {
        ServiceError::McpError(data) => McpError::Rpc {
            method: what.to_owned(),
            code: data.code.0,
            message: data.message.into_owned(),
        },
        ServiceError::Timeout { .. } => McpError::Timeout {
            what: what.to_owned(),
            after: timeout,
        },
        ServiceError::TransportClosed | ServiceError::Cancelled { .. } => McpError::Closed,
        ServiceError::TransportSend(e) => McpError::Http(format!(
            "sending {what} failed: {}",
            chain(e.error.as_ref())
        )),
        other => McpError::Protocol(format!("{what}: {other}")),
    }
}

/// Resolves once an HTTP server stops answering; never for stdio (its end is the pipe's).
async fn gone(lost: &mut Option<watch::Receiver<bool>>) {
    let ended = match lost {
        Some(rx) => rx.wait_for(|&l| l).await.is_ok(),
        None => false,
    };
    if !ended {
        std::future::pending::<()>().await;
    }
}

/// Whether an error means the connection is gone (as opposed to one request failing: an
/// HTTP server's error status is that request's; one that cannot be reached at all is
/// reported through `lost`).
fn is_connection_lost(error: &McpError) -> bool {
    matches!(error, McpError::Closed)
}

async fn call(
    peer: Peer<RoleClient>,
    tap: Tap,
    stderr: StderrRing,
    timeout: Duration,
    tool: String,
    arguments: Value,
) -> CallOutcome {
    let started = Instant::now();
    let result = match &arguments {
        Value::Object(map) => {
            let params = CallToolRequestParams::new(tool.clone()).with_arguments(map.clone());
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            request_raw(&peer, &tap, request, "tools/call", timeout)
                .await
                .map_err(|e| Failure::new(e, stderr.tail()))
        }
        _ => Err(McpError::Usage(
            "tools/call sends an object of arguments; this payload is not a JSON object".to_owned(),
        )
        .into()),
    };
    CallOutcome {
        tool,
        arguments,
        result,
        elapsed: started.elapsed(),
    }
}

enum Command {
    Call {
        id: CallId,
        tool: String,
        arguments: Value,
    },
    Refresh,
    Shutdown,
}

/// A connection run on its own thread, reporting to a sink. Dropping it closes the connection
/// and ends the server process (it waits for that, a second or so at most); events already
/// handed to the sink stay there, nothing follows.
pub struct Session {
    commands: mpsc::UnboundedSender<Command>,
    /// Cuts a connection attempt short (the handshake may take a minute).
    shutdown: Arc<Notify>,
    thread: Option<JoinHandle<()>>,
    next_call: CallId,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

impl Session {
    /// Connects to `spec` and lists its tools; then follows `list_changed` and runs calls until
    /// dropped. The sink runs on the session's thread and should not block.
    pub fn start(
        spec: ServerSpec,
        config: Config,
        sink: impl FnMut(McpEvent) + Send + 'static,
    ) -> Session {
        let (commands, rx) = mpsc::unbounded_channel();
        let shutdown = Arc::new(Notify::new());
        let stop = shutdown.clone();
        let secrets = spec.secrets();
        let mut sink = redacting(sink, secrets);
        let thread = std::thread::Builder::new()
            .name("mcp-session".to_owned())
            .spawn(move || match runtime() {
                Ok(runtime) => runtime.block_on(run(spec, config, rx, stop, &mut sink)),
                Err(failure) => sink(McpEvent::Disconnected(failure)),
            })
            .ok();
        Session {
            commands,
            shutdown,
            thread,
            next_call: 1,
        }
    }

    /// Calls `tool` with `arguments`; the answer comes as [`McpEvent::CallDone`] with the id
    /// returned here.
    pub fn call(&mut self, tool: &str, arguments: Value) -> CallId {
        let id = self.next_call;
        self.next_call += 1;
        let _ = self.commands.send(Command::Call {
            id,
            tool: tool.to_owned(),
            arguments,
        });
        id
    }

    /// Lists the tools again.
    pub fn refresh(&self) {
        let _ = self.commands.send(Command::Refresh);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown);
        self.shutdown.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The sink, with the secrets cut out of every failure it is handed.
fn redacting(
    mut sink: impl FnMut(McpEvent) + Send + 'static,
    secrets: Vec<String>,
) -> impl FnMut(McpEvent) + Send + 'static {
    move |event| {
        sink(match event {
            McpEvent::ListFailed(f) => McpEvent::ListFailed(f.redact(&secrets)),
            McpEvent::Disconnected(f) => McpEvent::Disconnected(f.redact(&secrets)),
            McpEvent::CallDone { id, mut outcome } => {
                outcome.result = outcome.result.map_err(|f| f.redact(&secrets));
                McpEvent::CallDone { id, outcome }
            }
            other => other,
        })
    }
}

async fn run(
    spec: ServerSpec,
    config: Config,
    mut commands: mpsc::UnboundedReceiver<Command>,
    shutdown: Arc<Notify>,
    sink: &mut (dyn FnMut(McpEvent) + Send),
) {
    let opened = tokio::select! {
        opened = Connection::open(&spec, config) => opened,
        () = shutdown.notified() => return,
    };
    let mut connection = match opened {
        Ok(c) => c,
        Err(failure) => return sink(McpEvent::Disconnected(failure)),
    };
    sink(McpEvent::Connected(connection.info.clone()));
    let mut reason = Some(ListReason::Connected);
    let mut calls = FuturesUnordered::new();
    let mut stopping = false;
    loop {
        if stopping {
            connection.stop().await;
            return;
        }
        if let Some(why) = reason.take() {
            match connection.list_all().await {
                Ok(tools) => sink(McpEvent::Tools { tools, reason: why }),
                Err(e) if is_connection_lost(&e) => break,
                Err(e) => sink(McpEvent::ListFailed(connection.failure(e).await)),
            }
        }
        tokio::select! {
            Some(at) = connection.changed.recv() => {
                // A burst of notices is one listing; a notice during it, one more.
                while connection.changed.try_recv().is_ok() {}
                reason = Some(ListReason::ListChanged { notified: at });
            }
            command = commands.recv() => match command {
                Some(Command::Call { id, tool, arguments }) => {
                    let call = call(
                        connection.peer.clone(),
                        connection.tap.clone(),
                        connection.stderr.clone(),
                        config.request_timeout,
                        tool,
                        arguments,
                    );
                    calls.push(async move { (id, call.await) });
                }
                Some(Command::Refresh) => reason = Some(ListReason::Requested),
                Some(Command::Shutdown) | None => stopping = true,
            },
            Some((id, outcome)) = calls.next(), if !calls.is_empty() => {
                sink(McpEvent::CallDone { id, outcome });
            }
            _ = connection.quit.wait_for(|&q| q) => break,
            () = gone(&mut connection.lost) => break,
        }
    }
    // The connection is gone: calls still waiting get their answer (an error) first.
    while let Some((id, outcome)) = calls.next().await {
        sink(McpEvent::CallDone { id, outcome });
    }
    let failure = connection.why_closed().await;
    sink(McpEvent::Disconnected(failure));
    connection.stop().await;
}
