//! Hand-made pairs, one or more for every change kind: the class the diff gives, and for every
//! breaking change that its witness is accepted by OLD and rejected by NEW — checked here with
//! the `jsonschema` crate directly, not through schemalens's own verification.

use schemalens::diff::{self, Class, DiffOptions, KINDS, Report, Status, ToolDiff};
use schemalens::manifest;
use schemalens::validate::Side;
use serde_json::{Value, json};

fn report(old: Value, new: Value, options: &DiffOptions) -> Report {
    let o = manifest::load_value(old, "v.json", None).unwrap();
    let n = manifest::load_value(new, "v.json", None).unwrap();
    diff::diff(&o, &n, &[], options)
}

fn tool(old: Value, new: Value) -> ToolDiff {
    report(old, new, &DiffOptions::default()).tools.remove(0)
}

fn valid(schema: &Value, payload: &Value) -> bool {
    jsonschema::validator_for(schema)
        .expect("the test schema compiles")
        .is_valid(payload)
}

/// The change of `kind` on the original side must have `class`; a breaking one must carry a
/// witness that OLD accepts and NEW rejects.
#[track_caller]
fn expect(old: Value, new: Value, kind: &str, class: Class) -> ToolDiff {
    let t = tool(old.clone(), new.clone());
    let c = t
        .changes
        .iter()
        .find(|c| c.side == Side::Original && c.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} change in {:#?}", t.changes));
    assert_eq!(c.class, class, "{kind}: {c:#?}");
    match &c.witness {
        Some(w) => {
            assert_eq!(
                class,
                Class::Breaking,
                "only breaking changes carry witnesses"
            );
            assert!(valid(&old, w), "{kind}: OLD must accept the witness {w}");
            assert!(!valid(&new, w), "{kind}: NEW must reject the witness {w}");
        }
        None => assert_ne!(class, Class::Breaking, "{kind}: breaking without a witness"),
    }
    t
}

fn obj(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

fn prop(schema: Value) -> Value {
    json!({"type": "object", "properties": {"p": schema}, "required": ["p"]})
}

#[test]
fn tools_added_removed_and_described() {
    let one = json!({"tools": [{"name": "a", "description": "A", "inputSchema": prop(json!({"type": "string"}))}]});
    let two = json!({"tools": [
        {"name": "a", "description": "A tool", "inputSchema": prop(json!({"type": "string"}))},
        {"name": "b", "inputSchema": {"type": "object"}}
    ]});
    let r = report(one.clone(), two.clone(), &DiffOptions::default());
    let b = r.tool("b").unwrap();
    assert_eq!(b.status, Status::Added);
    assert_eq!(
        (b.changes[0].kind, b.changes[0].class),
        ("tool-added", Class::Widening)
    );
    let a = r.tool("a").unwrap();
    assert_eq!(a.status, Status::Changed);
    assert_eq!(
        (a.changes[0].kind, a.changes[0].class),
        ("tool-description-changed", Class::Neutral)
    );

    let r = report(two, one, &DiffOptions::default());
    let b = r.tool("b").unwrap();
    assert_eq!(b.status, Status::Removed);
    let c = &b.changes[0];
    assert_eq!((c.kind, c.class), ("tool-removed", Class::Breaking));
    assert!(valid(
        &json!({"type": "object"}),
        c.witness.as_ref().unwrap()
    ));
}

#[test]
fn annotations_are_neutral() {
    expect(
        prop(json!({"type": "string", "description": "a"})),
        prop(json!({"type": "string", "description": "b", "title": "P", "examples": ["x"]})),
        "annotation-changed",
        Class::Neutral,
    );
    expect(
        prop(json!({"type": "string", "x-order": 1})),
        prop(json!({"type": "string", "x-order": 2})),
        "extension-changed",
        Class::Neutral,
    );
    expect(
        json!({"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}], "discriminator": {"propertyName": "k"}}),
        json!({"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}]}),
        "discriminator-changed",
        Class::Neutral,
    );
    expect(
        obj(json!({})),
        obj(json!({"note": {"description": "free text"}})),
        "annotation-changed",
        Class::Neutral,
    );
}

#[test]
fn types() {
    expect(
        prop(json!({"type": ["string", "null"]})),
        prop(json!({"type": "string"})),
        "type-narrowed",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "number", "minimum": 1})),
        prop(json!({"type": "integer", "minimum": 1})),
        "type-narrowed",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": ["string", "integer"]})),
        "type-widened",
        Class::Widening,
    );
    expect(
        prop(json!({"type": "string"})),
        prop(json!({})),
        "type-widened",
        Class::Widening,
    );
    expect(
        prop(json!({"type": "string", "minLength": 2})),
        prop(json!({"type": "integer"})),
        "type-changed",
        Class::Breaking,
    );
    expect(
        prop(json!({})),
        prop(json!({"type": "boolean"})),
        "type-narrowed",
        Class::Breaking,
    );
}

#[test]
fn literals() {
    expect(
        prop(json!({"enum": ["a", "b", "c"]})),
        prop(json!({"enum": ["a", "c"]})),
        "enum-values-removed",
        Class::Breaking,
    );
    expect(
        prop(json!({"enum": ["a"]})),
        prop(json!({"enum": ["a", "b"]})),
        "enum-values-added",
        Class::Widening,
    );
    expect(
        prop(json!({"const": "v1"})),
        prop(json!({"const": "v2"})),
        "enum-values-removed",
        Class::Breaking,
    );
    // `const` and a one-value `enum` mean the same.
    let t = tool(prop(json!({"const": 3})), prop(json!({"enum": [3]})));
    assert_eq!(t.status, Status::Unchanged, "{t:#?}");
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "enum": ["x"]})),
        "enum-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string", "enum": ["x"]})),
        prop(json!({"type": "string"})),
        "enum-removed",
        Class::Widening,
    );
}

#[test]
fn bounds() {
    for (old, new, kind, class) in [
        (
            json!({"type": "string"}),
            json!({"type": "string", "maxLength": 5}),
            "bound-added",
            Class::Breaking,
        ),
        (
            json!({"type": "string", "maxLength": 5}),
            json!({"type": "string"}),
            "bound-removed",
            Class::Widening,
        ),
        (
            json!({"type": "string", "maxLength": 10}),
            json!({"type": "string", "maxLength": 5}),
            "bound-tightened",
            Class::Breaking,
        ),
        (
            json!({"type": "string", "minLength": 1}),
            json!({"type": "string", "minLength": 3}),
            "bound-tightened",
            Class::Breaking,
        ),
        (
            json!({"type": "string", "minLength": 3}),
            json!({"type": "string", "minLength": 1}),
            "bound-loosened",
            Class::Widening,
        ),
        (
            json!({"type": "integer", "maximum": 10}),
            json!({"type": "integer", "maximum": 5}),
            "bound-tightened",
            Class::Breaking,
        ),
        (
            json!({"type": "integer", "minimum": 0}),
            json!({"type": "integer", "exclusiveMinimum": 0}),
            "bound-tightened",
            Class::Breaking,
        ),
        (
            json!({"type": "number", "minimum": 0}),
            json!({"type": "number", "minimum": -5}),
            "bound-loosened",
            Class::Widening,
        ),
        (
            json!({"type": "integer"}),
            json!({"type": "integer", "minimum": 1}),
            "bound-added",
            Class::Breaking,
        ),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            json!({"type": "array", "items": {"type": "integer"}, "minItems": 2}),
            "bound-added",
            Class::Breaking,
        ),
        (
            json!({"type": "array", "maxItems": 3}),
            json!({"type": "array", "maxItems": 1}),
            "bound-tightened",
            Class::Breaking,
        ),
        (
            json!({"type": "object", "properties": {"a": {}, "b": {}}}),
            json!({"type": "object", "properties": {"a": {}, "b": {}}, "maxProperties": 1}),
            "bound-added",
            Class::Breaking,
        ),
    ] {
        expect(prop(old), prop(new), kind, class);
    }
}

#[test]
fn multiples() {
    for (old, new, kind, class) in [
        (
            json!({"type": "integer"}),
            json!({"type": "integer", "multipleOf": 5}),
            "multiple-of-added",
            Class::Breaking,
        ),
        (
            json!({"type": "integer", "multipleOf": 5}),
            json!({"type": "integer"}),
            "multiple-of-removed",
            Class::Widening,
        ),
        (
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": "integer", "multipleOf": 4}),
            "multiple-of-coarser",
            Class::Breaking,
        ),
        (
            json!({"type": "integer", "multipleOf": 4}),
            json!({"type": "integer", "multipleOf": 2}),
            "multiple-of-finer",
            Class::Widening,
        ),
        (
            json!({"type": "integer", "multipleOf": 3}),
            json!({"type": "integer", "multipleOf": 2}),
            "multiple-of-changed",
            Class::Breaking,
        ),
    ] {
        expect(prop(old), prop(new), kind, class);
    }
}

#[test]
fn strings() {
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "pattern": "^[a-z]+$"})),
        "pattern-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string", "pattern": "^[a-z]+$"})),
        prop(json!({"type": "string"})),
        "pattern-removed",
        Class::Widening,
    );
    expect(
        prop(json!({"type": "string", "pattern": "^a"})),
        prop(json!({"type": "string", "pattern": "^b"})),
        "pattern-changed",
        Class::Breaking,
    );
    // Draft 2020-12 validators do not assert `format`: nothing to witness, and nothing
    // proven safe either.
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "format": "email"})),
        "format-added",
        Class::Unknown,
    );
    expect(
        prop(json!({"type": "string", "format": "email"})),
        prop(json!({"type": "string"})),
        "format-removed",
        Class::Widening,
    );
    expect(
        prop(json!({"type": "string", "format": "email"})),
        prop(json!({"type": "string", "format": "uuid"})),
        "format-changed",
        Class::Unknown,
    );
}

#[test]
fn arrays() {
    expect(
        prop(json!({"type": "array", "items": {"type": "string"}})),
        prop(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
        "unique-items-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "array", "uniqueItems": true})),
        prop(json!({"type": "array"})),
        "unique-items-removed",
        Class::Widening,
    );
    // A change inside `items` is found there, with a witness that has an item.
    expect(
        prop(json!({"type": "array", "items": {"type": "integer", "maximum": 9}})),
        prop(json!({"type": "array", "items": {"type": "integer", "maximum": 3}})),
        "bound-tightened",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "array", "prefixItems": [{"type": "string"}]})),
        prop(json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]})),
        "keyword-changed",
        Class::Breaking,
    );
}

#[test]
fn required_and_properties() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let closed = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
    let mut required = open.clone();
    required["required"] = json!(["a"]);
    expect(
        open.clone(),
        required.clone(),
        "required-added",
        Class::Breaking,
    );
    expect(required, open.clone(), "required-removed", Class::Widening);

    let with_b = |base: &Value| {
        let mut v = base.clone();
        v["properties"]["b"] = json!({"type": "integer"});
        v
    };
    expect(
        open.clone(),
        with_b(&open),
        "property-added-to-open-object",
        Class::Breaking,
    );
    expect(
        closed.clone(),
        with_b(&closed),
        "property-added-to-closed-object",
        Class::Widening,
    );
    expect(
        with_b(&open),
        open.clone(),
        "property-removed-from-open-object",
        Class::Widening,
    );
    expect(
        with_b(&closed),
        closed.clone(),
        "property-removed-from-closed-object",
        Class::Breaking,
    );

    let map = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}});
    expect(map.clone(), with_b(&map), "property-added", Class::Breaking);
    expect(with_b(&map), map, "property-removed", Class::Breaking);

    let mut dependent = open.clone();
    dependent["dependentRequired"] = json!({"a": ["b"]});
    expect(open, dependent, "required-added", Class::Breaking);
}

#[test]
fn subschemas() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let mut closed = open.clone();
    closed["additionalProperties"] = json!(false);
    expect(
        open.clone(),
        closed.clone(),
        "schema-became-false",
        Class::Breaking,
    );
    expect(closed, open, "schema-no-longer-false", Class::Widening);

    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "not": {"const": ""}})),
        "keyword-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string", "not": {"const": ""}})),
        prop(json!({"type": "string"})),
        "keyword-removed",
        Class::Widening,
    );
    expect(
        prop(json!({"type": "array"})),
        prop(json!({"type": "array", "contains": {"const": 1}})),
        "keyword-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string", "x-kind": 1, "frobnicate": 1})),
        prop(json!({"type": "string", "x-kind": 1, "frobnicate": 2})),
        "keyword-changed",
        Class::Unknown,
    );
    expect(
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
        "dialect-changed",
        Class::Unknown,
    );
    expect(
        prop(json!({"$ref": "#/$defs/A"})).tap_defs(json!({"A": {"type": "string"}})),
        prop(json!({"$ref": "https://example.invalid/a.json"})),
        "ref-unresolvable",
        Class::Unknown,
    );
}

trait TapDefs {
    fn tap_defs(self, defs: Value) -> Value;
}

impl TapDefs for Value {
    fn tap_defs(mut self, defs: Value) -> Value {
        self["$defs"] = defs;
        self
    }
}

#[test]
fn negation_flips_and_if_hides_the_direction() {
    // Fewer values under `not`: more values pass.
    expect(
        prop(json!({"type": "string", "not": {"enum": ["a", "b"]}})),
        prop(json!({"type": "string", "not": {"enum": ["a"]}})),
        "enum-values-removed",
        Class::Widening,
    );
    // More values under `not`: the added one is now rejected.
    expect(
        prop(json!({"type": "string", "not": {"enum": ["a"]}})),
        prop(json!({"type": "string", "not": {"enum": ["a", "b"]}})),
        "enum-values-added",
        Class::Breaking,
    );
    // Inside `if`, a widening is no longer a widening of the whole.
    expect(
        json!({"type": "object", "if": {"properties": {"k": {"const": "a"}}, "required": ["k"]}, "then": {"required": ["x"]}}),
        json!({"type": "object", "if": {"properties": {"k": {"enum": ["a", "b"]}}, "required": ["k"]}, "then": {"required": ["x"]}}),
        "enum-values-added",
        Class::Breaking,
    );
}

#[test]
fn unions() {
    let two = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    let three = json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]});
    expect(
        prop(two.clone()),
        prop(three.clone()),
        "alternative-added",
        Class::Widening,
    );
    expect(
        prop(three),
        prop(two.clone()),
        "alternative-removed",
        Class::Breaking,
    );
    // `str` → `Optional[str]` (Pydantic's anyOf with null) and back.
    let optional = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    expect(
        prop(json!({"type": "string"})),
        prop(optional.clone()),
        "alternative-added",
        Class::Widening,
    );
    expect(
        prop(optional),
        prop(json!({"type": "string"})),
        "alternative-removed",
        Class::Breaking,
    );
    // A third overlapping `oneOf` alternative: integers now match two.
    expect(
        prop(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})),
        prop(json!({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "number"}]})),
        "oneof-alternative-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"oneOf": [{"type": "number"}, {"type": "integer"}]})),
        prop(json!({"anyOf": [{"type": "number"}, {"type": "integer"}]})),
        "oneof-became-anyof",
        Class::Widening,
    );
    expect(
        prop(json!({"anyOf": [{"type": "number"}, {"type": "integer"}]})),
        prop(json!({"oneOf": [{"type": "number"}, {"type": "integer"}]})),
        "anyof-became-oneof",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "anyOf": [{"minLength": 2}, {"const": ""}]})),
        "keyword-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"type": "string"})),
        prop(json!({"type": "string", "allOf": [{"minLength": 1}]})),
        "allof-part-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"allOf": [{"type": "string"}]})),
        prop(json!({"allOf": [{"type": "string"}, {"maxLength": 2}]})),
        "allof-part-added",
        Class::Breaking,
    );
    expect(
        prop(json!({"allOf": [{"type": "string"}, {"maxLength": 2}]})),
        prop(json!({"allOf": [{"type": "string"}]})),
        "allof-part-removed",
        Class::Widening,
    );
}

fn tagged(tag: &str, extra: Value) -> Value {
    let mut properties = json!({"kind": {"const": tag}});
    for (k, v) in extra.as_object().unwrap() {
        properties[k] = v.clone();
    }
    json!({"type": "object", "properties": properties, "required": ["kind"]})
}

#[test]
fn a_discriminated_union() {
    let a = tagged("a", json!({"n": {"type": "integer"}}));
    let b = tagged("b", json!({"s": {"type": "string", "maxLength": 9}}));
    let b2 = tagged("b", json!({"s": {"type": "string", "maxLength": 3}}));
    let c = tagged("c", json!({}));
    // Alternatives with disjoint tags: `oneOf` behaves as `anyOf`, so adding one widens
    // and a change inside one keeps its direction.
    expect(
        prop(json!({"oneOf": [a.clone(), b.clone()]})),
        prop(json!({"oneOf": [a.clone(), b.clone(), c.clone()]})),
        "alternative-added",
        Class::Widening,
    );
    let t = expect(
        prop(json!({"oneOf": [a.clone(), b.clone()]})),
        prop(json!({"oneOf": [b2, a.clone()]})),
        "bound-tightened",
        Class::Breaking,
    );
    let w = t.changes.iter().find_map(|c| c.witness.clone()).unwrap();
    assert_eq!(
        w["p"]["kind"],
        json!("b"),
        "the witness takes the changed alternative"
    );
    expect(
        prop(json!({"oneOf": [a.clone(), b, c]})),
        prop(json!({"oneOf": [a]})),
        "alternative-removed",
        Class::Breaking,
    );
}

#[test]
fn renamed_definitions_are_no_change() {
    let old = json!({
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/Address"}, "work": {"$ref": "#/$defs/Address"}},
        "$defs": {"Address": {"type": "object", "properties": {"zip": {"type": "string"}}}}
    });
    let new = json!({
        "type": "object",
        "properties": {
            "home": {"$ref": "#/definitions/PostalAddress"},
            "work": {"type": "object", "properties": {"zip": {"type": "string"}}}
        },
        "definitions": {"PostalAddress": {"type": "object", "properties": {"zip": {"type": "string"}}}}
    });
    let t = tool(old, new);
    assert_eq!(t.status, Status::Unchanged, "{:#?}", t.changes);
}

#[test]
fn recursive_definitions_are_compared_once() {
    let tree = |max: u64| {
        json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {
                "label": {"type": "string", "maxLength": max},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["label"]}}
        })
    };
    let t = expect(tree(20), tree(10), "bound-tightened", Class::Breaking);
    assert_eq!(
        t.changes
            .iter()
            .filter(|c| c.side == Side::Original)
            .count(),
        1
    );
}

#[test]
fn the_comparison_limit_is_reported() {
    fn nested(depth: usize, leaf: Value) -> Value {
        (0..depth).fold(
            leaf,
            |inner, _| json!({"type": "object", "properties": {"n": inner}}),
        )
    }
    expect(
        nested(300, json!({"type": "string"})),
        nested(300, json!({"type": "integer"})),
        "comparison-limit",
        Class::Unknown,
    );
}

#[test]
fn projection_rules_that_stop_applying_are_listed() {
    let union = |tag_b: Value| {
        prop(json!({"anyOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": "string"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": tag_b, "y": {"type": "integer"}}, "required": ["k"]}
        ]}))
    };
    let t = tool(
        union(json!({"const": "b"})),
        union(json!({"type": "string"})),
    );
    // The union on `k` stops qualifying for flattening: the same rule (du-detect) says why.
    let rule = t
        .changes
        .iter()
        .find(|c| {
            c.side == Side::Projection
                && c.kind == "rule-changed"
                && c.message.starts_with("du-detect")
        })
        .unwrap_or_else(|| panic!("{:#?}", t.changes));
    assert!(
        rule.message.contains("merged into one object"),
        "{}",
        rule.message
    );
    assert!(
        rule.message.contains("not a discriminated union"),
        "{}",
        rule.message
    );
    assert!(
        t.changes.iter().any(|c| c.side == Side::Projection
            && c.kind == "rule-no-longer-applied"
            && c.message.starts_with("du-enum")),
        "{:#?}",
        t.changes
    );
    // And back: the union qualifies again, its tag becomes an enum.
    let back = tool(
        union(json!({"type": "string"})),
        union(json!({"const": "b"})),
    );
    assert!(
        back.changes.iter().any(|c| c.side == Side::Projection
            && c.kind == "rule-applied"
            && c.message.starts_with("du-enum")),
        "{:#?}",
        back.changes
    );
    // Classes of projection changes follow the same rule: breaking only with a witness that
    // the old projection accepts and the new one rejects.
    for c in t.changes.iter().filter(|c| c.class == Class::Breaking) {
        assert!(c.witness.is_some());
    }
}

#[test]
fn a_projection_that_fails_is_reported() {
    let options = DiffOptions {
        projection: schemalens::Options {
            node_budget: Some(40),
            ..schemalens::Options::default()
        },
        ..DiffOptions::default()
    };
    let small = prop(json!({"type": "string"}));
    let props: serde_json::Map<String, Value> = (0..30)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            )
        })
        .collect();
    let big = json!({"type": "object", "properties": props});
    let t = report(small, big, &options).tools.remove(0);
    assert!(
        t.changes
            .iter()
            .any(|c| c.kind == "projection-failed" && c.class == Class::Unknown),
        "{:#?}",
        t.changes
    );
}

#[test]
fn every_kind_is_exercised_here() {
    let source = include_str!("diff_kinds.rs");
    for k in KINDS {
        assert!(
            source.contains(&format!("\"{}\"", k.id)),
            "kind {} has no hand-made pair",
            k.id
        );
    }
}
