//! The lint report takes shortcuts on large projections: node-local rules read once per class
//! of equal subtrees, one projection serves every recursion setting when no cycle is
//! reachable, a profile that leaves the projection as it is gets no copy of it, Ollama's views
//! come from the lint that made them. Each is checked here against the straightforward path
//! (every rule run at every node, every form linted on its own, `tailor_tool` for the tailored
//! form, the views made again), on the samples, the corpus, a fan of shared `$ref`s and
//! generated documents whose definitions are inlined many times.

mod support;

use proptest::prelude::*;
use schemalens::lint::report::{Form, ProfileLint, ToolForms, lint_forms_for};
use schemalens::lint::{self, Group, OllamaView, Placed, Profile, Subject};
use schemalens::manifest::{Manifest, Tool};
use schemalens::projection::{Adapter, Links, Recursion, Tailored, Unresolved};
use schemalens::{Options, Projection, project_tool};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// What the report says for one tool and profile, made the straightforward way.
#[derive(Debug, PartialEq)]
struct Expected {
    groups: [Option<Vec<Group>>; 3],
    adapters: Vec<Placed<Adapter>>,
    unresolved: Vec<Placed<Unresolved>>,
    ollama: Option<[Option<OllamaView>; 3]>,
}

fn without_place<T: Serialize>(item: &T, place: &str) -> String {
    let mut v = serde_json::to_value(item).unwrap();
    v.as_object_mut().unwrap().remove(place);
    v.to_string()
}

/// One tool's schema in one form, with its links to the original (`None`: it is the original).
type FormSchema<'a> = Option<(&'a Value, Option<(&'a Links, &'a Value)>)>;

/// Lints one form of every tool together, as one request sends them; `None` where a tool has
/// no such schema.
fn grouped(
    profile: Profile,
    names: &[Option<&str>],
    schemas: &[FormSchema<'_>],
) -> Vec<Option<Vec<Group>>> {
    let present: Vec<(Subject<'_>, Option<(&Links, &Value)>)> = names
        .iter()
        .zip(schemas)
        .filter_map(|(name, s)| {
            s.map(|(schema, links)| {
                (
                    Subject {
                        name: *name,
                        schema,
                    },
                    links,
                )
            })
        })
        .collect();
    let subjects: Vec<Subject<'_>> = present.iter().map(|(s, _)| *s).collect();
    let links: Vec<Option<(&Links, &Value)>> = present.iter().map(|(_, l)| *l).collect();
    // Every rule at every node: the report reads node-local rules once per class of equal
    // subtrees, which must change nothing.
    let mut linted = lint::lint_grouped_node_by_node(profile, &subjects, &links).into_iter();
    schemas
        .iter()
        .map(|s| s.and_then(|_| linted.next()))
        .collect()
}

/// What the report should say for every tool, each form linted on its own, the tailored form
/// from `tailor_tool` (a projection of its own, tailored from a copy).
fn straightforward(
    profile: Profile,
    tools: &[&Tool],
    named: bool,
    options: &Options,
) -> Vec<Expected> {
    let names: Vec<Option<&str>> = tools
        .iter()
        .map(|t| named.then_some(t.name.as_str()))
        .collect();
    let projections: Vec<Option<Projection>> = tools
        .iter()
        .map(|t| project_tool(t, options).ok())
        .collect();
    let tailored: Vec<Option<Tailored>> = tools
        .iter()
        .map(|t| schemalens::tailor_tool(t, options, profile).ok())
        .collect();
    let originals: Vec<FormSchema<'_>> = tools.iter().map(|t| Some((&*t.schema, None))).collect();
    let original = grouped(profile, &names, &originals);
    let projected = grouped(
        profile,
        &names,
        &tools
            .iter()
            .zip(&projections)
            .map(|(t, p)| {
                p.as_ref()
                    .map(|p| (&p.schema, Some((&p.links, &*t.schema))))
            })
            .collect::<Vec<_>>(),
    );
    // The report reuses the projections' groups when tailoring changed no projection.
    let unchanged = projections
        .iter()
        .zip(&tailored)
        .all(|(p, x)| match (p, x) {
            (Some(p), Some(x)) => p.schema == x.projection.schema,
            (None, None) => true,
            _ => false,
        });
    let tailored_groups = if unchanged {
        projected.clone()
    } else {
        grouped(
            profile,
            &names,
            &tools
                .iter()
                .zip(&tailored)
                .map(|(t, x)| {
                    x.as_ref().map(|x| {
                        (
                            &x.projection.schema,
                            Some((&x.projection.links, &*t.schema)),
                        )
                    })
                })
                .collect::<Vec<_>>(),
        )
    };
    // A profile that limits whole requests sends strict only the tools whose counts fit
    // together (lint::strict_plan): its request-wide rules find nothing in the tailored form.
    let tailored_groups = tailored_groups.into_iter().map(|groups| {
        groups.map(|list| {
            list.into_iter()
                .filter(|g| !lint::strict_plan::is_request_rule(profile, g.finding.rule))
                .collect::<Vec<_>>()
        })
    });
    let tailored_groups: Vec<Option<Vec<Group>>> = tailored_groups.collect();
    let mut out = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let o = &tool.schema;
        let (adapters, unresolved) = match &tailored[i] {
            Some(x) => (
                lint::place_by_origin(
                    x.adapters.clone(),
                    Adapter::at,
                    |a| without_place(a, "at"),
                    &x.projection.links,
                    o,
                ),
                lint::place_by_origin(
                    x.unresolved.clone(),
                    |u| u.pointer.as_str(),
                    |u| without_place(u, "pointer"),
                    &x.projection.links,
                    o,
                ),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let ollama = (profile == Profile::Ollama).then(|| {
            [
                Some(lint::ollama_view(o)),
                projections[i]
                    .as_ref()
                    .map(|p| lint::ollama_view(&p.schema)),
                tailored[i]
                    .as_ref()
                    .map(|x| lint::ollama_view(&x.projection.schema)),
            ]
        });
        out.push(Expected {
            groups: [
                original[i].clone(),
                projected[i].clone(),
                tailored_groups[i].clone(),
            ],
            adapters,
            unresolved,
            ollama,
        });
    }
    out
}

fn reported(linted: &ProfileLint) -> Expected {
    let groups = Form::ALL.map(|f| {
        let form = linted.form(f);
        form.failed.is_none().then(|| form.groups.clone())
    });
    Expected {
        groups,
        adapters: linted.adapters.clone(),
        unresolved: linted.unresolved.clone(),
        // Shared between forms in the report; compared by what each view says.
        ollama: linted
            .ollama
            .as_ref()
            .map(|views| views.clone().map(|v| v.map(|v| (*v).clone()))),
    }
}

/// The report for every profile against the straightforward path.
fn assert_same(tools: &[&Tool], named: bool, options: &Options, what: &str) {
    let projections: Vec<Result<Projection, String>> = tools
        .iter()
        .map(|t| project_tool(t, options).map_err(|e| e.to_string()))
        .collect();
    let forms: Vec<ToolForms<'_>> = tools
        .iter()
        .zip(&projections)
        .map(|(t, p)| ToolForms {
            name: named.then_some(t.name.as_str()),
            tool: t,
            options,
            projection: p.as_ref().map_err(String::as_str),
        })
        .collect();
    let report = lint_forms_for(&Profile::ALL, &forms);
    for (profile, per_tool) in Profile::ALL.into_iter().zip(&report) {
        let expected = straightforward(profile, tools, named, options);
        for ((tool, linted), expected) in tools.iter().zip(per_tool).zip(expected) {
            assert_eq!(reported(linted), expected, "{what} {} {profile}", tool.name);
        }
    }
}

fn check_manifest(manifest: &Manifest, what: &str) {
    let tools: Vec<&Tool> = manifest.tools.iter().collect();
    let named = support::is_multi_tool(manifest);
    for options in [Options::flat(), Options::inline()] {
        assert_same(&tools, named, &options, what);
        for tool in &tools {
            one_projection_for_every_recursion(tool, &options, &format!("{what} {}", tool.name));
        }
    }
}

/// Without a reachable cycle, keeping recursion projects exactly what unrolling it does: the
/// schema, the trace and the links.
fn one_projection_for_every_recursion(tool: &Tool, options: &Options, what: &str) {
    if schemalens::projection::reaches_recursion(&tool.schema, options) {
        return;
    }
    let keep = Options {
        recursion: Recursion::Keep,
        ..options.clone()
    };
    match (project_tool(tool, options), project_tool(tool, &keep)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.schema, b.schema, "{what}");
            assert_eq!(
                serde_json::to_value(&a.trace).unwrap(),
                serde_json::to_value(&b.trace).unwrap(),
                "{what}"
            );
            assert_eq!(a.links, b.links, "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
        (a, b) => panic!("{what}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
    }
}

#[test]
fn the_report_matches_the_straightforward_lint_on_the_samples() {
    for path in support::samples() {
        check_manifest(&support::load(&path), &support::relative(&path));
    }
}

#[test]
fn the_report_matches_the_straightforward_lint_on_the_corpus() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("SCHEMALENS_CORPUS not set: corpus part skipped");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(corpus.join("mcp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut checked = 0;
    for path in files {
        // SOURCES.json says where the manifests come from; it is not one.
        let Ok(manifest) = schemalens::manifest::load_path(&path, None) else {
            continue;
        };
        check_manifest(&manifest, &path.display().to_string());
        checked += 1;
    }
    assert!(checked >= 15, "{checked} corpus manifests");
}

fn bare(schema: &Value) -> Manifest {
    schemalens::manifest::load_str(&schema.to_string(), "schema.json", None).unwrap()
}

#[test]
fn the_report_matches_the_straightforward_lint_on_a_ref_fan() {
    check_manifest(&bare(&support::ref_fan::document(4, 4, true)), "ref-fan");
}

/// Leaf schemas that provoke findings, tailoring steps and adapters across the profiles.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!({"type": "string", "format": "uri", "default": "x"})),
        Just(json!({"enum": [1, 2, 3]})),
        Just(json!({"const": "fixed"})),
        Just(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
        Just(json!({"type": ["string", "null"], "pattern": "^(?=a)"})),
        Just(json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})),
        Just(json!({"anyOf": [{"type": "string"}, {"type": "object"}]})),
        Just(json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": "string"}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}, "y": {"minimum": 1}}, "required": ["k"]}
        ], "discriminator": {"propertyName": "k"}})),
    ]
}

/// A document whose definitions refer to later ones several times each, with `$ref`
/// siblings, optional properties and unions of references: every definition is inlined at
/// many places, in different contexts.
fn shared_refs() -> impl Strategy<Value = Value> {
    (
        2usize..5,
        prop::collection::vec((1usize..4, leaf(), any::<bool>(), any::<bool>()), 4),
    )
        .prop_map(|(levels, shapes)| {
            let mut defs = Map::new();
            for level in 0..levels {
                let (fan, leaf, sibling, union) = shapes[level % shapes.len()].clone();
                let mut props = Map::new();
                props.insert("leaf".into(), leaf);
                if level + 1 < levels {
                    let target = format!("#/$defs/D{}", level + 1);
                    for k in 0..fan {
                        let mut r = json!({"$ref": target});
                        if sibling {
                            r["description"] = json!(format!("Part {k}."));
                        }
                        props.insert(format!("p{k}"), r);
                    }
                    if union {
                        props.insert(
                            "either".into(),
                            json!({"anyOf": [{"$ref": target}, {"type": "null"}]}),
                        );
                    }
                }
                defs.insert(
                    format!("D{level}"),
                    json!({"type": "object", "properties": props, "required": ["leaf"]}),
                );
            }
            json!({
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/D0"}, "other": {"$ref": "#/$defs/D0"}},
                "required": ["root"],
                "$defs": defs
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_report_matches_the_straightforward_lint_on_shared_refs(doc in shared_refs()) {
        check_manifest(&bare(&doc), &doc.to_string());
    }
}
