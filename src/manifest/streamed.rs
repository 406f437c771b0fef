//! Writing the document back while the projections are being made: each tool's schema is asked
//! for when the writer reaches its place and dropped once written, so that a manifest of many
//! tools never holds all of its projections, nor the projected document, at once.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::formats::empty_parameters;
use super::skeleton::{self, Skeleton};
use super::writeback::insertion_point;
use super::{Manifest, ManifestError, ManifestFormat, Tool, source};
use crate::pointer;
use crate::projection::WrittenSchema;

/// A manifest taken apart for [`Writeback::write_pretty`]: its tools, and its document without
/// their parameter schemas (each tool has its own, so the document does not hold them a second
/// time).
#[derive(Debug)]
pub struct Writeback {
    pub origin: String,
    pub format: ManifestFormat,
    /// The tools; a schema the loader left as text (see `schema_texts`) is `null` here until
    /// [`Writeback::take_tools`] hands the tool over.
    pub tools: Vec<Tool>,
    /// Per tool, its parameter schema's JSON text, when it is not parsed yet.
    schema_texts: Vec<Option<Box<str>>>,
    document: Value,
    slots: Slot,
}

/// A tool taken from a [`Writeback`], its parameter schema possibly still JSON text, so that
/// it is parsed by the thread that projects it (and dropped after) rather than all schemas
/// being parsed, and held, at once.
#[derive(Debug)]
pub struct PendingTool {
    tool: Tool,
    schema_text: Option<Box<str>>,
}

impl PendingTool {
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool, its schema parsed.
    pub fn into_tool(self) -> Tool {
        let mut tool = self.tool;
        if let Some(text) = self.schema_text {
            tool.schema = Arc::new(skeleton::parse_deferred(&text));
        }
        tool
    }
}

impl From<Tool> for PendingTool {
    fn from(tool: Tool) -> PendingTool {
        PendingTool {
            tool,
            schema_text: None,
        }
    }
}

/// Where projected schemas go, as a trie of the document's pointer tokens.
#[derive(Debug, Default)]
struct Slot {
    fill: Option<Fill>,
    children: BTreeMap<String, Slot>,
}

#[derive(Debug, Clone, Copy)]
enum Fill {
    /// The schema at this place is the tool's.
    Replace(usize),
    /// The tool declared no schema: this object gets one under `key` (see
    /// [`Manifest::with_schemas`]).
    Insert { tool: usize, key: &'static str },
}

/// Why [`Writeback::write_pretty`] stopped.
#[derive(Debug)]
pub enum WritebackError<E> {
    /// The schema of a tool could not be made; nothing after it was asked for.
    Fill(E),
    Io(std::io::Error),
}

impl Manifest {
    /// Takes the manifest apart to write every tool's schema back as it is made.
    pub fn into_writeback(self) -> Writeback {
        let Manifest {
            origin,
            format,
            document,
            tools,
        } = self;
        // The tools have their own copies (a bare schema's tool shares the document, which
        // is then copied here: this is for callers that load once and write back once).
        let mut document = Arc::unwrap_or_clone(document);
        let (slots, _) = take_schemas(&mut document, format, &tools);
        Writeback {
            origin,
            format,
            schema_texts: vec![None; tools.len()],
            tools,
            document,
            slots,
        }
    }
}

impl Writeback {
    /// Reads a manifest file (`-`: standard input) for writing back: each tool's schema is moved
    /// out of the document rather than copied, so the input is held once.
    pub fn load_path(
        path: &Path,
        format: Option<ManifestFormat>,
    ) -> Result<Writeback, ManifestError> {
        let (origin, text) = source::read_path(path)?;
        Writeback::load_str(text, &origin, format)
    }

    /// [`Writeback::load_path`] from any reader.
    pub fn load_reader(
        reader: impl Read,
        origin: &str,
        format: Option<ManifestFormat>,
    ) -> Result<Writeback, ManifestError> {
        let text = source::read_all(reader, origin)?;
        Writeback::load_str(text, origin, format)
    }

    /// Every tool's schema left as text by the parse stays so (see [`skeleton`]); the rest
    /// are moved out of the document.
    fn load_str(
        text: String,
        origin: &str,
        format: Option<ManifestFormat>,
    ) -> Result<Writeback, ManifestError> {
        let mut skeleton = source::parse_skeleton(&text, origin)?;
        drop(text);
        let (format, mut tools) = read_skeleton(&mut skeleton, origin, format)?;
        let (slots, taken) = take_schemas(&mut skeleton.document, format, &tools);
        for (index, schema) in taken {
            tools[index].schema = Arc::new(schema);
        }
        let mut schema_texts = vec![None; tools.len()];
        let mut texts: HashMap<String, Box<str>> = skeleton.deferred.into_iter().collect();
        for (tool, text) in tools.iter_mut().zip(&mut schema_texts) {
            if let Some(deferred) = tool.schema_pointer.as_ref().and_then(|p| texts.remove(p)) {
                // What was moved out is the empty object standing in for it.
                tool.schema = Default::default();
                *text = Some(deferred);
            }
        }
        Ok(Writeback {
            origin: origin.to_owned(),
            format,
            tools,
            schema_texts,
            document: skeleton.document,
            slots,
        })
    }

    /// The tools at `order` (indices into [`Writeback::tools`]), in that order, for
    /// projection; the others are dropped with their schemas.
    pub fn take_tools(&mut self, order: &[usize]) -> Vec<PendingTool> {
        let mut tools: Vec<Option<PendingTool>> = std::mem::take(&mut self.tools)
            .into_iter()
            .zip(std::mem::take(&mut self.schema_texts))
            .map(|(tool, schema_text)| Some(PendingTool { tool, schema_text }))
            .collect();
        order
            .iter()
            .filter_map(|i| tools.get_mut(*i).and_then(Option::take))
            .collect()
    }
}

/// The format and tools of a parsed skeleton. The readers look at a parameter schema's kind
/// only, which its stand-in keeps; when anything else was left as text, or reading fails (its
/// message might name a stand-in), it is all parsed in and read again, as from the whole
/// document.
fn read_skeleton(
    skeleton: &mut Skeleton,
    origin: &str,
    format: Option<ManifestFormat>,
) -> Result<(ManifestFormat, Vec<Tool>), ManifestError> {
    if let Ok((format, tools)) = super::read(&skeleton.document, origin, format) {
        let schemas: HashSet<&str> = tools
            .iter()
            .filter_map(|t| t.schema_pointer.as_deref())
            .collect();
        if skeleton
            .deferred
            .iter()
            .all(|(at, _)| schemas.contains(at.as_str()))
        {
            return Ok((format, tools));
        }
    }
    skeleton.fill_in();
    super::read(&skeleton.document, origin, format)
}

/// The places of `tools`' schemas in `document`, and the schemas there, taken out (by tool
/// index; `null` is left in their place).
fn take_schemas(
    document: &mut Value,
    format: ManifestFormat,
    tools: &[Tool],
) -> (Slot, Vec<(usize, Value)>) {
    let mut slots = Slot::default();
    let mut taken = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        let (at, fill) = match &tool.schema_pointer {
            Some(at) => (at.clone(), Fill::Replace(index)),
            None => match insertion_point(document, format, tool) {
                Some((holder, key)) => (holder, Fill::Insert { tool: index, key }),
                None => continue,
            },
        };
        if let Fill::Replace(_) = fill
            && let Some(schema) = document.pointer_mut(&at)
        {
            taken.push((index, std::mem::take(schema)));
        }
        slots.place(&at, fill);
    }
    (slots, taken)
}

impl Slot {
    fn place(&mut self, at: &str, fill: Fill) {
        let mut slot = self;
        for token in pointer::tokens(at).unwrap_or_default() {
            slot = slot.children.entry(token).or_default();
        }
        slot.fill = Some(fill);
    }
}

impl Writeback {
    /// Sets the `strict` flag of the tool entry at `tool_pointer` before the document is
    /// written (see [`super::write_strict`]).
    pub fn write_strict(&mut self, tool_pointer: &str, strict: bool) {
        super::write_strict(&mut self.document, tool_pointer, strict);
    }

    /// The selected tools in the order [`Writeback::write_pretty`] asks for their schemas (the
    /// document's order).
    pub fn order(&self) -> Vec<usize> {
        let mut order = Vec::new();
        visit(&self.document, &self.slots, &mut |fill| {
            order.push(match fill {
                Fill::Replace(tool) | Fill::Insert { tool, .. } => tool,
            })
        });
        order
    }

    /// Writes what `serde_json::to_writer_pretty` writes for [`Manifest::with_schemas`] of the
    /// selected tools, asking `fill` for each tool's schema (by index, in [`Writeback::order`])
    /// when the writer reaches its place.
    pub fn write_pretty<W: Write, T: FilledSchema, E>(
        &self,
        out: W,
        fill: impl FnMut(usize) -> Result<T, E>,
    ) -> Result<(), WritebackError<E>> {
        let filler = RefCell::new(Filler { fill, failed: None });
        let root = Spliced {
            value: &self.document,
            slot: &self.slots,
            filler: &filler,
        };
        let written = serde_json::to_writer_pretty(out, &root);
        match (written, filler.into_inner().failed) {
            (_, Some(e)) => Err(WritebackError::Fill(e)),
            (Err(e), None) => Err(WritebackError::Io(e.into())),
            (Ok(()), None) => Ok(()),
        }
    }
}

/// The places to fill, in the order the writer reaches them.
fn visit(value: &Value, slot: &Slot, f: &mut impl FnMut(Fill)) {
    if let Some(fill) = slot.fill {
        f(fill);
        if let Fill::Replace(_) = fill {
            return;
        }
    }
    if slot.children.is_empty() {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if let Some(inner) = slot.children.get(key) {
                    visit(child, inner, f);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(inner) = slot.children.get(&i.to_string()) {
                    visit(item, inner, f);
                }
            }
        }
        _ => {}
    }
}

struct Filler<F, E> {
    fill: F,
    /// Set when `fill` failed; serialization is then stopped with a stand-in error.
    failed: Option<E>,
}

/// A tool's schema as [`Writeback::write_pretty`] takes it: a value, or a projection written
/// as it is held (see [`WrittenSchema`]).
pub trait FilledSchema: Serialize {
    /// Whether it is the stand-in a format's reader puts for a tool without parameters.
    fn is_empty_parameters(&self) -> bool;
}

impl FilledSchema for Value {
    fn is_empty_parameters(&self) -> bool {
        *self == empty_parameters()
    }
}

impl FilledSchema for WrittenSchema {
    fn is_empty_parameters(&self) -> bool {
        self.equals(&empty_parameters())
    }
}

impl<F: FnMut(usize) -> Result<T, E>, T, E> Filler<F, E> {
    fn take(&mut self, tool: usize) -> Option<T> {
        match (self.fill)(tool) {
            Ok(schema) => Some(schema),
            Err(e) => {
                self.failed = Some(e);
                None
            }
        }
    }
}

/// A document node serialized as `serde_json::Value` serializes it, with the slots below it
/// filled.
struct Spliced<'a, F, E> {
    value: &'a Value,
    slot: &'a Slot,
    filler: &'a RefCell<Filler<F, E>>,
}

impl<F: FnMut(usize) -> Result<T, E>, T: FilledSchema, E> Spliced<'_, F, E> {
    fn fill<Er: serde::ser::Error>(&self, tool: usize) -> Result<T, Er> {
        self.filler
            .borrow_mut()
            .take(tool)
            .ok_or_else(|| Er::custom("the schema of a tool could not be made"))
    }

    fn child<'b>(&'b self, value: &'b Value, slot: &'b Slot) -> Spliced<'b, F, E> {
        Spliced {
            value,
            slot,
            filler: self.filler,
        }
    }

    fn serialize_object<S: Serializer>(
        &self,
        serializer: S,
        inserted: Option<(&str, T)>,
    ) -> Result<S::Ok, S::Error> {
        let Value::Object(entries) = self.value else {
            return self.value.serialize(serializer);
        };
        // An existing key keeps its place (as `Map::insert` does); a new one goes last.
        let appended = inserted
            .as_ref()
            .is_some_and(|(key, _)| !entries.contains_key(*key));
        let mut map = serializer.serialize_map(Some(entries.len() + usize::from(appended)))?;
        for (key, value) in entries {
            match (&inserted, self.slot.children.get(key)) {
                (Some((k, schema)), _) if k == key => map.serialize_entry(key, schema)?,
                (_, Some(inner)) => map.serialize_entry(key, &self.child(value, inner))?,
                (_, None) => map.serialize_entry(key, value)?,
            }
        }
        if let (true, Some((key, schema))) = (appended, &inserted) {
            map.serialize_entry(key, schema)?;
        }
        map.end()
    }

    fn serialize_array<S: Serializer>(
        &self,
        serializer: S,
        items: &[Value],
    ) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(items.len()))?;
        for (i, item) in items.iter().enumerate() {
            match self.slot.children.get(&i.to_string()) {
                Some(inner) => seq.serialize_element(&self.child(item, inner))?,
                None => seq.serialize_element(item)?,
            }
        }
        seq.end()
    }
}

impl<F: FnMut(usize) -> Result<T, E>, T: FilledSchema, E> Serialize for Spliced<'_, F, E> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.slot.fill {
            // Made, written and dropped here: only this tool's projection is held.
            Some(Fill::Replace(tool)) => self.fill(tool)?.serialize(serializer),
            Some(Fill::Insert { tool, key }) => {
                let schema = self.fill(tool)?;
                // Replacing a missing schema by the stand-in leaves the document as it was.
                let inserted = (!schema.is_empty_parameters()).then_some((key, schema));
                self.serialize_object(serializer, inserted)
            }
            None if self.slot.children.is_empty() => self.value.serialize(serializer),
            None => match self.value {
                Value::Object(_) => self.serialize_object(serializer, None),
                Value::Array(items) => self.serialize_array(serializer, items),
                other => other.serialize(serializer),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::load_str;

    /// What the streamed writer writes is what the document written back at once gives.
    fn same_as_with_schemas(text: &str, schema_for: impl Fn(&Tool) -> Value) {
        let manifest = load_str(text, "test.json", None).expect("loads");
        let selected: Vec<usize> = (0..manifest.tools.len()).collect();
        let replacements: Vec<(usize, Value)> = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (i, schema_for(t)))
            .collect();
        let expected =
            serde_json::to_string_pretty(&manifest.with_schemas(&replacements)).expect("writes");
        let mut writeback =
            Writeback::load_reader(text.as_bytes(), "test.json", None).expect("loads");
        assert_eq!(
            writeback.document,
            manifest.clone().into_writeback().document
        );
        assert_eq!(writeback.order(), selected);
        let tools: Vec<Tool> = writeback
            .take_tools(&selected)
            .into_iter()
            .map(PendingTool::into_tool)
            .collect();
        assert_eq!(
            tools, manifest.tools,
            "parsed or moved out as the manifest copies them"
        );
        let mut asked = Vec::new();
        let mut out = Vec::new();
        writeback
            .write_pretty(&mut out, |i| {
                asked.push(i);
                Ok::<_, ()>(schema_for(&tools[i]))
            })
            .expect("writes");
        assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
        assert_eq!(asked, selected);
    }

    fn closed(tool: &Tool) -> Value {
        let mut schema = Value::clone(&tool.schema);
        if let Value::Object(map) = &mut schema {
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
        schema
    }

    #[test]
    fn mcp_tools_are_replaced_in_place() {
        let text = r#"{"tools": [
            {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}, "annotations": {}},
            {"name": "b/c~d", "description": "", "inputSchema": {"type": "object"}},
            {"name": "e", "inputSchema": {"type": "object", "properties": {}}}
        ], "nextCursor": "n"}"#;
        same_as_with_schemas(text, closed);
        same_as_with_schemas(text, |t| Value::clone(&t.schema));
    }

    #[test]
    fn a_bare_schema_is_replaced_whole() {
        same_as_with_schemas(r#"{"type": "object", "title": "T"}"#, closed);
        // Properties named like a tool's schema are left as text by the parse, then parsed in.
        same_as_with_schemas(
            r#"{"type": "object", "properties": {"parameters": {"type": "object",
                "properties": {"inputSchema": {"type": "string"}}}, "input_schema": true}}"#,
            closed,
        );
    }

    #[test]
    fn tool_schemas_stay_text_until_taken() {
        let text = r#"{"tools": [
            {"name": "a", "inputSchema": {"type": "object", "properties": {"p": {"enum": ["}", "\"{"]}}}},
            {"name": "b", "inputSchema": true}
        ]}"#;
        let writeback = Writeback::load_reader(text.as_bytes(), "t", None).expect("loads");
        assert_eq!(*writeback.tools[0].schema, Value::Null);
        assert_eq!(
            writeback.schema_texts[0].as_deref(),
            Some(r#"{"type": "object", "properties": {"p": {"enum": ["}", "\"{"]}}}"#)
        );
        assert_eq!(*writeback.tools[1].schema, Value::Bool(true));
        assert_eq!(writeback.schema_texts[1], None);
    }

    #[test]
    fn objects_named_like_schemas_elsewhere_are_parsed_in() {
        // An annotation and an output schema property under schema names, both within the depth
        // where the parse leaves such objects as text: they are written back as they were.
        let text = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "a", "annotations": {"parameters": {"x": 1}},
             "inputSchema": {"type": "object"},
             "outputSchema": {"type": "object", "properties": {"parameters": {"type": "array"}}}}
        ]}}"#;
        same_as_with_schemas(text, closed);
        same_as_with_schemas(text, |t| Value::clone(&t.schema));
    }

    #[test]
    fn tools_without_parameters_get_a_schema_only_when_it_differs() {
        // OpenAI: Chat Completions (inside `function`) and Responses forms, with and without
        // parameters; the stand-in schema is left out, a changed one is added last.
        let text = r#"[
            {"type": "function", "function": {"name": "a", "description": "d"}},
            {"type": "function", "name": "b", "strict": false},
            {"type": "function", "function": {"name": "c", "parameters": {"type": "object"}}}
        ]"#;
        same_as_with_schemas(text, closed);
        same_as_with_schemas(text, |t| Value::clone(&t.schema));
    }

    #[test]
    fn gemini_declarations_get_theirs_under_the_json_schema_key() {
        let text = r#"{"tools": [{"functionDeclarations": [
            {"name": "a", "description": "d"},
            {"name": "b", "parameters": {"type": "OBJECT", "properties": {}}}
        ]}]}"#;
        same_as_with_schemas(text, closed);
    }

    #[test]
    fn the_document_does_not_hold_the_replaced_schemas() {
        let text =
            r#"{"tools": [{"name": "a", "inputSchema": {"type": "object", "title": "big"}}]}"#;
        let writeback = load_str(text, "t", None).expect("loads").into_writeback();
        assert_eq!(
            writeback.document.pointer("/tools/0/inputSchema"),
            Some(&Value::Null)
        );
        assert_eq!(writeback.tools[0].schema["title"], "big");
    }

    #[test]
    fn a_failing_tool_stops_the_writer_and_nothing_after_it_is_asked_for() {
        let text = r#"{"tools": [
            {"name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {"type": "object"}},
            {"name": "c", "inputSchema": {"type": "object"}}
        ]}"#;
        let writeback = load_str(text, "t", None).expect("loads").into_writeback();
        let mut asked = Vec::new();
        let result = writeback.write_pretty(Vec::new(), |i| {
            asked.push(i);
            if i == 1 {
                Err("b fails")
            } else {
                Ok(Value::Bool(true))
            }
        });
        assert!(matches!(result, Err(WritebackError::Fill("b fails"))));
        assert_eq!(asked, vec![0, 1]);
    }
}
