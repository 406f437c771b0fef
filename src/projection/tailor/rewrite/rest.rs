//! The other keys of an object a strict profile closes. The provider wants
//! `additionalProperties: false` on every object, but the original takes keys it does not
//! declare (a Pydantic model by default, a Zod `.passthrough()`/loose object, any schema without
//! `additionalProperties`); dropping them would lose every payload that has one. They travel in
//! one more property instead, `more` (`more_2`, … when the object declares that name), and the
//! payload adapter puts them back:
//!
//! - where any value goes under any other key, as the JSON text of an object of them
//!   ([`Adapter::Bundle`], the form the size-limit fit gives optional properties too). Whatever
//!   comes back is accepted by the original: text that is no such object stays as it is, under
//!   a key the original leaves open;
//! - where the other keys' values have a schema, as a list of `{key, value}` entries whose
//!   value schema is that schema, tailored ([`Adapter::KeyEntries`]): JSON text would let the
//!   model send values that schema refuses.
//!
//! OpenAI strict wants every property required: the carrier is then nullable, and `null` says
//! there is no other key.

use serde_json::{Map, Value, json};

use super::fit::{BUNDLE_KEY, kept_keys};
use super::{ANNOTATIONS, Step, Walk, encode::free_name};
use crate::pointer;
use crate::projection::Rule;
use crate::projection::tailor::{Adapter, ENTRY_KEY, ENTRY_VALUE, Tailoring};

/// What the model reads on the carrier of an object's other keys.
const TEXT_NOTE: &str = "Any other keys of this object, sent together as the JSON text of an object (a string); the provider takes no keys beyond the listed properties.";
const ENTRIES_NOTE: &str = "Any other keys of this object, as a list of key/value entries; the provider takes no keys beyond the listed properties.";

impl Walk<'_> {
    /// Closes `m` and gives its other keys a carrier, with the adapter and the trace entry.
    /// `rest`: the projection's schema for the other keys, when it is one.
    pub(super) fn carry_other_keys(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        was: &str,
        known: Vec<String>,
        rest: Option<Value>,
    ) {
        let rest_at = pointer::push(out, "additionalProperties");
        if m.get("additionalProperties").is_some_and(Value::is_object) {
            // What was tailored in the schema for the other keys goes with it; a typed one is
            // tailored again where the carrier holds it.
            self.purge(&rest_at);
        }
        let kept = kept_keys(m);
        let property = free_name(BUNDLE_KEY, |k| kept.iter().any(|n| n == k));
        let carrier_at = pointer::push(&pointer::push(out, "properties"), &property);
        let required = self.has(Step::RequireAll);
        let typed = rest.filter(|r| !accepts_anything(r));
        let carrier = match &typed {
            None => text_carrier(required),
            Some(schema) => self.entries_carrier(schema, from, &carrier_at, required),
        };
        m.insert("additionalProperties".into(), Value::Bool(false));
        if let Some(Value::Object(props)) = m.get_mut("properties") {
            props.insert(property.clone(), carrier);
        }
        if required {
            let mut names = match m.get("required") {
                Some(Value::Array(r)) => r.clone(),
                _ => Vec::new(),
            };
            names.push(Value::String(property.clone()));
            m.insert("required".into(), Value::Array(names));
        }
        if !self.keeps(out) {
            return;
        }
        self.links.insert(carrier_at, self.originals(from));
        self.adapters.push(match typed {
            None => Adapter::Bundle {
                at: out.to_owned(),
                property: property.clone(),
                names: Vec::new(),
                kept: kept.clone(),
            },
            Some(_) => Adapter::KeyEntries {
                at: out.to_owned(),
                property: property.clone(),
                kept: kept.clone(),
            },
        });
        if required {
            // After the carrier is filled: no other key is sent as `null`.
            self.adapters.push(Adapter::NullForAbsent {
                at: out.to_owned(),
                properties: vec![property.clone()],
            });
        }
        // Made only when traced: the lint's walk closes an object at every inlined copy.
        if self.traced {
            let detail = Tailoring::CloseObject {
                profile: self.profile,
                was: was.to_owned(),
                known,
                carrier: property,
                entries: typed.is_some(),
            };
            self.record(Rule::TailorCloseObject, out, from, detail);
        }
    }

    /// A list of `{key, value}` entries whose value schema is the other keys' schema, tailored
    /// at its new place.
    fn entries_carrier(&mut self, rest: &Value, from: &str, at: &str, nullable: bool) -> Value {
        let entry_at = pointer::push(at, "items");
        let props_at = pointer::push(&entry_at, "properties");
        let value_at = pointer::push(&props_at, ENTRY_VALUE);
        // The entry's value sits in no union: whatever alternatives surround the object, a
        // value comes back through this carrier alone (the object is closed, its adapter reads
        // the entries), so it takes its own form, not the JSON text that keeps a map apart
        // from a sibling's array or string. JSON text would leave the model free to send text
        // that decodes to no value the schema takes.
        let among = (self.among_arrays, self.among_strings);
        (self.among_arrays, self.among_strings) = (false, false);
        (self.beside_arrays, self.beside_strings) = (false, false);
        let value = self.child(
            rest,
            &pointer::push(from, "additionalProperties"),
            &value_at,
            None,
        );
        (self.among_arrays, self.among_strings) = among;
        if self.keeps(at) {
            for p in [&entry_at, &props_at, &pointer::push(&props_at, ENTRY_KEY)] {
                self.links.insert(p.clone(), self.originals(from));
            }
        }
        json!({
            "type": if nullable { json!(["array", "null"]) } else { json!("array") },
            "description": ENTRIES_NOTE,
            "items": {
                "type": "object",
                "properties": {ENTRY_KEY: {"type": "string"}, ENTRY_VALUE: value},
                "required": [ENTRY_KEY, ENTRY_VALUE],
                "additionalProperties": false,
            },
        })
    }
}

/// The JSON text of an object of the other keys.
fn text_carrier(nullable: bool) -> Value {
    json!({
        "type": if nullable { json!(["string", "null"]) } else { json!("string") },
        "description": TEXT_NOTE,
    })
}

/// A schema for the other keys that says nothing about their values (only annotations).
fn accepts_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    }
}
