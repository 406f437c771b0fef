//! The payload side of tailoring: [`PayloadAdapter::adapt`] rewrites a payload the projection
//! accepts into one the tailored schema accepts (what is sent), [`PayloadAdapter::unadapt`]
//! takes a payload the tailored schema accepts (what comes back) to what the tool is given.
//!
//! Adapters sit on schemas (tailored pointers); a payload is walked together with the tailored
//! schema to find the values each adapter applies to. Encodings (JSON text, map entries, enum
//! text, the root wrapper) change a value's shape: on the way in the value's own parts are
//! adapted first, then the value is encoded; on the way back it is decoded first. Under an
//! `anyOf` the payload could belong to several alternatives, each wanting a different rewrite,
//! so the walk takes the first alternative that the rewritten value then satisfies (for
//! `unadapt`: the first one the value satisfies as it is), checked with a validator compiled for
//! that alternative alone. Only that alternative's adapters run, so a value is decoded once and
//! judged by its own alternative's bounds.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Adapter, Tailored};
use crate::pointer;

/// Past this many `$ref` hops without going deeper into the payload, the walk stops: a
/// reference cycle that consumes nothing.
const MAX_REF_HOPS: usize = 64;

/// Base URI under which the tailored document is registered for alternative checks.
const BASE: &str = "urn:schemalens:tailored";

/// The property names of a map entry (see [`Adapter::Entries`]).
pub const ENTRY_KEY: &str = "key";
pub const ENTRY_VALUE: &str = "value";

/// What [`PayloadAdapter::adapt`] did to one payload (payload pointers).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Adaptation {
    pub payload: Value,
    /// Absent properties sent as `null`.
    pub filled: Vec<String>,
    /// Values sent in another form (JSON text, entries, enum text, the root wrapper, the
    /// carrier of a closed object's other keys).
    pub encoded: Vec<String>,
    /// Properties sent under another name (names the provider refuses), by their own name.
    pub renamed: Vec<String>,
    /// Properties that were present as `null` where absent is sent as `null` too: un-adapting
    /// removes them, so for these the round trip does not give the payload back.
    pub ambiguous: Vec<String>,
    /// Keys the tool's schema does not declare that have the name a renamed property is sent
    /// under: the provider's form holds one key there, so the declared property is sent and
    /// this key does not come back.
    pub collided: Vec<String>,
    /// On the way back: values in the provider's form that could not be read — JSON text that
    /// is not JSON, a carrier that holds no list of entries or no object — by pointer in what
    /// the tool is given, where each stays as it came. The provider cannot check what a string
    /// holds, so a model can send any text there; the tool's own checks have the last word.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

impl Adaptation {
    pub fn changed(&self) -> bool {
        !self.filled.is_empty() || !self.encoded.is_empty() || !self.renamed.is_empty()
    }

    /// Takes in what adapting a part of the payload did.
    fn absorb(&mut self, part: Adaptation) {
        self.filled.extend(part.filled);
        self.encoded.extend(part.encoded);
        self.renamed.extend(part.renamed);
        self.ambiguous.extend(part.ambiguous);
        self.collided.extend(part.collided);
        self.unread.extend(part.unread);
    }

    /// True when `unadapt` gives the payload back exactly.
    pub fn reversible(&self) -> bool {
        self.ambiguous.is_empty() && self.collided.is_empty()
    }
}

/// What [`PayloadAdapter::read_back`] made of a call in the provider's form.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReadBack {
    /// What the tool is given.
    pub payload: Value,
    /// See [`Adaptation::unread`].
    pub unread: Vec<String>,
}

/// The adapters of one tailored schema, ready to apply.
pub struct PayloadAdapter {
    doc: Value,
    draft: jsonschema::Draft,
    at: BTreeMap<String, Vec<Adapter>>,
    /// Schemas holding a local `$ref`: an adapter may be reached through them from anywhere.
    refs: std::collections::BTreeSet<String>,
    /// Compiled alternatives, by tailored pointer; `None` when one does not compile (then it is
    /// taken as matching, and the validator that judges the whole payload has the last word).
    branches: Mutex<HashMap<String, Option<jsonschema::Validator>>>,
}

impl std::fmt::Debug for PayloadAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadAdapter")
            .field("adapters", &self.at)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Adapt,
    Unadapt,
}

impl PayloadAdapter {
    pub fn new(tailored: &Tailored, draft: jsonschema::Draft) -> PayloadAdapter {
        let mut at: BTreeMap<String, Vec<Adapter>> = BTreeMap::new();
        for a in &tailored.adapters {
            at.entry(a.at().to_owned()).or_default().push(a.clone());
        }
        let doc = if at.is_empty() {
            Value::Null
        } else {
            tailored.validation_schema()
        };
        let mut refs = std::collections::BTreeSet::new();
        collect_refs(&doc, "", &mut refs);
        PayloadAdapter {
            doc,
            draft,
            at,
            refs,
            branches: Mutex::new(HashMap::new()),
        }
    }

    /// True when there is nothing to adapt.
    pub fn is_identity(&self) -> bool {
        self.at.is_empty()
    }

    pub fn adapt(&self, payload: &Value) -> Adaptation {
        let mut out = Adaptation {
            payload: payload.clone(),
            ..Adaptation::default()
        };
        if !self.is_identity() {
            let mut value = payload.clone();
            self.walk("", &mut value, "", Direction::Adapt, &mut out, 0);
            out.payload = value;
        }
        out
    }

    pub fn unadapt(&self, payload: &Value) -> Value {
        self.read_back(payload).payload
    }

    /// [`PayloadAdapter::unadapt`], with the values of `payload` (a call in the provider's
    /// form) that could not be read back.
    pub fn read_back(&self, payload: &Value) -> ReadBack {
        let mut value = payload.clone();
        let mut report = Adaptation::default();
        if !self.is_identity() {
            self.walk("", &mut value, "", Direction::Unadapt, &mut report, 0);
        }
        ReadBack {
            payload: value,
            unread: report.unread,
        }
    }

    /// Some adapter sits at `schema` or below it, or may be reached through a `$ref` there.
    fn below(&self, schema: &str) -> bool {
        let within = |k: &String| pointer::is_within(k, schema);
        self.at
            .range(schema.to_owned()..)
            .take_while(|(k, _)| k.starts_with(schema))
            .any(|(k, _)| within(k))
            || self
                .refs
                .range(schema.to_owned()..)
                .take_while(|k| k.starts_with(schema))
                .any(within)
    }

    fn walk(
        &self,
        schema_at: &str,
        value: &mut Value,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
        hops: usize,
    ) {
        if !self.below(schema_at) {
            return;
        }
        if let Some(shape) = self.reshaping(schema_at) {
            self.reshape(shape, value, instance, dir, report);
            return;
        }
        let Some(Value::Object(schema)) = self.doc.pointer(schema_at) else {
            return;
        };
        // On the way in, a value's parts are adapted before the value itself (an absent
        // property filled with `null` must not be encoded as the JSON text `"null"`); on the way
        // back, the value before its parts.
        // Renamed keys must be the schema's names while the parts are walked.
        if dir == Direction::Adapt {
            self.apply_renames(schema_at, value, instance, dir, report);
        }
        if dir == Direction::Unadapt {
            self.apply_own(schema_at, value, instance, dir, report);
        }
        if let Some(Value::String(r)) = schema.get("$ref")
            && let Some(target) = local_pointer(r)
            && hops < MAX_REF_HOPS
        {
            self.walk(&target, value, instance, dir, report, hops + 1);
        }
        match value {
            Value::Object(obj) => self.object(schema_at, schema, obj, instance, dir, report),
            Value::Array(items) => self.array(schema_at, schema, items, instance, dir, report),
            _ => {}
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            for i in 0..parts.len() {
                let part = pointer::push_index(&pointer::push(schema_at, "allOf"), i);
                self.walk(&part, value, instance, dir, report, 0);
            }
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = schema.get(union) {
                let base = pointer::push(schema_at, union);
                self.union(&base, alts.len(), value, instance, dir, report);
            }
        }
        if dir == Direction::Adapt {
            self.apply_own(schema_at, value, instance, dir, report);
        }
        if dir == Direction::Unadapt {
            self.apply_renames(schema_at, value, instance, dir, report);
        }
    }

    /// `Rename`: the provider's names on the way in, the tool's on the way back.
    fn apply_renames(
        &self,
        schema_at: &str,
        value: &mut Value,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        let (Some(adapters), Value::Object(obj)) = (self.at.get(schema_at), value) else {
            return;
        };
        for a in adapters {
            let Adapter::Rename { names, .. } = a else {
                continue;
            };
            for r in names {
                let (old, new) = match dir {
                    Direction::Adapt => (&r.name, &r.sent_as),
                    Direction::Unadapt => (&r.sent_as, &r.name),
                };
                // A sent name is never a declared one, so a payload key under it is undeclared:
                // un-adapting would read it as the renamed property.
                if dir == Direction::Adapt && obj.contains_key(new) {
                    report.collided.push(pointer::push(instance, new));
                }
                if let Some(v) = obj.shift_remove(old) {
                    obj.insert(new.clone(), v);
                    match dir {
                        Direction::Adapt => report.renamed.push(pointer::push(instance, old)),
                        // The parts were read under the provider's name.
                        Direction::Unadapt => {
                            let (from, to) =
                                (pointer::push(instance, old), pointer::push(instance, new));
                            for at in &mut report.unread {
                                if pointer::is_within(at, &from) {
                                    *at = format!("{to}{}", &at[from.len()..]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The adapters that rewrite the keys of an object at `schema_at`. A marker replaces an
    /// explicit null before absent properties are filled with null, and comes back after those
    /// nulls are removed again.
    fn apply_own(
        &self,
        schema_at: &str,
        value: &mut Value,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        let (Some(adapters), Value::Object(obj)) = (self.at.get(schema_at), value) else {
            return;
        };
        let ordered: Vec<&Adapter> = match dir {
            Direction::Adapt => adapters.iter().collect(),
            Direction::Unadapt => adapters.iter().rev().collect(),
        };
        for a in ordered {
            match a {
                Adapter::KeyEntries { property, kept, .. } => {
                    let carrier = pointer::push(&pointer::push(schema_at, "properties"), property);
                    match dir {
                        Direction::Adapt => {
                            self.other_keys_out(obj, property, kept, &carrier, instance, report)
                        }
                        Direction::Unadapt => {
                            self.other_keys_back(obj, property, kept, &carrier, instance, report)
                        }
                    }
                }
                _ => apply(a, obj, instance, dir, report),
            }
        }
        // The carrier's `null` (no other key) is how the payload is sent, not a property of
        // the tool's left absent: not reported as filled.
        if let Some(carrier) = self.carrier_property(schema_at) {
            let at = pointer::push(instance, carrier);
            report.filled.retain(|p| *p != at);
        }
    }

    /// The property that carries the other keys (or bundled properties) of the object at
    /// `schema_at`.
    fn carrier_property(&self, schema_at: &str) -> Option<&str> {
        self.at.get(schema_at).and_then(|list| {
            list.iter().find_map(|a| match a {
                Adapter::KeyEntries { property, .. } | Adapter::Bundle { property, .. } => {
                    Some(property.as_str())
                }
                _ => None,
            })
        })
    }

    /// [`Adapter::KeyEntries`] on the way in: every key outside `kept` becomes an entry of
    /// `property` (absent when there is none), its value adapted to the tailored schema for the
    /// other keys (`property` itself included, so that no key of the payload is read as the
    /// carrier).
    fn other_keys_out(
        &self,
        obj: &mut Map<String, Value>,
        property: &str,
        kept: &[String],
        carrier: &str,
        instance: &str,
        report: &mut Adaptation,
    ) {
        let moved: Vec<String> = obj.keys().filter(|k| !kept.contains(k)).cloned().collect();
        if moved.is_empty() {
            return;
        }
        let others: Map<String, Value> = moved
            .iter()
            .filter_map(|k| obj.shift_remove(k).map(|v| (k.clone(), v)))
            .collect();
        let entries = self.entries_of(carrier, others, instance, report);
        let at = pointer::push(instance, property);
        let mut carried = Value::Array(entries);
        // Where the entries nest deeper than the provider allows (or the size limits took
        // the carrier), the whole list goes as its JSON text.
        match self.reshaping(carrier) {
            Some(shape) => self.reshape(shape, &mut carried, &at, Direction::Adapt, report),
            None => report.encoded.push(at),
        }
        obj.insert(property.to_owned(), carried);
    }

    /// [`Adapter::KeyEntries`] on the way back: the entries' keys back in the object. An
    /// entry under a key the object keeps is none this adapter made (its value was judged by
    /// the schema for the other keys, not the property's own): left out, so that it never
    /// overwrites the property. A carrier that is not a list of entries is left as it is.
    fn other_keys_back(
        &self,
        obj: &mut Map<String, Value>,
        property: &str,
        kept: &[String],
        carrier: &str,
        instance: &str,
        report: &mut Adaptation,
    ) {
        let at = pointer::push(instance, property);
        let Some(carried) = obj.get_mut(property) else {
            return;
        };
        if carried.is_null() {
            return;
        }
        let mut read = carried.clone();
        if let Some(shape) = self.reshaping(carrier) {
            let mut text = Adaptation::default();
            self.reshape(shape, &mut read, &at, Direction::Unadapt, &mut text);
        }
        let pairs = match &mut read {
            Value::Array(entries) => self.pairs_of(carrier, entries, instance, report),
            _ => None,
        };
        let Some(pairs) = pairs else {
            report.unread.push(at);
            return;
        };
        obj.shift_remove(property);
        put_pairs(obj, pairs, kept, report);
    }

    fn object(
        &self,
        schema_at: &str,
        schema: &Map<String, Value>,
        obj: &mut Map<String, Value>,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        let extra = schema
            .get("additionalProperties")
            .filter(|v| v.is_object())
            .map(|_| pointer::push(schema_at, "additionalProperties"));
        // The carrier of a closed object's other keys is read by its adapter alone: a key of
        // that name on the way in is one of those keys, and on the way back it was put back
        // already adapted.
        let carrier = self.carrier_property(schema_at);
        for (key, v) in obj.iter_mut() {
            let here = pointer::push(instance, key);
            if carrier == Some(key.as_str()) {
                continue;
            }
            if props.is_some_and(|p| p.contains_key(key)) {
                let at = pointer::push(&pointer::push(schema_at, "properties"), key);
                self.walk(&at, v, &here, dir, report, 0);
            } else if let Some(at) = &extra {
                self.walk(at, v, &here, dir, report, 0);
            }
        }
    }

    fn array(
        &self,
        schema_at: &str,
        schema: &Map<String, Value>,
        items: &mut [Value],
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        let prefix = match schema.get("prefixItems") {
            Some(Value::Array(p)) => p.len(),
            _ => 0,
        };
        let tuple = schema.get("items").is_some_and(Value::is_array);
        for (i, v) in items.iter_mut().enumerate() {
            let here = pointer::push_index(instance, i);
            let at = if i < prefix {
                pointer::push_index(&pointer::push(schema_at, "prefixItems"), i)
            } else if tuple {
                pointer::push_index(&pointer::push(schema_at, "items"), i)
            } else if schema.get("items").is_some_and(Value::is_object) {
                pointer::push(schema_at, "items")
            } else {
                continue;
            };
            self.walk(&at, v, &here, dir, report, 0);
        }
    }

    fn union(
        &self,
        base: &str,
        count: usize,
        value: &mut Value,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        let alts = self.alternatives(base, count, value);
        if !alts.iter().any(|a| self.below(a)) {
            return;
        }
        match dir {
            Direction::Adapt => {
                for alt in &alts {
                    let mut candidate = value.clone();
                    let mut sub = Adaptation::default();
                    self.walk(alt, &mut candidate, instance, dir, &mut sub, 0);
                    if self.satisfies(alt, &candidate) {
                        *value = candidate;
                        report.absorb(sub);
                        return;
                    }
                }
            }
            Direction::Unadapt => self.union_back(base, count, &alts, value, instance, report),
        }
    }

    /// The alternatives of a union in the order the walk tries them for `value`. A value
    /// shaped like a keyed JSON-text carrier (`{"json": "…"}`) goes through that carrier both
    /// ways, whichever alternative it would otherwise fit: an open sibling that let it through
    /// as it is would have it read back as JSON text.
    fn alternatives(&self, base: &str, count: usize, value: &Value) -> Vec<String> {
        let mut alts: Vec<String> = (0..count).map(|i| pointer::push_index(base, i)).collect();
        if let Some(i) = alts.iter().position(|alt| self.carrier_shaped(alt, value)) {
            let carrier = alts.remove(i);
            alts.insert(0, carrier);
        }
        alts
    }

    /// Un-adapts a value of a union: through the first alternative that takes it *and* whose
    /// reading is one adapting would send as this very value — several alternatives may take
    /// what comes back (a closed alternative's carrier of other keys looks like any object's),
    /// and only the one the value was sent through gives back what was sent. When none does
    /// (a value the model made up), the first alternative that takes it.
    fn union_back(
        &self,
        base: &str,
        count: usize,
        alts: &[String],
        value: &mut Value,
        instance: &str,
        report: &mut Adaptation,
    ) {
        let mut fallback: Option<(Value, Adaptation)> = None;
        for alt in alts {
            if !self.satisfies(alt, value) {
                continue;
            }
            let mut candidate = value.clone();
            let mut sub = Adaptation::default();
            self.walk(
                alt,
                &mut candidate,
                instance,
                Direction::Unadapt,
                &mut sub,
                0,
            );
            let mut again = candidate.clone();
            self.union(
                base,
                count,
                &mut again,
                instance,
                Direction::Adapt,
                &mut Adaptation::default(),
            );
            if again == *value {
                *value = candidate;
                report.ambiguous.extend(sub.ambiguous);
                report.unread.extend(sub.unread);
                return;
            }
            fallback.get_or_insert((candidate, sub));
        }
        if let Some((candidate, sub)) = fallback {
            *value = candidate;
            report.ambiguous.extend(sub.ambiguous);
            report.unread.extend(sub.unread);
        }
    }

    /// `value` has the form of a keyed JSON-text carrier at `alt`, or at an alternative of a
    /// union there (at any depth of nested unions).
    fn carrier_shaped(&self, alt: &str, value: &Value) -> bool {
        self.carrier_shaped_within(alt, value, 0)
    }

    fn carrier_shaped_within(&self, alt: &str, value: &Value, depth: usize) -> bool {
        let keyed = self.at.get(alt).is_some_and(|adapters| {
            adapters.iter().any(|a| match a {
                Adapter::JsonText { key: Some(k), .. } => {
                    value.get(k).is_some_and(Value::is_string)
                }
                _ => false,
            })
        });
        if keyed || depth > MAX_REF_HOPS {
            return keyed;
        }
        ["anyOf", "oneOf"].iter().any(|union| {
            let base = pointer::push(alt, union);
            match self.doc.pointer(alt).and_then(|s| s.get(*union)) {
                Some(Value::Array(alts)) => (0..alts.len()).any(|i| {
                    self.carrier_shaped_within(&pointer::push_index(&base, i), value, depth + 1)
                }),
                _ => false,
            }
        })
    }

    /// Encodes (adapt) or decodes (unadapt) the value of a schema whose shape tailoring
    /// changed. A value that does not have the expected shape is left alone: the validator that
    /// judges the result has the last word.
    fn reshape(
        &self,
        adapter: &Adapter,
        value: &mut Value,
        instance: &str,
        dir: Direction,
        report: &mut Adaptation,
    ) {
        match (adapter, dir) {
            (Adapter::JsonText { key, .. }, Direction::Adapt) => {
                let text = Value::String(value.to_string());
                *value = match key {
                    Some(k) => Value::Object(Map::from_iter([(k.clone(), text)])),
                    None => text,
                };
                report.encoded.push(instance.to_owned());
            }
            (Adapter::JsonText { key, .. }, Direction::Unadapt) => {
                let text = match (key, &*value) {
                    (None, Value::String(t)) => Some(t.as_str()),
                    // Where objects cannot be closed (Gemini) other keys may come along; they
                    // mean nothing.
                    (Some(k), Value::Object(o)) => o.get(k).and_then(Value::as_str),
                    _ => None,
                };
                let Some(text) = text else { return };
                match serde_json::from_str(text) {
                    Ok(decoded) => *value = decoded,
                    Err(_) => report.unread.push(instance.to_owned()),
                }
            }
            (Adapter::Entries { at }, Direction::Adapt) => {
                let Value::Object(map) = value else { return };
                let map = std::mem::take(map);
                *value = Value::Array(self.entries_of(at, map, instance, report));
                report.encoded.push(instance.to_owned());
            }
            (Adapter::Entries { at }, Direction::Unadapt) => {
                let Value::Array(entries) = value else { return };
                let Some(pairs) = self.pairs_of(at, entries, instance, report) else {
                    report.unread.push(instance.to_owned());
                    return;
                };
                let mut map = Map::new();
                put_pairs(&mut map, pairs, &[], report);
                *value = Value::Object(map);
            }
            (Adapter::EnumText { values, .. }, Direction::Adapt) => {
                if let Some(e) = values.iter().find(|e| same_json(&e.value, value)) {
                    *value = Value::String(e.text.clone());
                    report.encoded.push(instance.to_owned());
                }
            }
            (Adapter::EnumText { values, .. }, Direction::Unadapt) => {
                if let Value::String(s) = &*value
                    && let Some(e) = values.iter().find(|e| e.text == *s)
                {
                    *value = e.value.clone();
                }
            }
            (Adapter::Wrap { at, property }, Direction::Adapt) => {
                let inner = pointer::push(&pointer::push(at, "properties"), property);
                self.walk(&inner, value, instance, dir, report, 0);
                let v = std::mem::take(value);
                *value = Value::Object(Map::from_iter([(property.clone(), v)]));
                report.encoded.push(instance.to_owned());
            }
            (Adapter::Wrap { at, property }, Direction::Unadapt) => {
                let Value::Object(o) = value else { return };
                let Some(mut v) = o.shift_remove(property) else {
                    return;
                };
                let inner = pointer::push(&pointer::push(at, "properties"), property);
                self.walk(&inner, &mut v, instance, dir, report, 0);
                *value = v;
            }
            _ => {}
        }
    }

    /// The `{key, value}` entries of a map whose entries schema is at `at`, each value adapted
    /// by the entries' value schema; or each whole entry sent in the form its own schema takes
    /// (JSON text, where the entries nest deeper than the provider allows).
    fn entries_of(
        &self,
        at: &str,
        map: Map<String, Value>,
        instance: &str,
        report: &mut Adaptation,
    ) -> Vec<Value> {
        let items = pointer::push(at, "items");
        let whole = self.reshaped(&items);
        let value_schema = entry_value_schema(at);
        let mut entries = Vec::with_capacity(map.len());
        for (k, mut v) in map {
            let here = pointer::push(instance, &k);
            if whole {
                let mut e = serde_json::json!({ENTRY_KEY: k, ENTRY_VALUE: v});
                self.walk(&items, &mut e, &here, Direction::Adapt, report, 0);
                entries.push(e);
            } else {
                self.walk(&value_schema, &mut v, &here, Direction::Adapt, report, 0);
                entries.push(serde_json::json!({ENTRY_KEY: k, ENTRY_VALUE: v}));
            }
        }
        entries
    }

    /// [`PayloadAdapter::entries_of`] undone: the key/value pairs, in order, or `None` (the
    /// entries left as they are) when some element, once read back, is no entry.
    fn pairs_of(
        &self,
        at: &str,
        entries: &mut Vec<Value>,
        instance: &str,
        report: &mut Adaptation,
    ) -> Option<Vec<Pair>> {
        let items = pointer::push(at, "items");
        let mut read: Vec<Value> = entries.clone();
        // An entry whose text cannot be read leaves the whole list unread: the caller says so.
        let mut whole_entries = Adaptation::default();
        if self.reshaped(&items) {
            for e in &mut read {
                self.walk(
                    &items,
                    e,
                    instance,
                    Direction::Unadapt,
                    &mut whole_entries,
                    0,
                );
            }
        }
        if !read.iter().all(is_entry) {
            return None;
        }
        report.ambiguous.extend(whole_entries.ambiguous);
        let whole = self.reshaped(&items);
        let value_schema = entry_value_schema(at);
        entries.clear();
        let mut pairs = Vec::with_capacity(read.len());
        for e in read {
            let Value::Object(mut e) = e else { continue };
            let key = e[ENTRY_KEY].as_str().unwrap_or_default().to_owned();
            let mut value = e.shift_remove(ENTRY_VALUE).unwrap_or(Value::Null);
            let mut own = Adaptation::default();
            if !whole {
                let here = pointer::push(instance, &key);
                self.walk(
                    &value_schema,
                    &mut value,
                    &here,
                    Direction::Unadapt,
                    &mut own,
                    0,
                );
            }
            report.ambiguous.extend(own.ambiguous);
            pairs.push(Pair {
                key,
                value,
                unread: own.unread,
            });
        }
        Some(pairs)
    }

    /// A reshaping adapter sits at `at`.
    fn reshaped(&self, at: &str) -> bool {
        self.reshaping(at).is_some()
    }

    /// The adapter that changes the shape of the value at `at`, if one does.
    fn reshaping(&self, at: &str) -> Option<&Adapter> {
        self.at
            .get(at)
            .and_then(|list| list.iter().find(|a| a.reshapes()))
    }

    fn satisfies(&self, at: &str, value: &Value) -> bool {
        let mut cache = self
            .branches
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let validator = cache
            .entry(at.to_owned())
            .or_insert_with(|| self.compile(at));
        validator.as_ref().is_none_or(|v| v.is_valid(value))
    }

    fn compile(&self, at: &str) -> Option<jsonschema::Validator> {
        let registry = jsonschema::Registry::new()
            .add(BASE, self.doc.clone())
            .ok()?
            .prepare()
            .ok()?;
        let wrapper = serde_json::json!({"$ref": format!("{BASE}#{}", fragment(at))});
        jsonschema::options()
            .with_draft(self.draft)
            .with_registry(&registry)
            .offline()
            .build(&wrapper)
            .ok()
    }
}

fn apply(
    adapter: &Adapter,
    obj: &mut Map<String, Value>,
    instance: &str,
    dir: Direction,
    report: &mut Adaptation,
) {
    match (adapter, dir) {
        (Adapter::NullForAbsent { properties, .. }, Direction::Adapt) => {
            for p in properties {
                match obj.get(p) {
                    None => {
                        obj.insert(p.clone(), Value::Null);
                        report.filled.push(pointer::push(instance, p));
                    }
                    Some(Value::Null) => report.ambiguous.push(pointer::push(instance, p)),
                    Some(_) => {}
                }
            }
        }
        (Adapter::NullForAbsent { properties, .. }, Direction::Unadapt) => {
            for p in properties {
                if obj.get(p) == Some(&Value::Null) {
                    obj.shift_remove(p);
                }
            }
        }
        (
            Adapter::NullMarker {
                properties, marker, ..
            },
            Direction::Adapt,
        ) => {
            for p in properties {
                if obj.get(p) == Some(&Value::Null) {
                    obj.insert(p.clone(), marker.clone());
                    report.encoded.push(pointer::push(instance, p));
                }
            }
        }
        (
            Adapter::NullMarker {
                properties, marker, ..
            },
            Direction::Unadapt,
        ) => {
            for p in properties {
                if obj.get(p) == Some(marker) {
                    obj.insert(p.clone(), Value::Null);
                }
            }
        }
        (Adapter::Bundle { property, kept, .. }, Direction::Adapt) => {
            bundle(obj, property, kept, instance, report)
        }
        (Adapter::Bundle { property, kept, .. }, Direction::Unadapt) => {
            unbundle(obj, property, kept, instance, report)
        }
        // Encodings are applied by `reshape`.
        _ => {}
    }
}

/// One entry of a map read back, with the values in it that could not be read.
struct Pair {
    key: String,
    value: Value,
    unread: Vec<String>,
}

/// Puts `pairs` into `obj`, except those under a key in `skip`; a later pair under the same
/// key replaces an earlier one, and so do the values it could not read.
fn put_pairs(
    obj: &mut Map<String, Value>,
    pairs: Vec<Pair>,
    skip: &[String],
    report: &mut Adaptation,
) {
    let mut unread: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in pairs {
        if skip.contains(&pair.key) {
            continue;
        }
        unread.insert(pair.key.clone(), pair.unread);
        obj.insert(pair.key, pair.value);
    }
    report.unread.extend(unread.into_values().flatten());
}

/// Every key outside `kept` moves into the JSON text of one object, sent as `property` (absent
/// when there is none): the bundled optional properties, and any undeclared key (`property`
/// itself included, so that no key of the payload is ever read as the bundle).
fn bundle(
    obj: &mut Map<String, Value>,
    property: &str,
    kept: &[String],
    instance: &str,
    report: &mut Adaptation,
) {
    let moved: Vec<String> = obj.keys().filter(|k| !kept.contains(k)).cloned().collect();
    if moved.is_empty() {
        return;
    }
    let mut inner = Map::new();
    for k in moved {
        if let Some(v) = obj.shift_remove(&k) {
            inner.insert(k, v);
        }
    }
    obj.insert(
        property.to_owned(),
        Value::String(Value::Object(inner).to_string()),
    );
    report.encoded.push(pointer::push(instance, property));
}

/// The bundle's keys back in the object. Text that is not an object of keys outside `kept` is
/// no bundle this adapter made: left as it is (the schema then judges it as a string).
fn unbundle(
    obj: &mut Map<String, Value>,
    property: &str,
    kept: &[String],
    instance: &str,
    report: &mut Adaptation,
) {
    let Some(Value::String(text)) = obj.get(property) else {
        return;
    };
    let inner = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(inner)) if !inner.keys().any(|k| kept.contains(k)) => inner,
        _ => {
            report.unread.push(pointer::push(instance, property));
            return;
        }
    };
    obj.shift_remove(property);
    obj.extend(inner);
}

/// Equality as JSON Schema's `enum` and `const` judge it: numbers by value (`1` and `1.0` are
/// one number), arrays and objects member by member.
pub(super) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// `{key: <string>, value: …}`, as [`Adapter::Entries`] and [`Adapter::KeyEntries`] send.
fn is_entry(e: &Value) -> bool {
    e.as_object().is_some_and(|o| {
        o.get(ENTRY_KEY).is_some_and(Value::is_string) && o.contains_key(ENTRY_VALUE)
    })
}

/// Where a map's value schema sits in its entries schema.
fn entry_value_schema(at: &str) -> String {
    pointer::push(
        &pointer::push(&pointer::push(at, "items"), "properties"),
        ENTRY_VALUE,
    )
}

/// Pointers of every object holding a local `$ref`, anywhere in `value` (a few false hits in
/// data such as `enum` values only cost a wasted look).
fn collect_refs(value: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::Object(m) => {
            if m.get("$ref")
                .and_then(Value::as_str)
                .is_some_and(|r| r.starts_with('#'))
            {
                out.insert(at.to_owned());
            }
            for (k, v) in m {
                collect_refs(v, &pointer::push(at, k), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                collect_refs(v, &pointer::push_index(at, i), out);
            }
        }
        _ => {}
    }
}

/// `#/a/b` → `/a/b`; `None` for references into other documents.
fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = percent_decode(fragment)?;
    (decoded.is_empty() || decoded.starts_with('/')).then_some(decoded)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A JSON pointer written as a URI fragment (RFC 6901 §6).
fn fragment(pointer: &str) -> String {
    let mut out = String::new();
    for b in pointer.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
