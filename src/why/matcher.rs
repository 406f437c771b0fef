//! Finding catalogue patterns in pasted text.
//!
//! A pattern is the provider's wording with `{placeholders}` for the parts that vary. Literal
//! parts must appear as written; each placeholder is read by a scanner that knows its syntax
//! (a Python tuple, a JSON path, a proto path, digits …), so a property named `, '` inside a
//! tuple cannot end the capture early. Pasted text is rarely the bare message: it comes inside
//! a JSON error body (quotes escaped), a Python `repr` in a traceback, an HTTP log. Matching
//! runs over several readings of the text — as pasted, with escapes undone, and every string
//! found in an embedded JSON document — so the message is found in whichever reading shows it
//! plainly.

use std::collections::BTreeMap;

use serde_json::Value;

/// One way of reading the pasted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Haystack {
    pub text: String,
}

/// Upper bound on the text examined: a pasted log can be long, a message never is.
const MAX_TEXT: usize = 256 * 1024;
/// Strings collected from embedded JSON documents, at most.
const MAX_STRINGS: usize = 2000;

/// The readings of `raw` that matching runs over, most literal first, without duplicates.
pub fn haystacks(raw: &str) -> Vec<Haystack> {
    let raw = truncate(raw, MAX_TEXT);
    let mut texts = vec![normalize(raw)];
    texts.push(normalize(&unescape(raw)));
    let mut strings = Vec::new();
    for doc in embedded_json(raw) {
        collect_strings(&doc, &mut strings);
    }
    texts.extend(strings.iter().map(|s| normalize(s)));
    let mut out: Vec<Haystack> = Vec::new();
    for text in texts {
        if !text.trim().is_empty() && !out.iter().any(|h| h.text == text) {
            out.push(Haystack { text });
        }
    }
    out
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Line ends unified, tabs and runs of spaces collapsed: providers' messages are matched word
/// for word, not by their spacing.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        match c {
            '\r' => {}
            ' ' | '\t' => {
                if !space {
                    out.push(' ');
                }
                space = true;
                continue;
            }
            c => out.push(c),
        }
        space = false;
    }
    out
}

/// Undoes the escapes JSON and Python `repr` put into a message: `\"`, `\'`, `\\`, `\n`, `\t`,
/// `\uXXXX`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => {}
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Every JSON object or array embedded in `text` (an error body after an HTTP status line, a
/// log prefix, a second body further down).
fn embedded_json(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find(['{', '[']) {
        let start = from + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) if value.is_object() || value.is_array() => {
                from = start + stream.byte_offset().max(1);
                out.push(value);
            }
            _ => from = start + 1,
        }
    }
    out
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    if out.len() >= MAX_STRINGS {
        return;
    }
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// How a placeholder's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scanner {
    /// Up to the next literal part (or the end of the line, for a last placeholder).
    Lazy,
    /// Like `Lazy`, but without quotes: a name the message quotes.
    Name,
    /// A keyword or JSON kind: letters, digits, `_`, `$`, `-`.
    Word,
    Digits,
    /// A Python tuple literal `(...)`, quotes and nesting respected.
    PyTuple,
    /// A Python set literal `{...}`.
    PySet,
    /// `$` followed by `.name`, `[0]` and `['name']` steps.
    JsonPath,
    /// A run of path characters: letters, digits, `_`, `.`, `[`, `]`, `$`, `-`.
    PathChars,
}

fn scanner(name: &str) -> Scanner {
    match name {
        "index" | "toolset" | "item" => Scanner::Digits,
        "context" => Scanner::PyTuple,
        "set" => Scanner::PySet,
        "jsonpath" => Scanner::JsonPath,
        "proto" | "gopath" | "loc" => Scanner::PathChars,
        "keyword" | "kind" => Scanner::Word,
        "tool" | "name" | "gotype" => Scanner::Name,
        _ => Scanner::Lazy,
    }
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '$' | '-')
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part<'p> {
    Literal(&'p str),
    Capture(&'p str),
}

fn parts(pattern: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let name = &rest[open + 1..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            // Not a placeholder (`{1,128}` in a regex the provider quotes): literal text.
            out.push(Part::Literal(&rest[..close + 1]));
            rest = &rest[close + 1..];
            continue;
        }
        if open > 0 {
            out.push(Part::Literal(&rest[..open]));
        }
        out.push(Part::Capture(name));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Part::Literal(rest));
    }
    // Adjacent literals (from a non-placeholder brace) are one literal.
    let mut merged: Vec<Part<'_>> = Vec::new();
    for part in out {
        match (merged.last_mut(), part) {
            (Some(Part::Literal(prev)), Part::Literal(next)) => {
                let start = prev.as_ptr() as usize - pattern.as_ptr() as usize;
                let end = next.as_ptr() as usize - pattern.as_ptr() as usize + next.len();
                *prev = &pattern[start..end];
            }
            (_, part) => merged.push(part),
        }
    }
    merged
}

/// The placeholders a pattern names, in order.
pub fn placeholders(pattern: &str) -> Vec<&str> {
    parts(pattern)
        .into_iter()
        .filter_map(|p| match p {
            Part::Capture(name) => Some(name),
            Part::Literal(_) => None,
        })
        .collect()
}

/// How much fixed text a pattern has: of two rows matching the same text, the one with more
/// is the more specific reading.
pub fn literal_len(pattern: &str) -> usize {
    parts(pattern)
        .into_iter()
        .map(|p| match p {
            Part::Literal(text) => text.len(),
            Part::Capture(_) => 0,
        })
        .sum()
}

/// The words of a pattern's literal parts, for ranking near misses.
pub fn literal_words(pattern: &str) -> Vec<String> {
    parts(pattern)
        .into_iter()
        .filter_map(|p| match p {
            Part::Literal(text) => Some(words(text)),
            Part::Capture(_) => None,
        })
        .flatten()
        .collect()
}

/// How alike two texts read: the Dice coefficient of their character bigrams (lower-cased,
/// spacing ignored), 0 to 1.
pub fn similarity(a: &str, b: &str) -> f64 {
    fn bigrams(s: &str) -> Vec<(char, char)> {
        let chars: Vec<char> = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        let mut out: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
        out.sort_unstable();
        out
    }
    let (x, y) = (bigrams(a), bigrams(b));
    if x.is_empty() || y.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f64 / (x.len() + y.len()) as f64
}

/// Lower-cased words of three letters or more.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// One occurrence of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// Byte range in the haystack.
    pub start: usize,
    pub end: usize,
    pub captures: BTreeMap<String, String>,
}

/// Every non-overlapping occurrence of `pattern` in `hay`, left to right.
pub fn find_all(pattern: &str, hay: &str) -> Vec<Match> {
    let parts = parts(pattern);
    let mut out = Vec::new();
    let Some(anchor) = parts.iter().position(|p| matches!(p, Part::Literal(_))) else {
        return find_bare_captures(&parts, hay);
    };
    let Part::Literal(first) = parts[anchor] else {
        unreachable!("anchor is a literal")
    };
    let mut from = 0;
    while let Some(offset) = hay[from..].find(first) {
        let at = from + offset;
        match match_at(&parts, anchor, hay, at) {
            Some(m) => {
                from = m.end.max(at + 1);
                out.push(m);
            }
            None => from = at + first.len().max(1),
        }
        while !hay.is_char_boundary(from) {
            from += 1;
        }
        if from >= hay.len() {
            break;
        }
    }
    out
}

/// A pattern that is one placeholder (the location sniffers): every place its scanner can
/// start.
fn find_bare_captures(parts: &[Part<'_>], hay: &str) -> Vec<Match> {
    let [Part::Capture(name)] = parts else {
        return Vec::new();
    };
    let scan = scanner(name);
    let starts: Vec<usize> = match scan {
        Scanner::JsonPath => hay.match_indices("$.").map(|(i, _)| i).collect(),
        Scanner::PyTuple => hay.match_indices('(').map(|(i, _)| i).collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    let mut last_end = 0;
    for start in starts {
        if start < last_end {
            continue;
        }
        if let Some(end) = scan_forward(scan, hay, start, None) {
            last_end = end;
            out.push(Match {
                start,
                end,
                captures: BTreeMap::from([((*name).to_owned(), hay[start..end].to_owned())]),
            });
        }
    }
    out
}

/// Matches `parts` with the literal `parts[anchor]` found at byte `at`.
fn match_at(parts: &[Part<'_>], anchor: usize, hay: &str, at: usize) -> Option<Match> {
    let mut captures = BTreeMap::new();
    let mut start = at;
    // Placeholders before the first literal: only path-like ones, read backwards.
    for part in parts[..anchor].iter().rev() {
        let Part::Capture(name) = part else {
            return None;
        };
        if scanner(name) != Scanner::PathChars {
            return None;
        }
        let begin = hay[..start]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_path_char(*c))
            .last()
            .map(|(i, _)| i)?;
        captures.insert((*name).to_owned(), hay[begin..start].to_owned());
        start = begin;
    }
    let mut pos = at;
    let mut i = anchor;
    while i < parts.len() {
        match parts[i] {
            Part::Literal(text) => {
                if !hay[pos..].starts_with(text) {
                    return None;
                }
                pos += text.len();
            }
            Part::Capture(name) => {
                let next = match parts.get(i + 1) {
                    Some(Part::Literal(text)) => Some(*text),
                    _ => None,
                };
                let end = scan_forward(scanner(name), hay, pos, next)?;
                let mut value = hay[pos..end].to_owned();
                if scanner(name) == Scanner::PathChars {
                    // A sentence's full stop is not part of a path.
                    while value.ends_with('.') && next.is_none_or(|n| !n.starts_with('.')) {
                        value.pop();
                    }
                }
                if value.is_empty() {
                    return None;
                }
                let end = pos + value.len();
                captures.insert(name.to_owned(), value);
                pos = end;
            }
        }
        i += 1;
    }
    Some(Match {
        start,
        end: pos,
        captures,
    })
}

/// Where a placeholder starting at `pos` ends; `next` is the literal that follows it.
fn scan_forward(scan: Scanner, hay: &str, pos: usize, next: Option<&str>) -> Option<usize> {
    let rest = &hay[pos..];
    let end = match scan {
        Scanner::Lazy | Scanner::Name => {
            let end = match next {
                Some(lit) => {
                    let line_end = rest.find('\n').unwrap_or(rest.len());
                    let found = rest.find(lit)?;
                    // A placeholder stays within its line: messages do not span lines.
                    (found <= line_end).then_some(found)?
                }
                None => rest.find('\n').unwrap_or(rest.len()),
            };
            if scan == Scanner::Name && rest[..end].contains(['\'', '"']) {
                return None;
            }
            end
        }
        Scanner::Word => rest
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '-')))
            .map_or(rest.len(), |(i, _)| i),
        Scanner::Digits => rest
            .char_indices()
            .find(|(_, c)| !c.is_ascii_digit())
            .map_or(rest.len(), |(i, _)| i),
        Scanner::PathChars => rest
            .char_indices()
            .find(|(_, c)| !is_path_char(*c))
            .map_or(rest.len(), |(i, _)| i),
        Scanner::PyTuple => balanced(rest, '(', ')')?,
        Scanner::PySet => balanced(rest, '{', '}')?,
        Scanner::JsonPath => json_path_len(rest)?,
    };
    let end = match (scan, next) {
        // A greedy scanner must still leave the next literal where it stops.
        (Scanner::PathChars | Scanner::Digits | Scanner::Word, Some(lit)) => {
            if rest[end..].starts_with(lit) {
                end
            } else {
                // The literal may start with path characters (`.required[`): take the last
                // place inside the run where it fits.
                rest[..end].rfind(lit).filter(|i| *i > 0)?
            }
        }
        _ => end,
    };
    Some(pos + end)
}

/// Length of a bracketed literal starting at `s[0] == open`, quotes respected.
fn balanced(s: &str, open: char, close: char) -> Option<usize> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != open {
        return None;
    }
    let mut depth = 1;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in chars {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '\n' => return None,
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}

/// Length of a JSON path (`$.a.b[0]['c d']`) at the start of `s`.
fn json_path_len(s: &str) -> Option<usize> {
    if !s.starts_with('$') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut i = 1;
    loop {
        match bytes.get(i) {
            Some(b'.') => {
                let len = s[i + 1..]
                    .char_indices()
                    .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '-')))
                    .map_or(s.len() - i - 1, |(j, _)| j);
                if len == 0 {
                    break;
                }
                i += 1 + len;
            }
            Some(b'[') => {
                let close = match bytes.get(i + 1) {
                    Some(b'\'') | Some(b'"') => {
                        let quote = bytes[i + 1] as char;
                        let body = &s[i + 2..];
                        let mut escaped = false;
                        let mut end = None;
                        for (j, c) in body.char_indices() {
                            if escaped {
                                escaped = false;
                            } else if c == '\\' {
                                escaped = true;
                            } else if c == quote {
                                end = Some(i + 2 + j + 1);
                                break;
                            }
                        }
                        end.filter(|e| bytes.get(*e) == Some(&b']'))?
                    }
                    _ => i + s[i..].find(']')?,
                };
                i = close + 1;
            }
            _ => break,
        }
    }
    (i > 1).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(pattern: &str, hay: &str) -> BTreeMap<String, String> {
        let found = find_all(pattern, hay);
        assert_eq!(found.len(), 1, "{pattern:?} in {hay:?}: {found:?}");
        found.into_iter().next().unwrap().captures
    }

    #[test]
    fn tuple_capture_survives_commas_and_quotes_in_names() {
        let c = one(
            "In context={context}, '{keyword}' is not permitted.",
            "x In context=('properties', \"it's, '\"), 'oneOf' is not permitted. y",
        );
        assert_eq!(c["context"], "('properties', \"it's, '\")");
        assert_eq!(c["keyword"], "oneOf");
    }

    #[test]
    fn path_captures_stop_at_sentence_ends_and_leave_literals() {
        let c = one(
            "Found at {jsonpath}.",
            "Invalid JSON schema: regex lookaround is not supported. Found at $.properties.fileKey.pattern.",
        );
        assert_eq!(c["jsonpath"], "$.properties.fileKey.pattern");
        let c = one(
            "{proto}: property is not defined",
            "* GenerateContentRequest.tools[0].function_declarations[1].parameters.required[0]: property is not defined",
        );
        assert_eq!(
            c["proto"],
            "GenerateContentRequest.tools[0].function_declarations[1].parameters.required[0]"
        );
        let c = one(
            "function_declarations[{index}].{proto}'",
            "'tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]': x",
        );
        assert_eq!(c["index"], "5");
        assert_eq!(c["proto"], "parameters.properties[8].value.any_of[0]");
    }

    #[test]
    fn braces_that_name_no_placeholder_are_literal() {
        assert_eq!(
            placeholders("tools.{index}.custom.name: String should match pattern '^[a-z]{1,128}$'"),
            vec!["index"]
        );
        let c = one(
            "tools.{index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
            "tools.3.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        );
        assert_eq!(c["index"], "3");
    }

    #[test]
    fn readings_undo_json_and_python_escapes() {
        let body = r#"HTTP/1.1 400 Bad Request
{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name \"const\" at 'tools[0]': Cannot find field.", "status": "INVALID_ARGUMENT"}}"#;
        let hays = haystacks(body);
        assert!(hays.iter().any(|h| {
            h.text
                .starts_with("Invalid JSON payload received. Unknown name \"const\"")
        }));
        let repr = r#"openai.BadRequestError: Error code: 400 - {'error': {'message': 'In context=(\'properties\', \'op\'), ...'}}"#;
        assert!(
            haystacks(repr)
                .iter()
                .any(|h| h.text.contains("In context=('properties', 'op')"))
        );
    }

    #[test]
    fn lazy_capture_at_the_end_stops_at_the_line_end() {
        let c = one(
            "(TYPE_STRING), {detail}",
            "Invalid value at 'x.enum[1]' (TYPE_STRING), 2\nnext line",
        );
        assert_eq!(c["detail"], "2");
    }

    #[test]
    fn bare_sniffers_find_paths_anywhere() {
        let found = find_all("{jsonpath}", "oops at $.properties.a['b c'][0] and more");
        assert_eq!(found[0].captures["jsonpath"], "$.properties.a['b c'][0]");
    }
}
