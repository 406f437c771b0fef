//! SPEC.md reference examples and one test per rule, checked against a real validator.

use schemalens::projection::{Detail, JoinOutcome, Rule};
use schemalens::schema::Draft;
use schemalens::{Mode, OpenBranches, Options, Projection, ProjectionError, Recursion, project};
use serde_json::{Value, json};

fn accepts(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .expect("schema compiles")
        .is_valid(instance)
}

fn flat(schema: &Value) -> Projection {
    project(schema, &Options::flat()).expect("projects")
}

fn inline(schema: &Value) -> Projection {
    project(schema, &Options::inline()).expect("projects")
}

fn rules(p: &Projection) -> Vec<Rule> {
    p.trace.iter().map(|e| e.rule).collect()
}

/// Keys found in schema positions anywhere in the projection.
fn schema_keys(schema: &Value) -> Vec<String> {
    let mut keys = Vec::new();
    let mut stack = vec![schema];
    while let Some(s) = stack.pop() {
        if let Some(m) = s.as_object() {
            keys.extend(m.keys().cloned());
        }
        stack.extend(
            schemalens::schema::children(s)
                .into_iter()
                .map(|c| c.schema),
        );
    }
    keys
}

fn seed() -> Value {
    serde_json::from_str(include_str!("../samples/nested-union-pydantic.json")).unwrap()
}

#[test]
fn seed_inline_has_no_ref_oneof_or_discriminator() {
    let p = inline(&seed());
    let keys = schema_keys(&p.schema);
    for banned in ["$ref", "oneOf", "discriminator", "$defs"] {
        assert!(
            !keys.iter().any(|k| k == banned),
            "{banned} left in {}",
            p.schema
        );
    }
    let op_create = &p.schema["properties"]["op"]["anyOf"][0];
    let payload = &op_create["properties"]["payload"]["anyOf"];
    assert_eq!(payload.as_array().unwrap().len(), 2);
    assert_eq!(payload[0]["properties"]["kind"]["const"], "full");
    assert_eq!(payload[1]["properties"]["kind"]["const"], "stub");
}

#[test]
fn seed_flat_matches_the_reference_example() {
    let p = flat(&seed());
    let op = &p.schema["properties"]["op"];
    assert_eq!(op["type"], "object");
    assert!(op.get("anyOf").is_none());
    assert_eq!(
        op["properties"]["action"]["enum"],
        json!(["create", "delete"])
    );
    assert_eq!(op["required"], json!(["action"]));
    for optional in ["payload", "user_id"] {
        let desc = op["properties"][optional]["description"].as_str().unwrap();
        assert!(desc.contains("Only when action is"), "{optional}: {desc}");
    }
    let payload = &op["properties"]["payload"];
    assert_eq!(payload["type"], "object");
    assert_eq!(
        payload["properties"]["kind"]["enum"],
        json!(["full", "stub"])
    );
    assert_eq!(payload["required"], json!(["kind", "name"]));
    let email = payload["properties"]["email"]["description"]
        .as_str()
        .unwrap();
    assert!(email.contains("Only when kind is \"full\""), "{email}");
}

#[test]
fn wrong_branch_payload_is_rejected_by_original_and_accepted_by_flat() {
    let original = seed();
    let p = flat(&original);
    let wrong =
        json!({"op": {"action": "delete", "user_id": 3, "payload": {"kind": "stub", "name": "x"}}});
    assert!(!accepts(&original, &wrong));
    assert!(accepts(&p.schema, &wrong));
    let good = json!({"op": {"action": "create", "payload": {"kind": "full", "name": "a", "email": "a@b"}}});
    assert!(accepts(&original, &good) && accepts(&p.schema, &good));
}

fn two_branch(a: Value, b: Value) -> Value {
    json!({
        "type": "object",
        "properties": {"u": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "value": a}, "required": ["kind", "value"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "b"}, "value": b}, "required": ["kind", "value"], "additionalProperties": false}
        ]}}
    })
}

#[test]
fn object_array_collision_keeps_both_shapes() {
    let s = two_branch(
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}),
        json!({"type": "array", "items": {"type": "integer"}}),
    );
    let p = flat(&s);
    let value = &p.schema["properties"]["u"]["properties"]["value"];
    assert_eq!(
        value,
        &json!({"anyOf": [
            {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            {"type": "array", "items": {"type": "integer"}}
        ]})
    );
    assert!(p.trace.iter().any(|e| matches!(
        &e.detail,
        Detail::Joined {
            outcome: JoinOutcome::Alternatives,
            ..
        }
    )));
}

#[test]
fn scalar_collision_widens_the_type() {
    let p = flat(&two_branch(
        json!({"type": "string"}),
        json!({"type": "integer"}),
    ));
    assert_eq!(
        p.schema["properties"]["u"]["properties"]["value"],
        json!({"type": ["string", "integer"]})
    );
}

#[test]
fn widening_keeps_loosest_common_bounds_and_value_unions() {
    let p = flat(&two_branch(
        json!({"type": "integer", "minimum": 0, "maximum": 10, "enum": [1, 2]}),
        json!({"type": "number", "minimum": 0.5, "enum": [2, 3.5], "multipleOf": 0.5}),
    ));
    let v = &p.schema["properties"]["u"]["properties"]["value"];
    assert_eq!(v["type"], "number");
    assert_eq!(v["minimum"], 0);
    assert!(
        v.get("maximum").is_none(),
        "only one alternative bounds it: {v}"
    );
    assert!(v.get("multipleOf").is_none());
    assert_eq!(v["enum"], json!([1, 2, 3.5]));
}

#[test]
fn unprovable_alternative_makes_the_property_unconstrained() {
    let p = flat(&two_branch(
        json!({"type": "string"}),
        json!({"description": "anything"}),
    ));
    let v = &p.schema["properties"]["u"]["properties"]["value"];
    assert!(v.get("type").is_none(), "{v}");
}

fn open_branch_union() -> Value {
    // Branch b does not forbid extra keys, so `extra` may hold anything when kind is "b".
    json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "extra": {"type": "integer"}}},
        {"type": "object", "properties": {"kind": {"const": "b"}}}
    ]})
}

#[test]
fn strict_open_branches_leave_a_tolerated_property_unconstrained() {
    let s = open_branch_union();
    let options = Options {
        open_branches: OpenBranches::Strict,
        ..Options::flat()
    };
    let p = project(&s, &options).unwrap();
    let payload = json!({"kind": "b", "extra": "text"});
    assert!(accepts(&s, &payload));
    assert!(accepts(&p.schema, &payload), "{}", p.schema);
    assert_eq!(p.schema["properties"]["extra"].get("type"), None);
    assert!(!rules(&p).contains(&Rule::OpenBranchDeclared));
}

#[test]
fn declared_open_branches_keep_the_declared_shape_and_say_what_is_lost() {
    let s = open_branch_union();
    let p = flat(&s);
    assert_eq!(
        p.schema["properties"]["extra"],
        json!({"type": "integer", "description": "Only when kind is \"a\"."})
    );
    // The foreign value the original tolerates under `kind: "b"` is what the policy gives up;
    // everything else the original accepts, the projection still accepts.
    assert!(accepts(&s, &json!({"kind": "b", "extra": "text"})));
    assert!(!accepts(&p.schema, &json!({"kind": "b", "extra": "text"})));
    for ok in [
        json!({"kind": "b", "extra": 3}),
        json!({"kind": "b", "other": "text"}),
        json!({"kind": "a", "extra": 1}),
    ] {
        assert!(accepts(&p.schema, &ok), "{ok}");
    }
    let entry = p
        .trace
        .iter()
        .find(|e| e.rule == Rule::OpenBranchDeclared)
        .expect("an open-branch-declared entry");
    assert_eq!(entry.at, "/properties/extra");
    assert_eq!(entry.from, ["/oneOf/0/properties/extra", "/oneOf/1"]);
    let Detail::OpenBranchDeclared {
        property,
        discriminator,
        declaring,
        tolerating,
    } = &entry.detail
    else {
        panic!("{entry:?}")
    };
    assert_eq!(
        (property.as_str(), discriminator.as_str()),
        ("extra", "kind")
    );
    assert_eq!(declaring.len(), 1);
    assert_eq!(declaring[0].tags, [json!("a")]);
    assert_eq!(tolerating.len(), 1);
    assert_eq!(tolerating[0].from, "/oneOf/1");
    assert_eq!(tolerating[0].tags, [json!("b")]);
    assert_eq!(tolerating[0].allows, json!({}));
    assert!(
        entry.message().contains("foreign `extra`"),
        "{}",
        entry.message()
    );
}

#[test]
fn a_closed_branch_tolerates_nothing_under_either_policy() {
    let mut s = open_branch_union();
    s["oneOf"][1]["additionalProperties"] = json!(false);
    for open_branches in [OpenBranches::Declared, OpenBranches::Strict] {
        let p = project(
            &s,
            &Options {
                open_branches,
                ..Options::flat()
            },
        )
        .unwrap();
        assert_eq!(p.schema["properties"]["extra"]["type"], "integer");
        assert!(!rules(&p).contains(&Rule::OpenBranchDeclared));
    }
}

#[test]
fn typed_extras_are_named_in_the_trace() {
    // An open alternative whose extras must be strings: strict joins that schema in,
    // declared keeps the declared integer and says what the alternative allowed.
    let mut s = open_branch_union();
    s["oneOf"][1]["additionalProperties"] = json!({"type": "string"});
    let strict = project(
        &s,
        &Options {
            open_branches: OpenBranches::Strict,
            ..Options::flat()
        },
    )
    .unwrap();
    assert_eq!(
        strict.schema["properties"]["extra"]["type"],
        json!(["integer", "string"])
    );
    let declared = flat(&s);
    assert_eq!(declared.schema["properties"]["extra"]["type"], "integer");
    let tolerating = declared.trace.iter().find_map(|e| match &e.detail {
        Detail::OpenBranchDeclared { tolerating, .. } => Some(tolerating.clone()),
        _ => None,
    });
    assert_eq!(tolerating.unwrap()[0].allows, json!({"type": "string"}));
}

#[test]
fn required_intersection_and_hints_can_be_switched_off() {
    let opts = Options {
        hints: false,
        ..Options::flat()
    };
    let p = project(&seed(), &opts).unwrap();
    let op = &p.schema["properties"]["op"];
    assert!(
        op["properties"]["user_id"]["description"]
            .as_str()
            .is_none_or(|d| !d.contains("Only when"))
    );
    assert!(rules(&p).contains(&Rule::RequiredIntersection));
}

#[test]
fn non_qualifying_union_stays_anyof_with_a_reason() {
    let s = json!({"anyOf": [
        {"type": "object", "properties": {"k": {"const": "a"}}},
        {"type": "object", "properties": {"k": {"const": "a"}}}
    ]});
    let p = flat(&s);
    assert!(p.schema.get("anyOf").is_some());
    let reason = p.trace.iter().find_map(|e| match &e.detail {
        Detail::UnionKept { reason } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.unwrap().contains("more than one alternative"));
    let s = json!({"oneOf": [{"type": "string"}, {"type": "object", "properties": {"k": {"const": 1}}}]});
    let p = flat(&s);
    assert!(p.trace.iter().any(|e| matches!(&e.detail, Detail::UnionKept { reason } if reason.contains("not an object schema"))));
}

#[test]
fn ref_siblings_follow_the_draft() {
    let defs = json!({"T": {"type": "integer", "description": "target"}});
    let modern = json!({"$defs": defs, "$ref": "#/$defs/T", "description": "site", "minimum": 3});
    let p = inline(&modern);
    assert_eq!(p.schema["description"], "site");
    assert_eq!(p.schema["minimum"], 3);
    assert!(!accepts(&p.schema, &json!(1)));
    let old = json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"T": {"type": "integer"}},
        "properties": {"a": {"$ref": "#/definitions/T", "minimum": 3}}});
    let p = inline(&old);
    assert_eq!(p.schema["properties"]["a"], json!({"type": "integer"}));
    assert!(accepts(&old, &json!({"a": 1})) && accepts(&p.schema, &json!({"a": 1})));
}

#[test]
fn clashing_ref_siblings_become_allof() {
    let s = json!({"$defs": {"T": {"type": "string", "pattern": "^a"}}, "$ref": "#/$defs/T", "pattern": "b$"});
    let p = inline(&s);
    assert!(p.schema["allOf"].is_array(), "{}", p.schema);
    assert!(accepts(&p.schema, &json!("ab")));
    assert!(!accepts(&p.schema, &json!("ba")));
}

#[test]
fn recursion_unrolls_then_cuts_or_is_kept() {
    let s = json!({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}, "v": {"type": "integer"}}}},
        "$ref": "#/$defs/N"});
    let p = project(
        &s,
        &Options {
            recursion: Recursion::Unroll(2),
            ..Options::inline()
        },
    )
    .unwrap();
    // Depth 2: two re-entries of N on the path are unrolled, the third is cut.
    let unrolled = &p.schema["properties"]["next"]["properties"]["next"];
    assert!(unrolled["properties"]["v"].is_object(), "{}", p.schema);
    let cut = &unrolled["properties"]["next"];
    assert!(
        cut.get("properties").is_none() && cut["description"].as_str().unwrap().contains("cut")
    );
    assert!(rules(&p).contains(&Rule::Recursion));
    let deep = json!({"next": {"next": {"next": {"next": {"v": "not an integer"}}}}});
    assert!(!accepts(&s, &deep));
    assert!(accepts(&p.schema, &deep), "a cut accepts anything below it");
    let kept = project(
        &s,
        &Options {
            recursion: Recursion::Keep,
            ..Options::inline()
        },
    )
    .unwrap();
    assert!(kept.schema["$defs"]["N"].is_object(), "{}", kept.schema);
    assert!(
        !accepts(&kept.schema, &deep),
        "kept recursion keeps checking at any depth"
    );
    assert!(accepts(
        &kept.schema,
        &json!({"next": {"next": {"next": {"next": {"v": 1}}}}})
    ));
}

#[test]
fn unresolvable_and_remote_refs_become_empty_schemas() {
    let s = json!({"properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"$ref": "https://example.com/x.json"}}});
    let p = inline(&s);
    assert_eq!(p.schema["properties"]["a"], json!({}));
    assert_eq!(p.schema["properties"]["b"], json!({}));
    let reasons: Vec<String> = p
        .trace
        .iter()
        .filter_map(|e| match &e.detail {
            Detail::Unresolvable { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(reasons[1].contains("never fetches"));
}

#[test]
fn oneof_beside_anyof_is_combined_under_allof() {
    let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "oneOf": [{"minimum": 2}, {"maxLength": 1}]});
    let p = inline(&s);
    assert_eq!(p.schema["allOf"][0]["anyOf"].as_array().unwrap().len(), 2);
    for v in [json!(5), json!("a"), json!(1)] {
        assert_eq!(accepts(&s, &v), accepts(&s, &v) && accepts(&p.schema, &v));
    }
}

#[test]
fn optional_union_keeps_its_null_alternative() {
    let s = json!({"properties": {"t": {"anyOf": [
        {"oneOf": [
            {"type": "object", "properties": {"m": {"const": "x"}}},
            {"type": "object", "properties": {"m": {"const": "y"}}}
        ], "discriminator": {"propertyName": "m"}},
        {"type": "null"}
    ]}}});
    let p = flat(&s);
    let t = &p.schema["properties"]["t"]["anyOf"];
    assert_eq!(t[0]["type"], "object");
    assert_eq!(t[1], json!({"type": "null"}));
    assert!(rules(&p).contains(&Rule::NullableOptional));
    assert!(accepts(&p.schema, &json!({"t": null})));
}

#[test]
fn allof_inheritance_union_flattens() {
    let s: Value =
        serde_json::from_str(include_str!("../samples/openapi-allof-inheritance.json")).unwrap();
    let p = flat(&s);
    let pet = &p.schema["properties"]["pet"];
    assert_eq!(pet["type"], "object");
    assert_eq!(pet["properties"]["petType"]["enum"], json!(["cat", "dog"]));
    assert!(rules(&p).contains(&Rule::AllofMerge));
    assert!(!schema_keys(&p.schema).iter().any(|k| k == "allOf"));
}

#[test]
fn soundness_guards_drop_keywords_that_would_flip() {
    // The `not` holds a union that projection loosens, so keeping it could reject valid data.
    let s = json!({"not": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}});
    let p = inline(&s);
    assert!(p.schema.get("not").is_none());
    assert!(accepts(&s, &json!(5)) && accepts(&p.schema, &json!(5)));
    // An exact `not` survives.
    let s = json!({"not": {"type": "string"}});
    assert_eq!(inline(&s).schema, s);
    let s = json!({"if": {"$ref": "#/nowhere"}, "then": {"type": "string"}});
    assert!(inline(&s).schema.get("then").is_none());
}

#[test]
fn openapi_nullable_counts_as_a_null_kind() {
    let s = json!({"type": "object", "properties": {"u": {"oneOf": [
        {"type": "object", "properties": {"k": {"type": "string", "enum": ["a"]}, "v": {"type": "string", "nullable": true}}},
        {"type": "object", "properties": {"k": {"type": "string", "enum": ["b"]}, "v": {"type": "integer"}}}
    ]}}});
    let p = project(
        &s,
        &Options {
            draft: Some(Draft::OpenApi30),
            ..Options::flat()
        },
    )
    .unwrap();
    let v = &p.schema["properties"]["u"]["properties"]["v"];
    assert_eq!(v["type"], json!(["string", "null", "integer"]));
}

fn bomb(levels: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        defs.insert(
            format!("d{i}"),
            json!({"type": "array", "prefixItems": [{"$ref": format!("#/$defs/d{}", i + 1)}, {"$ref": format!("#/$defs/d{}", i + 1)}]}),
        );
    }
    defs.insert(format!("d{levels}"), json!({"type": "integer"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[test]
fn ref_bomb_fails_with_the_budget_and_the_chain() {
    let err = project(&bomb(40), &Options::inline()).unwrap_err();
    match &err {
        ProjectionError::Budget { chain, .. } => {
            assert!(chain[0] == "#/$defs/d0" && chain.len() > 10)
        }
        other => panic!("expected a budget error, got {other}"),
    }
    assert!(err.to_string().contains("#/$defs/d0"));
    // A small honest DAG of the same shape projects.
    assert!(project(&bomb(8), &Options::inline()).is_ok());
}

#[test]
fn deep_ref_chain_and_deep_nesting_end_in_a_clear_error() {
    let mut defs = serde_json::Map::new();
    for i in 0..3000 {
        defs.insert(
            format!("a{i}"),
            json!({"properties": {"x": {"$ref": format!("#/$defs/a{}", i + 1)}}}),
        );
    }
    defs.insert("a3000".into(), json!({}));
    let chain = json!({"$defs": defs, "$ref": "#/$defs/a0"});
    assert!(matches!(
        project(&chain, &Options::flat()),
        Err(ProjectionError::TooDeep { .. })
    ));
    // Built by moving values (json! would serialize the interpolated value recursively).
    let mut nested = json!({"type": "string"});
    for _ in 0..3000 {
        let mut props = serde_json::Map::new();
        props.insert("x".into(), nested);
        let mut node = serde_json::Map::new();
        node.insert("properties".into(), Value::Object(props));
        nested = Value::Object(node);
    }
    assert!(matches!(
        project(&nested, &Options::flat()),
        Err(ProjectionError::TooDeep { .. })
    ));
    // Dropping a 3,000-deep value recurses in serde_json; do it on a roomy stack.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || drop(nested))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn projection_is_deterministic() {
    for mode in [Mode::Inline, Mode::Flat] {
        let o = Options {
            mode,
            ..Options::default()
        };
        let a = serde_json::to_string(&project(&seed(), &o).unwrap().schema).unwrap();
        let b = serde_json::to_string(&project(&seed(), &o).unwrap().schema).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn links_map_projection_nodes_to_originals_and_back() {
    let p = flat(&seed());
    let email = "/properties/op/properties/payload/properties/email";
    assert_eq!(
        p.links.originals(email),
        ["/$defs/FullUser/properties/email"]
    );
    assert!(
        p.links
            .projections("/$defs/FullUser/properties/email")
            .contains(&email.to_owned())
    );
    let op = p.links.originals("/properties/op");
    assert!(
        op.contains(&"/properties/op".to_owned()) && op.contains(&"/$defs/CreateUser".to_owned()),
        "{op:?}"
    );
}

#[test]
fn gemini_capitalised_types_flatten_in_their_own_spelling() {
    let s = json!({"type": "OBJECT", "properties": {"op": {"anyOf": [
        {"type": "OBJECT", "properties": {"kind": {"type": "STRING", "enum": ["a"]}, "x": {"type": "STRING"}}},
        {"type": "OBJECT", "properties": {"kind": {"type": "STRING", "enum": ["b"]}}}
    ]}}});
    let p = project(
        &s,
        &Options {
            draft: Some(Draft::OpenApi30),
            ..Options::flat()
        },
    )
    .unwrap();
    let op = &p.schema["properties"]["op"];
    assert_eq!(op["type"], "OBJECT");
    assert_eq!(
        op["properties"]["kind"],
        json!({"type": "STRING", "enum": ["a", "b"]})
    );
}
