//! The verdict engine on the bundled samples and on hand-built cases.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::manifest::{self, Manifest};
use crate::projection::{Links, Mode};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

fn sample(name: &str) -> (PathBuf, Manifest) {
    let path = samples().join(format!("{name}.json"));
    let m = manifest::load_path(&path, None).unwrap();
    (path, m)
}

fn checker(name: &str, tool: usize, options: &Options) -> Checker {
    let (_, m) = sample(name);
    Checker::for_tool(&m.tools[tool], options).unwrap()
}

fn payload(manifest: &str, file: &str) -> Value {
    let path = samples().join(format!("{manifest}.payloads/{file}.json"));
    payload::parse(&std::fs::read_to_string(&path).unwrap(), "test").unwrap()
}

fn every_manifest() -> Vec<(PathBuf, Manifest)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(samples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let m = manifest::load_path(&p, None).unwrap();
            (p, m)
        })
        .collect()
}

#[test]
fn every_sample_payload_gets_the_verdict_its_name_promises() {
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for (path, m) in every_manifest() {
        for (mode, open_branches) in [
            (Mode::Flat, OpenBranches::Declared),
            (Mode::Flat, OpenBranches::Strict),
            (Mode::Inline, OpenBranches::Declared),
        ] {
            let options = Options {
                mode,
                open_branches,
                ..Options::default()
            };
            let checkers: Vec<Checker> = m
                .tools
                .iter()
                .map(|t| Checker::for_tool(t, &options).unwrap())
                .collect();
            for file in discover::discover(&path, &m).unwrap() {
                let text = std::fs::read_to_string(&file.path).unwrap();
                let value = payload::parse(&text, "p").unwrap();
                let verdict = checkers[file.tool].check(&value);
                let expected = file.expectation.expect("every sample payload is named");
                checked += 1;
                if !expected.agrees(verdict.class, mode, open_branches) {
                    disagreements.push(format!(
                        "{} ({mode}, {open_branches}): {:?} but {}",
                        file.path.display(),
                        expected,
                        verdict.class
                    ));
                }
                // A verdict without errors on a rejecting side would leave nothing to mark.
                assert_eq!(verdict.original.valid, verdict.original.errors.is_empty());
                assert_eq!(
                    verdict.projection.valid,
                    verdict.projection.errors.is_empty()
                );
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    assert!(checked > 200, "only {checked} payload checks ran");
}

#[test]
fn every_wrong_branch_payload_names_what_the_projection_lost() {
    let mut missing = Vec::new();
    for (path, m) in every_manifest() {
        let checkers: Vec<Checker> = m
            .tools
            .iter()
            .map(|t| Checker::for_tool(t, &Options::flat()).unwrap())
            .collect();
        for file in discover::discover(&path, &m).unwrap() {
            if file.expectation != Some(Expectation::WrongBranch) {
                continue;
            }
            let text = std::fs::read_to_string(&file.path).unwrap();
            let verdict = checkers[file.tool].check(&payload::parse(&text, "p").unwrap());
            assert_eq!(
                verdict.class,
                Class::ProjectionLooser,
                "{}",
                file.path.display()
            );
            if verdict.lost.is_empty() {
                missing.push(file.path.display().to_string());
            }
        }
    }
    assert!(missing.is_empty(), "no correlation named for {missing:#?}");
}

#[test]
fn spec_wrong_branch_example_names_the_lost_correlation() {
    for sample in ["nested-union-pydantic", "nested-union-zod"] {
        let c = checker(sample, 0, &Options::flat());
        let v = c.check(&payload(sample, "wrong-branch-delete-with-payload"));
        assert_eq!(v.class, Class::ProjectionLooser);
        assert!(!v.original.valid && v.projection.valid);
        let lost: Vec<&str> = v.lost.iter().map(|l| l.message.as_str()).collect();
        assert!(
            lost.contains(
                &"action is \"delete\" but `payload` only exists when action is \"create\""
            ),
            "{sample}: {lost:#?}"
        );
        let l = &v.lost[0];
        assert_eq!(l.at, "/properties/op/properties/payload");
        assert_eq!(l.instance_path, "/op/payload");
        // The original's error is the one the delete alternative raises, not the union's.
        let leaves = v.original.leaf_errors();
        assert_eq!(leaves.len(), 1, "{leaves:#?}");
        assert_eq!(leaves[0].keyword, "additionalProperties");
        assert_eq!(leaves[0].properties, ["payload"]);
    }
}

#[test]
fn a_missing_required_property_is_named_with_its_tag() {
    let c = checker("nested-union-pydantic", 0, &Options::flat());
    let v = c.check(&payload(
        "nested-union-pydantic",
        "wrong-branch-create-without-payload",
    ));
    assert_eq!(v.class, Class::ProjectionLooser);
    assert!(
        v.lost[0]
            .message
            .starts_with("action is \"create\" but `payload` is missing"),
        "{:#?}",
        v.lost
    );
}

#[test]
fn a_widened_property_names_its_join() {
    let c = checker("scalar-collisions", 0, &Options::flat());
    let v = c.check(&payload(
        "scalar-collisions",
        "wrong-branch-card-fractional-amount",
    ));
    assert_eq!(v.class, Class::ProjectionLooser);
    let l = &v.lost[0];
    assert_eq!(l.rule, crate::projection::Rule::CollisionJoin);
    assert_eq!(l.at, "/properties/charge/properties/amount");
    assert!(
        l.message
            .starts_with("method is \"card\" and its alternative rejects this `amount`"),
        "{}",
        l.message
    );
}

#[test]
fn an_error_below_a_recursion_cut_names_the_cut() {
    let c = checker("recursive-expression", 0, &Options::flat());
    // `add` → `neg` → `neg` re-enters Expr, Neg, Expr: depth 3, the default. The next
    // re-entry, `Expr` under the second `neg`, is cut.
    let expression = |bottom: Value| {
        json!({"expr": {
            "type": "add",
            "left": {"type": "neg", "arg": bottom},
            "right": {"type": "lit", "value": 1}
        }})
    };
    let mut deep = json!({"type": "lit", "value": "not a number"});
    for _ in 0..4 {
        deep = json!({"type": "neg", "arg": deep});
    }
    let v = c.check(&expression(deep));
    assert_eq!(v.class, Class::ProjectionLooser);
    assert_eq!(v.lost.len(), 1, "{:#?}", v.lost);
    assert_eq!(v.lost[0].rule, crate::projection::Rule::Recursion);
    assert_eq!(v.lost[0].instance_path, "/expr/left/arg/arg");
    // Above the cut the projection still checks, and says so.
    let shallow = json!({"type": "lit", "value": "not a number"});
    assert_eq!(c.check(&expression(shallow)).class, Class::BothReject);
}

#[test]
fn a_oneof_matched_twice_names_its_anyof() {
    let original = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    let p = crate::project(&original, &Options::flat()).unwrap();
    let c = Checker::from_schema(&original, SchemaDialect::JsonSchema, p).unwrap();
    let v = c.check(&json!(5));
    assert_eq!(v.class, Class::ProjectionLooser);
    assert_eq!(v.lost.len(), 1, "{:#?}", v.lost);
    assert_eq!(v.lost[0].rule, crate::projection::Rule::OneofToAnyof);
    assert_eq!(c.check(&json!(-1)).class, Class::BothAccept);
}

#[test]
fn valid_create_and_delete_pass_both_sides() {
    for sample in ["nested-union-pydantic", "nested-union-zod"] {
        for mode in [Options::flat(), Options::inline()] {
            let c = checker(sample, 0, &mode);
            for file in ["valid-create-full", "valid-create-stub", "valid-delete"] {
                let v = c.check(&payload(sample, file));
                assert_eq!(v.class, Class::BothAccept, "{sample}/{file}");
                assert!(v.original.errors.is_empty() && v.projection.errors.is_empty());
                assert_eq!(c.classify(&payload(sample, file)), Class::BothAccept);
            }
        }
    }
}

#[test]
fn a_payload_both_reject() {
    let c = checker("nested-union-pydantic", 0, &Options::flat());
    let v = c.check(&payload("nested-union-pydantic", "invalid-unknown-action"));
    assert_eq!(v.class, Class::BothReject);
    assert!(v.lost.is_empty());
    // Every alternative's tag rejects "update": the union error itself is the honest leaf on
    // the original side; the flat projection has a plain enum.
    let o = v.original.leaf_errors();
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].keyword, "oneOf");
    assert_eq!(o[0].node, "/properties/op");
    let p = v.projection.leaf_errors();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].keyword, "enum");
    assert_eq!(p[0].node, "/properties/op/properties/action");
    assert_eq!(p[0].instance_path, "/op/action");
}

#[test]
fn error_pointers_land_on_both_trees() {
    let c = checker("nested-union-pydantic", 0, &Options::flat());
    let v = c.check(&payload("nested-union-pydantic", "invalid-name-not-string"));
    assert_eq!(v.class, Class::BothReject);

    let o = v.original.leaf_errors();
    assert_eq!(o.len(), 1, "{o:#?}");
    let o = o[0];
    assert_eq!(o.keyword, "type");
    assert_eq!(o.instance_path, "/op/payload/name");
    // `kind` is "stub", so the stub alternative is the one the payload meant.
    assert_eq!(o.node, "/$defs/StubUser/properties/name");
    assert_eq!(o.keyword_pointer, "/$defs/StubUser/properties/name/type");
    assert_eq!(
        o.schema_path,
        "/properties/op/oneOf/0/$ref/properties/payload/oneOf/1/$ref/properties/name/type"
    );
    assert!(c.original_schema().pointer(&o.node).is_some());
    // The chain of unions the payload went through, outermost first.
    let top = &v.original.errors[0];
    let chain: Vec<(&str, usize)> = top
        .path_to(o)
        .iter()
        .map(|(e, i)| (e.node.as_str(), *i))
        .collect();
    assert_eq!(
        chain,
        [
            ("/properties/op", 0),
            ("/$defs/CreateUser/properties/payload", 1)
        ]
    );

    let p = v.projection.leaf_errors();
    assert_eq!(p.len(), 1, "{p:#?}");
    let p = p[0];
    assert_eq!(p.node, "/properties/op/properties/payload/properties/name");
    assert_eq!(p.instance_path, "/op/payload/name");
    assert!(c.projection().schema.pointer(&p.node).is_some());
    assert!(
        p.originals
            .iter()
            .any(|x| x == "/$defs/StubUser/properties/name"),
        "{:?}",
        p.originals
    );
    assert!(
        p.originals
            .iter()
            .any(|x| x == "/$defs/FullUser/properties/name"),
        "{:?}",
        p.originals
    );
}

#[test]
fn inline_mode_pointers_go_through_the_kept_anyof() {
    let c = checker("nested-union-zod", 0, &Options::inline());
    let v = c.check(&payload("nested-union-zod", "invalid-name-not-string"));
    let o = v.original.leaf_errors();
    assert_eq!(
        o[0].node,
        "/properties/op/oneOf/0/properties/payload/oneOf/1/properties/name"
    );
    let p = v.projection.leaf_errors();
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_eq!(
        p[0].node,
        "/properties/op/anyOf/0/properties/payload/anyOf/1/properties/name"
    );
    assert!(p[0].originals.contains(&o[0].node), "{:?}", p[0].originals);
}

fn hand_built(schema: Value) -> Projection {
    Projection {
        schema,
        mode: Mode::Flat,
        draft: Draft::Draft2020,
        trace: Vec::new(),
        links: Links::default(),
    }
}

#[test]
fn a_projection_that_rejects_a_valid_payload_is_unsound() {
    let (_, m) = sample("nested-union-pydantic");
    let tool = &m.tools[0];
    // A broken flattening: `user_id` as a string, though the delete alternative says integer.
    let broken = json!({
        "type": "object",
        "properties": {"op": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["create", "delete"]},
                "user_id": {"type": "string"}
            },
            "required": ["action"]
        }},
        "required": ["op"]
    });
    let c = Checker::new(tool, hand_built(broken)).unwrap();
    let v = c.check(&payload("nested-union-pydantic", "valid-delete"));
    assert_eq!(v.class, Class::Unsound);
    assert!(v.original.valid);
    let p = v.projection.leaf_errors();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].node, "/properties/op/properties/user_id");
    assert_eq!(p[0].instance_path, "/op/user_id");
    // Nothing links a hand-built projection to the original, yet the original's own
    // evaluation says which of its nodes accepted `user_id`.
    assert!(p[0].originals.is_empty());
    assert_eq!(v.unsound.len(), 1);
    let u = &v.unsound[0];
    assert_eq!(u.projection_node, "/properties/op/properties/user_id");
    assert_eq!(
        u.projection_keyword,
        "/properties/op/properties/user_id/type"
    );
    assert_eq!(
        u.original_node.as_deref(),
        Some("/$defs/DeleteUser/properties/user_id")
    );
    // The same checker still tells the other classes apart.
    assert_eq!(
        c.check(&payload("nested-union-pydantic", "valid-create-stub"))
            .class,
        Class::BothAccept
    );
}

#[test]
fn openapi_nullable_is_read_as_a_null_alternative() {
    let m = manifest::load_str(
        r#"{"functionDeclarations": [{"name": "f", "parameters": {
            "type": "OBJECT",
            "properties": {
                "note": {"type": "STRING", "nullable": true},
                "count": {"type": "INTEGER", "maximum": 3, "exclusiveMaximum": true}
            },
            "required": ["note"]
        }}]}"#,
        "gemini.json",
        None,
    )
    .unwrap();
    let tool = &m.tools[0];
    assert_eq!(tool.dialect, SchemaDialect::OpenApi30);
    let c = Checker::for_tool(tool, &Options::flat()).unwrap();
    assert_eq!(c.check(&json!({"note": null})).class, Class::BothAccept);
    assert_eq!(c.check(&json!({"note": "x"})).class, Class::BothAccept);
    let v = c.check(&json!({"note": 1}));
    assert_eq!(v.class, Class::BothReject);
    assert_eq!(v.original.errors[0].node, "/properties/note");
    // OpenAPI 3.0's boolean `exclusiveMaximum` (draft 4 semantics).
    assert_eq!(
        c.check(&json!({"note": "", "count": 3})).class,
        Class::BothReject
    );
    assert_eq!(
        c.check(&json!({"note": "", "count": 2})).class,
        Class::BothAccept
    );
    // The same schema read as JSON Schema does not accept null.
    let plain = Checker::from_schema(
        &json!({"type": "object", "properties": {"note": {"type": "string", "nullable": true}}}),
        SchemaDialect::JsonSchema,
        crate::project(&json!({}), &Options::flat()).unwrap(),
    )
    .unwrap();
    assert_eq!(
        plain.check(&json!({"note": null})).class,
        Class::ProjectionLooser
    );
}

#[test]
fn draft_follows_dollar_schema() {
    // Under draft-07 a `$ref` hides its siblings; under 2020-12 they apply.
    let schema = |uri: &str| {
        json!({"$schema": uri, "$defs": {"n": {"type": "integer"}}, "definitions": {"n": {"type": "integer"}},
               "properties": {"a": {"$ref": "#/definitions/n", "minimum": 5}}})
    };
    let p = crate::project(&json!({}), &Options::flat()).unwrap();
    let d7 = Checker::from_schema(
        &schema("http://json-schema.org/draft-07/schema#"),
        SchemaDialect::JsonSchema,
        p.clone(),
    )
    .unwrap();
    assert!(d7.check(&json!({"a": 1})).original.valid);
    let d2020 = Checker::from_schema(
        &schema("https://json-schema.org/draft/2020-12/schema"),
        SchemaDialect::JsonSchema,
        p.clone(),
    )
    .unwrap();
    assert!(!d2020.check(&json!({"a": 1})).original.valid);
    // An unknown meta-schema is never fetched: the default draft applies.
    let custom = Checker::from_schema(
        &json!({"$schema": "https://example.invalid/meta", "type": "string"}),
        SchemaDialect::JsonSchema,
        p,
    )
    .unwrap();
    assert!(!custom.check(&json!(1)).original.valid);
}

#[test]
fn schemas_the_validator_cannot_use_are_reported_with_their_side() {
    let p = crate::project(&json!({}), &Options::flat()).unwrap();
    let err = Checker::from_schema(
        &json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
        SchemaDialect::JsonSchema,
        p.clone(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            CheckError::Compile {
                side: Side::Original,
                ..
            }
        ),
        "{err}"
    );
    let err = Checker::from_schema(
        &json!({}),
        SchemaDialect::JsonSchema,
        hand_built(json!({"type": 5})),
    )
    .unwrap_err();
    let CheckError::Compile { side, pointer, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!((*side, pointer.as_str()), (Side::Projection, "/type"));
    assert!(
        err.to_string()
            .starts_with("the projection schema cannot be used for validation (at #/type)"),
        "{err}"
    );
}

#[test]
fn the_skeleton_is_accepted_by_every_sample_projection() {
    let mut original_rejects = Vec::new();
    let mut count = 0;
    for (path, m) in every_manifest() {
        for mode in [Options::flat(), Options::inline()] {
            for tool in &m.tools {
                let c = Checker::for_tool(tool, &mode).unwrap();
                let s = c.skeleton();
                let v = c.check(&s);
                count += 1;
                assert!(
                    v.projection.valid,
                    "{} / {} ({}): {s}\n{:#?}",
                    path.display(),
                    tool.name,
                    c.projection().mode,
                    v.projection.leaf_errors()
                );
                if !v.original.valid {
                    original_rejects.push(format!("{} / {}: {s}", path.display(), tool.name));
                }
            }
        }
    }
    assert!(count >= 2 * 15, "{count}");
    // The trace tells the skeleton what its first tag requires, so the original accepts it too.
    assert!(original_rejects.is_empty(), "{original_rejects:#?}");
}

#[test]
fn checkers_can_move_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Checker>();
}

/// Generated tool schemas: tagged unions (inline or through `$defs`, closed or open, nested),
/// optional unions, arrays, bounded scalars. The skeleton of every projection, in both modes,
/// must be accepted by that projection.
mod generated {
    use super::*;
    use proptest::prelude::*;

    const PATTERNS: &[&str] = &[
        "^[a-z]+$",
        "^id_[0-9]+$",
        "^[A-Z]{2}-\\d{3}$",
        "^\\w+@\\w+$",
    ];

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            (0u64..3, 0u64..4).prop_map(|(min, extra)| json!({
                "type": "string", "minLength": min, "maxLength": min + extra
            })),
            (0..PATTERNS.len()).prop_map(|p| json!({"type": "string", "pattern": PATTERNS[p]})),
            Just(json!({"type": "string", "format": "date"})),
            (-5i64..5, 10i64..20, 1i64..4).prop_map(|(min, width, step)| json!({
                "type": "integer", "minimum": min, "maximum": min + width, "multipleOf": step
            })),
            (-5i64..5, 1i64..10).prop_map(|(low, width)| json!({
                "type": "number", "exclusiveMinimum": low, "exclusiveMaximum": low + width
            })),
            Just(json!({"type": "boolean"})),
            Just(json!({"type": ["null", "integer"]})),
            proptest::sample::subsequence(vec!["red", "green", "blue"], 1..=3)
                .prop_map(|v| json!({"enum": v})),
        ]
    }

    fn object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
        (
            proptest::collection::vec((inner, any::<bool>()), 0..4),
            any::<bool>(),
        )
            .prop_map(|(props, closed)| {
                let mut properties = serde_json::Map::new();
                let mut required = Vec::new();
                for (i, (schema, req)) in props.into_iter().enumerate() {
                    let name = ["name", "value", "id", "data"][i];
                    properties.insert(name.to_owned(), schema);
                    if req {
                        required.push(name);
                    }
                }
                let mut o =
                    json!({"type": "object", "properties": properties, "required": required});
                if closed {
                    o["additionalProperties"] = json!(false);
                }
                o
            })
    }

    /// A tagged union of 2–3 objects; `one_of` picks the keyword.
    fn union(inner: impl Strategy<Value = Value> + Clone) -> impl Strategy<Value = Value> {
        (
            proptest::collection::vec(object(inner), 2..=3),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(branches, one_of, nullable)| {
                let tags = ["create", "delete", "update"];
                let branches: Vec<Value> = branches
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut b)| {
                        let props = b["properties"].as_object_mut().unwrap();
                        let mut with_tag = serde_json::Map::new();
                        with_tag.insert("kind".into(), json!({"const": tags[i]}));
                        with_tag.extend(std::mem::take(props));
                        b["properties"] = Value::Object(with_tag);
                        b["required"]
                            .as_array_mut()
                            .unwrap()
                            .insert(0, json!("kind"));
                        b
                    })
                    .collect();
                let union = json!({(if one_of { "oneOf" } else { "anyOf" }): branches});
                if nullable {
                    json!({"anyOf": [union, {"type": "null"}]})
                } else {
                    union
                }
            })
    }

    fn schema() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                2 => union(inner.clone()),
                2 => object(inner.clone()),
                1 => (inner, 0u64..3).prop_map(|(items, min)| json!({
                    "type": "array", "items": items, "minItems": min
                })),
            ]
        })
    }

    /// Some of the tree moved into `$defs` and referenced, as generators write it.
    fn tool() -> impl Strategy<Value = Value> {
        (schema(), schema(), any::<bool>()).prop_map(|(a, b, by_ref)| {
            if by_ref {
                json!({
                    "type": "object",
                    "$defs": {"A": a, "B": b},
                    "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}},
                    "required": ["a", "b"]
                })
            } else {
                json!({"type": "object", "properties": {"a": a, "b": b}, "required": ["a", "b"]})
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn the_skeleton_is_accepted_by_generated_projections(original in tool()) {
            for options in [Options::flat(), Options::inline()] {
                let projection = crate::project(&original, &options).unwrap();
                let c = Checker::from_schema(&original, SchemaDialect::JsonSchema, projection).unwrap();
                let s = c.skeleton();
                let v = c.check(&s);
                prop_assert!(
                    v.projection.valid,
                    "{} mode: {s}\n{:#?}\nprojection: {:#}",
                    options.mode,
                    v.projection.leaf_errors(),
                    c.projection().schema
                );

                // Rejected payloads: every error, alternatives' included, lands on a node that
                // exists in its own document, and the links lead into the original.
                let mut broken = s.clone();
                broken["a"] = json!({"unexpected": [1]});
                for p in [json!(null), json!({"a": true, "b": "x"}), json!({"b": null}), broken] {
                    let v = c.check(&p);
                    let mut stack: Vec<(&SchemaError, bool)> = v
                        .original
                        .errors
                        .iter()
                        .map(|e| (e, false))
                        .chain(v.projection.errors.iter().map(|e| (e, true)))
                        .collect();
                    while let Some((e, projected)) = stack.pop() {
                        let doc = if projected { &c.projection().schema } else { c.original_schema() };
                        prop_assert!(doc.pointer(&e.node).is_some(), "{p}: no node {e:#?}");
                        prop_assert!(doc.pointer(&e.keyword_pointer).is_some(), "{p}: no keyword {e:#?}");
                        for o in &e.originals {
                            prop_assert!(original.pointer(o).is_some(), "{p}: link to nothing {o}");
                        }
                        stack.extend(e.branches.iter().flatten().map(|b| (b, projected)));
                    }
                }
            }
        }
    }
}
