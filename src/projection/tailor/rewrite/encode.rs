//! The steps that make a provider accept what it has no words for, each exact: the tailored
//! schema describes another *form* of the same values, and an [`Adapter`] moves payloads between
//! the two forms (`unadapt(adapt(p)) == p`).
//!
//! - a value that may be anything (`{}`, a recursion cut, Pydantic `Any`) is carried as its JSON
//!   text, in a string — or in `{"json": text}` where a sibling alternative takes strings, so
//!   that a plain string is never read as JSON;
//! - a map (an object with arbitrary keys) is carried as a list of `{key, value}` entries;
//! - non-string enum values (Gemini) are carried as strings;
//! - a root that cannot be one object is carried as the one property of an object.
//!
//! And two rewrites that need no adapter: `const` without `type` gets its value's type, and a
//! tuple's positions become one `items` schema that accepts each of them.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{
    ANNOTATIONS, ARRAY_KEYWORDS, NUMBER_KEYWORDS, OBJECT_KEYWORDS, STRING_KEYWORDS, Walk,
    in_place_keys, kind_keywords, type_names,
};
use crate::pointer;
use crate::projection::Rule;
use crate::projection::tailor::{
    Adapter, ENTRY_KEY, ENTRY_VALUE, EnumText, Renamed, Step, Tailoring,
};

/// The property that carries JSON text beside a sibling alternative that takes strings.
pub(super) const JSON_KEY: &str = "json";

/// What a JSON-text carrier's description says after the value's own.
pub(super) const JSON_TEXT_NOTE: &str = "Sent as JSON text: any JSON value, encoded in a string.";

/// The property a wrapped root is sent under.
pub(in crate::projection::tailor) const WRAP_PROPERTY: &str = "arguments";

/// Where a node sits, as far as encodings care: only a value's own schema (a property, an item,
/// an alternative, a definition) can be replaced by another form of the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    Value,
    Other,
}

impl Position {
    /// The position of the subschemas under `keyword`.
    pub(super) fn under(keyword: &str) -> Position {
        match keyword {
            // `additionalProperties` beside properties is the object's business (closing it);
            // a map's value schema is placed by `map_entries`.
            "properties" | "patternProperties" | "items" | "prefixItems" | "anyOf" | "oneOf"
            | "$defs" | "definitions" => Position::Value,
            _ => Position::Other,
        }
    }
}

/// The JSON Schema type of a value.
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether every value of type `t` is of one of the types `parent` (an integer is a number).
fn type_within(t: &str, parent: &[String]) -> bool {
    parent
        .iter()
        .any(|p| p == t || (t == "integer" && p == "number"))
}

/// The types whose values are of one of `a`'s and one of `b`'s types, in `a`'s order.
fn common_types(a: &[&str], b: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in a {
        let common = if type_within(t, b) {
            Some(*t)
        } else if *t == "number" && b.iter().any(|p| p == "integer") {
            Some("integer")
        } else {
            None
        };
        if let Some(c) = common
            && !out.iter().any(|o| o == c)
        {
            out.push(c.to_owned());
        }
    }
    out
}

/// Whether an alternative may take a value of `kind` ("string", "array", …) itself: an
/// encoding of another value in that kind beside it (JSON text, a map's entries) is ambiguous.
pub(super) fn may_take(schema: &Value, kind: &str) -> bool {
    let Some(m) = schema.as_object() else {
        return schema != &Value::Bool(false);
    };
    if let Some(Value::Array(values)) = m.get("enum") {
        return values.iter().any(|v| kind_of(v) == kind);
    }
    if let Some(c) = m.get("const") {
        return kind_of(c) == kind;
    }
    let types = type_names(m);
    if !types.is_empty() {
        return types.iter().any(|t| t.eq_ignore_ascii_case(kind));
    }
    match m.get("anyOf").or_else(|| m.get("oneOf")) {
        Some(Value::Array(alts)) => alts.iter().any(|a| may_take(a, kind)),
        _ => true,
    }
}

/// Whether an alternative may hold a value of `kind` ("array" or "string") anywhere in its
/// value (itself, or under a property, an item, an alternative, or a reference, which is not
/// followed): an encoding of another kind's value at the same place in a sibling (a map's
/// entries, an enum value's text) could be read back as that value.
pub(super) fn may_hold_kind(schema: &Value, kind: &str, depth: usize) -> bool {
    if depth > 64 || may_take(schema, kind) {
        return true;
    }
    let Some(m) = schema.as_object() else {
        return false;
    };
    if m.contains_key("$ref") {
        return true;
    }
    // An open object holds anything under the keys it does not list, an array without
    // `items` anything in its items.
    let open_object = may_take(schema, "object")
        && matches!(
            m.get("additionalProperties"),
            None | Some(Value::Bool(true))
        );
    let open_array = may_take(schema, "array") && !m.contains_key("items");
    if open_object || open_array {
        return true;
    }
    let members = ["properties", "patternProperties", "$defs", "definitions"]
        .iter()
        .filter_map(|k| m.get(*k).and_then(Value::as_object))
        .flat_map(|o| o.values());
    let lists = ["anyOf", "oneOf", "allOf", "prefixItems"]
        .iter()
        .filter_map(|k| m.get(*k).and_then(Value::as_array))
        .flatten();
    let singles = ["additionalProperties", "items", "not", "if", "then", "else"]
        .iter()
        .filter_map(|k| m.get(*k));
    members
        .chain(lists)
        .chain(singles)
        .any(|s| may_hold_kind(s, kind, depth + 1))
}

/// Property names an alternative declares (a keyed carrier must not use one of them).
fn declared_names(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// `base`, or `base_2`, `base_3`, … : the first that is not `taken`.
pub(super) fn free_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    (1..)
        .map(|i| {
            if i == 1 {
                base.to_owned()
            } else {
                format!("{base}_{i}")
            }
        })
        .find(|k| !taken(k))
        .expect("some name is free")
}

/// For each alternative of a union: the key its JSON-text carrier needs, if it becomes one and a
/// sibling may take strings. The key is `json`, or `json_2`, … when a sibling declares it.
pub(super) fn carrier_keys(alternatives: &[Value]) -> Vec<Option<String>> {
    let taken: HashSet<String> = alternatives.iter().flat_map(declared_names).collect();
    let key = free_name(JSON_KEY, |k| taken.contains(k));
    // Counted once: asking each alternative about all its siblings is quadratic in a union
    // of thousands.
    let strings: Vec<bool> = alternatives.iter().map(|a| may_take(a, "string")).collect();
    let taking = strings.iter().filter(|s| **s).count();
    strings
        .iter()
        .map(|own| {
            let sibling_strings = taking > usize::from(*own);
            sibling_strings.then(|| key.clone())
        })
        .collect()
}

/// The one kind a kindless schema's keywords speak about (`minLength` and `format` speak about
/// strings, `properties` about objects, …), when there is exactly one: those keywords ignore
/// every other kind.
pub(super) fn kind_family(m: &Map<String, Value>) -> Option<&'static str> {
    let families: [(&'static str, &[&str]); 4] = [
        ("string", STRING_KEYWORDS),
        ("number", NUMBER_KEYWORDS),
        ("array", ARRAY_KEYWORDS),
        ("object", OBJECT_KEYWORDS),
    ];
    let mut found = families
        .iter()
        .filter(|(_, keys)| m.keys().any(|k| keys.contains(&k.as_str())))
        .map(|(kind, _)| *kind);
    match (found.next(), found.next()) {
        (Some(kind), None) => Some(kind),
        _ => None,
    }
}

impl Walk<'_> {
    // -----------------------------------------------------------------------------------------
    // Rewrites without an adapter

    /// `const` without `type`: the type of its value (the same values: `const` pins one).
    pub(super) fn const_type(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        if m.contains_key("type") {
            return;
        }
        let Some(value) = m.get("const") else { return };
        let ty = kind_of(value);
        super::insert_before(m, "const", "type", json!(ty));
        self.record(
            Rule::TailorTypeAdded,
            out,
            from,
            Tailoring::TypeFromValue {
                profile: self.profile,
                keyword: "const".into(),
                ty: ty.into(),
            },
        );
    }

    /// `type` beside an `anyOf` whose alternatives have none: copied into them (exact), so
    /// that each alternative says its kind as the provider wants, and none of them is mistaken
    /// for a value that may be anything.
    pub(super) fn distribute_type(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        // Each step below reads a union's alternatives (most nodes have none).
        let union = ["anyOf", "oneOf"]
            .iter()
            .any(|k| m.get(*k).is_some_and(Value::is_array));
        let Some(ty) = m.get("type").filter(|_| union).cloned() else {
            return;
        };
        let mut done = Vec::new();
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(alts)) = m.get_mut(key) else {
                continue;
            };
            for (i, alt) in alts.iter_mut().enumerate() {
                if let Value::Object(a) = alt
                    && !["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
                        .iter()
                        .any(|k| a.contains_key(*k))
                {
                    let mut typed = Map::new();
                    typed.insert("type".into(), ty.clone());
                    typed.extend(std::mem::take(a));
                    *a = typed;
                    done.push(i);
                }
            }
        }
        if !done.is_empty() {
            self.record(
                Rule::TailorTypeAdded,
                out,
                from,
                Tailoring::TypeDistributed {
                    profile: self.profile,
                    ty: ty.clone(),
                    alternatives: done,
                },
            );
        }
        self.narrow_alternatives(m, &ty, from, out);
        self.drop_implied_type(m, ty, from, out);
    }

    /// `type` beside a union whose typed alternatives name types outside it: each such
    /// alternative narrowed to the types both allow (exact: the parent's type applies to the
    /// same value, `T and (A or B)` is `(T and A) or (T and B)`), so that the parent's type
    /// is then implied by the union. An alternative that shares no type with the parent is
    /// left as it is (the type then stays).
    fn narrow_alternatives(
        &mut self,
        m: &mut Map<String, Value>,
        ty: &Value,
        from: &str,
        out: &str,
    ) {
        let parent: Vec<String> = type_names(m).into_iter().map(str::to_owned).collect();
        let mut narrowed = Vec::new();
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(alts)) = m.get_mut(key) else {
                continue;
            };
            for (i, alt) in alts.iter_mut().enumerate() {
                let Some(a) = alt.as_object_mut() else {
                    continue;
                };
                let own = type_names(a);
                if own.is_empty() || own.iter().all(|t| type_within(t, &parent)) {
                    continue;
                }
                let both = common_types(&own, &parent);
                if both.is_empty() {
                    continue;
                }
                let both = match both.as_slice() {
                    [one] => json!(one),
                    many => json!(many),
                };
                a.insert("type".into(), both);
                narrowed.push(i);
            }
        }
        if !narrowed.is_empty() {
            self.record(
                Rule::TailorTypeAdded,
                out,
                from,
                Tailoring::TypeNarrowed {
                    profile: self.profile,
                    ty: ty.clone(),
                    alternatives: narrowed,
                },
            );
        }
    }

    /// `type` beside a union whose every alternative names types among it says nothing the
    /// union does not (`null or string or object` beside `string | object` is the union): it
    /// goes, and the alternatives become the value's own forms, each tailored as one (a
    /// free-form object alternative can then be carried as entries or JSON text).
    fn drop_implied_type(&mut self, m: &mut Map<String, Value>, ty: Value, from: &str, out: &str) {
        let parent = type_names(m)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        let unions: Vec<&str> = ["anyOf", "oneOf"]
            .into_iter()
            .filter(|k| m.contains_key(*k))
            .collect();
        let [union] = unions.as_slice() else {
            return;
        };
        let Some(Value::Array(alts)) = m.get(*union) else {
            return;
        };
        let within = |alt: &Value| {
            alt.as_object().is_some_and(|a| {
                let names = type_names(a);
                !names.is_empty() && names.iter().all(|n| type_within(n, &parent))
            })
        };
        // Keywords of one kind beside the union judge the value too: the type stays with them.
        let kind_keywords_beside = m.keys().any(|k| super::is_kind_specific(k));
        if parent.is_empty() || kind_keywords_beside || !alts.iter().all(within) {
            return;
        }
        m.shift_remove("type");
        self.record(
            Rule::TailorTypeAdded,
            out,
            from,
            Tailoring::TypeImplied {
                profile: self.profile,
                ty,
            },
        );
    }

    /// A tuple (`prefixItems`, or draft-07 `items: [...]`): one `items` schema that accepts every
    /// position (an `anyOf` of the distinct position schemas, plus what the rest may hold), and
    /// `maxItems` at the tuple's length when nothing may follow. Accepts every array the tuple
    /// accepts; it forgets which position takes which schema.
    /// `bare`: also give an array without `items` an item schema.
    pub(super) fn tuple_items(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        bare: bool,
    ) {
        let (positions, rest_key) = match (m.get("prefixItems"), m.get("items")) {
            (Some(Value::Array(p)), _) => (p.clone(), "items"),
            (None, Some(Value::Array(p))) => (p.clone(), "additionalItems"),
            // An array that says nothing about its items takes any: `items: {}` says the same
            // in the form the provider needs (and the JSON-text step can then carry each item).
            (None, None) if bare && type_names(m).contains(&"array") => (Vec::new(), "items"),
            _ => return,
        };
        let rest = match m.get(rest_key) {
            None | Some(Value::Bool(true)) => Some(json!({})),
            Some(Value::Bool(false)) => None,
            Some(other) if rest_key == "items" && other.is_array() => Some(json!({})),
            Some(other) => Some(other.clone()),
        };
        let mut alternatives: Vec<Value> = Vec::new();
        for p in positions.iter().chain(rest.iter()) {
            let p = if p == &Value::Bool(true) {
                json!({})
            } else {
                p.clone()
            };
            if !alternatives.contains(&p) {
                alternatives.push(p);
            }
        }
        m.shift_remove("prefixItems");
        m.shift_remove("additionalItems");
        let items = match <[Value; 1]>::try_from(alternatives) {
            Ok([one]) => one,
            Err(many) if many.is_empty() => Value::Bool(false),
            Err(many) => json!({"anyOf": many}),
        };
        m.insert("items".into(), items);
        let closed = rest.is_none();
        if closed {
            let len = positions.len() as u64;
            let max = m
                .get("maxItems")
                .and_then(Value::as_u64)
                .map_or(len, |x| x.min(len));
            m.insert("maxItems".into(), json!(max));
        }
        self.record(
            Rule::TailorTupleItems,
            out,
            from,
            Tailoring::TupleItems {
                profile: self.profile,
                positions: positions.len(),
                closed,
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Maps

    /// Whether this node is a map the profile sends as entries: an object whose keys are not
    /// listed (no `properties`, or none and an open or typed `additionalProperties`, or
    /// `patternProperties`) that is a value's form, or the whole parameters (wrapped
    /// afterwards); never a schema that only adds constraints to its parent's value.
    pub(super) fn sent_as_entries(
        &self,
        m: &Map<String, Value>,
        out: &str,
        position: Position,
    ) -> bool {
        let own_form = position == Position::Value || out.is_empty();
        !self.shared && own_form && self.is_map(m, position == Position::Value)
    }

    /// A map ([`Walk::sent_as_entries`]) as a list of key/value entries. Takes the map: its
    /// value schemas are moved into the entries, not copied (maps nest, in OpenAPI documents
    /// several deep, and a copy per level made tailoring quadratic in their depth).
    pub(super) fn map_entries(
        &mut self,
        mut m: Map<String, Value>,
        from: &str,
        out: &str,
    ) -> Value {
        let nullable = type_names(&m).contains(&"null") || m.get("nullable") == Some(&json!(true));
        // What one value may be: a matching pattern's schema or the rest's.
        let mut sources: Vec<(Value, String)> = Vec::new();
        let patterns = m.contains_key("patternProperties");
        if let Some(Value::Object(patterns)) = m.remove("patternProperties") {
            let base = pointer::push(from, "patternProperties");
            for (p, s) in patterns {
                sources.push((s, pointer::push(&base, &p)));
            }
        }
        match m.remove("additionalProperties") {
            Some(Value::Bool(false)) => {}
            None | Some(Value::Bool(true)) => sources.push((json!({}), from.to_owned())),
            Some(s) => sources.push((s, pointer::push(from, "additionalProperties"))),
        }
        let entry_at = pointer::push(out, "items");
        let props_at = pointer::push(&entry_at, "properties");
        let value_at = pointer::push(&props_at, ENTRY_VALUE);
        let value = if sources.len() == 1 {
            let (schema, source) = sources.pop().expect("one source");
            self.owned_child(schema, &source, &value_at, None)
        } else {
            let (schemas, places): (Vec<Value>, Vec<String>) = sources.into_iter().unzip();
            let keys = carrier_keys(&schemas);
            let any_of_at = pointer::push(&value_at, "anyOf");
            let alternatives: Vec<Value> = schemas
                .into_iter()
                .zip(places)
                .zip(keys)
                .enumerate()
                .map(|(i, ((s, source), key))| {
                    self.owned_child(s, &source, &pointer::push_index(&any_of_at, i), key)
                })
                .collect();
            self.links.insert(value_at.clone(), self.originals(from));
            json!({"anyOf": alternatives})
        };
        // A map of anything has no value schema of its own: its values were walked under the
        // map's own pointer, which must still lead to the map (the sound form finds the lossy
        // form's carriers by it).
        self.rename(from, out);
        let mut key = json!({"type": "string"});
        if let Some(Value::Object(names)) = m.get("propertyNames") {
            for k in ["pattern", "minLength", "maxLength", "format", "enum"] {
                if let Some(v) = names.get(k) {
                    key[k] = v.clone();
                }
            }
        }
        let key_at = pointer::push(&props_at, ENTRY_KEY);
        let key = self.owned_child(key, &pointer::push(from, "propertyNames"), &key_at, None);
        let mut entry = json!({
            "type": "object",
            "properties": {ENTRY_KEY: key, ENTRY_VALUE: value},
            "required": [ENTRY_KEY, ENTRY_VALUE],
        });
        if self.has(Step::CloseObjects) {
            entry["additionalProperties"] = json!(false);
        }
        for p in [&entry_at, &props_at] {
            self.links.insert(p.clone(), self.originals(from));
        }
        let mut array = Map::new();
        for k in ANNOTATIONS
            .iter()
            .filter(|k| **k == "title" || **k == "description")
        {
            if let Some(v) = m.get(*k) {
                array.insert((*k).into(), v.clone());
            }
        }
        let ty = self.maybe_nullable(&mut array, "array", nullable);
        insert_front(&mut array, "type", ty);
        array.insert("items".into(), entry);
        for (from_k, to_k) in [("minProperties", "minItems"), ("maxProperties", "maxItems")] {
            if let Some(v) = m.get(from_k) {
                array.insert(to_k.into(), v.clone());
            }
        }
        self.entries_bounds_tailored(&mut array, from, out);
        self.adapters.push(Adapter::Entries { at: out.to_owned() });
        self.record(
            Rule::TailorMapEntries,
            out,
            from,
            Tailoring::MapEntries {
                profile: self.profile,
                patterns,
            },
        );
        Value::Object(array)
    }

    /// The entries' array carries the map's count bounds, made after the keyword steps ran on
    /// the map: the profile judges them here as it judges any array's (Anthropic strict takes
    /// no `maxItems`, nor a `minItems` above 1).
    fn entries_bounds_tailored(&mut self, array: &mut Map<String, Value>, from: &str, out: &str) {
        for step in self.table {
            match *step {
                Step::DropListed { set } => self.drop_listed(array, set, from, out),
                Step::MinItemsAtMost { max } => self.min_items_at_most(array, max, from, out),
                Step::DropKeywords { rules } => self.drop_keywords(array, rules, from, out),
                _ => {}
            }
        }
    }

    /// An object schema that lists no keys a payload must use, so that a provider demanding
    /// `properties` (or refusing `additionalProperties`) cannot say what it holds. `nested`: a
    /// value's schema, where `properties: {}` left open is a map like any other (at the top it
    /// is how a tool says it takes no arguments).
    fn is_map(&self, m: &Map<String, Value>, nested: bool) -> bool {
        let types = type_names(m);
        let object_only =
            types.contains(&"object") && types.iter().all(|t| *t == "object" || *t == "null");
        if !object_only || in_place_keys().any(|k| m.contains_key(k)) {
            return false;
        }
        let open = match m.get("additionalProperties") {
            None | Some(Value::Bool(true)) => true,
            Some(Value::Bool(false)) => false,
            Some(_) => true,
        };
        match m.get("properties") {
            // `properties: {}` closed, or left open without saying more, is how a tool says it
            // takes no arguments; closing it says the same.
            Some(Value::Object(p)) if p.is_empty() => {
                (nested && open)
                    || m.get("patternProperties").is_some()
                    || matches!(m.get("additionalProperties"), Some(Value::Object(_)))
                    || m.get("additionalProperties") == Some(&Value::Bool(true))
            }
            Some(_) => false,
            None => open || m.get("patternProperties").is_some(),
        }
    }

    /// The `type` of a carrier of `kind` that also takes `null` when `nullable`, in the form the
    /// provider reads (a type list, or OpenAPI's `nullable` beside one type).
    fn maybe_nullable(
        &self,
        carrier: &mut Map<String, Value>,
        kind: &str,
        nullable: bool,
    ) -> Value {
        match (nullable, self.has(Step::TypeArrayToNullable)) {
            (false, _) => json!(kind),
            (true, false) => json!([kind, "null"]),
            (true, true) => {
                carrier.insert("nullable".into(), json!(true));
                json!(kind)
            }
        }
    }

    /// Tailors `schema` as a value found at `from` in the projection, placed at `out`.
    pub(super) fn child(
        &mut self,
        schema: &Value,
        from: &str,
        out: &str,
        carrier_key: Option<String>,
    ) -> Value {
        self.owned_child(schema.clone(), from, out, carrier_key)
    }

    /// [`Walk::child`] on a schema the caller hands over.
    pub(super) fn owned_child(
        &mut self,
        schema: Value,
        from: &str,
        out: &str,
        carrier_key: Option<String>,
    ) -> Value {
        self.position = Position::Value;
        self.carrier_key = carrier_key;
        self.node_owned(schema, from, out)
    }

    // -----------------------------------------------------------------------------------------
    // Anything, as JSON text

    /// Whether the profile carries this node as JSON text: it is a value's schema and names
    /// none of the keywords the provider takes in place of a `type`.
    pub(super) fn kindless(&self, m: &Map<String, Value>) -> bool {
        self.stand_ins()
            .is_some_and(|stand_ins| !stand_ins.iter().any(|k| m.contains_key(*k)))
    }

    pub(super) fn stand_ins(&self) -> Option<&'static [&'static str]> {
        self.table.iter().find_map(|s| match s {
            Step::EncodeAny { stand_ins } => Some(*stand_ins),
            _ => None,
        })
    }

    /// The JSON-text carrier in place of `m`, which the provider cannot describe.
    pub(super) fn json_text(
        &mut self,
        m: &Map<String, Value>,
        from: &str,
        out: &str,
        key: Option<String>,
    ) -> Value {
        // Whatever was tailored below is replaced by the carrier.
        self.purge_keys(out, m);
        let was: Vec<String> = m
            .keys()
            .filter(|k| !ANNOTATIONS.contains(&k.as_str()))
            .cloned()
            .collect();
        let note = JSON_TEXT_NOTE;
        let description = match m.get("description").and_then(Value::as_str) {
            Some(d) if d.trim_end().ends_with(['.', '!', '?']) => {
                format!("{} {note}", d.trim_end())
            }
            Some(d) if !d.trim().is_empty() => format!("{}. {note}", d.trim_end()),
            _ => note.to_owned(),
        };
        let mut carrier = Map::new();
        if let Some(t) = m.get("title") {
            carrier.insert("title".into(), t.clone());
        }
        // A `null` this schema took may stand for an absent property (an explicit one then goes
        // as a marker beside it): the carrier keeps taking it, as itself.
        let nullable = type_names(m).contains(&"null") || m.get("nullable") == Some(&json!(true));
        match &key {
            None => {
                let ty = self.maybe_nullable(&mut carrier, "string", nullable);
                carrier.insert("type".into(), ty);
                carrier.insert("description".into(), json!(description));
            }
            Some(k) => {
                let ty = self.maybe_nullable(&mut carrier, "object", nullable);
                carrier.insert("type".into(), ty);
                carrier.insert("description".into(), json!(description));
                carrier.insert(
                    "properties".into(),
                    json!({k.clone(): {"type": "string", "description": note}}),
                );
                carrier.insert("required".into(), json!([k]));
                if self.has(Step::CloseObjects) {
                    carrier.insert("additionalProperties".into(), json!(false));
                }
            }
        }
        self.adapters.push(Adapter::JsonText {
            at: out.to_owned(),
            key: key.clone(),
        });
        self.record(
            Rule::TailorJsonText,
            out,
            from,
            Tailoring::JsonText {
                profile: self.profile,
                key,
                constraints: was,
            },
        );
        Value::Object(carrier)
    }

    /// A kindless schema whose keywords speak about one kind: `anyOf` of that kind, with those
    /// keywords (tailored as usual), and JSON text for every other value — which the keywords
    /// never judged. The model sees the shape the schema's author meant first.
    pub(super) fn kind_split(
        &mut self,
        m: &Map<String, Value>,
        kind: &'static str,
        from: &str,
        out: &str,
        inherited: Option<String>,
    ) -> Value {
        let mut typed = Map::new();
        typed.insert("type".into(), json!(kind));
        let mut outer = Map::new();
        for (k, v) in m {
            if kind_keywords(kind).contains(&k.as_str()) {
                typed.insert(k.clone(), v.clone());
            } else {
                outer.insert(k.clone(), v.clone());
            }
        }
        let any_of = pointer::push(out, "anyOf");
        let native = self.child(
            &Value::Object(typed),
            from,
            &pointer::push_index(&any_of, 0),
            None,
        );
        // Strings beside a string alternative go in `{"json": …}` — this one's, or one of the
        // union this node is an alternative of.
        let key = if kind == "string" {
            inherited.or_else(|| Some(JSON_KEY.to_owned()))
        } else {
            inherited
        };
        self.links
            .insert(pointer::push_index(&any_of, 1), self.originals(from));
        let carrier = self.json_text(&Map::new(), from, &pointer::push_index(&any_of, 1), key);
        outer.insert("anyOf".into(), json!([native, carrier]));
        Value::Object(outer)
    }

    // -----------------------------------------------------------------------------------------
    // Enums

    /// Gemini: `enum` needs `type: string` and string values. A string enum without `type` gets
    /// it; non-string values are sent as their JSON text (`null` as a null alternative), unless
    /// that text is also one of the strings, or a union around the node has an alternative
    /// that may take that text as a string, in which case the enum is dropped (accepts more;
    /// what is left is typed, or sent as JSON text under its carrier's key).
    /// `Some` when the node was rewritten into an `anyOf` with a null alternative.
    pub(super) fn enum_text(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        beside_strings: bool,
    ) -> Option<Value> {
        let Some(Value::Array(values)) = m.get("enum").cloned() else {
            return None;
        };
        if values.iter().all(Value::is_string) {
            if !m.contains_key("type") {
                super::insert_before(m, "enum", "type", json!("string"));
                self.record(
                    Rule::TailorTypeAdded,
                    out,
                    from,
                    Tailoring::TypeFromValue {
                        profile: self.profile,
                        keyword: "enum".into(),
                        ty: "string".into(),
                    },
                );
            }
            return None;
        }
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        let null = values.contains(&Value::Null);
        let encoded: Vec<EnumText> = values
            .iter()
            .filter(|v| !v.is_string() && !v.is_null())
            .map(|v| EnumText {
                value: v.clone(),
                text: v.to_string(),
            })
            .collect();
        if encoded.iter().any(|e| strings.contains(&e.text.as_str()))
            || (beside_strings && !encoded.is_empty())
            || (encoded.is_empty() && strings.is_empty())
        {
            m.shift_remove("enum");
            self.record(
                Rule::TailorDropKeyword,
                out,
                from,
                Tailoring::KeywordsDropped {
                    profile: self.profile,
                    keywords: vec!["enum".into()],
                    dependent: Vec::new(),
                },
            );
            return None;
        }
        let texts: Vec<Value> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| match v {
                Value::String(s) => json!(s),
                other => json!(other.to_string()),
            })
            .collect();
        let mut inner = Map::new();
        inner.insert("type".into(), json!("string"));
        inner.insert("enum".into(), Value::Array(texts));
        let mut outer = Map::new();
        for (k, v) in m.iter() {
            let kind_specific = NUMBER_KEYWORDS.contains(&k.as_str())
                || ARRAY_KEYWORDS.contains(&k.as_str())
                || OBJECT_KEYWORDS.contains(&k.as_str());
            if !matches!(k.as_str(), "type" | "enum" | "nullable" | "format") && !kind_specific {
                outer.insert(k.clone(), v.clone());
            }
        }
        let at = if null {
            pointer::push_index(&pointer::push(out, "anyOf"), 0)
        } else {
            out.to_owned()
        };
        self.adapters.push(Adapter::EnumText {
            at: at.clone(),
            values: encoded.clone(),
        });
        self.record(
            Rule::TailorEnumText,
            out,
            from,
            Tailoring::EnumText {
                profile: self.profile,
                values: encoded,
                null,
            },
        );
        if null {
            self.links.insert(at, self.originals(from));
            self.links.insert(
                pointer::push_index(&pointer::push(out, "anyOf"), 1),
                self.originals(from),
            );
            outer.insert(
                "anyOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            return Some(Value::Object(outer));
        }
        for (k, v) in inner {
            outer.insert(k, v);
        }
        *m = outer;
        None
    }

    // -----------------------------------------------------------------------------------------
    // Property names

    /// Property names outside `[A-Za-z_][A-Za-z0-9_]*` (at most `max` characters) are sent
    /// under a name inside it: other characters become `_`, a leading digit gets a `_` before
    /// it, and a clash with another name gets `_2`, `_3`, … (exact with the `Rename` adapter).
    pub(super) fn rename_properties(
        &mut self,
        m: &mut Map<String, Value>,
        max: usize,
        from: &str,
        out: &str,
    ) {
        let Some(Value::Object(props)) = m.get("properties") else {
            return;
        };
        let fits = |n: &str| {
            !n.is_empty()
                && n.chars().count() <= max
                && n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if props.keys().all(|k| fits(k)) {
            return;
        }
        let mut taken: Vec<String> = props.keys().filter(|k| fits(k)).cloned().collect();
        let mut names = Vec::new();
        let mut renamed = Map::new();
        for (k, v) in props {
            if fits(k) {
                renamed.insert(k.clone(), v.clone());
                continue;
            }
            let mut base: String = k
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                base.insert(0, '_');
            }
            base = base.chars().take(max.saturating_sub(4)).collect();
            let sent = (1..)
                .map(|i| {
                    if i == 1 {
                        base.clone()
                    } else {
                        format!("{base}_{i}")
                    }
                })
                .find(|n| !taken.contains(n))
                .expect("some name is free");
            taken.push(sent.clone());
            renamed.insert(sent.clone(), v.clone());
            names.push(Renamed {
                name: k.clone(),
                sent_as: sent,
            });
        }
        let sent_as = |k: &str| {
            names
                .iter()
                .find(|r| r.name == k)
                .map_or(k.to_owned(), |r| r.sent_as.clone())
        };
        for list in ["required", "propertyOrdering"] {
            if let Some(Value::Array(items)) = m.get_mut(list) {
                for item in items.iter_mut() {
                    if let Value::String(k) = item {
                        *k = sent_as(k);
                    }
                }
            }
        }
        m.insert("properties".into(), Value::Object(renamed));
        self.renamed.insert(
            out.to_owned(),
            names
                .iter()
                .map(|r| (r.sent_as.clone(), r.name.clone()))
                .collect(),
        );
        self.adapters.push(Adapter::Rename {
            at: out.to_owned(),
            names: names.clone(),
        });
        self.record(
            Rule::TailorRenameProperties,
            out,
            from,
            Tailoring::Renamed {
                profile: self.profile,
                names,
            },
        );
    }

    /// Gemini: an object that can only be `{}` (no properties, closed) has no form the older
    /// API takes (`properties` must not be empty): it is sent as the JSON text `"{}"`, the one
    /// value of a string enum.
    pub(super) fn empty_object(
        &mut self,
        m: &Map<String, Value>,
        from: &str,
        out: &str,
        position: Position,
        carrier_key: Option<String>,
    ) -> Option<Value> {
        let types = type_names(m);
        let empty = types == ["object"]
            && m.get("additionalProperties") == Some(&Value::Bool(false))
            && m.get("properties")
                .is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
            && m.get("patternProperties").is_none()
            && !in_place_keys().any(|k| m.contains_key(k));
        if position != Position::Value || self.shared || !empty {
            return None;
        }
        // Beside a sibling that may hold a string here, the text goes under its key.
        let key = carrier_key.clone();
        let Value::Object(mut carrier) = self.json_text(m, from, out, carrier_key) else {
            unreachable!("a carrier is an object schema");
        };
        let text = match &key {
            None => Some(&mut carrier),
            Some(k) => carrier
                .get_mut("properties")
                .and_then(Value::as_object_mut)
                .and_then(|p| p.get_mut(k))
                .and_then(Value::as_object_mut),
        };
        if let Some(text) = text {
            text.insert("enum".into(), json!(["{}"]));
        }
        Some(Value::Object(carrier))
    }
}

/// `key: value` as the first entry of `m`.
pub(super) fn insert_front(m: &mut Map<String, Value>, key: &str, value: Value) {
    let rest = std::mem::take(m);
    m.insert(key.to_owned(), value);
    for (k, v) in rest {
        m.insert(k, v);
    }
}

/// Whether `root` (a tailored root, or a projection's that tailoring would leave as it is)
/// cannot be sent as one object.
pub(in crate::projection::tailor) fn root_needs_wrap(root: &Value) -> bool {
    let Some(m) = root.as_object() else {
        return true;
    };
    ["anyOf", "oneOf", "allOf", "enum", "not", "const"]
        .iter()
        .any(|k| m.contains_key(*k))
        || m.get("type") != Some(&json!("object"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An alternative's carrier needs a key only where another alternative takes strings: the
    /// one string alternative's own siblings take none, two take each other's; the key avoids
    /// a name the alternatives declare.
    #[test]
    fn a_carrier_gets_a_key_where_a_sibling_takes_strings() {
        let object = |name: &str| json!({"type": "object", "properties": {name: {}}});
        let one_string = [json!({"type": "string"}), object("json"), json!({})];
        // `{}` takes strings too: each of the others has a sibling that does.
        assert_eq!(
            carrier_keys(&one_string),
            vec![
                Some("json_2".into()),
                Some("json_2".into()),
                Some("json_2".into())
            ]
        );
        let no_strings = [object("a"), json!({"type": "integer"})];
        assert_eq!(carrier_keys(&no_strings), vec![None, None]);
        let lone = [
            json!({"type": "string"}),
            object("a"),
            json!({"type": "array"}),
        ];
        assert_eq!(
            carrier_keys(&lone),
            vec![None, Some("json".into()), Some("json".into())]
        );
        let two = [json!({"enum": ["x"]}), json!({"const": "y"}), object("a")];
        assert_eq!(carrier_keys(&two), vec![Some("json".into()); 3]);
    }
}
