//! "One of these fields": an object whose `anyOf` (or `oneOf`) alternatives only add to its
//! own object keywords — OpenAPI's `anyOf: [{required: [a]}, {required: [b]}]` beside
//! `properties`, 13 GitHub REST request bodies. Each alternative applies together with the
//! object to one value, so a strict provider can neither close it nor make its properties
//! required, and Gemini reads each alternative as an object without properties. Written as
//! one plain object per alternative, the object's keywords merged into each, it accepts the
//! same values (`B ∧ (A₁ ∨ … ∨ Aₙ)` is `(B ∧ A₁) ∨ … ∨ (B ∧ Aₙ)`, and likewise for exactly
//! one of them), and every alternative is then tailored like any object.

use serde_json::{Map, Value};

use super::encode::Position;
use super::{ANNOTATIONS, Walk, in_place_keys, may_accept};
use crate::pointer;
use crate::projection::Rule;
use crate::projection::tailor::adapt::same_json;
use crate::projection::tailor::{Step, Tailoring};

/// What an alternative may say for its merge with the object to stay exact: it names
/// properties, requires them, narrows their values, and says it is an object.
const ALTERNATIVE_KEYS: &[&str] = &["properties", "required", "additionalProperties", "type"];

/// The object with its union distributed: the annotations that stay on the node, the union's
/// keyword, and one merged object per alternative.
struct Distributed {
    outer: Map<String, Value>,
    keyword: &'static str,
    alternatives: Vec<Map<String, Value>>,
    /// Properties whose values an alternative narrowed (its `enum` met the object's).
    narrowed: Vec<String>,
}

impl Walk<'_> {
    /// The node as a union of plain objects, each tailored; `None` when its union is not only
    /// a choice among its own fields (or the merge would not be exact).
    pub(super) fn distribute_properties(
        &mut self,
        m: &Map<String, Value>,
        from: &str,
        out: &str,
    ) -> Option<Value> {
        let Distributed {
            outer,
            keyword,
            alternatives,
            narrowed,
        } = distributed(m)?;
        if self.has(Step::RequireAll) && self.options.lossy && null_means_two_things(&alternatives)
        {
            return None;
        }
        self.record(
            Rule::TailorDistributeProperties,
            out,
            from,
            Tailoring::PropertiesDistributed {
                profile: self.profile,
                keyword: keyword.to_owned(),
                alternatives: alternatives.len(),
                narrowed,
            },
        );
        let union_at = pointer::push(out, keyword);
        let mut done = Vec::new();
        for (i, alternative) in alternatives.into_iter().enumerate() {
            let at = pointer::push_index(&union_at, i);
            // Placed as any union alternative is: a value's form.
            self.position = Position::Value;
            // The merged object stands for the projection's object: its properties keep their
            // projection pointers. What the alternative itself said is linked to it as well.
            done.push(self.node_owned(Value::Object(alternative), from, &at));
            let own = pointer::push_index(&pointer::push(from, keyword), i);
            self.links.insert(at, self.originals(&own));
        }
        // The node's own steps see a union (an empty one: its alternatives are done), so
        // that nothing asks it for a `type` of its own.
        let mut outer = outer;
        outer.insert(keyword.into(), Value::Array(Vec::new()));
        let mut node = match self.node_owned(Value::Object(outer), from, out) {
            Value::Object(node) => node,
            _ => Map::new(),
        };
        node.insert(keyword.into(), Value::Array(done));
        Some(Value::Object(node))
    }
}

fn distributed(m: &Map<String, Value>) -> Option<Distributed> {
    let unions: Vec<&'static str> = ["anyOf", "oneOf"]
        .into_iter()
        .filter(|k| m.contains_key(*k))
        .collect();
    let [keyword] = unions.as_slice() else {
        return None;
    };
    let keyword = *keyword;
    // Another in-place applicator would judge the object beside the alternatives; `type`
    // other than "object" would let non-objects through that a merged object refuses.
    let conjoined_elsewhere = in_place_keys().any(|k| k != keyword && m.contains_key(k))
        || m.contains_key("unevaluatedProperties");
    let object_type = match m.get("type") {
        None => true,
        Some(t) => is_object_type(t),
    };
    if conjoined_elsewhere || !object_type || !m.contains_key("properties") {
        return None;
    }
    let Some(Value::Array(alts)) = m.get(keyword) else {
        return None;
    };
    if alts.is_empty() {
        return None;
    }
    let mut base = m.clone();
    base.shift_remove(keyword);
    let mut outer = Map::new();
    for k in ANNOTATIONS {
        if let Some(v) = base.shift_remove(*k) {
            outer.insert((*k).to_owned(), v);
        }
    }
    let mut narrowed = Vec::new();
    let alternatives = alts
        .iter()
        .map(|a| merged(&base, a.as_object()?, &mut narrowed))
        .collect::<Option<Vec<_>>>()?;
    narrowed.sort();
    narrowed.dedup();
    Some(Distributed {
        outer,
        keyword,
        alternatives,
        narrowed,
    })
}

fn is_object_type(t: &Value) -> bool {
    match t {
        Value::String(s) => s == "object",
        Value::Array(ts) => ts.len() == 1 && ts[0] == "object",
        _ => false,
    }
}

/// `base ∧ alternative` as one object schema, when that is exact.
fn merged(
    base: &Map<String, Value>,
    alternative: &Map<String, Value>,
    narrowed: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let only_fields = alternative
        .keys()
        .all(|k| ALTERNATIVE_KEYS.contains(&k.as_str()) || ANNOTATIONS.contains(&k.as_str()));
    let open = |v: Option<&Value>| match v {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    if !only_fields
        || alternative.get("type").is_some_and(|t| !is_object_type(t))
        || !open(alternative.get("additionalProperties"))
    {
        return None;
    }
    let mut out = base.clone();
    if let Some(t) = alternative.get("type") {
        out.insert("type".into(), t.clone());
    }
    if let Some(Value::Object(own)) = alternative.get("properties") {
        let base_open = open(base.get("additionalProperties"));
        let properties = out
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()?;
        for (name, schema) in own {
            match properties.get(name) {
                Some(theirs) => {
                    let (both, narrows) = conjunction(theirs, schema)?;
                    if narrows {
                        narrowed.push(name.clone());
                    }
                    properties.insert(name.clone(), both);
                }
                // A new name was the object's `additionalProperties`' business; listing it
                // takes it out of there, which is the same only when that accepts anything.
                None if base_open => {
                    properties.insert(name.clone(), schema.clone());
                }
                None => return None,
            }
        }
    } else if alternative.contains_key("properties") {
        return None;
    }
    if let Some(Value::Array(own)) = alternative.get("required") {
        let required = out
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()?;
        for name in own {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    } else if alternative.contains_key("required") {
        return None;
    }
    // The alternative's own title and description say what this choice is.
    for k in ["title", "description"] {
        if let Some(v) = alternative.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    Some(out)
}

/// One schema for a property the object and an alternative both describe, when one is exact:
/// the same schema, or the object's with its values narrowed to the alternative's `enum` (or
/// `const`). The flag says it narrowed.
fn conjunction(theirs: &Value, own: &Value) -> Option<(Value, bool)> {
    let says_nothing = |v: &Value| match v {
        Value::Bool(true) => true,
        Value::Object(o) => o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    };
    if theirs == own || says_nothing(own) {
        return Some((theirs.clone(), false));
    }
    let own = own.as_object()?;
    if !own
        .keys()
        .all(|k| k == "enum" || k == "const" || ANNOTATIONS.contains(&k.as_str()))
    {
        return None;
    }
    let values: Vec<Value> = match (own.get("enum"), own.get("const")) {
        (Some(Value::Array(e)), None) => e.clone(),
        (None, Some(c)) => vec![c.clone()],
        _ => return None,
    };
    let mut both = match theirs {
        Value::Object(t) => t.clone(),
        Value::Bool(true) => Map::new(),
        _ => return None,
    };
    let kept = match both.get("enum") {
        Some(Value::Array(e)) => values
            .into_iter()
            .filter(|v| e.iter().any(|w| same_json(v, w)))
            .collect(),
        Some(_) => return None,
        None => values,
    };
    both.insert("enum".into(), Value::Array(kept));
    Some((Value::Object(both), true))
}

/// A property required in one alternative and optional in another, that may be `null`: once
/// every property is required, `null` there is a value in the first and "absent" in the
/// second, and a payload matching both could not be read back as it was sent.
fn null_means_two_things(alternatives: &[Map<String, Value>]) -> bool {
    let required = |a: &Map<String, Value>, name: &str| {
        a.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    let Some(first) = alternatives.first() else {
        return false;
    };
    let Some(Value::Object(properties)) = first.get("properties") else {
        return false;
    };
    // Every alternative has the object's properties; one only an alternative adds is absent
    // from the others, where it is not "absent as null" either.
    properties.keys().any(|name| {
        let somewhere = alternatives.iter().any(|a| required(a, name));
        let not_everywhere = alternatives.iter().any(|a| !required(a, name));
        somewhere
            && not_everywhere
            && alternatives
                .iter()
                .filter_map(|a| a.get("properties")?.get(name))
                .any(|s| may_accept(s, "null"))
    })
}
