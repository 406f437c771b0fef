use serde_json::{Value, json};

use super::*;
use crate::lint::{Check, Profile, lint_schema};
use crate::projection::{Detail, Options, Rule, project};

fn flat(schema: &Value) -> Projection {
    project(schema, &Options::flat()).expect("projects")
}

fn tailored(schema: Value, profile: Profile) -> Tailored {
    tailor(flat(&schema), profile)
}

fn rules(t: &Tailored) -> Vec<(Rule, String)> {
    t.projection
        .trace
        .iter()
        .filter(|e| matches!(e.detail, Detail::Tailored(_)))
        .map(|e| (e.rule, e.at.clone()))
        .collect()
}

fn validator(t: &Tailored) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&t.validation_schema())
        .expect("tailored schema compiles")
}

fn errors(profile: Profile, schema: &Value) -> Vec<&'static str> {
    lint_schema(profile, schema)
        .into_iter()
        .filter(|f| f.is_error())
        .map(|f| f.rule)
        .collect()
}

#[test]
fn every_drop_step_names_keyword_rules_of_its_profile() {
    // The tables refer to lint rules by id; a renamed rule must fail here, not silently stop
    // dropping anything.
    for profile in Profile::ALL {
        for step in steps(profile) {
            match step {
                Step::DropKeywords { rules } => {
                    for r in *rules {
                        assert!(
                            keyword_set(profile, r).is_some(),
                            "{profile}: `{r}` is not a keyword rule"
                        );
                    }
                }
                Step::DropFormats { rule } => assert!(
                    matches!(
                        profile.rule(rule).map(|r| r.applies),
                        Some(Check::Values { .. })
                    ),
                    "{profile}: `{rule}` is not a values rule"
                ),
                _ => {}
            }
        }
    }
}

#[test]
fn openai_strict_closes_objects_and_requires_optional_properties_as_nullable() {
    let t = tailored(
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "minimum": 0},
                "tag": {"enum": ["a", "b"], "type": "string"},
                "kind": {"const": "x"},
                "pet": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "d"},
                "note": {"type": ["string", "null"]}
            },
            "required": ["name"]
        }),
        Profile::OpenAiStrict,
    );
    assert_eq!(
        t.projection.schema,
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": ["integer", "null"], "minimum": 0},
                "tag": {"enum": ["a", "b", null], "type": ["string", "null"]},
                "kind": {"anyOf": [{"const": "x"}, {"type": "null"}]},
                "pet": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "d"},
                "note": {"type": ["string", "null"]}
            },
            "required": ["name", "age", "tag", "kind", "pet", "note"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        t.adapters,
        vec![
            Adapter::DropUnknownKeys {
                at: String::new(),
                known: ["name", "age", "tag", "kind", "pet", "note"]
                    .map(String::from)
                    .to_vec()
            },
            Adapter::NullForAbsent {
                at: String::new(),
                properties: ["age", "tag", "kind", "pet", "note"]
                    .map(String::from)
                    .to_vec()
            },
        ]
    );
    // `const` without `type` is not typed yet: reported, and the lint sees it.
    let unresolved: Vec<(&str, &str)> = t
        .unresolved
        .iter()
        .map(|u| (u.pointer.as_str(), u.rule))
        .collect();
    assert_eq!(
        unresolved,
        [("/properties/kind/anyOf/0", "type-required")],
        "{:?}",
        t.unresolved
    );
    assert_eq!(
        errors(Profile::OpenAiStrict, &t.projection.schema),
        ["type-required"]
    );
    // The wrapped property's schema moved one level down, and its link went with it.
    assert!(
        !t.projection
            .links
            .originals("/properties/kind/anyOf/0")
            .is_empty()
    );
    let r = rules(&t);
    assert!(r.contains(&(Rule::TailorCloseObject, String::new())));
    assert!(r.contains(&(Rule::TailorRequiredNullable, "/properties/kind".into())));
    assert!(t.projection.trace.iter().all(|e| match &e.detail {
        Detail::Tailored(d) =>
            d.is_lossy()
                == matches!(
                    e.rule,
                    Rule::TailorCloseObject | Rule::TailorRequiredNullable
                ),
        _ => true,
    }));
}

#[test]
fn openai_strict_drops_unsupported_keywords_and_wraps_ref_siblings() {
    let t = tailored(
        json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "uri", "default": "x", "minLength": 1},
                "meta": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                         "additionalProperties": false, "propertyNames": {"maxLength": 3}, "minProperties": 1}
            },
            "required": ["when", "meta"],
            "additionalProperties": false
        }),
        Profile::OpenAiStrict,
    );
    assert_eq!(
        t.projection.schema["properties"],
        json!({
            "when": {"type": "string"},
            "meta": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}
        })
    );
    assert!(t.adapters.is_empty(), "nothing lossy: {:?}", t.adapters);

    // Recursion kept: `$ref`s with siblings survive the projection and must be made bare.
    let options = Options {
        recursion: crate::projection::Recursion::Keep,
        ..Options::flat()
    };
    let p = project(
        &json!({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N", "description": "again"}}, "additionalProperties": false}},
            "type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "required": ["n"], "additionalProperties": false}),
        &options,
    )
    .unwrap();
    let t = tailor(p, Profile::OpenAiStrict);
    let s = serde_json::to_string(&t.projection.schema).unwrap();
    assert!(
        errors(Profile::OpenAiStrict, &t.projection.schema).is_empty(),
        "{:?} in {s}",
        errors(Profile::OpenAiStrict, &t.projection.schema)
    );
    assert!(
        s.contains(r##"{"anyOf":[{"$ref":"#/$defs/N"}],"description":"again"}"##)
            || s.contains(r##""description":"again","anyOf":[{"$ref":"#/$defs/N"}]"##),
        "{s}"
    );
}

#[test]
fn openai_strict_reports_what_it_cannot_express() {
    let t = tailored(
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array"},
                "any": {"type": "array", "items": {}},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "free": {"type": "object"}
            },
            "required": ["tags", "any", "map", "free"],
            "additionalProperties": false
        }),
        Profile::OpenAiStrict,
    );
    let mut got: Vec<(&str, &str)> = t
        .unresolved
        .iter()
        .map(|u| (u.pointer.as_str(), u.rule))
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            ("/properties/any/items", "array-items-typed"),
            ("/properties/any/items", "type-required"),
            ("/properties/free", "free-form-object"),
            // A map has no properties either, which strict mode reports on its own.
            ("/properties/map", "free-form-object"),
            (
                "/properties/map/additionalProperties",
                "additional-properties"
            ),
            ("/properties/tags", "array-items"),
        ]
    );
    // Left as they were: no guessed type, no closed map.
    assert_eq!(
        t.projection.schema["properties"]["map"]["additionalProperties"],
        json!({"type": "integer"})
    );

    let union_root = tailored(
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "string"}]}),
        Profile::OpenAiStrict,
    );
    assert!(union_root.unresolved.iter().any(|u| u.rule == "root-union"));
}

#[test]
fn gemini_rewrites_const_type_lists_and_drops_additional_properties() {
    let t = tailored(
        json!({
            "type": "object",
            "properties": {
                "kind": {"const": "a", "type": "string"},
                "maybe": {"type": ["string", "null"], "maxLength": 3},
                "either": {"type": ["string", "integer"], "minLength": 1, "minimum": 2, "description": "d"},
                "obj": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false, "required": ["x", "ghost"]}
            },
            "required": ["kind"],
            "additionalProperties": false
        }),
        Profile::Gemini,
    );
    assert_eq!(
        t.projection.schema,
        json!({
            "type": "object",
            "properties": {
                "kind": {"enum": ["a"], "type": "string"},
                "maybe": {"type": "string", "nullable": true, "maxLength": 3},
                "either": {"description": "d", "anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 2}]},
                "obj": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
            },
            "required": ["kind"]
        })
    );
    assert_eq!(t.projection.draft, crate::schema::Draft::OpenApi30);
    assert!(t.adapters.is_empty());
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    assert!(errors(Profile::Gemini, &t.projection.schema).is_empty());
    // `nullable` is read as OpenAPI 3.0 says: null is accepted where it was.
    let v = validator(&t);
    assert!(v.is_valid(&json!({"kind": "a", "maybe": null, "either": 3})));
    assert!(!v.is_valid(&json!({"kind": "a", "either": 1})));
    // The alternatives of the split stand for the projection node they came from.
    assert_eq!(
        t.projection.links.originals("/properties/either/anyOf/1"),
        t.projection.links.originals("/properties/either")
    );
}

#[test]
fn gemini_reports_non_string_enums() {
    let t = tailored(
        json!({"type": "object", "properties": {"v": {"const": 1}}, "required": ["v"]}),
        Profile::Gemini,
    );
    assert_eq!(t.projection.schema["properties"]["v"], json!({"enum": [1]}));
    assert_eq!(t.unresolved.len(), 1);
    assert_eq!(t.unresolved[0].rule, "enum-non-string");
}

#[test]
fn dropping_a_keyword_drops_what_depends_on_it() {
    let t = tailored(
        json!({
            "type": "object",
            "properties": {
                "p": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
                "q": {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false}
            }
        }),
        Profile::Gemini,
    );
    // Alone, `items` would judge the first element too; `additionalProperties: false` would
    // reject the keys the pattern allowed.
    assert_eq!(
        t.projection.schema["properties"]["p"],
        json!({"type": "array"})
    );
    assert_eq!(
        t.projection.schema["properties"]["q"],
        json!({"type": "object", "properties": {"a": {"type": "string"}}})
    );
    assert!(t.unresolved.iter().any(|u| u.rule == "array-items"));
}

#[test]
fn ollama_gets_enums_for_consts_and_nothing_else() {
    let schema = json!({"type": "object", "properties": {"k": {"const": "a", "title": "K"}}, "additionalProperties": false});
    let t = tailored(schema.clone(), Profile::Ollama);
    assert_eq!(
        t.projection.schema["properties"]["k"],
        json!({"enum": ["a"], "title": "K"})
    );
    assert_eq!(t.projection.schema["additionalProperties"], json!(false));
    assert!(t.adapters.is_empty() && t.unresolved.is_empty());
}

#[test]
fn trace_entries_of_the_projection_follow_their_nodes() {
    // A property the flat projection hinted about, then wrapped by openai-strict: the hint's
    // entry must now point at the wrapped place's parent node, which still exists.
    let src = json!({
        "type": "object",
        "properties": {"op": {"oneOf": [
            {"type": "object", "properties": {"t": {"const": "a"}, "x": {"const": 1}}, "required": ["t", "x"], "additionalProperties": false},
            {"type": "object", "properties": {"t": {"const": "b"}}, "required": ["t"], "additionalProperties": false}
        ]}},
        "required": ["op"],
        "additionalProperties": false
    });
    let t = tailored(src, Profile::OpenAiStrict);
    for e in &t.projection.trace {
        assert!(
            t.projection.schema.pointer(&e.at).is_some(),
            "{} at {} points nowhere in {}",
            e.rule,
            e.at,
            t.projection.schema
        );
    }
    for (p, _) in t.projection.links.iter() {
        assert!(
            t.projection.schema.pointer(p).is_some(),
            "link {p} points nowhere"
        );
    }
}

#[test]
fn adapter_round_trips_and_picks_the_alternative_that_fits() {
    let schema = json!({
        "type": "object",
        "properties": {
            "v": {"anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]},
                {"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"], "additionalProperties": false}
            ]},
            "opt": {"type": "string"}
        },
        "required": ["v"],
        "additionalProperties": false
    });
    let t = tailored(schema.clone(), Profile::OpenAiStrict);
    let v = validator(&t);
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for (payload, filled, dropped) in [
        (json!({"v": {"c": "x"}}), vec!["/opt"], vec![]),
        (
            json!({"v": {"a": "x", "z": 1}}),
            vec!["/opt", "/v/b"],
            vec!["/v/z"],
        ),
        (json!({"v": {"a": "x", "b": 2}, "opt": "o"}), vec![], vec![]),
    ] {
        let a = adapter.adapt(&payload);
        assert!(
            v.is_valid(&a.payload),
            "{payload} adapted to {} is rejected",
            a.payload
        );
        assert_eq!(a.filled, filled, "{payload}");
        assert_eq!(a.dropped, dropped, "{payload}");
        if a.reversible() {
            assert_eq!(adapter.unadapt(&a.payload), payload);
        }
    }
    // Null for a property the original left optional: absent again after un-adapting.
    assert_eq!(
        adapter.unadapt(&json!({"v": {"c": "x"}, "opt": null})),
        json!({"v": {"c": "x"}})
    );
}

#[test]
fn skipping_lossy_steps_lists_them() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let t = tailor_with(
        flat(&schema),
        Profile::OpenAiStrict,
        TailorOptions { lossy: false },
    );
    assert_eq!(t.projection.schema, schema);
    assert!(t.adapters.is_empty());
    let mut rules: Vec<&str> = t.unresolved.iter().map(|u| u.rule).collect();
    rules.sort();
    assert_eq!(rules, vec!["additional-properties", "required-all"]);
}

#[test]
fn trace_messages_read_as_sentences() {
    let t = tailored(
        json!({"type": "object", "properties": {"a": {"const": "x", "default": "x"}}}),
        Profile::OpenAiStrict,
    );
    for e in t
        .projection
        .trace
        .iter()
        .filter(|e| matches!(e.detail, Detail::Tailored(_)))
    {
        let m = e.message();
        assert!(m.starts_with("openai-strict: ") && m.ends_with('.'), "{m}");
        assert_eq!(e.rule.number(), None);
    }
    let json = serde_json::to_value(&t.projection.trace.last().unwrap().detail).unwrap();
    assert_eq!(json["kind"], "tailored");
    assert!(json["step"].is_string());
}

#[test]
fn a_rewritten_negated_or_conditional_subschema_is_dropped_whole() {
    // Dropping `minLength` inside `not` would make `not` reject more; inside `if` it would
    // change which branch applies.
    let t = tailored(
        json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "not": {"properties": {"a": {"minLength": 3}}, "required": ["a"]},
            "if": {"properties": {"a": {"maxLength": 1}}},
            "then": {"required": ["b"]},
            "unevaluatedProperties": false
        }),
        Profile::AnthropicStrict,
    );
    let s = &t.projection.schema;
    for k in ["not", "if", "then", "unevaluatedProperties"] {
        assert!(s.get(k).is_none(), "`{k}` kept in {s}");
    }
    assert!(
        t.projection
            .trace
            .iter()
            .all(|e| !e.at.starts_with("/not") && !e.at.starts_with("/if")),
        "entries of dropped subschemas are forgotten"
    );
    assert!(t.adapters.iter().all(|a| a.at().is_empty()));
    // Untouched ones stay: nothing below them was rewritten.
    let kept = tailored(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
               "additionalProperties": false, "not": {"required": ["b"]}}),
        Profile::AnthropicStrict,
    );
    assert_eq!(kept.projection.schema["not"], json!({"required": ["b"]}));
}

#[test]
fn schemas_applying_together_are_neither_closed_nor_filled() {
    // `foo` is judged by the root's `properties` and by the `anyOf` alternative's: closing
    // either to its own keys would reject the other's.
    let t = tailored(
        json!({
            "type": "object",
            "properties": {"foo": {"type": "object", "properties": {"bar": {"type": "string"}}}},
            "anyOf": [{"properties": {"foo": {"type": "object", "properties": {"faz": {"type": "string"}}}}}]
        }),
        Profile::OpenAiStrict,
    );
    assert!(t.adapters.is_empty(), "{:?}", t.adapters);
    assert!(
        t.unresolved
            .iter()
            .any(|u| u.rule == "additional-properties")
    );
    assert!(t.unresolved.iter().any(|u| u.rule == "required-all"));
}
