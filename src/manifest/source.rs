//! Reading manifest text and parsing it as JSON, with positions a user can jump to.

use super::error::ManifestError;
use super::skeleton::{self, Skeleton};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The origin used for standard input.
pub const STDIN_ORIGIN: &str = "<stdin>";

/// Reads a file (or standard input for `-`) and returns its origin name and text.
pub fn read_path(path: &Path) -> Result<(String, String), ManifestError> {
    if path.as_os_str() == "-" {
        let text = read_all(std::io::stdin().lock(), STDIN_ORIGIN)?;
        return Ok((STDIN_ORIGIN.to_owned(), text));
    }
    let origin = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| ManifestError::Io {
        origin: origin.clone(),
        source,
    })?;
    let text = decode_utf8(bytes, &origin)?;
    Ok((origin, text))
}

/// Reads everything from `reader` as UTF-8 text.
pub fn read_all(mut reader: impl Read, origin: &str) -> Result<String, ManifestError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|source| ManifestError::Io {
            origin: origin.to_owned(),
            source,
        })?;
    decode_utf8(bytes, origin)
}

/// Decodes UTF-8, reporting where invalid bytes start rather than a bare I/O error.
fn decode_utf8(bytes: Vec<u8>, origin: &str) -> Result<String, ManifestError> {
    String::from_utf8(bytes).map_err(|err| {
        let valid = err.utf8_error().valid_up_to();
        // The prefix is valid by construction, so this cannot fail.
        let prefix = std::str::from_utf8(&err.as_bytes()[..valid]).unwrap_or_default();
        let line = prefix.matches('\n').count() + 1;
        let column = prefix.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ManifestError::Json {
            origin: origin.to_owned(),
            line,
            column,
            message: "invalid UTF-8".to_owned(),
        }
    })
}

/// Parses JSON, keeping key order (serde_json's `preserve_order`).
pub fn parse_json(text: &str, origin: &str) -> Result<Value, ManifestError> {
    let text = without_bom(text);
    serde_json::from_str(text).map_err(|err| json_error(&err, text, origin))
}

/// [`parse_json`], with the objects that may be parameter schemas left as text (see
/// [`skeleton`]); the same errors.
pub fn parse_skeleton(text: &str, origin: &str) -> Result<Skeleton, ManifestError> {
    let text = without_bom(text);
    skeleton::parse(text).map_err(|err| json_error(&err, text, origin))
}

/// Editors on Windows save a BOM that serde_json rejects; it carries no meaning here.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn json_error(err: &serde_json::Error, text: &str, origin: &str) -> ManifestError {
    let line = err.line().max(1);
    ManifestError::Json {
        origin: origin.to_owned(),
        line,
        column: char_column(text, line, err.column()),
        message: strip_position(&err.to_string(), err.line(), err.column()),
    }
}

/// serde_json counts the column in bytes and gives 0 at the start of a line; editors count
/// characters from 1.
fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let line_text = text.split('\n').nth(line - 1).unwrap_or("");
    let chars = line_text
        .char_indices()
        .take_while(|(index, _)| *index < byte_column)
        .count();
    chars.max(1)
}

/// serde_json appends " at line L column C" to its message; the position goes in front instead.
fn strip_position(message: &str, line: usize, column: usize) -> String {
    let suffix = format!(" at line {line} column {column}");
    message.strip_suffix(&suffix).unwrap_or(message).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_position(text: &str) -> (usize, usize, String) {
        match parse_json(text, "x.json").unwrap_err() {
            ManifestError::Json {
                line,
                column,
                message,
                ..
            } => (line, column, message),
            other => panic!("expected a JSON error, got {other:?}"),
        }
    }

    #[test]
    fn trailing_comma_reports_its_line() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n}\n";
        let (line, column, message) = json_position(text);
        assert_eq!((line, column), (4, 1));
        assert_eq!(message, "trailing comma");
    }

    #[test]
    fn trailing_comma_in_array_on_line_three() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\"},]\n}";
        let (line, column, message) = json_position(text);
        assert_eq!((line, column), (3, 19));
        assert_eq!(message, "trailing comma");
    }

    #[test]
    fn missing_comma_message_and_display() {
        let text = "{\n  \"a\": 1\n  \"b\": 2\n}";
        let err = parse_json(text, "samples/x.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "samples/x.json:3:3: invalid JSON: expected `,` or `}`"
        );
    }

    #[test]
    fn column_counts_characters_not_bytes() {
        let text = "{\"é\u{1F600}\": tru }";
        let (line, column, _) = json_position(text);
        assert_eq!(line, 1);
        assert_eq!(
            column,
            text.find(" }")
                .map(|b| text[..b].chars().count() + 1)
                .unwrap()
        );
    }

    #[test]
    fn empty_input_points_at_line_one() {
        let (line, column, message) = json_position("");
        assert_eq!((line, column), (1, 1));
        assert_eq!(message, "EOF while parsing a value");
    }

    #[test]
    fn byte_order_mark_is_ignored() {
        assert_eq!(
            parse_json("\u{feff}{\"a\": 1}", "x").unwrap(),
            serde_json::json!({"a": 1})
        );
    }

    #[test]
    fn invalid_utf8_reports_position() {
        let err = read_all(&b"{\n  \"a\": \"\xff\"}"[..], "bin.json").unwrap_err();
        assert_eq!(err.to_string(), "bin.json:2:9: invalid JSON: invalid UTF-8");
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let err = read_path(Path::new("/nonexistent/dir/tools.json")).unwrap_err();
        assert!(matches!(err, ManifestError::Io { .. }));
        assert!(
            err.to_string()
                .starts_with("/nonexistent/dir/tools.json: cannot read: "),
            "{err}"
        );
    }
}
