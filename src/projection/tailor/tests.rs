use serde_json::{Map, Value, json};

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

/// The schema tailored for OpenAI strict as sent (lossy) and in its sound form.
fn openai_strict_lossy_and_sound(schema: &Value) -> (Tailored, Tailored) {
    let projection = flat(schema);
    let lossy = tailor(projection.clone(), Profile::OpenAiStrict);
    let sound = tailor_with(
        projection,
        Profile::OpenAiStrict,
        TailorOptions { lossy: false },
    );
    (lossy, sound)
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
                "kind": {"anyOf": [{"type": "string", "const": "x"}, {"type": "null"}]},
                "pet": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "d"},
                // It took null already: an explicit null needs a form of its own, one `note`
                // cannot take.
                "note": {"anyOf": [
                    {"type": ["string", "null"]},
                    {"type": "boolean", "const": false,
                     "description": "Send this for an explicit null; null itself means the property is not given."}
                ]},
                // The object was open: its other keys travel here, and come back.
                "more": {"type": ["string", "null"], "description": "Any other keys of this object, sent together as the JSON text of an object (a string); the provider takes no keys beyond the listed properties."}
            },
            "required": ["name", "more", "age", "tag", "kind", "pet", "note"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        t.adapters,
        vec![
            Adapter::Bundle {
                at: String::new(),
                property: "more".into(),
                names: vec![],
                kept: ["name", "age", "tag", "kind", "pet", "note"]
                    .map(String::from)
                    .to_vec()
            },
            Adapter::NullForAbsent {
                at: String::new(),
                properties: vec!["more".into()],
            },
            Adapter::NullMarker {
                at: String::new(),
                properties: vec!["note".into()],
                marker: json!(false),
            },
            Adapter::NullForAbsent {
                at: String::new(),
                properties: ["age", "tag", "kind", "pet", "note"]
                    .map(String::from)
                    .to_vec()
            },
        ]
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"name": "n", "note": null}),
        json!({"name": "n"}),
        json!({"name": "n", "extra": [1, {"x": null}], "more": "m"}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(validator(&t).is_valid(&a.payload), "{}", a.payload);
        assert_eq!(adapter.unadapt(&a.payload), payload);
        assert!(a.reversible());
    }
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    assert!(errors(Profile::OpenAiStrict, &t.projection.schema).is_empty());
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
    // The bare `$ref` moved into an `anyOf` beside its description, where the null that
    // stands for "absent" joined it.
    assert!(
        s.contains(r##""description":"again","anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]"##),
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
    let got: Vec<(&str, &str)> = t
        .unresolved
        .iter()
        .map(|u| (u.pointer.as_str(), u.rule))
        .collect();
    // Each of these has a form the provider takes, with an encoding.
    assert_eq!(got, vec![]);
    let p = &t.projection.schema["properties"];
    // An array that says nothing of its items takes any: `items: {}`, each one JSON text.
    assert_eq!(p["tags"]["items"]["type"], json!("string"));
    // Anything at all: JSON text. Maps: lists of entries, the value schema kept.
    assert_eq!(p["any"]["items"]["type"], json!("string"));
    assert_eq!(p["map"]["type"], json!("array"));
    assert_eq!(
        p["map"]["items"]["properties"]["value"],
        json!({"type": "integer"})
    );
    assert_eq!(
        p["free"]["items"]["properties"]["value"]["type"],
        json!("string")
    );
    let kinds: Vec<&str> = t
        .adapters
        .iter()
        .map(|a| match a {
            Adapter::JsonText { .. } => "json-text",
            Adapter::Entries { .. } => "entries",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["json-text", "json-text", "entries", "json-text", "entries"]
    );

    let union_root = tailored(
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "string"}]}),
        Profile::OpenAiStrict,
    );
    assert!(
        union_root.unresolved.is_empty(),
        "{:?}",
        union_root.unresolved
    );
    assert_eq!(
        union_root.adapters.last(),
        Some(&Adapter::Wrap {
            at: String::new(),
            property: "arguments".into()
        })
    );
    assert_eq!(
        union_root.projection.schema["required"],
        json!(["arguments"])
    );
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
fn a_map_beside_an_array_alternative_goes_as_json_text() {
    // Found by soundness_props: `{}` as entries is `[]`, which the array alternative takes
    // and the adapter gave back as `[]`.
    let t = tailored(
        json!({"type": "object", "properties": {"p": {"anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "object", "additionalProperties": {"type": "string"}}
        ]}}, "required": ["p"]}),
        Profile::OpenAiStrict,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"p": {}}),
        json!({"p": []}),
        json!({"p": {"a": "b"}}),
        json!({"p": ["x"]}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(
            validator(&t).is_valid(&a.payload),
            "{} in {}",
            a.payload,
            t.projection.schema
        );
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {}",
            a.payload
        );
    }
    assert!(errors(Profile::OpenAiStrict, &t.projection.schema).is_empty());
}

#[test]
fn a_map_where_a_sibling_alternative_has_an_array_goes_as_json_text() {
    // Found by soundness_props: the map and the array are properties of two alternatives, so
    // `{"name": {}}` sent as entries was `{"name": []}`, which the first alternative takes.
    let t = tailored(
        json!({"type": "object", "properties": {"op": {"anyOf": [
            {"type": "object", "properties": {"name": {"type": "array", "items": {"type": "string"}}}},
            {"type": "object", "properties": {"kind": {"const": "u"}, "name": {"type": "object", "additionalProperties": {"type": "string"}}}}
        ]}}, "required": ["op"]}),
        Profile::OpenAiStrict,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"op": {"name": {}}}),
        json!({"op": {"name": []}}),
        json!({"op": {"kind": "u", "name": {"a": "b"}}}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(
            validator(&t).is_valid(&a.payload),
            "{} in {}",
            a.payload,
            t.projection.schema
        );
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {}",
            a.payload
        );
    }
}

#[test]
fn gemini_keeps_enum_values_apart_from_strings_deeper_in_a_sibling() {
    // Found by soundness_props: items of one alternative take strings, items of the other an
    // enum with 1; `[1]` sent as `["1"]` came back as the strings.
    let t = tailored(
        json!({"type": "object", "properties": {"name": {"anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"enum": [1, "one", null]}}
        ]}}, "required": ["name"]}),
        Profile::Gemini,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"name": ["1"]}),
        json!({"name": [1]}),
        json!({"name": ["one", null]}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(
            validator(&t).is_valid(&a.payload),
            "{} in {}",
            a.payload,
            t.projection.schema
        );
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {} in {}",
            a.payload,
            t.projection.schema
        );
    }
}

#[test]
fn gemini_sends_an_empty_object_under_a_key_where_a_sibling_holds_a_string() {
    // Found by soundness_props: `{}` sent as the text "{}" where the other alternative's
    // `name` is a string came back as that string.
    let t = tailored(
        json!({"type": "object", "properties": {"op": {"anyOf": [
            {"type": "object", "properties": {"name": {"type": "string"}}},
            {"type": "object", "properties": {"name": {"type": "object", "properties": {}, "additionalProperties": false}}, "required": ["name"]}
        ]}}, "required": ["op"]}),
        Profile::Gemini,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [json!({"op": {"name": {}}}), json!({"op": {"name": "{}"}})] {
        let a = adapter.adapt(&payload);
        assert!(
            validator(&t).is_valid(&a.payload),
            "{} in {}",
            a.payload,
            t.projection.schema
        );
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {} in {}",
            a.payload,
            t.projection.schema
        );
    }
}

#[test]
fn a_map_beside_an_open_alternative_goes_as_json_text() {
    // Found by soundness_props: the open sibling tolerates `name: []`, which the map's entries
    // form also is.
    let t = tailored(
        json!({"type": "object", "properties": {"op": {"anyOf": [
            {"type": "object", "properties": {"name": {"type": "object", "properties": {}}}, "required": ["name"]},
            {"type": "object", "properties": {"other": {"type": "integer"}}, "required": ["other"]}
        ]}}, "required": ["op"]}),
        Profile::OpenAiStrict,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"op": {"name": {}}}),
        json!({"op": {"name": {"x": 1}}}),
        json!({"op": {"other": 1}}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(
            validator(&t).is_valid(&a.payload),
            "{} in {}",
            a.payload,
            t.projection.schema
        );
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {} in {}",
            a.payload,
            t.projection.schema
        );
    }
    // The map is sent as text: no entries form left to mistake for an array.
    assert!(
        !t.adapters
            .iter()
            .any(|a| matches!(a, Adapter::Entries { .. })),
        "{:?}",
        t.adapters
    );
}

#[test]
fn gemini_keeps_enum_values_apart_from_a_string_alternative() {
    // Found by soundness_props: `0` sent as the text "0" beside a string alternative came back
    // as the string. Beside strings the enum goes; the value stays typed.
    let t = tailored(
        json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"const": 0}]}}, "required": ["v"]}),
        Profile::Gemini,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [json!({"v": "0"}), json!({"v": 0})] {
        let a = adapter.adapt(&payload);
        assert!(validator(&t).is_valid(&a.payload), "{}", a.payload);
        assert_eq!(
            adapter.unadapt(&a.payload),
            payload,
            "sent as {}",
            a.payload
        );
    }
}

#[test]
fn gemini_sends_non_string_enums_as_text() {
    let t = tailored(
        json!({"type": "object", "properties": {"v": {"const": 1}, "w": {"enum": [1, "a", null]}}, "required": ["v"]}),
        Profile::Gemini,
    );
    let p = &t.projection.schema["properties"];
    assert_eq!(p["v"], json!({"type": "string", "enum": ["1"]}));
    assert_eq!(
        p["w"],
        json!({"anyOf": [{"type": "string", "enum": ["1", "a"]}, {"type": "null"}]})
    );
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    for payload in [
        json!({"v": 1, "w": 1}),
        json!({"v": 1, "w": "a"}),
        json!({"v": 1, "w": null}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(validator(&t).is_valid(&a.payload), "{}", a.payload);
        assert_eq!(adapter.unadapt(&a.payload), payload);
    }
    // `1` and `"1"` in one enum: no text for 1 that is not already a value; the enum goes.
    let clash = tailored(
        json!({"type": "object", "properties": {"v": {"type": "integer", "enum": [1, "1"]}}}),
        Profile::Gemini,
    );
    assert_eq!(
        clash.projection.schema["properties"]["v"],
        json!({"type": "integer"})
    );
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
    // A tuple becomes one item schema for every position; `additionalProperties: false` would
    // reject the keys the dropped pattern allowed.
    assert_eq!(
        t.projection.schema["properties"]["p"],
        json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}})
    );
    assert_eq!(
        t.projection.schema["properties"]["q"],
        json!({"type": "object", "properties": {"a": {"type": "string"}}})
    );
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
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
    for (payload, filled, encoded) in [
        (json!({"v": {"c": "x"}}), vec!["/opt"], vec![]),
        // An undeclared key travels in the open alternative's carrier, and comes back.
        (
            json!({"v": {"a": "x", "z": 1}}),
            vec!["/v/b", "/opt"],
            vec!["/v/more"],
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
        assert_eq!(a.encoded, encoded, "{payload}");
        assert!(a.reversible(), "{payload}");
        assert_eq!(adapter.unadapt(&a.payload), payload);
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
    // Only the exact `required: []` the provider wants on every object.
    assert_eq!(
        t.projection.schema,
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": []})
    );
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
    // The root union is wrapped; nothing inside is closed or filled.
    assert!(!t.is_lossy(), "{:?}", t.adapters);
    assert!(
        t.unresolved
            .iter()
            .any(|u| u.rule == "additional-properties")
    );
    assert!(t.unresolved.iter().any(|u| u.rule == "required-all"));
}

#[test]
fn gemini_sends_refused_property_names_under_names_it_takes() {
    let t = tailored(
        json!({"type": "object", "properties": {
            "user-id": {"type": "string"},
            "user_id": {"type": "integer"},
            "2fa": {"type": "object", "properties": {"io.x/y": {"type": "string"}}}
        }, "required": ["user-id"]}),
        Profile::Gemini,
    );
    let s = &t.projection.schema;
    let names: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["user_id_2", "user_id", "_2fa"]);
    assert_eq!(s["required"], json!(["user_id_2"]));
    assert_eq!(
        s["properties"]["_2fa"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["io_x_y"]
    );
    // The renamed property kept its link to the original node.
    assert!(
        !t.projection
            .links
            .originals("/properties/_2fa/properties/io_x_y")
            .is_empty()
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    let p = json!({"user-id": "a", "user_id": 1, "2fa": {"io.x/y": "z"}});
    let a = adapter.adapt(&p);
    assert_eq!(
        a.payload,
        json!({"user_id_2": "a", "user_id": 1, "_2fa": {"io_x_y": "z"}})
    );
    assert!(validator(&t).is_valid(&a.payload));
    assert_eq!(adapter.unadapt(&a.payload), p);
}

#[test]
fn an_undeclared_key_under_a_renamed_propertys_sent_name_is_reported_not_exact() {
    // The object stays open for Gemini, so a payload may hold `user_id` beside `user-id`; the
    // provider's form has one `user_id`, and un-adapting would read it as `user-id`.
    let t = tailored(
        json!({"type": "object", "properties": {"user-id": {"type": "string"}}}),
        Profile::Gemini,
    );
    let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
    let both = adapter.adapt(&json!({"user-id": "a", "user_id": 1}));
    assert_eq!(both.payload, json!({"user_id": "a"}));
    assert_eq!(both.renamed, ["/user-id"]);
    assert_eq!(both.collided, ["/user_id"]);
    assert!(!both.reversible());
    let alone = adapter.adapt(&json!({"user_id": 1}));
    assert_eq!(alone.collided, ["/user_id"]);
    assert!(!alone.reversible());
    let declared = adapter.adapt(&json!({"user-id": "a", "other": 1}));
    assert!(declared.collided.is_empty());
    assert!(declared.reversible());
    assert_eq!(
        adapter.unadapt(&declared.payload),
        json!({"user-id": "a", "other": 1})
    );
}

#[test]
fn a_maps_count_bounds_on_its_entries_are_judged_like_any_arrays() {
    // Found on GitHub's REST description: `maxProperties` became the entries' `maxItems`, which
    // Anthropic strict refuses, after its keyword steps had already run on the map.
    let schema = json!({
        "type": "object",
        "properties": {
            "labels": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "minProperties": 2,
                "maxProperties": 5
            }
        },
        "required": ["labels"],
        "additionalProperties": false
    });
    let strict = tailored(schema.clone(), Profile::AnthropicStrict);
    let labels = &strict.projection.schema["properties"]["labels"];
    assert_eq!(labels["type"], json!("array"), "{labels}");
    assert!(labels.get("maxItems").is_none(), "{labels}");
    assert!(labels.get("minItems").is_none(), "{labels}");
    assert_eq!(
        errors(Profile::AnthropicStrict, &strict.projection.schema),
        Vec::<&str>::new()
    );
    let dropped: Vec<Rule> = rules(&strict)
        .into_iter()
        .filter(|(_, at)| at == "/properties/labels")
        .map(|(r, _)| r)
        .collect();
    assert!(dropped.contains(&Rule::TailorDropKeyword), "{dropped:?}");
    // Where the provider takes count bounds, they stay on the entries.
    let gemini = tailored(schema, Profile::Gemini);
    let labels = &gemini.projection.schema["properties"]["labels"];
    assert_eq!(labels["type"], json!("array"), "{labels}");
    assert_eq!(labels["minItems"], json!(2), "{labels}");
    assert_eq!(labels["maxItems"], json!(5), "{labels}");
}

/// Optional properties that accept `null` themselves are wrapped with a marker in the lossy
/// form only, one level each: a chain of nine that the sound form keeps within OpenAI's 10
/// levels is 18 deep in the lossy form, which carries a value as JSON text there. The sound
/// form must carry the same value: whatever string the provider sends in that carrier
/// un-adapts to a value only a carrier accepts (minimal case of the soundness property (d)).
#[test]
fn the_sound_form_carries_what_the_lossy_form_carries_past_the_depth_limit() {
    let mut next = json!({
        "type": ["object", "null"],
        "properties": {"v": {"type": "integer"}},
        "required": ["v"]
    });
    for _ in 0..8 {
        next = json!({"type": ["object", "null"], "properties": {"next": next}});
    }
    let schema = json!({"type": "object", "properties": {"next": next}});
    let (lossy, sound) = openai_strict_lossy_and_sound(&schema);
    let carried = |t: &Tailored| -> Vec<String> {
        t.projection
            .trace
            .iter()
            .filter(|e| matches!(e.detail, Detail::Tailored(Tailoring::DeepJsonText { .. })))
            .map(|e| e.at.clone())
            .collect()
    };
    let (in_lossy, in_sound) = (carried(&lossy), carried(&sound));
    assert_eq!(in_lossy.len(), 1, "{}", lossy.projection.schema);
    // The same value: the lossy form's pointer without the marker unions' `anyOf/0`.
    assert_eq!(in_sound, vec![in_lossy[0].replace("/anyOf/0", "")]);
    assert!(!errors(Profile::OpenAiStrict, &lossy.projection.schema).contains(&"limit-depth"));

    // A payload the lossy form accepts with text in the carrier that is not JSON.
    let draft = jsonschema::Draft::Draft202012;
    let mut payload = json!({"v": 1});
    for _ in 0..9 {
        payload = json!({"next": payload});
    }
    let mut sent = lossy.payload_adapter(draft).adapt(&payload).payload;
    let mut here = &mut sent;
    while here.is_object() {
        here = &mut here["next"];
    }
    assert!(here.is_string(), "no carrier on the way down: {sent}");
    *here = json!("not JSON text");
    assert!(validator(&lossy).is_valid(&sent), "{sent}");
    let back = lossy.payload_adapter(draft).unadapt(&sent);
    let in_sound_form = sound.payload_adapter(draft).adapt(&back).payload;
    assert!(
        validator(&sound).is_valid(&in_sound_form),
        "un-adapted {back}, in the sound form {in_sound_form}, rejected by {}",
        sound.projection.schema
    );
}

/// A tool with one property nested past OpenAI's 10 levels in its own tree and a recursive
/// model used six objects down (LiveConnectConfig in google-genai has both): the deepest path
/// stays in the tree, so unrolling is not wanted first; once the depth carriers cut that path,
/// the recursion read through its `$ref` is still 11 levels deep and only unrolling shortens
/// it. The tailored form must pass the lint, and payloads through both must come back exact.
#[test]
fn recursion_past_the_limit_beside_a_deeper_plain_path_is_unrolled_after_the_carriers() {
    let mut deep = json!({"type": "string"});
    for i in 0..13 {
        let name = format!("n{i}");
        deep = json!({"type": "object", "properties": {name.clone(): deep}, "required": [name]});
    }
    let mut tree = json!({"$ref": "#/$defs/Node"});
    for i in 0..6 {
        let name = format!("t{i}");
        tree = json!({"type": "object", "properties": {name.clone(): tree}, "required": [name]});
    }
    let schema = json!({
        "type": "object",
        "properties": {"deep": deep, "tree": tree},
        "required": ["deep", "tree"],
        "$defs": {"Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            },
            "required": ["name", "children"]
        }}
    });
    let options = Options {
        recursion: crate::projection::Recursion::Keep,
        ..Options::flat()
    };
    let projection = project(&schema, &options).expect("projects");
    let lossy = tailor(projection.clone(), Profile::OpenAiStrict);
    let sound = tailor_with(
        projection,
        Profile::OpenAiStrict,
        TailorOptions { lossy: false },
    );
    let sent = &lossy.projection.schema;
    assert_eq!(
        errors(Profile::OpenAiStrict, sent),
        Vec::<&str>::new(),
        "{sent}"
    );
    assert!(lossy.unresolved.is_empty(), "{:?}", lossy.unresolved);
    let unrolled = |t: &Tailored| {
        t.projection.trace.iter().any(|e| {
            matches!(
                e.detail,
                Detail::Tailored(Tailoring::RecursionUnrolled { .. })
            )
        })
    };
    assert!(unrolled(&lossy) && unrolled(&sound), "{sent}");
    let deep_carried = rules(&lossy)
        .into_iter()
        .any(|(r, at)| r == Rule::TailorJsonText && at.starts_with("/properties/deep/"));
    assert!(deep_carried, "the plain path is carried: {sent}");

    let mut node = json!({"name": "leaf", "children": []});
    for i in 0..4 {
        node = json!({"name": format!("n{i}"), "children": [node, {"name": "z", "children": []}]});
    }
    let mut tree = node;
    for i in 0..6 {
        tree = json!({format!("t{i}"): tree});
    }
    let mut deep = json!("x");
    for i in 0..13 {
        deep = json!({format!("n{i}"): deep});
    }
    let payload = json!({"deep": deep, "tree": tree});
    let draft = jsonschema::Draft::Draft202012;
    for t in [&lossy, &sound] {
        let adapter = t.payload_adapter(draft);
        let adapted = adapter.adapt(&payload);
        assert!(
            validator(t).is_valid(&adapted.payload),
            "{}",
            adapted.payload
        );
        assert_eq!(adapter.unadapt(&adapted.payload), payload);
    }
}

/// OpenAPI's "one of these fields" (13 GitHub REST request bodies): an object's `anyOf` whose
/// alternatives only require some of its properties, or narrow one's values.
fn one_of_these_fields() -> Value {
    json!({
        "type": "object",
        "properties": {"body": {
            "type": "object",
            "description": "What to change.",
            "properties": {
                "state": {"type": "string", "enum": ["open", "closed", "dismissed"]},
                "reason": {"type": "string"},
                "assignees": {"type": "array", "items": {"type": "string"}}
            },
            "anyOf": [
                {"required": ["state"], "properties": {"state": {"enum": ["dismissed"]}}},
                {"required": ["assignees"]}
            ]
        }},
        "required": ["body"]
    })
}

#[test]
fn an_object_choosing_among_its_own_fields_is_one_plain_object_per_alternative() {
    let schema = one_of_these_fields();
    let projection = flat(&schema);
    let p_valid = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&projection.schema)
        .unwrap();
    let payloads = [
        json!({"body": {"state": "dismissed", "reason": "fixed"}}),
        json!({"body": {"assignees": ["a"]}}),
        json!({"body": {"state": "dismissed", "assignees": []}}),
        json!({"body": {"state": "open", "assignees": ["b"]}}),
        // Neither alternative: refused before and after.
        json!({"body": {"reason": "x"}}),
        json!({"body": {"state": "open"}}),
        json!({"body": {}}),
    ];
    for profile in [
        Profile::OpenAiStrict,
        Profile::Gemini,
        Profile::AnthropicStrict,
    ] {
        let t = tailor(projection.clone(), profile);
        assert!(t.unresolved.is_empty(), "{profile}: {:?}", t.unresolved);
        assert_eq!(errors(profile, &t.projection.schema), Vec::<&str>::new());
        let body = &t.projection.schema["properties"]["body"];
        let alternatives = body["anyOf"].as_array().expect("a union of objects");
        assert_eq!(alternatives.len(), 2, "{profile}: {body}");
        for a in alternatives {
            assert_eq!(a["type"], json!("object"), "{profile}: {a}");
            assert!(a["properties"]["reason"].is_object(), "{profile}: {a}");
        }
        assert_eq!(body["description"], json!("What to change."));
        // The first alternative's `state` takes only what both said.
        let state = &alternatives[0]["properties"]["state"]["enum"];
        assert!(
            state.as_array().unwrap().contains(&json!("dismissed")),
            "{state}"
        );
        assert!(
            !state.as_array().unwrap().contains(&json!("open")),
            "{state}"
        );
        let traced = t
            .projection
            .trace
            .iter()
            .find(|e| e.rule == Rule::TailorDistributeProperties)
            .expect("traced");
        assert_eq!(traced.at, "/properties/body");
        assert!(traced.message().contains("`state`"), "{}", traced.message());
        assert!(
            traced.message().contains("The same values"),
            "{}",
            traced.message()
        );

        let valid = validator(&t);
        let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
        for p in &payloads {
            let sent = adapter.adapt(p);
            assert_eq!(
                valid.is_valid(&sent.payload),
                p_valid.is_valid(p),
                "{profile}: {p} sent as {}",
                sent.payload
            );
            if p_valid.is_valid(p) {
                assert_eq!(&adapter.unadapt(&sent.payload), p, "{profile}");
            }
        }
    }
}

#[test]
fn a_union_that_is_more_than_a_choice_among_fields_stays_as_it_was() {
    let with = |body: Value| json!({"type": "object", "properties": {"body": body}});
    let cases = [
        // An alternative that closes the object says more than which fields it has.
        json!({"type": "object", "properties": {"a": {"type": "string"}},
               "anyOf": [{"required": ["a"], "additionalProperties": false}, {"required": ["b"]}]}),
        // A name the object's `additionalProperties` judged: listing it would move it out.
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false,
               "anyOf": [{"properties": {"b": {"type": "string"}}, "required": ["b"]}]}),
        // Two descriptions of one property that do not meet in one schema here.
        json!({"type": "object", "properties": {"a": {"type": "string"}},
               "anyOf": [{"properties": {"a": {"minLength": 2}}}, {"required": ["a"]}]}),
        // Another applicator beside the union also judges the object.
        json!({"type": "object", "properties": {"a": {"type": "string"}},
               "not": {"required": ["b"]}, "anyOf": [{"required": ["a"]}]}),
    ];
    for body in cases {
        let t = tailored(with(body.clone()), Profile::OpenAiStrict);
        assert!(
            !t.projection
                .trace
                .iter()
                .any(|e| e.rule == Rule::TailorDistributeProperties),
            "distributed {body}"
        );
    }
}

/// Four optional enums of 250 values: 1,000 values, within OpenAI's limit as the sound form
/// counts them, 1,004 in the lossy form (each made nullable, `null` added to its values). The
/// lossy form drops one enum; a value outside it that the provider may then send must pass the
/// sound form too, so the sound form drops the same one.
#[test]
fn the_sound_form_drops_the_enums_the_lossy_form_drops() {
    let mut properties = Map::new();
    for p in ["a", "b", "c", "d"] {
        let values: Vec<Value> = (0..250).map(|i| json!(format!("{p}{i}"))).collect();
        properties.insert(p.into(), json!({"type": "string", "enum": values}));
    }
    let schema = json!({"type": "object", "properties": properties});
    let (lossy, sound) = openai_strict_lossy_and_sound(&schema);
    let dropped = |t: &Tailored| -> Vec<String> {
        t.projection
            .trace
            .iter()
            .filter(|e| {
                matches!(
                    e.detail,
                    Detail::Tailored(Tailoring::LimitEnumDropped { .. })
                )
            })
            .map(|e| e.at.clone())
            .collect()
    };
    assert_eq!(dropped(&lossy), vec!["/properties/d"]);
    assert_eq!(dropped(&sound), dropped(&lossy));
    assert!(
        !errors(Profile::OpenAiStrict, &lossy.projection.schema).contains(&"limit-enum-values")
    );
    let draft = jsonschema::Draft::Draft202012;
    // `more`: the open object's other keys (none).
    let sent = json!({"a": null, "b": "b1", "c": null, "d": "not one of the values", "more": null});
    assert!(validator(&lossy).is_valid(&sent), "{sent}");
    let back = lossy.payload_adapter(draft).unadapt(&sent);
    assert_eq!(back, json!({"b": "b1", "d": "not one of the values"}));
    assert!(
        validator(&sound).is_valid(&back),
        "{back} rejected by {}",
        sound.projection.schema
    );
}

#[path = "../../../tests/support/ref_fan.rs"]
mod ref_fan;

/// The lint's tailoring (untraced) with every record written: no carrier expected.
fn walked_in_full(projection: &Projection, profile: Profile) -> Tailored {
    let full = rewrite::run_expecting(
        std::borrow::Cow::Borrowed(projection),
        profile,
        TailorOptions::default(),
        Trace::Skipped,
        None,
    );
    full.unwrap_or_else(|_| panic!("a walk that leaves nothing out holds"))
}

/// The lint's tailoring walked without records inside the carrier expected on the projection
/// (asserted to be the root property); `None` when that did not hold.
fn walked_expecting_root(projection: &Projection, profile: Profile) -> Option<Tailored> {
    let expected = rewrite::expected_carrier(profile, &projection.schema);
    assert_eq!(expected.as_deref(), Some("/properties/root"), "{profile}");
    rewrite::run_expecting(
        std::borrow::Cow::Borrowed(projection),
        profile,
        TailorOptions::default(),
        Trace::Skipped,
        expected.as_deref(),
    )
    .ok()
}

/// What the lint reads of a tailoring: the schema, its links back, adapters, unresolved.
fn assert_same_tailoring(got: &Tailored, full: &Tailored, at: &str) {
    assert_eq!(got.projection.schema, full.projection.schema, "{at}");
    assert!(
        got.projection.links.iter().eq(full.projection.links.iter()),
        "{at}"
    );
    assert_eq!(got.adapters, full.adapters, "{at}");
    assert_eq!(got.unresolved, full.unresolved, "{at}");
}

/// Issue 10's ref-fan, inlined, is far over OpenAI's and Anthropic's size limits, and the fit
/// carries its one root property as JSON text: the lint's walk leaves out the records inside
/// that property, and its result is the full walk's.
#[test]
fn the_expected_carrier_is_walked_without_records_and_the_result_is_the_full_walks() {
    let doc = ref_fan::document(5, 6, true);
    let projection = project(&doc, &Options::inline()).expect("projects");
    for profile in [Profile::OpenAiStrict, Profile::AnthropicStrict] {
        let quiet = walked_expecting_root(&projection, profile)
            .unwrap_or_else(|| panic!("{profile}: the root property is carried"));
        let full = walked_in_full(&projection, profile);
        assert_same_tailoring(&quiet, &full, &format!("{profile}"));
        assert!(
            full.adapters
                .iter()
                .any(|a| matches!(a, Adapter::JsonText { at, .. } if at == "/properties/root"))
        );
        let lint = tailor_traced(
            std::borrow::Cow::Borrowed(&projection),
            profile,
            Trace::Skipped,
        );
        assert_same_tailoring(&lint, &full, &format!("{profile}, as the lint asks"));
    }
}

/// Counted on the projection, the root property holds 6,000 optional properties (inside a
/// `not`), but Anthropic strict drops the `not`, and the tailored schema fits without carrying
/// anything: the walk without records does not hold, and the lint gets the full walk's result.
#[test]
fn an_expected_carrier_the_fit_leaves_is_walked_again_in_full() {
    let many: Map<String, Value> = (0..6000)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let doc = json!({
        "type": "object",
        "properties": {"root": {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "not": {"type": "object", "properties": many},
        }},
        "required": ["root"],
    });
    let projection = project(&doc, &Options::inline()).expect("projects");
    let profile = Profile::AnthropicStrict;
    let quiet = walked_expecting_root(&projection, profile);
    assert!(quiet.is_none(), "nothing is carried");
    let full = walked_in_full(&projection, profile);
    assert!(
        full.adapters
            .iter()
            .all(|a| !matches!(a, Adapter::JsonText { .. }))
    );
    let lint = tailor_traced(
        std::borrow::Cow::Borrowed(&projection),
        profile,
        Trace::Skipped,
    );
    assert_same_tailoring(&lint, &full, "anthropic-strict, `not` dropped");
}

/// The webhooks manifest in inline mode: a root union of payloads that differ in `action`.
/// OpenAI, Anthropic, Bedrock, MCP clients and Gemini's JSON Schema field all refuse a root
/// that is not one object; each gets it wrapped, with the adapter that puts it back.
#[test]
fn every_profile_that_refuses_a_root_union_gets_it_wrapped() {
    let union = json!({"anyOf": [
        {"type": "object", "properties": {"action": {"const": "opened"}, "n": {"type": "integer"}},
         "required": ["action"]},
        {"type": "object", "properties": {"action": {"const": "closed"}, "why": {"type": "string"}},
         "required": ["action"]}
    ]});
    let payloads = [
        json!({"action": "opened", "n": 3}),
        json!({"action": "closed", "why": "done"}),
    ];
    for profile in [
        Profile::OpenAi,
        Profile::Anthropic,
        Profile::Bedrock,
        Profile::Mcp,
        Profile::GeminiJsonSchema,
    ] {
        let refused = errors(profile, &union);
        assert!(
            refused.iter().any(|r| r.starts_with("root-")),
            "{profile:?} refuses the root union itself: {refused:?}"
        );
        let inline = Options {
            mode: crate::projection::Mode::Inline,
            ..Options::default()
        };
        let t = tailor(project(&union, &inline).unwrap(), profile);
        let root = &t.projection.schema;
        assert_eq!(root["type"], json!("object"), "{profile:?}: {root}");
        assert_eq!(
            root["properties"].as_object().map(Map::len),
            Some(1),
            "{root}"
        );
        assert!(t.unresolved.is_empty(), "{profile:?}: {:?}", t.unresolved);
        assert_eq!(errors(profile, root), Vec::<&str>::new(), "{profile:?}");
        let adapter = t.payload_adapter(jsonschema::Draft::Draft202012);
        for p in &payloads {
            let sent = adapter.adapt(p);
            assert!(
                validator(&t).is_valid(&sent.payload),
                "{profile:?}: {}",
                sent.payload
            );
            assert_eq!(&adapter.unadapt(&sent.payload), p, "{profile:?}");
        }
    }
    // A root that already is one object is left as it is (and costs no walk).
    let object = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let t = tailor(
        project(&object, &Options::default()).unwrap(),
        Profile::OpenAi,
    );
    assert_eq!(t.projection.schema, object);
}

// ---------------------------------------------------------------------------------------------
// The other keys of a closed object (issue 10: no valid payload lost).

const DRAFT: jsonschema::Draft = jsonschema::Draft::Draft202012;

/// A Pydantic model as emitted by default (no `additionalProperties`): Anthropic strict
/// closes it, and the other keys travel as the JSON text of an object in an optional `more`.
#[test]
fn anthropic_strict_carries_an_open_objects_other_keys_as_json_text() {
    let t = tailored(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
        Profile::AnthropicStrict,
    );
    let s = &t.projection.schema;
    assert_eq!(s["additionalProperties"], json!(false), "{s}");
    assert_eq!(s["properties"]["more"]["type"], json!("string"), "{s}");
    assert_eq!(s["required"], json!(["a"]), "{s}");
    assert_eq!(
        t.adapters,
        vec![Adapter::Bundle {
            at: String::new(),
            property: "more".into(),
            names: vec![],
            kept: vec!["a".into()],
        }]
    );
    assert!(!t.is_lossy());
    let v = validator(&t);
    let adapter = t.payload_adapter(DRAFT);
    for payload in [
        json!({"a": "x"}),
        json!({"a": "x", "b": 1, "c": {"d": [null]}}),
        // A key named like the carrier is one of the other keys too.
        json!({"a": "x", "more": "{\"b\": 1}"}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(v.is_valid(&a.payload), "{payload} sent as {}", a.payload);
        assert!(a.reversible());
        assert_eq!(adapter.unadapt(&a.payload), payload);
    }
    // What the model may send that no adapter made stays as it is, under a key the original
    // leaves open; text that would overwrite a declared property is no bundle either.
    for sent in [
        json!({"a": "x", "more": "not json"}),
        json!({"a": "x", "more": "[1]"}),
        json!({"a": "x", "more": "{\"a\": 5}"}),
    ] {
        assert!(v.is_valid(&sent));
        let back = adapter.read_back(&sent);
        assert_eq!(back.payload, sent);
        assert_eq!(back.unread, vec!["/more".to_owned()]);
    }
    let close = t
        .projection
        .trace
        .iter()
        .find(|e| e.rule == Rule::TailorCloseObject)
        .expect("traced");
    let text = close.message();
    assert!(text.contains("in one more property, `more`"), "{text}");
}

/// A name the object declares is not the carrier's.
#[test]
fn the_carrier_takes_a_name_the_object_leaves_free() {
    let t = tailored(
        json!({"type": "object", "properties": {"more": {"type": "integer"}, "more_2": {"type": "boolean"}}}),
        Profile::AnthropicStrict,
    );
    let props = &t.projection.schema["properties"];
    assert!(props.get("more_3").is_some(), "{props}");
    let adapter = t.payload_adapter(DRAFT);
    let payload = json!({"more": 1, "more_2": true, "more_3": "x"});
    let a = adapter.adapt(&payload);
    assert!(validator(&t).is_valid(&a.payload), "{}", a.payload);
    assert_eq!(adapter.unadapt(&a.payload), payload);
}

/// Typed other keys (GitHub's app `permissions`): JSON text would let the model send values
/// their schema refuses, so they go as `{key, value}` entries whose value schema is theirs.
#[test]
fn typed_other_keys_travel_as_entries_that_keep_their_schema() {
    let schema = json!({
        "type": "object",
        "properties": {"issues": {"type": "string"}},
        "required": ["issues"],
        "additionalProperties": {"enum": [1, "one", null]}
    });
    for profile in [Profile::AnthropicStrict, Profile::OpenAiStrict] {
        let t = tailored(schema.clone(), profile);
        let s = &t.projection.schema;
        assert_eq!(s["additionalProperties"], json!(false), "{profile} {s}");
        let entries = &s["properties"]["more"];
        assert_eq!(
            entries["items"]["properties"]["key"],
            json!({"type": "string"}),
            "{profile} {s}"
        );
        assert!(
            t.adapters.contains(&Adapter::KeyEntries {
                at: String::new(),
                property: "more".into(),
                kept: vec!["issues".into()],
            }),
            "{profile} {:?}",
            t.adapters
        );
        assert!(t.unresolved.is_empty(), "{profile} {:?}", t.unresolved);
        let v = validator(&t);
        let adapter = t.payload_adapter(DRAFT);
        let original = jsonschema::validator_for(&schema).unwrap();
        for payload in [
            json!({"issues": "read"}),
            json!({"issues": "read", "x": 1, "y": "one", "z": null}),
            json!({"issues": "read", "more": 1}),
        ] {
            let a = adapter.adapt(&payload);
            assert!(
                v.is_valid(&a.payload),
                "{profile} {payload} sent as {}",
                a.payload
            );
            assert_eq!(adapter.unadapt(&a.payload), payload, "{profile}");
        }
        // A value the schema for the other keys refuses cannot be sent, and JSON text is no
        // carrier here.
        for refused in [
            json!({"issues": "r", "more": [{"key": "x", "value": "two"}]}),
            json!({"issues": "r", "more": "{\"x\": 1}"}),
        ] {
            assert!(!v.is_valid(&refused), "{profile} {refused}");
        }
        // An entry under a declared name never overwrites the property.
        let sent = json!({"issues": "r", "more": [{"key": "issues", "value": 1}, {"key": "w", "value": "one"}]});
        assert!(v.is_valid(&sent), "{profile} {sent}");
        let back = adapter.unadapt(&sent);
        assert_eq!(back, json!({"issues": "r", "w": "one"}), "{profile}");
        assert!(original.is_valid(&back));
    }
}

/// Anthropic strict's budget of optional properties: the fit bundles optional properties into
/// the carrier the closed object has already, under one adapter.
#[test]
fn the_fit_bundles_optional_properties_into_the_other_keys_carrier() {
    let mut properties = Map::new();
    for i in 0..30 {
        properties.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let t = tailored(
        json!({"type": "object", "properties": properties}),
        Profile::AnthropicStrict,
    );
    let props = t.projection.schema["properties"].as_object().unwrap();
    assert!(
        props.contains_key("more") && !props.contains_key("more_2"),
        "{props:?}"
    );
    let bundles: Vec<&Adapter> = t
        .adapters
        .iter()
        .filter(|a| matches!(a, Adapter::Bundle { .. }))
        .collect();
    assert_eq!(bundles.len(), 1, "{:?}", t.adapters);
    // Within the 24 optional properties (the carrier is one of them).
    let required = t.projection.schema["required"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(props.len() - required <= 24, "{props:?}");
    let adapter = t.payload_adapter(DRAFT);
    let payload = json!({"p0": "a", "p29": "b", "other": {"k": 1}});
    let a = adapter.adapt(&payload);
    assert!(validator(&t).is_valid(&a.payload), "{}", a.payload);
    assert_eq!(adapter.unadapt(&a.payload), payload);
}

/// Explicit `null` kept apart from absent where OpenAI strict sends `null` for absent, even
/// with `default: null` (Pydantic's `Optional[X] = None`), with the marker chosen through the
/// local `$ref` (a string model: `false`, not `"<null>"`), written as `const`.
#[test]
fn an_explicit_null_is_kept_apart_from_absent_through_refs_and_default_null() {
    let schema = json!({
        "type": "object",
        "properties": {
            "m": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}], "default": null},
            "n": {"type": ["object", "null"], "properties": {"a": {"type": "string"}},
                  "required": ["a"], "additionalProperties": false, "default": null}
        },
        "additionalProperties": false,
        "$defs": {"M": {"type": "string", "pattern": "^[a-z]+$"}}
    });
    let projection = project(&schema, &Options::inline()).expect("projects");
    let t = tailor(projection, Profile::OpenAiStrict);
    let markers: Vec<(&Vec<String>, &Value)> = t
        .adapters
        .iter()
        .filter_map(|a| match a {
            Adapter::NullMarker {
                properties, marker, ..
            } => Some((properties, marker)),
            _ => None,
        })
        .collect();
    assert_eq!(
        markers,
        vec![
            (&vec!["m".to_owned()], &json!(false)),
            (&vec!["n".to_owned()], &json!("<null>")),
        ],
        "{}",
        t.projection.schema
    );
    let text = t.projection.schema.to_string();
    assert!(!text.contains(r#""enum":[false]"#), "{text}");
    let v = validator(&t);
    let adapter = t.payload_adapter(DRAFT);
    for payload in [
        json!({}),
        json!({"m": null}),
        json!({"n": null, "m": "abc"}),
        json!({"n": {"a": "x"}}),
    ] {
        let a = adapter.adapt(&payload);
        assert!(v.is_valid(&a.payload), "{payload} sent as {}", a.payload);
        assert!(a.reversible(), "{payload}");
        assert_eq!(adapter.unadapt(&a.payload), payload);
    }
}

/// An object nested `levels` objects down under `l1`, `l2`, …, with `innermost` at the bottom.
fn nested_in_objects(levels: usize, innermost: Value) -> Value {
    (1..=levels).rev().fold(innermost, |inner, i| {
        json!({"type": "object", "properties": {format!("l{i}"): inner}, "required": [format!("l{i}")]})
    })
}

/// The carrier of a deep object's typed other keys nests past OpenAI's 10 levels (carrier,
/// `items`, `value`), so the whole list of entries goes as JSON text. Until the carrier's own
/// encoding was applied, other keys there were sent as a bare list the tailored schema refuses,
/// and a text carrier came back as a key named `more`.
#[test]
fn a_carrier_past_the_depth_limit_goes_as_the_json_text_of_its_entries() {
    let schema = nested_in_objects(
        9,
        json!({"type": "object", "properties": {"x": {"type": "string"}},
               "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}),
    );
    let t = tailored(schema, Profile::OpenAiStrict);
    let inner: String = (1..=9).map(|i| format!("/properties/l{i}")).collect();
    let carrier = format!("{inner}/properties/more");
    assert!(
        t.adapters
            .iter()
            .any(|a| matches!(a, Adapter::JsonText { at, key: None } if *at == carrier)),
        "{:?}",
        t.adapters
    );
    assert!(errors(Profile::OpenAiStrict, &t.projection.schema).is_empty());
    let v = validator(&t);
    let adapter = t.payload_adapter(DRAFT);
    let payload = payload_at_depth(9, json!({"x": "a", "k": {"n": 1}, "more": {"n": 2}}));
    let a = adapter.adapt(&payload);
    assert!(v.is_valid(&a.payload), "{payload} sent as {}", a.payload);
    let sent_carrier: String = (1..=9).map(|i| format!("/l{i}")).collect::<String>() + "/more";
    let text = a.payload.pointer(&sent_carrier).and_then(Value::as_str);
    assert_eq!(
        text.map(|t| serde_json::from_str::<Value>(t).unwrap()),
        Some(json!([{"key": "k", "value": {"n": 1}}, {"key": "more", "value": {"n": 2}}])),
        "{}",
        a.payload
    );
    assert!(a.reversible());
    let back = adapter.read_back(&a.payload);
    assert_eq!(back.payload, payload);
    assert!(back.unread.is_empty());
    // Text the model makes up there is passed on as it came, and said to be unread.
    let mut made_up = a.payload.clone();
    *made_up.pointer_mut(&sent_carrier).unwrap() = json!("not json");
    assert!(v.is_valid(&made_up));
    let back = adapter.read_back(&made_up);
    assert_eq!(back.unread, vec![sent_carrier.clone()]);
    assert_eq!(
        back.payload.pointer(&sent_carrier),
        Some(&json!("not json"))
    );
    let mut not_entries = a.payload.clone();
    *not_entries.pointer_mut(&sent_carrier).unwrap() = json!("[1, 2]");
    assert_eq!(adapter.read_back(&not_entries).unread, vec![sent_carrier]);
}

/// `value` under `l1`, …, `l<levels>`.
fn payload_at_depth(levels: usize, value: Value) -> Value {
    (1..=levels)
        .rev()
        .fold(value, |inner, i| json!({ format!("l{i}"): inner }))
}

/// Unread text under a property sent under another name is named by the tool's name: the
/// pointer is into what the tool is given.
#[test]
fn unread_text_is_named_where_the_tool_gets_it() {
    let t = tailored(
        json!({"type": "object", "properties": {"$ref": {}, "n": {"type": "integer"}}}),
        Profile::Gemini,
    );
    assert!(
        t.adapters
            .iter()
            .any(|a| matches!(a, Adapter::Rename { .. })),
        "{:?}",
        t.adapters
    );
    let adapter = t.payload_adapter(DRAFT);
    let sent = adapter.adapt(&json!({"$ref": {"a": 1}, "n": 2})).payload;
    let mut made_up = sent.clone();
    let text = sent
        .as_object()
        .and_then(|o| o.iter().find(|(k, _)| *k != "n"))
        .map(|(k, v)| match v {
            Value::String(_) => format!("/{k}"),
            _ => format!("/{k}/json"),
        })
        .expect("the renamed property is sent");
    *made_up.pointer_mut(&text).expect("JSON text") = json!("nope");
    assert!(validator(&t).is_valid(&made_up), "{made_up}");
    let back = adapter.read_back(&made_up);
    assert_eq!(back.unread, vec!["/$ref".to_owned()], "{}", back.payload);
    assert!(back.payload.get("$ref").is_some(), "{}", back.payload);
    assert!(adapter.read_back(&sent).unread.is_empty());
}
