//! Talking to a live MCP server: the handshake, its whole tool list as the server sent it, the
//! notice that the list changed, and calling a tool.
//!
//! The transport is the official Rust SDK (`rmcp`, client side). Its typed `Tool` drops fields it
//! does not know and orders the ones it does, so the raw JSON of each answer is kept on the way
//! in (see `tap`): a saved tool list is byte for byte what the server said, key order included.
//!
//! The async runtime lives inside this module. Front ends see two synchronous entry points:
//! [`list_tools`] (connect, list every page, disconnect) and [`Session`], which runs the
//! connection on its own thread and hands [`McpEvent`]s to a sink, the way
//! [`crate::watch::Watcher`] hands over file events:
//!
//! ```no_run
//! use std::sync::mpsc;
//! use schemalens::mcp::{Config, McpEvent, ServerSpec, Session};
//!
//! let (tx, rx) = mpsc::channel();
//! let spec = ServerSpec::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"]);
//! let mut session = Session::start(spec, Config::default(), move |e| { let _ = tx.send(e); });
//! while let Ok(event) = rx.recv() {
//!     if let McpEvent::Tools { tools, .. } = event {
//!         println!("{} tools", tools.tools.len());
//!         break;
//!     }
//! }
//! drop(session); // closes the connection and ends the server process
//! ```

mod error;
mod http;
mod session;
mod stderr;
mod stdio;
mod tap;

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::Value;

pub use error::{Failure, McpError};
pub use session::{CallId, Session, list_tools};

/// How to reach a server. Only what the user named: a command to start, or a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// Start `program` with `args` and speak MCP over its standard input and output.
    Stdio { program: String, args: Vec<String> },
    /// Streamable HTTP at `url`, with `headers` on every request (typically `Authorization`).
    Http { url: String, headers: Vec<Header> },
}

impl ServerSpec {
    pub fn stdio<I, S>(program: impl Into<String>, args: I) -> ServerSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ServerSpec::Stdio {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }

    pub fn http(url: impl Into<String>, headers: Vec<Header>) -> ServerSpec {
        ServerSpec::Http {
            url: url.into(),
            headers,
        }
    }

    /// How the server is named to the user: the command line, or the URL with any password
    /// and query values cut out (tokens often travel there). Never a header.
    pub fn label(&self) -> String {
        match self {
            ServerSpec::Stdio { program, args } => std::iter::once(program)
                .chain(args)
                .map(|a| shell_word(a))
                .collect::<Vec<_>>()
                .join(" "),
            ServerSpec::Http { url, .. } => redact_url(url),
        }
    }

    /// What must never appear in an error: the header values, and the token part of each
    /// (`Bearer abc…` → `abc…`), should a server quote them back.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let ServerSpec::Http { headers, .. } = self else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for h in headers {
            out.push(h.value.clone());
            out.extend(h.value.split_whitespace().map(str::to_owned));
        }
        // Very short values would blank out ordinary words.
        out.retain(|s| s.chars().count() >= 6);
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out.dedup();
        out
    }
}

/// A word as a shell would need it quoted, so that a label can be pasted back.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `url` without the password of its user part and without its query values.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else {
        // Not a URL at all: say nothing of it beyond its scheme-like start.
        return "(an invalid URL)".to_owned();
    };
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some("***"));
    }
    if parsed.query().is_some() {
        let keys: Vec<String> = parsed
            .query_pairs()
            .map(|(k, _)| format!("{k}=***"))
            .collect();
        parsed.set_query(Some(&keys.join("&")));
    }
    parsed.to_string()
}

/// An HTTP header given on the command line. Its value is a secret as far as this program
/// knows: it is sent to the server named with it and never printed, logged or put in an error.
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    name: String,
    value: String,
}

impl Header {
    /// Parses `Name: value`. Errors never quote the value.
    pub fn parse(text: &str) -> Result<Header, String> {
        let Some((name, value)) = text.split_once(':') else {
            return Err("a header is written 'Name: value' (the colon is missing)".to_owned());
        };
        let (name, value) = (name.trim(), value.trim());
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!(
                "{:?} is not a valid HTTP header name",
                name.chars().take(60).collect::<String>()
            ));
        }
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(format!(
                "header {name}: the value is not a valid HTTP header value (not shown)"
            ));
        }
        Ok(Header {
            name: name.to_owned(),
            value: value.to_owned(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: (value not shown)", self.name)
    }
}

/// Limits of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Starting the server and the `initialize` handshake (an `npx` server may first download
    /// its package).
    pub connect_timeout: Duration,
    /// Each request after that: one page of `tools/list`, one `tools/call`.
    pub request_timeout: Duration,
    /// Lines of the server's stderr kept for the user (the last ones).
    pub stderr_lines: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            connect_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            stderr_lines: 40,
        }
    }
}

/// What the server said about itself in the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    pub protocol_version: String,
    /// The server declared that it sends `notifications/tools/list_changed`.
    pub list_changed: bool,
    pub instructions: Option<String>,
}

/// The server's whole tool list: every page of `tools/list`, merged in order, each tool the
/// JSON object the server sent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolList {
    pub tools: Vec<Value>,
    pub pages: usize,
}

impl ToolList {
    /// As an MCP `tools/list` result, `{"tools": […]}`: what `schemalens mcp list` prints and
    /// every other command reads.
    pub fn document(&self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("tools".to_owned(), Value::Array(self.tools.clone()));
        Value::Object(map)
    }
}

/// Why the tools were listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListReason {
    /// Right after connecting.
    Connected,
    /// The server sent `notifications/tools/list_changed`, received at `notified`.
    ListChanged { notified: Instant },
    /// [`Session::refresh`].
    Requested,
}

/// The answer to one `tools/call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// The tool name and the arguments as sent.
    pub tool: String,
    pub arguments: Value,
    /// The `result` object as the server sent it (`content`, `isError`, `structuredContent`),
    /// or why there is none (a JSON-RPC error, a timeout, the connection gone).
    pub result: Result<Value, Failure>,
    pub elapsed: Duration,
}

impl CallOutcome {
    /// The server ran the tool and reported a failure of the tool itself (`isError: true`).
    pub fn is_tool_error(&self) -> bool {
        self.result
            .as_ref()
            .is_ok_and(|r| r.get("isError") == Some(&Value::Bool(true)))
    }
}

/// What a [`Session`] reports, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpEvent {
    /// The handshake is done.
    Connected(ServerInfo),
    /// A complete tool list.
    Tools {
        tools: ToolList,
        reason: ListReason,
    },
    /// Listing failed; the connection is still up (a timeout, a malformed page).
    ListFailed(Failure),
    CallDone {
        id: CallId,
        outcome: CallOutcome,
    },
    /// The connection is over: the server exited, hung up, or never answered the handshake.
    /// Nothing follows; a new [`Session`] reconnects.
    Disconnected(Failure),
}

#[cfg(test)]
mod tests;
