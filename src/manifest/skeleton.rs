//! Parsing a manifest with its tools' parameter schemas left as text, for `project`: a parsed
//! `Value` (with `preserve_order`) is five to ten times its text, so a manifest of many tools
//! is held as text until each schema is parsed by the thread that projects it, and dropped
//! after.
//!
//! Every object found under a member name where some format keeps a parameter schema (see
//! [`SCHEMA_KEYS`], no deeper than any format keeps one) is *deferred*: the document gets an
//! empty object in its place, and its text is kept by pointer. The deferred text is still run
//! through the parser (without building anything), so a document `serde_json` rejects fails
//! here with the same error at the same line and column, and a deferred text, parsed on its
//! own later, gives exactly the value the whole document would have had there.
//!
//! The format readers only look at a parameter schema's kind (object or not), which the empty
//! object keeps; a deferred object that turns out not to be a tool's schema (a property named
//! `parameters` in a bare schema, say) is parsed back into the document before anything reads
//! it (see [`Skeleton::fill_in`]).

use std::cell::RefCell;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::pointer;

/// Member names under which the formats keep a tool's parameter schema: MCP, Anthropic,
/// OpenAI and Gemini (both spellings of its JSON Schema key).
const SCHEMA_KEYS: [&str; 5] = [
    "inputSchema",
    "input_schema",
    "parameters",
    "parametersJsonSchema",
    "parameters_json_schema",
];

/// The deepest place a format keeps a parameter schema: Gemini's
/// `/tools/N/functionDeclarations/M/parameters`.
const SCHEMA_DEPTH: usize = 5;

/// A parsed document whose deferred objects are still text.
#[derive(Debug)]
pub(super) struct Skeleton {
    /// The document, with an empty object in place of each deferred one.
    pub document: Value,
    /// Each deferred object's pointer and text, in document order.
    pub deferred: Vec<(String, Box<str>)>,
}

/// Parses `text` as `serde_json::from_str::<Value>` would, deferring the objects that may be
/// parameter schemas; fails exactly where and how it would.
pub(super) fn parse(text: &str) -> serde_json::Result<Skeleton> {
    let deferred = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let document = Level {
        text,
        depth: 0,
        pointer: String::new(),
        deferred: &deferred,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(Skeleton {
        document,
        deferred: deferred.into_inner(),
    })
}

/// The value of a deferred object's text; the text was checked when the document was parsed,
/// and on its own it nests less deeply than it did there, so it parses.
pub(super) fn parse_deferred(text: &str) -> Value {
    serde_json::from_str(text).expect("deferred text was checked with its document")
}

impl Skeleton {
    /// Parses every deferred object back into the document, which is then what
    /// `serde_json::from_str` gives.
    pub fn fill_in(&mut self) {
        for (at, text) in std::mem::take(&mut self.deferred) {
            let slot = self
                .document
                .pointer_mut(&at)
                .expect("each deferred object has its place in the document");
            *slot = parse_deferred(&text);
        }
    }
}

/// A value of the document down to [`SCHEMA_DEPTH`]: built like `Value`, with the members that
/// may be parameter schemas deferred.
struct Level<'de, 'd> {
    text: &'de str,
    /// Of this value: the number of tokens in its pointer.
    depth: usize,
    pointer: String,
    deferred: &'d RefCell<Vec<(String, Box<str>)>>,
}

impl<'de> Level<'de, '_> {
    /// What reads a child at `pointer`: another level while members below it may be schemas,
    /// plain `Value` below that.
    fn child(&self, pointer: impl FnOnce() -> String) -> Child<'de, '_> {
        match self.depth + 1 < SCHEMA_DEPTH {
            true => Child::Level(Level {
                text: self.text,
                depth: self.depth + 1,
                pointer: pointer(),
                deferred: self.deferred,
            }),
            false => Child::Plain,
        }
    }

    /// Where the value of a member whose key ends at `key_end` starts: after the closing
    /// quote, the colon and any white space, at its `{` (the value is an object).
    fn object_after_key(&self, key_end: usize) -> usize {
        let rest = &self.text.as_bytes()[key_end..];
        key_end + rest.iter().position(|b| *b == b'{').unwrap_or(rest.len())
    }

    /// Forgets what was deferred under `at`: a repeated key replaces the earlier value, as
    /// `Value`'s maps do.
    fn forget_deferred_within(&self, at: &str) {
        self.deferred
            .borrow_mut()
            .retain(|(p, _)| !pointer::is_within(p, at));
    }
}

enum Child<'de, 'd> {
    Level(Level<'de, 'd>),
    Plain,
}

impl<'de> DeserializeSeed<'de> for Child<'de, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match self {
            Child::Level(level) => level.deserialize(deserializer),
            Child::Plain => Value::deserialize(deserializer),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Level<'de, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level<'de, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let index = items.len();
            let child = self.child(|| pointer::push_index(&self.pointer, index));
            match seq.next_element_seed(child)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let at = || pointer::push(&self.pointer, key.text());
            if members.contains_key(key.text()) {
                self.forget_deferred_within(&at());
            }
            let deferrable = SCHEMA_KEYS.contains(&key.text()) && self.depth < SCHEMA_DEPTH;
            let value = match (deferrable, key.end_in(self.text)) {
                (true, Some(key_end)) => match map.next_value_seed(Deferrable)? {
                    Some(value) => value,
                    None => {
                        let start = self.object_after_key(key_end);
                        let end = object_end(self.text.as_bytes(), start);
                        self.deferred
                            .borrow_mut()
                            .push((at(), self.text[start..end].into()));
                        Value::Object(Map::new())
                    }
                },
                _ => map.next_value_seed(self.child(at))?,
            };
            members.insert(key.into_string(), value);
        }
        Ok(Value::Object(members))
    }
}

/// One past the `}` that closes the object starting at `start`, in text the parser accepted.
fn object_end(text: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < text.len() {
        match (in_string, text[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// A member name, borrowed from the text when it has no escapes (its place is then known).
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn text(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }

    /// Where the name ends in `text` (its closing quote), when it is borrowed from it.
    fn end_in(&self, text: &str) -> Option<usize> {
        let Key::Borrowed(key) = self else {
            return None;
        };
        let offset = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        let end = offset + key.len();
        (end < text.len() && text.as_bytes()[end] == b'"').then_some(end)
    }

    fn into_string(self) -> String {
        match self {
            Key::Borrowed(s) => s.to_owned(),
            Key::Owned(s) => s,
        }
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v))
    }
}

/// A member that may be a parameter schema: an object is checked and left as text (`None`),
/// anything else is built as `Value` builds it.
struct Deferrable;

impl<'de> DeserializeSeed<'de> for Deferrable {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Deferrable {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Some(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_key::<Checked>()?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(None)
    }
}

/// Any JSON value, read through every check the parser makes when it builds a `Value` (string
/// escapes, number range, nesting depth), building nothing. (`IgnoredAny` would skip it with
/// fewer checks.)
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Checked, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_none<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_key::<Checked>()?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skeleton, its deferred objects parsed in, is the document `serde_json` parses.
    fn same_document(text: &str) -> Vec<String> {
        let mut skeleton = parse(text).expect("parses");
        let deferred = skeleton.deferred.iter().map(|(at, _)| at.clone()).collect();
        skeleton.fill_in();
        let expected: Value = serde_json::from_str(text).expect("parses");
        assert_eq!(skeleton.document, expected);
        // Key order too.
        assert_eq!(
            serde_json::to_string(&skeleton.document).expect("writes"),
            serde_json::to_string(&expected).expect("writes")
        );
        deferred
    }

    #[test]
    fn schema_objects_are_deferred_down_to_the_deepest_format() {
        let text = r#"{"tools": [
            {"name": "a", "inputSchema": {"type": "object", "properties": {"parameters": {}}}},
            {"functionDeclarations": [{"name": "g", "parameters": {"type": "OBJECT"}}]},
            {"function": {"parameters" : {"a": [1, {"b": "}"}]}}, "input_schema": {}},
            {"x": {"y": {"z": {"parameters": {"too": "deep"}}}}}
        ], "parameters": {"top": true}}"#;
        assert_eq!(
            same_document(text),
            [
                "/tools/0/inputSchema",
                "/tools/1/functionDeclarations/0/parameters",
                "/tools/2/function/parameters",
                "/tools/2/input_schema",
                "/parameters",
            ]
        );
    }

    #[test]
    fn only_objects_with_plain_names_are_deferred() {
        // Not objects, or a name with an escape (its place in the text is not known): parsed.
        let text = r#"{"tools": [{"inputSchema": true}, {"inputSchema": null},
            {"inputSchema": [{"a": 1}]}, {"input\u0053chema": {"type": "object"}},
            {"parameters": "text"}, {"parameters": 1.5}]}"#;
        assert!(same_document(text).is_empty());
    }

    #[test]
    fn a_repeated_name_keeps_the_last_value() {
        let deferred = same_document(
            r#"{"tools": [{"inputSchema": {"a": 1}, "inputSchema": {"b": 2}},
                {"inputSchema": {"a": 1}, "inputSchema": false},
                {"parameters": null, "parameters": {"c": 3}}],
              "tools": [{"inputSchema": {"d": 4}}, {"inputSchema": {"e": 5}}]}"#,
        );
        assert_eq!(deferred, ["/tools/0/inputSchema", "/tools/1/inputSchema"]);
        let skeleton =
            parse(r#"{"inputSchema": {"a": 1}, "inputSchema": {"b": 2}}"#).expect("parses");
        assert_eq!(skeleton.deferred.len(), 1);
        assert_eq!(&*skeleton.deferred[0].1, r#"{"b": 2}"#);
    }

    #[test]
    fn white_space_and_escapes_around_deferred_text() {
        let text =
            "{\"tools\":[{\"inputSchema\"\n :\t{\"d\": \"\\\\\\\"}{\", \"e\": [\"\\u00e9\"]}\n}]}";
        same_document(text);
        let skeleton = parse(text).expect("parses");
        assert_eq!(
            &*skeleton.deferred[0].1,
            "{\"d\": \"\\\\\\\"}{\", \"e\": [\"\\u00e9\"]}"
        );
    }

    /// Errors inside deferred text are the parser's own, at the same place: the checks a plain
    /// skip would not make (number range, escapes, nesting) included.
    #[test]
    fn errors_are_the_parsers_own() {
        let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
        let cases = [
            r#"{"tools": [{"inputSchema": {"a": 1,}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": 1e400}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": "\ud800"}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": "\q"}}]}"#.to_owned(),
            "{\"tools\": [{\"inputSchema\": {\"a\": \"\u{1}\"}}]}".to_owned(),
            r#"{"tools": [{"inputSchema": {"a" 1}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {1: 1}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": 01}}]}"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": 1}}]} x"#.to_owned(),
            r#"{"tools": [{"inputSchema": {"a": 1}"#.to_owned(),
            format!(r#"{{"tools": [{{"inputSchema": {{"a": {deep}}}}}]}}"#),
        ];
        for text in &cases {
            let expected = serde_json::from_str::<Value>(text).expect_err(text);
            let got = parse(text).expect_err(text);
            assert_eq!(got.to_string(), expected.to_string(), "{text}");
        }
    }
}
