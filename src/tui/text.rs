//! Schema text is untrusted: a name or description can carry escape sequences that would drive
//! the user's terminal, or bidi controls that make text read differently than it is. Everything
//! taken from a document goes through [`escape`] before it reaches a widget.

use std::borrow::Cow;
use std::fmt::Write;

/// Characters shown as escapes: C0/C1 controls and DEL (terminal escape sequences), and the
/// invisible format characters that reorder or hide text (bidi overrides, zero-width joiners).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` with every control or format character written as a visible escape (`\n`, `\u{1b}`).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text (error messages) as escaped lines: newlines stay line breaks, everything
/// else that could drive the terminal is escaped.
pub fn escape_lines(text: &str) -> Vec<String> {
    text.lines().map(|l| escape(l).into_owned()).collect()
}

/// [`escape`]d and cut to `max` characters with an ellipsis, for one-line cells.
pub fn clip(text: &str, max: usize) -> String {
    let escaped = escape(text);
    match escaped.char_indices().nth(max) {
        Some((cut, _)) if max > 0 => format!("{}…", &escaped[..cut]),
        _ => escaped.into_owned(),
    }
}

/// A JSON value on one line, escaped and clipped (enum members, `const`, defaults).
pub fn json_inline(value: &serde_json::Value, max: usize) -> String {
    clip(&value.to_string(), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(escape("plain"), "plain");
        assert_eq!(escape("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(escape("x\ny\tz"), "x\\ny\\tz");
        assert_eq!(escape("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("\u{7f}"), "\\u{7f}");
    }

    #[test]
    fn clip_cuts_after_escaping() {
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("ab", 3), "ab");
        assert_eq!(clip("\u{1b}", 3), "\\u{…");
    }
}
