//! Load errors, written to be shown to a user as they are.

use serde_json::Value;
use std::fmt;

/// Why a manifest could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{origin}: cannot read: {source}")]
    Io {
        origin: String,
        #[source]
        source: std::io::Error,
    },
    /// Bad JSON; `line` and `column` are 1-based, the column counted in characters.
    #[error("{origin}:{line}:{column}: invalid JSON: {message}")]
    Json {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid JSON of the wrong shape; `pointer` (RFC 6901) is where it went wrong.
    #[error("{origin}{}: {message}", AtPointer(pointer))]
    Shape {
        origin: String,
        pointer: String,
        message: String,
    },
}

impl ManifestError {
    /// The file path or `<stdin>` that the error is about.
    pub fn origin(&self) -> &str {
        match self {
            ManifestError::Io { origin, .. }
            | ManifestError::Json { origin, .. }
            | ManifestError::Shape { origin, .. } => origin,
        }
    }
}

/// " at /tools/1", or nothing for the root: "x.json at : …" would read as a typo.
struct AtPointer<'a>(&'a str);

impl fmt::Display for AtPointer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, " at {}", self.0)
        }
    }
}

/// A shape error before the origin is known; the format readers only see the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShapeError {
    pub pointer: String,
    pub message: String,
}

impl ShapeError {
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        ShapeError {
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    pub fn with_origin(self, origin: &str) -> ManifestError {
        ManifestError::Shape {
            origin: origin.to_owned(),
            pointer: self.pointer,
            message: self.message,
        }
    }
}

/// "a string", "an object", … for "found …" messages.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Quotes document text (keys, type names) for a message. Debug formatting escapes control
/// characters, so a hostile key cannot drive the user's terminal; long text is cut.
pub(crate) fn quote(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}
