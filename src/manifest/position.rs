//! Where each value of a JSON text sits: line and column for a JSON pointer, so that findings
//! about a manifest can point into the file (SARIF regions, editor jumps).
//!
//! serde_json keeps no positions, so the text is scanned once more, after it parsed: the scan
//! can trust the syntax and only has to follow it.

use std::collections::HashMap;

use crate::pointer;

/// A place in the text: 1-based line, 1-based column in Unicode code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Where one value is: the value itself, and its member name when it is an object member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: Position,
    /// Just past the value's last character.
    pub end: Position,
    /// The quoted member name (start, just past its closing quote).
    pub key: Option<(Position, Position)>,
}

impl Span {
    /// What an editor should highlight: the member name when there is one, else the value's
    /// first character (a whole object would cover the rest of the file).
    pub fn head(&self) -> (Position, Position) {
        self.key.unwrap_or((
            self.start,
            Position {
                line: self.start.line,
                column: self.start.column + 1,
            },
        ))
    }
}

/// Every value of a JSON text by pointer.
#[derive(Debug, Default)]
pub struct TextIndex {
    spans: HashMap<String, Span>,
}

impl TextIndex {
    /// Indexes `text`, which must be valid JSON (what does not parse is indexed as far as it
    /// goes).
    pub fn new(text: &str) -> TextIndex {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut scan = Scan {
            chars: text.char_indices().peekable(),
            text,
            line: 1,
            column: 1,
            spans: HashMap::new(),
        };
        scan.value(String::new(), None, 0);
        TextIndex { spans: scan.spans }
    }

    /// The span of the value at `at` (RFC 6901).
    pub fn span(&self, at: &str) -> Option<Span> {
        self.spans.get(at).copied()
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// Nesting the scan follows; serde_json refuses deeper documents anyway.
const MAX_DEPTH: usize = 512;

struct Scan<'t> {
    chars: std::iter::Peekable<std::str::CharIndices<'t>>,
    text: &'t str,
    line: usize,
    column: usize,
    spans: HashMap<String, Span>,
}

impl Scan<'_> {
    fn here(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn bump(&mut self) -> Option<(usize, char)> {
        let next = self.chars.next()?;
        if next.1 == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(next)
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|(_, c)| *c)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn value(&mut self, at: String, key: Option<(Position, Position)>, depth: usize) {
        self.skip_space();
        let start = self.here();
        match self.peek() {
            Some('{') if depth < MAX_DEPTH => self.object(&at, depth),
            Some('[') if depth < MAX_DEPTH => self.array(&at, depth),
            Some('"') => {
                self.string();
            }
            Some(_) => {
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, ',' | '}' | ']') && !c.is_whitespace())
                {
                    self.bump();
                }
            }
            None => return,
        }
        let end = self.here();
        self.spans.insert(at, Span { start, end, key });
    }

    fn object(&mut self, at: &str, depth: usize) {
        self.bump();
        loop {
            self.skip_space();
            match self.peek() {
                Some('}') => {
                    self.bump();
                    return;
                }
                Some(',') => {
                    self.bump();
                }
                Some('"') => {
                    let key_start = self.here();
                    let name = self.string();
                    let key_end = self.here();
                    self.skip_space();
                    if self.peek() == Some(':') {
                        self.bump();
                    }
                    let child = pointer::push(at, &name);
                    self.value(child, Some((key_start, key_end)), depth + 1);
                }
                _ => return,
            }
        }
    }

    fn array(&mut self, at: &str, depth: usize) {
        self.bump();
        let mut index = 0;
        loop {
            self.skip_space();
            match self.peek() {
                Some(']') => {
                    self.bump();
                    return;
                }
                Some(',') => {
                    self.bump();
                }
                Some(_) => {
                    self.value(pointer::push_index(at, index), None, depth + 1);
                    index += 1;
                }
                None => return,
            }
        }
    }

    /// Reads a string literal and returns its decoded value.
    fn string(&mut self) -> String {
        let Some((begin, _)) = self.bump() else {
            return String::new();
        };
        let mut escaped = false;
        let mut end = begin + 1;
        while let Some((i, c)) = self.bump() {
            end = i + c.len_utf8();
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                break;
            }
        }
        serde_json::from_str(&self.text[begin..end]).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn members_elements_and_escaped_names() {
        let text = "{\n  \"tools\": [\n    {\"na/me\": \"é\\\"x\", \"n\": 12}\n  ]\n}\n";
        let index = TextIndex::new(text);
        let tools = index.span("/tools").unwrap();
        assert_eq!(tools.key, Some((pos(2, 3), pos(2, 10))));
        assert_eq!(tools.start, pos(2, 12));
        let element = index.span("/tools/0").unwrap();
        assert_eq!((element.start, element.key), (pos(3, 5), None));
        let name = index.span("/tools/0/na~1me").unwrap();
        assert_eq!(name.key, Some((pos(3, 6), pos(3, 13))));
        assert_eq!((name.start, name.end), (pos(3, 15), pos(3, 21)));
        let n = index.span("/tools/0/n").unwrap();
        assert_eq!((n.start, n.end), (pos(3, 28), pos(3, 30)));
        assert_eq!(index.span("").unwrap().start, pos(1, 1));
        assert!(index.span("/nope").is_none());
    }
}
