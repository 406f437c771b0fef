//! The live server's side of the inspector (`schemalens mcp -- COMMAND` or `--url`): the
//! connection's state, reconnecting, and calls with their answers kept beside the payloads.
//!
//! The tool list itself takes the path of a saved manifest file (`live::apply_manifest`): the
//! same reprojection, kept selection and change marks. The [`Session`](schemalens::mcp::Session)
//! lives in the event loop; `update` only records what it asks of it ([`ServerRequest`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};
use serde_json::Value;

use schemalens::manifest::{self, ManifestFormat};
use schemalens::mcp::{
    CallId, CallOutcome, Failure, ListReason, McpError, McpEvent, ServerInfo, ServerSpec, ToolList,
};
use schemalens::{Options, watch::content_hash};

use super::app::{App, Source};
use super::live::Stale;
use super::overlay::Overlay;
use super::payloads::PayloadRow;
use super::render::error_text;
use super::text::{clip, escape, escape_lines};
use super::theme::Theme;

/// Lines of a call's answer the detail pane shows at most.
const ANSWER_LINES: usize = 300;

/// Where the connection is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Connecting,
    Connected,
    /// Gone: exited, hung up, timed out in the handshake, or said something that is not MCP.
    Disconnected(Failure),
}

/// Which payload a call was made with: a call's answer stays with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey {
    pub tool: String,
    pub path: PathBuf,
    pub line: Option<usize>,
}

impl CallKey {
    fn of(tool: &str, row: &PayloadRow) -> CallKey {
        CallKey {
            tool: tool.to_owned(),
            path: row.path.clone(),
            line: row.line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallState {
    Waiting { since: Instant, arguments: Value },
    Answered(CallOutcome),
}

/// A call the user confirmed, or is being asked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRequest {
    pub key: CallKey,
    /// The payload as the panel names it (file, and line of a JSON Lines file).
    pub payload: String,
    pub arguments: Value,
    /// What the server's own annotations say of the tool (`destructiveHint`, `readOnlyHint`).
    pub hints: Vec<String>,
}

/// What `update` asks of the event loop, which owns the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRequest {
    Reconnect,
    Call(CallRequest),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerView {
    /// The server as the user named it (command line, or URL without secrets).
    pub label: String,
    /// Events of older sessions (before a reconnect) are ignored.
    pub generation: u64,
    pub state: ServerState,
    pub info: Option<ServerInfo>,
    /// Listing failed while the connection stayed up; the last good list is shown.
    pub list_error: Option<Failure>,
    pub calls: HashMap<CallKey, CallState>,
    pending: HashMap<CallId, CallKey>,
    pub requests: Vec<ServerRequest>,
    /// The call the confirmation overlay asks about.
    pub confirm: Option<CallRequest>,
    /// When the last `list_changed` arrived, until the frame that shows its result is drawn.
    pub redraw_pending: Option<Instant>,
    /// From `list_changed` to the redrawn screen, the last time.
    pub last_refresh: Option<Duration>,
    /// How many tool lists the server sent (1 after connecting).
    pub listings: usize,
}

impl ServerView {
    pub fn new(label: String) -> ServerView {
        ServerView {
            label,
            generation: 0,
            state: ServerState::Connecting,
            info: None,
            list_error: None,
            calls: HashMap::new(),
            pending: HashMap::new(),
            requests: Vec::new(),
            confirm: None,
            redraw_pending: None,
            last_refresh: None,
            listings: 0,
        }
    }

    /// A session was started for this view (the first, or a reconnect).
    pub fn connecting(&mut self, generation: u64) {
        self.generation = generation;
        self.state = ServerState::Connecting;
        self.list_error = None;
        // Calls of the old session will never be answered.
        for key in std::mem::take(&mut self.pending).into_values() {
            self.calls.remove(&key);
        }
    }

    /// The session took call `key` under `id`.
    pub fn sent(&mut self, id: CallId, key: CallKey, arguments: Value) {
        self.calls.insert(
            key.clone(),
            CallState::Waiting {
                since: Instant::now(),
                arguments,
            },
        );
        self.pending.insert(id, key);
    }

    /// The frame showing the last `list_changed` was drawn: how long that took.
    pub fn drawn(&mut self, now: Instant) -> bool {
        match self.redraw_pending.take() {
            Some(at) => {
                self.last_refresh = Some(now.saturating_duration_since(at));
                true
            }
            None => false,
        }
    }

    fn connected(&self) -> bool {
        self.state == ServerState::Connected
    }
}

fn connecting_text(label: &str) -> String {
    format!("connecting to {label} …")
}

impl App {
    /// The inspector on a live server: no tools until it answers. Payloads are read from (and
    /// `n` writes to) `payloads`.
    pub fn live(
        spec: &ServerSpec,
        payloads: PathBuf,
        options: Options,
        theme: Theme,
        mouse: bool,
    ) -> App {
        let label = spec.label();
        let mut source = Source::new(label.clone(), Err(connecting_text(&label)));
        source.payload_dir = Some(payloads);
        let mut app = App::new(vec![source], options, theme, mouse);
        app.server = Some(ServerView::new(label));
        app
    }

    /// One event of the session numbered `generation`.
    pub(super) fn on_mcp(&mut self, generation: u64, event: McpEvent, now: Instant) {
        let Some(server) = &mut self.server else {
            return;
        };
        if generation != server.generation {
            return;
        }
        match event {
            McpEvent::Connected(info) => {
                server.state = ServerState::Connected;
                self.message = Some(format!(
                    "connected to {} {}",
                    clip(&info.name, 40),
                    clip(&info.version, 20)
                ));
                server.info = Some(info);
            }
            McpEvent::Tools { tools, reason } => self.apply_tools(tools, reason, now),
            McpEvent::ListFailed(failure) => {
                self.show_problem(&failure);
                if let Some(server) = &mut self.server {
                    server.list_error = Some(failure);
                }
            }
            McpEvent::CallDone { id, outcome } => {
                let Some(key) = server.pending.remove(&id) else {
                    return;
                };
                self.message = Some(match &outcome.result {
                    Ok(_) if outcome.is_tool_error() => format!(
                        "{}: the tool reported an error (isError) after {}",
                        clip(&key.tool, 40),
                        millis(outcome.elapsed)
                    ),
                    Ok(_) => format!(
                        "{}: answered in {}",
                        clip(&key.tool, 40),
                        millis(outcome.elapsed)
                    ),
                    Err(f) => format!(
                        "{}: {}",
                        clip(&key.tool, 40),
                        clip(&f.error.to_string(), 80)
                    ),
                });
                server.calls.insert(key, CallState::Answered(outcome));
            }
            McpEvent::Disconnected(failure) => {
                self.message = Some(clip(&failure.error.to_string(), 100));
                self.show_problem(&failure);
                if let Some(server) = &mut self.server {
                    server.state = ServerState::Disconnected(failure);
                    server.redraw_pending = None;
                }
            }
        }
    }

    /// A failure before any tools were listed is the tool list's problem row; after, the last
    /// good list stays and the failure is said beside it (status bar, detail pane).
    fn show_problem(&mut self, failure: &Failure) {
        if let Some(source) = self.sources.first_mut()
            && source.manifest.is_err()
        {
            source.manifest = Err(failure.to_string());
        }
    }

    /// A new tool list, through the path a saved manifest file takes.
    fn apply_tools(&mut self, tools: ToolList, reason: ListReason, now: Instant) {
        let Some(server) = &mut self.server else {
            return;
        };
        server.list_error = None;
        server.listings += 1;
        if let ListReason::ListChanged { notified } = reason {
            server.redraw_pending = Some(notified);
        }
        let label = server.label.clone();
        let document = tools.document();
        let hash = content_hash(&serde_json::to_vec(&document).unwrap_or_default());
        let first = self.sources.first().is_some_and(|s| s.manifest.is_err());
        match manifest::load_value(document, &label, Some(ManifestFormat::Mcp)) {
            Ok(m) => {
                self.apply_manifest(0, m, hash, now);
                if first {
                    // The first list is what the server has, not a change.
                    self.clear_marks();
                }
            }
            Err(e) => self.keep_last_good(0, Some(hash), Stale::Invalid(e.to_string())),
        }
        if reason == ListReason::Connected && !first {
            self.message = Some("reconnected: marks show what changed since the last list".into());
        }
    }

    /// `r`: ask the event loop for a new session.
    pub(super) fn request_reconnect(&mut self) {
        match &mut self.server {
            Some(server) => {
                server.requests.push(ServerRequest::Reconnect);
                self.message = Some(format!("reconnecting to {}", clip(&server.label, 60)));
            }
            None => {
                self.message = Some(
                    "r reconnects a live server: open one with `schemalens mcp -- COMMAND` or `--url URL`"
                        .to_owned(),
                )
            }
        }
    }

    /// `x` in the payload panel: asks before anything is sent.
    pub(super) fn ask_call(&mut self) {
        let Some(server) = &self.server else {
            self.message = Some(
                "x calls the tool on a live server: open one with `schemalens mcp -- COMMAND`"
                    .to_owned(),
            );
            return;
        };
        if !server.connected() {
            self.message = Some("not connected to the server: r reconnects".to_owned());
            return;
        }
        let (Some(row), Some(entry)) = (self.payload_row(), self.view.as_ref().map(|v| v.entry))
        else {
            self.message = Some("no payload selected: n writes one".to_owned());
            return;
        };
        // A call from the model reaches the tool as the adapter reads it back.
        let given = row
            .received
            .as_ref()
            .map(|c| c.received.given.payload.clone());
        let Some(arguments) = given.or_else(|| row.value.clone()) else {
            self.message = Some("this payload is not valid JSON: nothing to send".to_owned());
            return;
        };
        let Some((source, tool)) = self.tool(entry) else {
            return;
        };
        let key = CallKey::of(&tool.name, row);
        let payload = row.name();
        if matches!(server.calls.get(&key), Some(CallState::Waiting { .. })) {
            self.message = Some("this payload's call is still waiting for its answer".to_owned());
            return;
        }
        let annotations = source
            .manifest
            .as_ref()
            .ok()
            .and_then(|m| m.document.pointer(&tool.tool_pointer))
            .and_then(|t| t.get("annotations"));
        let hints = hints_of(annotations);
        if let Some(server) = &mut self.server {
            server.confirm = Some(CallRequest {
                key,
                payload,
                arguments,
                hints,
            });
        }
        self.overlay = Some(Overlay::ConfirmCall);
    }

    /// The keys of the confirmation: `y` sends, anything that closes a screen does not.
    pub(super) fn confirm_keys(&mut self, action: super::keys::Action) {
        use super::keys::Action;
        match action {
            Action::ConfirmCall => {
                self.overlay = None;
                if let Some(server) = &mut self.server
                    && let Some(request) = server.confirm.take()
                {
                    self.message = Some(format!("calling {} …", clip(&request.key.tool, 40)));
                    server.requests.push(ServerRequest::Call(request));
                }
            }
            Action::CloseOverlay | Action::Quit => {
                self.overlay = None;
                if let Some(server) = &mut self.server {
                    server.confirm = None;
                }
                self.message = Some("not sent".to_owned());
            }
            Action::Resize { width, height } => self.size = Rect::new(0, 0, width, height),
            _ => {}
        }
    }

    /// When the screen should be drawn again to show a wait's time (a call or the handshake
    /// under way).
    pub fn server_deadline(&self) -> Option<Instant> {
        let server = self.server.as_ref()?;
        let waiting = server.state == ServerState::Connecting
            || server
                .calls
                .values()
                .any(|c| matches!(c, CallState::Waiting { .. }));
        waiting.then(|| Instant::now() + Duration::from_secs(1))
    }

    /// Takes what the event loop has to do for the server.
    pub fn server_requests(&mut self) -> Vec<ServerRequest> {
        self.server
            .as_mut()
            .map(|s| std::mem::take(&mut s.requests))
            .unwrap_or_default()
    }
}

/// The tool's own annotations that bear on calling it. Hints only: the server says them.
fn hints_of(annotations: Option<&Value>) -> Vec<String> {
    let Some(a) = annotations else {
        return vec![
            "the server gives no hints about what this tool does (no annotations)".to_owned(),
        ];
    };
    let flag = |k: &str| a.get(k).and_then(Value::as_bool);
    let mut out = Vec::new();
    if flag("readOnlyHint") == Some(true) {
        out.push("the server says this tool only reads (readOnlyHint)".to_owned());
    } else if flag("destructiveHint") != Some(false) {
        out.push(
            "the server does not say it only reads; it may change things (destructiveHint)"
                .to_owned(),
        );
    }
    if flag("openWorldHint") == Some(true) {
        out.push("it may reach outside systems (openWorldHint)".to_owned());
    }
    out
}

fn millis(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// The status bar's part: where the connection is.
pub fn status_spans(app: &App) -> Vec<Span<'static>> {
    let Some(server) = &app.server else {
        return Vec::new();
    };
    let theme = app.theme;
    // Short: the server's command line is already the bar's first word, and the detail pane
    // says the rest.
    let mut spans = match &server.state {
        ServerState::Connecting => vec![Span::styled("⋯ connecting", theme.key())],
        ServerState::Connected => {
            let name = server
                .info
                .as_ref()
                .map_or_else(String::new, |i| format!("{} {}", i.name, i.version));
            vec![Span::styled(
                format!("● {}", clip(name.trim(), 40)),
                theme.heading(),
            )]
        }
        ServerState::Disconnected(_) => {
            vec![Span::styled("⚠ server gone · r reconnects", theme.error())]
        }
    };
    if server.list_error.is_some() {
        spans.push(Span::styled(" ⚠ listing failed", theme.error()));
    }
    if let Some(d) = server.last_refresh {
        spans.push(Span::styled(
            format!(" · list_changed→screen {}", millis(d)),
            theme.dim(),
        ));
    }
    spans.push(Span::raw(" │ "));
    spans
}

/// The detail pane's first lines while the screen shows a list the server may no longer
/// have: the connection is gone, listing failed, or a reconnect is under way.
pub fn detail_lines(app: &App) -> Vec<Line<'static>> {
    let Some(server) = &app.server else {
        return Vec::new();
    };
    let listed = app.sources.first().is_some_and(|s| s.manifest.is_ok());
    if !listed {
        return Vec::new();
    }
    let mut lines = match (&server.state, &server.list_error) {
        (ServerState::Disconnected(f), _) => error_text(
            app,
            "The server is gone; these are the last tools it listed (r reconnects)",
            &f.to_string(),
        ),
        (_, Some(f)) => error_text(
            app,
            "Listing the tools failed; these are the last tools listed",
            &f.to_string(),
        ),
        (ServerState::Connecting, None) => vec![Line::styled(
            format!(
                "Reconnecting to {}; these are the last tools listed",
                clip(&server.label, 60)
            ),
            app.theme.key(),
        )],
        (ServerState::Connected, None) => return Vec::new(),
    };
    lines.push(Line::from(""));
    lines
}

/// The heading over the tree pane when no tool list came yet.
pub fn problem_heading(app: &App) -> Option<&'static str> {
    Some(match app.server.as_ref()?.state {
        ServerState::Connecting => "Waiting for the server",
        _ => "The server's tools could not be listed",
    })
}

/// The payload row's third mark: the server's own verdict, once asked (`x`).
pub fn row_mark(app: &App, tool: &str, row: &PayloadRow) -> Option<Span<'static>> {
    let state = app.server.as_ref()?.calls.get(&CallKey::of(tool, row))?;
    let theme = app.theme;
    Some(match state {
        CallState::Waiting { .. } => Span::styled(" S⋯", theme.key()),
        CallState::Answered(o) if o.result.is_ok() && !o.is_tool_error() => {
            Span::styled(" S✓", theme.heading())
        }
        CallState::Answered(_) => Span::styled(" S✗", theme.error()),
    })
}

/// The payload detail's part about the server: the answer to the last call made with it.
pub fn call_lines(app: &App, tool: &str, row: &PayloadRow) -> Vec<Line<'static>> {
    let Some(server) = &app.server else {
        return Vec::new();
    };
    let theme = app.theme;
    let mut out = vec![Line::from("")];
    let heading = |text: String| Line::styled(text, theme.heading());
    match server.calls.get(&CallKey::of(tool, row)) {
        None => {
            out.push(Line::styled(
                "server: not called (x sends this payload with tools/call, after asking)",
                theme.dim(),
            ));
        }
        Some(CallState::Waiting { since, .. }) => out.push(Line::styled(
            format!(
                "server: waiting for the answer to tools/call ({} so far)",
                millis(since.elapsed())
            ),
            theme.key(),
        )),
        Some(CallState::Answered(outcome)) => {
            match &outcome.result {
                Ok(result) if outcome.is_tool_error() => out.push(Line::styled(
                    format!(
                        "server: the tool reported an error (isError), after {}",
                        millis(outcome.elapsed)
                    ),
                    theme.error(),
                )),
                Ok(_) => out.push(heading(format!(
                    "server: answered in {}",
                    millis(outcome.elapsed)
                ))),
                Err(f) => {
                    out.extend(error_text(app, "server: the call failed", &f.to_string()));
                    if matches!(f.error, McpError::Timeout { .. }) {
                        out.push(Line::styled(
                            "  a server that hangs can be started again: r reconnects",
                            theme.dim(),
                        ));
                    }
                }
            }
            if row.value.as_ref() != Some(&outcome.arguments) {
                out.push(Line::styled(
                    "  (the payload changed since it was sent; x sends it again)",
                    theme.dim(),
                ));
            }
            if let Ok(result) = &outcome.result {
                out.extend(answer_lines(result, theme));
            }
        }
    }
    out
}

/// A `tools/call` result for people: each content block, then any structured content.
fn answer_lines(result: &Value, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let blocks = result.get("content").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("?");
        match kind {
            "text" => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                out.push(Line::styled("  text", theme.dim()));
                out.extend(
                    escape_lines(text)
                        .into_iter()
                        .map(|l| Line::from(format!("    {l}"))),
                );
            }
            "image" | "audio" => {
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("?");
                let size = block
                    .get("data")
                    .and_then(Value::as_str)
                    .map_or(0, str::len);
                out.push(Line::styled(
                    format!("  {kind} {} ({size} bytes of base64)", escape(mime)),
                    theme.dim(),
                ));
            }
            _ => {
                out.push(Line::styled(format!("  {}", escape(kind)), theme.dim()));
                out.extend(indent(super::overlay::json_lines(block, theme, 40)));
            }
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        out.push(Line::styled("  structuredContent", theme.dim()));
        out.extend(indent(super::overlay::json_lines(structured, theme, 200)));
    }
    if out.len() > ANSWER_LINES {
        let more = out.len() - ANSWER_LINES;
        out.truncate(ANSWER_LINES);
        out.push(Line::styled(format!("  … {more} more lines"), theme.dim()));
    }
    out
}

fn indent(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|mut l| {
            l.spans.insert(0, Span::raw("    "));
            l
        })
        .collect()
}

/// The confirmation: which server, which tool, what is sent. Nothing is sent without `y`.
pub fn render_confirm(app: &App, frame: &mut Frame) {
    let Some(server) = &app.server else { return };
    let Some(request) = &server.confirm else {
        return;
    };
    let theme = app.theme;
    let area = frame.area();
    let width = area.width.saturating_sub(4).min(90);
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<10}"), theme.dim()),
            Span::raw(value),
        ])
    };
    let mut lines = vec![
        field("server", clip(&server.label, 70)),
        field("tool", clip(&request.key.tool, 70)),
        field("payload", clip(&request.payload, 70)),
        Line::from(""),
        Line::styled("arguments", theme.dim()),
    ];
    lines.extend(super::overlay::json_lines(&request.arguments, theme, 8));
    lines.push(Line::from(""));
    lines.push(Line::styled(
        "The server runs the tool: a call can change things.",
        theme.error(),
    ));
    for hint in &request.hints {
        lines.push(Line::styled(format!("· {hint}"), theme.dim()));
    }
    let height = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let rect = Rect::new(
        area.x + (area.width.saturating_sub(width)) / 2,
        area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    );
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .title(" Call the tool on the server? ")
        .title_bottom(Line::from(" y send · n or Esc cancel ").right_aligned())
        .border_style(theme.border(true));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// The payload folder `schemalens mcp` uses when none is named.
pub fn default_payloads() -> PathBuf {
    Path::new("mcp.payloads").to_path_buf()
}
