//! Why talking to a server failed, as values a front end can show: what happened, and the
//! server's last words on stderr.

use std::fmt;
use std::time::Duration;

/// One failure. Text that comes from the server (its error messages, what it wrote instead of
/// MCP) is carried as is; front ends escape it before it reaches a terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("cannot start {command}: {message}")]
    Spawn { command: String, message: String },
    #[error("the server exited{}", status.as_deref().map(|s| format!(" ({s})")).unwrap_or_default())]
    Exited { status: Option<String> },
    #[error("the server closed the connection")]
    Closed,
    #[error("no answer to {what} within {}", seconds(*after))]
    Timeout { what: String, after: Duration },
    #[error("the server wrote something that is not MCP on its standard output: {detail}")]
    NotMcp { detail: String },
    #[error("the handshake failed: {0}")]
    Handshake(String),
    #[error("{method} failed on the server: {message} (JSON-RPC error {code})")]
    Rpc {
        method: String,
        code: i32,
        message: String,
    },
    #[error("{0}")]
    Http(String),
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Usage(String),
}

fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A failure with the last lines the server wrote on stderr (none for HTTP servers), which
/// usually say why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub error: McpError,
    pub stderr: Vec<String>,
}

impl Failure {
    pub fn new(error: McpError, stderr: Vec<String>) -> Failure {
        Failure { error, stderr }
    }
}

impl McpError {
    fn map_text(self, f: impl Fn(String) -> String) -> McpError {
        match self {
            McpError::Spawn { command, message } => McpError::Spawn {
                command: f(command),
                message: f(message),
            },
            McpError::Exited { status } => McpError::Exited { status },
            McpError::Closed => McpError::Closed,
            McpError::Timeout { what, after } => McpError::Timeout { what, after },
            McpError::NotMcp { detail } => McpError::NotMcp { detail: f(detail) },
            McpError::Handshake(m) => McpError::Handshake(f(m)),
            McpError::Rpc {
                method,
                code,
                message,
            } => McpError::Rpc {
                method,
                code,
                message: f(message),
            },
            McpError::Http(m) => McpError::Http(f(m)),
            McpError::Protocol(m) => McpError::Protocol(f(m)),
            McpError::Usage(m) => McpError::Usage(f(m)),
        }
    }
}

impl Failure {
    /// The failure with every secret cut out of the text the server or a library wrote.
    pub(crate) fn redact(self, secrets: &[String]) -> Failure {
        if secrets.is_empty() {
            return self;
        }
        let hide = |mut text: String| {
            for secret in secrets {
                if text.contains(secret.as_str()) {
                    text = text.replace(secret.as_str(), "(header value hidden)");
                }
            }
            text
        };
        Failure {
            error: self.error.map_text(hide),
            stderr: self.stderr.into_iter().map(hide).collect(),
        }
    }
}

impl From<McpError> for Failure {
    fn from(error: McpError) -> Failure {
        Failure {
            error,
            stderr: Vec::new(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        if !self.stderr.is_empty() {
            write!(f, "\nthe server's last lines on stderr:")?;
            for line in &self.stderr {
                write!(f, "\n  | {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}
