//! Property test of `schemalens diff`: a random schema and a random edit of it whose direction is
//! known (a narrowing that rejects some value the old schema accepted, or a widening that
//! accepts everything it did). A narrowing must be reported `breaking` — never `widening` —
//! and a widening `widening` or `neutral`, never `breaking` or `unknown`. Every witness is
//! re-checked with the validator on its own: OLD accepts it, NEW rejects it.

use proptest::prelude::*;
use proptest::sample::Index;
use schemalens::diff::{self, Class, DiffOptions};
use schemalens::manifest;
use schemalens::validate::Side;
use serde_json::{Map, Value, json};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..3, proptest::option::of(3u64..12)).prop_map(|(min, max)| {
            let mut s = json!({"type": "string", "minLength": min});
            if let Some(max) = max {
                s["maxLength"] = json!(max);
            }
            s
        }),
        (-5i64..5, 1i64..20).prop_map(|(min, span)| {
            json!({"type": "integer", "minimum": min, "maximum": min + span})
        }),
        Just(json!({"type": "boolean"})),
        prop::collection::btree_set("[a-e]{1,3}", 2..5)
            .prop_map(|values| json!({"enum": values.into_iter().collect::<Vec<_>>()})),
        prop_oneof![Just("string"), Just("integer"), Just("boolean")]
            .prop_map(|t| json!({"type": [t, "null"]})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map("[p-u]", inner.clone(), 1..4),
                any::<u8>(),
                any::<bool>()
            )
                .prop_map(|(props, required_bits, closed)| {
                    let names: Vec<String> = props.keys().cloned().collect();
                    let required: Vec<String> = names
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| required_bits & (1 << i) != 0)
                        .map(|(_, n)| n.clone())
                        .collect();
                    let mut s = json!({"type": "object", "properties": props, "required": required});
                    if closed {
                        s["additionalProperties"] = json!(false);
                    }
                    s
                }),
            (inner.clone(), 0u64..2)
                .prop_map(|(items, min)| json!({"type": "array", "items": items, "minItems": min, "maxItems": min + 4})),
            // Alternatives of different kinds: removing one rejects its values.
            (
                Just(json!({"type": "string"})),
                Just(json!({"type": "integer"})),
                inner
            )
                .prop_map(|(a, b, c)| {
                    let kinds = |v: &Value| v.get("type").cloned();
                    let third = if kinds(&c) == kinds(&a) || kinds(&c) == kinds(&b) || c.get("type").is_none_or(|t| t.is_array()) {
                        json!({"type": "boolean"})
                    } else {
                        c
                    };
                    json!({"anyOf": [a, b, third]})
                }),
        ]
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Narrows,
    Widens,
}

/// Every edit this schema allows at every node, with its direction.
fn edits(schema: &Value, at: &str, out: &mut Vec<(String, &'static str, Direction)>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    let mut here: Vec<(&'static str, Direction)> = Vec::new();
    let mut add = |name: &'static str, d| here.push((name, d));
    if let Some(e) = map.get("enum").and_then(Value::as_array) {
        if e.len() >= 2 {
            add("remove-enum-value", Direction::Narrows);
        }
        add("add-enum-value", Direction::Widens);
    }
    if let Some(t) = map.get("type").and_then(Value::as_array)
        && t.len() == 2
    {
        add("drop-null", Direction::Narrows);
    }
    if let Some(t) = map.get("type").and_then(Value::as_str)
        && map.get("enum").is_none()
    {
        add("allow-null", Direction::Widens);
        let _ = t;
    }
    if map.get("type") == Some(&json!("string")) {
        let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        match map.get("maxLength").and_then(Value::as_u64) {
            Some(max) if max > min => {
                add("tighten-max-length", Direction::Narrows);
                add("drop-max-length", Direction::Widens);
            }
            Some(_) => add("drop-max-length", Direction::Widens),
            None => add("add-max-length", Direction::Narrows),
        }
        if min > 0 {
            add("lower-min-length", Direction::Widens);
        }
        add("raise-min-length", Direction::Narrows);
    }
    if map.get("type") == Some(&json!("integer")) {
        if map.contains_key("maximum") {
            add("tighten-maximum", Direction::Narrows);
            add("loosen-maximum", Direction::Widens);
        } else {
            add("add-maximum", Direction::Narrows);
        }
    }
    if map.get("type") == Some(&json!("object")) {
        let required: Vec<&str> = map["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let props = map["properties"].as_object().unwrap();
        if props.keys().any(|k| !required.contains(&k.as_str())) {
            add("require-property", Direction::Narrows);
        }
        if !required.is_empty() {
            add("unrequire-property", Direction::Widens);
        }
        if map.get("additionalProperties") == Some(&json!(false)) {
            add("open-object", Direction::Widens);
            add("add-optional-property", Direction::Widens);
        } else {
            add("close-object", Direction::Narrows);
            add("add-typed-property", Direction::Narrows);
        }
        for (k, v) in props {
            edits(v, &format!("{at}/properties/{k}"), out);
        }
    }
    if map.get("type") == Some(&json!("array")) {
        add("raise-min-items", Direction::Narrows);
        edits(&map["items"], &format!("{at}/items"), out);
    }
    if let Some(alts) = map.get("anyOf").and_then(Value::as_array) {
        add("remove-alternative", Direction::Narrows);
        add("add-alternative", Direction::Widens);
        for (i, a) in alts.iter().enumerate() {
            edits(a, &format!("{at}/anyOf/{i}"), out);
        }
    }
    out.extend(here.into_iter().map(|(name, d)| (at.to_owned(), name, d)));
}

fn apply(schema: &Value, at: &str, edit: &str) -> Value {
    let mut out = schema.clone();
    let node = out.pointer_mut(at).unwrap().as_object_mut().unwrap();
    let num = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_i64).unwrap_or(0);
    match edit {
        "remove-enum-value" => {
            node.get_mut("enum").unwrap().as_array_mut().unwrap().pop();
        }
        "add-enum-value" => node
            .get_mut("enum")
            .unwrap()
            .as_array_mut()
            .unwrap()
            .push(json!("zz")),
        "drop-null" => {
            let t = node["type"][0].clone();
            node.insert("type".into(), t);
        }
        "allow-null" => {
            let t = node["type"].clone();
            node.insert("type".into(), json!([t, "null"]));
        }
        "tighten-max-length" => {
            let max = num(node, "maxLength");
            node.insert("maxLength".into(), json!(max - 1));
        }
        "drop-max-length" => {
            node.remove("maxLength");
        }
        "add-max-length" => {
            let min = num(node, "minLength");
            node.insert("maxLength".into(), json!(min + 2));
        }
        "lower-min-length" => {
            let min = num(node, "minLength");
            node.insert("minLength".into(), json!(min - 1));
        }
        "raise-min-length" => {
            let min = num(node, "minLength");
            node.insert("minLength".into(), json!(min + 1));
            if let Some(max) = node.get("maxLength").and_then(Value::as_i64) {
                node.insert("maxLength".into(), json!(max.max(min + 1)));
            }
        }
        "tighten-maximum" => {
            let max = num(node, "maximum");
            let min = num(node, "minimum");
            // Keep the range non-empty: the maximum moves down, or the minimum up.
            if max > min {
                node.insert("maximum".into(), json!(max - 1));
            } else {
                node.insert("minimum".into(), json!(min + 1));
                node.insert("maximum".into(), json!(max + 1));
            }
        }
        "add-maximum" => {
            node.insert("maximum".into(), json!(10));
        }
        "loosen-maximum" => {
            let max = num(node, "maximum");
            node.insert("maximum".into(), json!(max + 3));
        }
        "require-property" => {
            let required: Vec<Value> = node["required"].as_array().unwrap().clone();
            let name = node["properties"]
                .as_object()
                .unwrap()
                .keys()
                .find(|k| !required.contains(&json!(k)))
                .unwrap()
                .clone();
            node.get_mut("required")
                .unwrap()
                .as_array_mut()
                .unwrap()
                .push(json!(name));
        }
        "unrequire-property" => {
            node.get_mut("required")
                .unwrap()
                .as_array_mut()
                .unwrap()
                .pop();
        }
        "open-object" => {
            node.remove("additionalProperties");
        }
        "close-object" => {
            node.insert("additionalProperties".into(), json!(false));
        }
        "add-optional-property" | "add-typed-property" => {
            node.get_mut("properties")
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert("zz_new".into(), json!({"type": "string"}));
        }
        "raise-min-items" => {
            let min = num(node, "minItems");
            node.insert("minItems".into(), json!(min + 1));
        }
        "remove-alternative" => {
            node.get_mut("anyOf")
                .unwrap()
                .as_array_mut()
                .unwrap()
                .remove(0);
        }
        "add-alternative" => node
            .get_mut("anyOf")
            .unwrap()
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "null"})),
        other => panic!("no edit {other}"),
    }
    out
}

fn valid(schema: &Value, payload: &Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(payload)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_class_matches_the_edit_and_every_witness_holds(
        root in schema().prop_map(|s| {
            // The tool's parameters are an object.
            json!({"type": "object", "properties": {"arg": s}, "required": ["arg"]})
        }),
        pick in any::<Index>(),
    ) {
        let mut candidates = Vec::new();
        edits(&root, "", &mut candidates);
        prop_assume!(!candidates.is_empty());
        let (at, edit, direction) = candidates[pick.index(candidates.len())].clone();
        let new = apply(&root, &at, edit);
        prop_assume!(new != root);
        let o = manifest::load_value(root.clone(), "t.json", None).unwrap();
        let n = manifest::load_value(new.clone(), "t.json", None).unwrap();
        let report = diff::diff(&o, &n, &[], &DiffOptions::default());
        let changes: Vec<_> = report.tools[0].changes.iter().filter(|c| c.side == Side::Original).collect();
        for c in report.tools[0].changes.iter() {
            if let Some(w) = &c.witness {
                prop_assert_eq!(c.class, Class::Breaking);
                if c.side == Side::Original {
                    prop_assert!(valid(&root, w), "{} at {}: OLD rejects witness {}", edit, at, w);
                    prop_assert!(!valid(&new, w), "{} at {}: NEW accepts witness {}", edit, at, w);
                }
            }
        }
        match direction {
            Direction::Narrows => {
                prop_assert!(
                    changes.iter().any(|c| c.class == Class::Breaking),
                    "{} at {} not reported breaking: {:#?}\nOLD {}\nNEW {}", edit, at, changes, root, new
                );
                prop_assert!(
                    !changes.iter().any(|c| c.class == Class::Widening),
                    "{} at {} reported widening: {:#?}", edit, at, changes
                );
            }
            Direction::Widens => {
                prop_assert!(!changes.is_empty(), "{} at {}: no change", edit, at);
                for c in &changes {
                    prop_assert!(
                        matches!(c.class, Class::Widening | Class::Neutral),
                        "{} at {} reported {}: {:#?}\nOLD {}\nNEW {}", edit, at, c.class, c, root, new
                    );
                }
            }
        }
    }
}
