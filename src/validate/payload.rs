//! Reading payloads: one JSON document, or JSON Lines (one payload a line), with positions a
//! user can jump to when the text is not JSON.

use serde_json::Value;

/// A payload that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("{origin}: cannot read: {message}")]
    Io { origin: String, message: String },
    /// `line` and `column` are 1-based; the column counts characters, as editors do.
    #[error("{origin}:{line}:{column}: invalid JSON: {message}")]
    Json {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// One payload read from a source, or why that part of the source is unusable.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The 1-based line for a JSON Lines record, `None` for a whole-file payload.
    pub line: Option<usize>,
    pub value: Result<Value, PayloadError>,
}

/// Parses a whole-file payload.
pub fn parse(text: &str, origin: &str) -> Result<Value, PayloadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|err| json_error(&err, text, origin, 0))
}

/// Parses JSON Lines: every non-blank line is one payload. A line that is not JSON is an error
/// for that line only, so one bad record does not hide the verdicts of the others.
pub fn parse_lines(text: &str, origin: &str) -> Vec<Parsed> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let value = serde_json::from_str(line).map_err(|err| json_error(&err, line, origin, i));
            Parsed {
                line: Some(i + 1),
                value,
            }
        })
        .collect()
}

/// `line_offset` is the number of lines before `text` in the file (JSON Lines records are parsed
/// one by one, so serde_json counts from the record).
fn json_error(
    err: &serde_json::Error,
    text: &str,
    origin: &str,
    line_offset: usize,
) -> PayloadError {
    let line = err.line().max(1);
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = err.to_string();
    PayloadError::Json {
        origin: origin.to_owned(),
        line: line + line_offset,
        column: char_column(text, line, err.column()),
        message: message.strip_suffix(&suffix).unwrap_or(&message).to_owned(),
    }
}

/// serde_json counts bytes and reports 0 at the start of a line.
fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let line_text = text.split('\n').nth(line - 1).unwrap_or("");
    line_text
        .char_indices()
        .take_while(|(index, _)| *index < byte_column)
        .count()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_file_errors_carry_line_and_column() {
        let err = parse(
            "{\n  \"op\": {\n    \"action\": \"create\",\n  }\n}",
            "p.json",
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "p.json:4:3: invalid JSON: trailing comma");
        // serde_json points at the `}` as byte 11; `é` takes two bytes but one column.
        let err = parse("{\"é\": tru}", "q.json").unwrap_err();
        assert!(
            err.to_string().starts_with("q.json:1:10: invalid JSON"),
            "{err}"
        );
    }

    #[test]
    fn json_lines_report_each_line() {
        let text = "{\"a\": 1}\n\n{\"a\": \n{\"a\": 3}\r\n";
        let parsed = parse_lines(text, "p.jsonl");
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[0].line, Some(1));
        assert_eq!(parsed[0].value, Ok(json!({"a": 1})));
        assert_eq!(parsed[1].line, Some(3));
        let err = parsed[1].value.clone().unwrap_err();
        assert!(err.to_string().starts_with("p.jsonl:3:"), "{err}");
        assert_eq!(parsed[2].line, Some(4));
        assert_eq!(parsed[2].value, Ok(json!({"a": 3})));
    }

    #[test]
    fn byte_order_mark_is_ignored() {
        assert_eq!(parse("\u{feff}[1]", "x"), Ok(json!([1])));
    }
}
