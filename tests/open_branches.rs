//! `--open-branches declared|strict` and same-tag groups (SPEC rules 6 and 10) on small
//! schemas, on a reduced GitHub `pull_request` webhook, and on every tool of the real-manifest
//! corpus.

mod support;

use std::path::Path;

use schemalens::manifest::{self, Manifest, SchemaDialect};
use schemalens::projection::{Detail, Rule};
use schemalens::validate::{Checker, Class};
use schemalens::{Mode, OpenBranches, Options, Projection, project, project_tool};
use serde_json::{Value, json};

fn accepts(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("schema does not compile ({e}): {schema}"))
        .is_valid(instance)
}

fn with_policy(open_branches: OpenBranches) -> Options {
    Options {
        open_branches,
        ..Options::flat()
    }
}

fn checker(schema: &Value, options: &Options) -> Checker {
    let projection = project(schema, options).unwrap();
    let strict = project(schema, &options.with_open_branches(OpenBranches::Strict)).unwrap();
    Checker::from_schema(schema, SchemaDialect::JsonSchema, projection)
        .and_then(|c| c.with_strict_reference(strict))
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Same-tag groups (rule 6)

/// `op`: "a" with `x`, or one of two shapes of "b" (one with `y`, one with `z`), all open.
fn grouped() -> Value {
    json!({"type": "object", "properties": {"op": {"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}},
         "required": ["kind", "x"]},
        {"title": "B", "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}},
             "required": ["kind", "y"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "z": {"type": "boolean"}},
             "required": ["kind", "z"]}
        ]}
    ]}}, "required": ["op"]})
}

#[test]
fn a_same_tag_group_is_joined_first_then_flattened_with_the_union() {
    let s = grouped();
    let p = project(&s, &Options::flat()).unwrap();
    let op = &p.schema["properties"]["op"];
    assert!(op.get("anyOf").is_none(), "not flattened: {op}");
    assert_eq!(op["properties"]["kind"]["enum"], json!(["a", "b"]));
    assert_eq!(op["required"], json!(["kind"]));
    // Each member's property keeps its shape; the hint counts shapes, then says which tag.
    assert_eq!(op["properties"]["y"]["type"], "integer");
    assert_eq!(
        op["properties"]["y"]["description"],
        "In 1 of the 2 shapes when kind is \"b\"; required there. Only when kind is \"b\"."
    );
    assert_eq!(op["properties"]["z"]["type"], "boolean");
    let groups: Vec<_> = p
        .trace
        .iter()
        .filter_map(|e| match &e.detail {
            Detail::SameTagGroup {
                property,
                tags,
                members,
            } => Some((
                e.from.clone(),
                property.clone(),
                tags.clone(),
                members.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        groups,
        [(
            vec!["/properties/op/oneOf/1/oneOf".to_owned()],
            "kind".to_owned(),
            vec![json!("b")],
            vec![
                "/properties/op/oneOf/1/oneOf/0".to_owned(),
                "/properties/op/oneOf/1/oneOf/1".to_owned()
            ]
        )]
    );
    // The group's own "not a discriminated union" verdict no longer stands.
    assert!(
        !p.trace
            .iter()
            .any(|e| matches!(e.detail, Detail::UnionKept { .. })),
        "{:#?}",
        p.trace
    );
    assert!(p.trace.iter().any(|e| matches!(
        &e.detail,
        Detail::ShapeRequiredDropped { property, shapes: 2, present_in: 1, required_in: 1, .. }
            if property == "y"
    )));
}

#[test]
fn members_of_a_group_are_accepted_under_both_policies() {
    let s = grouped();
    let payloads = [
        json!({"op": {"kind": "a", "x": "s"}}),
        json!({"op": {"kind": "b", "y": 1}}),
        json!({"op": {"kind": "b", "z": true}}),
        // Open members: each tolerates the other's property.
        json!({"op": {"kind": "b", "y": 1, "extra": false}}),
    ];
    for open_branches in [OpenBranches::Declared, OpenBranches::Strict] {
        let p = project(&s, &with_policy(open_branches)).unwrap();
        for payload in &payloads {
            assert!(accepts(&s, payload), "{payload}");
            assert!(
                accepts(&p.schema, payload),
                "{open_branches}: {payload}\n{}",
                p.schema
            );
        }
    }
    // A foreign value between the group's members is named as such, member by member.
    let foreign = json!({"op": {"kind": "b", "z": true, "y": "not a number"}});
    assert!(accepts(&s, &foreign));
    let verdict = checker(&s, &Options::flat()).check(&foreign);
    assert_eq!(verdict.class, Class::ForeignKey, "{verdict:#?}");
    let f = &verdict.foreign[0];
    assert_eq!(f.instance_path, "/op/y");
    assert_eq!(f.tolerating[0].from, "/properties/op/oneOf/1/oneOf/1");
    assert_eq!(
        f.declaring[0].from,
        "/properties/op/oneOf/1/oneOf/0/properties/y"
    );
}

#[test]
fn a_union_of_one_tag_alone_stays_any_of() {
    let s = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}},
        {"type": "object", "properties": {"kind": {"const": "b"}, "z": {"type": "boolean"}}}
    ]});
    let p = project(&s, &Options::flat()).unwrap();
    assert!(p.schema.get("anyOf").is_some(), "{}", p.schema);
    assert!(
        p.trace
            .iter()
            .any(|e| matches!(&e.detail, Detail::UnionKept { reason } if reason.contains("more than one alternative")))
    );
    // Inside an Optional it is still alone.
    let optional = json!({"anyOf": [s, {"type": "null"}]});
    let p = project(&optional, &Options::flat()).unwrap();
    assert!(
        !p.trace
            .iter()
            .any(|e| matches!(e.detail, Detail::SameTagGroup { .. })),
        "{}",
        p.schema
    );
}

#[test]
fn a_group_whose_members_disagree_on_the_tag_is_not_a_group() {
    // The inner union is a discriminated union of its own ("b"/"c"): flattened on its own,
    // then an ordinary alternative with two tags.
    let s = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}}},
        {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "b"}}},
            {"type": "object", "properties": {"kind": {"const": "c"}}}
        ]}
    ]});
    let p = project(&s, &Options::flat()).unwrap();
    assert_eq!(
        p.schema["properties"]["kind"]["enum"],
        json!(["a", "b", "c"])
    );
    assert!(
        !p.trace
            .iter()
            .any(|e| matches!(e.detail, Detail::SameTagGroup { .. }))
    );
}

// ---------------------------------------------------------------------------------------------
// GitHub's `pull_request` webhook, reduced (tests/fixtures; built from @octokit/openapi-webhooks
// 12.1.0, MIT): 21 alternatives, two of them same-tag groups.

fn webhook() -> Value {
    let path = support::root().join("tests/fixtures/github-pull-request-webhook.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_pull_request_webhook_flattens_with_its_two_same_tag_groups() {
    let s = webhook();
    for open_branches in [OpenBranches::Declared, OpenBranches::Strict] {
        let p = project(&s, &with_policy(open_branches)).unwrap();
        assert_eq!(p.schema["type"], "object", "{open_branches}: not flattened");
        assert_eq!(
            p.schema["properties"]["action"]["enum"]
                .as_array()
                .unwrap()
                .len(),
            21
        );
        let groups: Vec<Vec<Value>> = p
            .trace
            .iter()
            .filter_map(|e| match &e.detail {
                Detail::SameTagGroup { tags, .. } => Some(tags.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            groups,
            [
                vec![json!("review_request_removed")],
                vec![json!("review_requested")]
            ]
        );
    }
    let declared = project(&s, &Options::flat()).unwrap();
    let strict = project(&s, &with_policy(OpenBranches::Strict)).unwrap();
    // Every alternative is open, as GitHub publishes them: strict leaves each property only
    // some events have without a type, declared keeps it.
    let typed = |p: &Projection| {
        p.schema["properties"]
            .as_object()
            .unwrap()
            .values()
            .filter(|v| v.get("type").is_some() || v.get("anyOf").is_some())
            .count()
    };
    assert_eq!(typed(&declared), 13);
    assert!(typed(&strict) < typed(&declared), "{}", strict.schema);
    let pr = json!({"author_association": "MEMBER", "active_lock_reason": null});
    let payloads = [
        json!({"action": "review_request_removed", "number": 5,
               "pull_request": pr, "sender": {"login": "octocat", "id": 1},
               "requested_reviewer": {"login": "hubot", "id": 2}}),
        json!({"action": "review_request_removed", "number": 5,
               "pull_request": pr, "sender": {"login": "octocat", "id": 1},
               "requested_team": {"description": null, "html_url": "https://example.org/t"}}),
        json!({"action": "assigned", "number": 5, "pull_request": pr,
               "sender": {"login": "octocat", "id": 1}, "assignee": null}),
    ];
    let c = checker(&s, &Options::flat());
    for payload in &payloads {
        assert!(accepts(&s, payload), "the original rejects {payload}");
        assert_eq!(c.check(payload).class, Class::BothAccept, "{payload}");
    }
}

// ---------------------------------------------------------------------------------------------
// The real-manifest corpus: every tool in both modes and both policies, and what `declared`
// does to the corpus's valid payloads.

fn corpus_servers(dir: &Path) -> Vec<(String, Manifest, Value)> {
    support::corpus_manifests(dir)
        .into_iter()
        .map(|path| {
            let server = path.file_stem().unwrap().to_string_lossy().into_owned();
            let manifest = manifest::load_path(&path, None)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let cases = std::fs::read_to_string(dir.join(format!("{server}.cases.json")))
                .map(|t| serde_json::from_str(&t).expect("cases are JSON"))
                .unwrap_or(Value::Null);
            (server, manifest, cases)
        })
        .collect()
}

/// Properties of merged unions (objects a `du-object` entry built) that prove a kind.
fn typed_union_properties(p: &Projection) -> (usize, usize) {
    let (mut typed, mut all) = (0, 0);
    for e in p.trace.iter().filter(|e| e.rule == Rule::DuObject) {
        let Some(props) = p
            .schema
            .pointer(&format!("{}/properties", e.at))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for v in props.values() {
            all += 1;
            let m = v.as_object();
            if m.is_some_and(|m| {
                ["type", "anyOf", "enum", "const", "properties", "items"]
                    .iter()
                    .any(|k| m.contains_key(*k))
            }) {
                typed += 1;
            }
        }
    }
    (typed, all)
}

#[test]
fn every_corpus_tool_projects_under_both_policies_and_declared_rejects_only_foreign_keys() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let servers = corpus_servers(&corpus.join("mcp"));
    let mut tools = 0;
    // Declared, strict.
    let mut typed = [(0, 0); 2];
    let mut relaxed_tools = 0;
    let mut valid = 0;
    let mut rejected: Vec<String> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for (server, manifest, cases) in &servers {
        for tool in &manifest.tools {
            tools += 1;
            let what = format!("{server}/{}", tool.name);
            for mode in [Mode::Inline, Mode::Flat] {
                for open_branches in [OpenBranches::Declared, OpenBranches::Strict] {
                    let options = Options {
                        mode,
                        open_branches,
                        ..Options::default()
                    };
                    match project_tool(tool, &options) {
                        Ok(p) if mode == Mode::Flat => {
                            let (t, a) = typed_union_properties(&p);
                            let entry =
                                &mut typed[usize::from(open_branches == OpenBranches::Strict)];
                            entry.0 += t;
                            entry.1 += a;
                            if open_branches == OpenBranches::Declared && p.relaxes_open_branches()
                            {
                                relaxed_tools += 1;
                            }
                        }
                        Ok(_) => {}
                        Err(e) => failures.push(format!("{what} {mode} {open_branches}: {e}")),
                    }
                }
            }
            let payloads: Vec<Value> = cases["tool_cases"][&tool.name]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["valid"] == json!(true))
                .map(|c| c["payload"].clone())
                .collect();
            if payloads.is_empty() {
                continue;
            }
            let declared = Checker::for_tool(tool, &Options::flat()).unwrap();
            let strict = Checker::for_tool(tool, &with_policy(OpenBranches::Strict)).unwrap();
            for payload in &payloads {
                valid += 1;
                let s = strict.classify(payload);
                if s != Class::BothAccept {
                    failures.push(format!("{what}: strict says {s} for {payload}"));
                }
                let v = declared.check(payload);
                match v.class {
                    Class::BothAccept => {}
                    Class::ForeignKey => rejected.push(format!(
                        "{what}: {}",
                        v.foreign
                            .iter()
                            .map(|f| f.message.clone())
                            .collect::<Vec<_>>()
                            .join("; ")
                    )),
                    other => failures.push(format!("{what}: declared says {other} for {payload}")),
                }
            }
        }
    }
    let [(dt, da), (st, sa)] = typed;
    eprintln!(
        "corpus: {tools} tools from {} servers; merged-union properties with a type: declared {dt}/{da}, strict {st}/{sa}; tools where declared keeps a shape against an open alternative: {relaxed_tools}; valid payloads: {valid}, rejected by declared as foreign-key: {}",
        servers.len(),
        rejected.len()
    );
    for r in &rejected {
        eprintln!("  foreign-key: {r}");
    }
    assert!(tools >= 258, "only {tools} corpus tools");
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(dt >= st, "declared keeps fewer types than strict");
}

#[test]
fn a_foreign_key_below_a_kept_recursive_definition_is_still_named() {
    // `leaf` is open and tolerates `next`; `pair` declares it as the recursive union itself.
    // Under `--recursion keep` the rejecting node sits in `$defs`, reached through a `$ref`.
    let s = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"oneOf": [
            {"type": "object", "properties": {"k": {"const": "leaf"}}},
            {"type": "object", "properties": {"k": {"const": "pair"},
                                              "next": {"$ref": "#/$defs/Node"}}}
        ]}}
    });
    let payload = json!({"tree": {"k": "pair", "next": {"k": "leaf", "next": 5}}});
    assert!(accepts(&s, &payload));
    for recursion in [
        schemalens::Recursion::Keep,
        schemalens::Recursion::Unroll(3),
    ] {
        let options = Options {
            recursion,
            ..Options::flat()
        };
        let verdict = checker(&s, &options).check(&payload);
        assert_eq!(
            verdict.class,
            Class::ForeignKey,
            "{recursion:?}: {verdict:#?}"
        );
        assert!(
            verdict
                .foreign
                .iter()
                .any(|f| f.instance_path == "/tree/next/next" && f.property == "next"),
            "{recursion:?}: {:#?}",
            verdict.foreign
        );
    }
}

#[test]
fn a_foreign_value_that_meets_the_kept_recursive_union_again_is_foreign_as_a_whole() {
    // Found by soundness_props: "delete" tolerates `value`, "create" declares it as the
    // recursive definition. The foreign value below "delete" holds objects of the same union
    // again, one with a tag naming no alternative (`null`); the projection rejects those too,
    // and every such error is explained by the outermost foreign `value`, not the innermost.
    let s = json!({
        "type": "object",
        "properties": {"also": {"$ref": "#/$defs/Shared"}},
        "$defs": {"Shared": {
            "type": "object",
            "properties": {"value": {"anyOf": [
                {"type": "object",
                 "properties": {"type": {"const": "create"}, "value": {"$ref": "#/$defs/Shared"},
                                "id": {"type": "string"}},
                 "required": ["value", "id"]},
                {"type": "object", "properties": {"type": {"const": "delete"}},
                 "required": ["type"]}
            ]}},
            "required": ["value"]
        }}
    });
    let payload = json!({"also": {"value": {"type": "create", "id": "a", "value": {
        "value": {"type": "delete", "value": {"value": {"value": {"value": null, "id": null, "type": null}}}}
    }}}});
    assert!(accepts(&s, &payload));
    let options = Options {
        recursion: schemalens::Recursion::Keep,
        ..Options::flat()
    };
    let verdict = checker(&s, &options).check(&payload);
    assert_eq!(verdict.class, Class::ForeignKey, "{verdict:#?}");
    assert!(
        verdict
            .foreign
            .iter()
            .all(|f| f.instance_path == "/also/value/value/value/value"),
        "{:#?}",
        verdict.foreign
    );
}

#[test]
fn a_foreign_value_below_a_declaring_alternative_of_the_kept_union_is_foreign() {
    // Found by soundness_props (flat, --recursion keep): a property named `$ref` on the way
    // to the kept definition, which the evaluation path must not take for a reference.
    let s: Value = serde_json::from_str(r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"op":{"anyOf":[{"type":"object","properties":{"type":{"type":"string","enum":["create"]},"data":{"anyOf":[{"type":"string"},{"type":"null"}]},"value":{"type":"string"}},"required":["type"]},{"type":"object","properties":{"type":{"type":"string","enum":["delete"]}}}]},"value":{"anyOf":[{"type":"object","properties":{"type":{"type":"string","enum":["create"]},"$ref":{"$ref":"#/$defs/Shared0"}},"required":["type","$ref"]},{"type":"object","properties":{"type":{"type":"string","enum":["delete"]}}}]},"also":{"$ref":"#/$defs/Shared0"}},"required":["op","value"],"$defs":{"Base1":{"type":"object","properties":{"type":{"type":"integer"}},"required":["type"]},"Shared0":{"type":"object","properties":{"value":{"anyOf":[{"type":"object","properties":{"type":{"type":"integer","const":0},"value":{"enum":["x"]}},"required":["type","value"]},{"allOf":[{"$ref":"#/$defs/Base1"},{"type":"object","properties":{"type":{"enum":[1]},"count":{"type":"object","properties":{"value":{"type":"string","minLength":1}},"required":["value"]},"name":{"$ref":"#/$defs/Shared0"}},"required":["type","count","name"]}]}]}},"required":["value"]}}}"##).unwrap();
    let payload: Value = serde_json::from_str(r##"{"op":{"type":"create","data":null},"value":{"type":"create","$ref":{"value":{"type":1,"count":{"value":"nekmobn"},"name":{"value":{"type":0,"value":"x","count":{"value":"p"},"name":{"value":{"type":null,"value":null}}}}}}},"also":{"value":{"type":1,"count":{"value":"nl"},"name":{"value":{"type":0,"value":"x"}}}}}"##).unwrap();
    assert!(accepts(&s, &payload));
    let options = Options {
        recursion: schemalens::Recursion::Keep,
        ..Options::flat()
    };
    let verdict = checker(&s, &options).check(&payload);
    assert_eq!(verdict.class, Class::ForeignKey, "{verdict:#?}");
}

#[test]
fn a_foreign_key_of_a_nested_union_joined_again_with_the_outer_one_is_named() {
    // Found by soundness_props (flat): the create/delete union nested in the outer union joins
    // first (delete tolerates `id`), then `id` joins again with the other outer alternative's,
    // which leaves the declared-shape entry on `anyOf/0` of the outer `id`.
    let s: Value = serde_json::from_str(r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"op":{"anyOf":[{"$ref":"#/$defs/Branch2"},{"type":"object","properties":{"type":{"type":"string","enum":["delete"]}}}]},"also":{"$ref":"#/$defs/Shared0"}},"required":["op"],"$defs":{"Base1":{"type":"object","properties":{"type":{"type":"string"}},"required":["type"]},"Shared0":{"anyOf":[{"anyOf":[{"allOf":[{"$ref":"#/$defs/Base1"},{"type":"object","properties":{"type":{"const":"create"},"id":{"$ref":"#/$defs/Shared0"}},"required":["id"]}]},{"type":"object","properties":{"type":{"const":"delete"}},"patternProperties":{"^x_":{"type":"integer"}}}]},{"type":"object","properties":{"type":{"enum":[1]},"id":{"type":"object","properties":{},"additionalProperties":false}}}]},"Branch2":{"type":"object","properties":{"type":{"type":"string","enum":["create"]},"count":{"type":"string"},"items":{"type":"string"},"value":{"anyOf":[{"type":"object","properties":{"type":{"const":"create"},"value":{"$ref":"#/$defs/Shared0"}},"required":["type","value"]},{"type":"object","properties":{"type":{"const":"delete"}}}]}}}}}"##).unwrap();
    let payload: Value =
        serde_json::from_str(r##"{"op":{"type":"create","count":""},"also":{"id":[]}}"##).unwrap();
    assert!(accepts(&s, &payload));
    let options = Options::flat();
    let verdict = checker(&s, &options).check(&payload);
    assert_eq!(verdict.class, Class::ForeignKey, "{verdict:#?}");
    assert!(
        verdict
            .foreign
            .iter()
            .any(|f| f.instance_path == "/also/id" && f.property == "id"),
        "{:#?}",
        verdict.foreign
    );
}
