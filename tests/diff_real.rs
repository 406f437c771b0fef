//! `schemalens diff` on real pairs (`samples/diff/`): two published versions of an MCP server
//! from PyPI (Pydantic) and from npm (Zod), and two versions of a Pydantic model set. What each
//! change is classified as, and every breaking change's witness re-checked here with the
//! validator on its own (accepted by OLD, rejected by NEW).

mod support;

use schemalens::diff::{self, Class, DiffOptions, Report, Status};
use schemalens::manifest::Manifest;
use schemalens::validate::Side;
use serde_json::Value;

fn pair(old: &str, new: &str) -> (Manifest, Manifest, Report) {
    let dir = support::root().join("samples/diff");
    let o = support::load(&dir.join(old));
    let n = support::load(&dir.join(new));
    let r = diff::diff(&o, &n, &[], &DiffOptions::default());
    (o, n, r)
}

fn valid(schema: &Value, payload: &Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(payload)
}

/// Every witness on the original side holds, and only breaking changes carry one.
fn witnesses_hold(o: &Manifest, n: &Manifest, r: &Report) -> usize {
    let mut checked = 0;
    for t in &r.tools {
        for c in t.changes.iter().filter(|c| c.side == Side::Original) {
            let Some(w) = &c.witness else {
                assert_ne!(c.class, Class::Breaking, "{}: {c:?}", t.tool);
                continue;
            };
            assert_eq!(c.class, Class::Breaking);
            let old = &o.tool(&t.tool).unwrap().schema;
            assert!(valid(old, w), "{}: OLD rejects {w}", t.tool);
            if let Some(new) = n.tool(&t.tool) {
                assert!(!valid(&new.schema, w), "{}: NEW accepts {w}", t.tool);
            }
            checked += 1;
        }
    }
    checked
}

fn kinds(r: &Report, tool: &str) -> Vec<(&'static str, Class)> {
    r.tool(tool)
        .unwrap()
        .changes
        .iter()
        .filter(|c| c.side == Side::Original)
        .map(|c| (c.kind, c.class))
        .collect()
}

#[test]
fn mcp_server_git_from_pypi() {
    let (o, n, r) = pair(
        "mcp-server-git-0.6.2.json",
        "mcp-server-git-2026.10.19.json",
    );
    assert_eq!(
        kinds(&r, "git_add"),
        [
            ("annotation-changed", Class::Neutral),
            ("bound-added", Class::Breaking)
        ]
    );
    // Pydantic models are open: a new typed field rejects values the old schema let through.
    assert!(kinds(&r, "git_log").contains(&("property-added-to-open-object", Class::Breaking)));
    assert_eq!(
        kinds(&r, "git_status"),
        [("annotation-changed", Class::Neutral)]
    );
    for added in ["git_diff", "git_checkout", "git_show", "git_branch"] {
        assert_eq!(r.tool(added).unwrap().status, Status::Added, "{added}");
    }
    assert!(witnesses_hold(&o, &n, &r) >= 5);
}

#[test]
fn server_filesystem_from_npm() {
    let (o, n, r) = pair(
        "server-filesystem-2025.1.14.json",
        "server-filesystem-2025.8.21.json",
    );
    // Zod objects are closed: optional `head`/`tail` only widen.
    assert_eq!(
        kinds(&r, "read_file"),
        [
            ("property-added-to-closed-object", Class::Widening),
            ("property-added-to-closed-object", Class::Widening),
            ("tool-description-changed", Class::Neutral)
        ]
    );
    assert_eq!(r.tool("read_text_file").unwrap().status, Status::Added);
    assert_eq!(r.tool("edit_file").unwrap().status, Status::Unchanged);
    assert!(!r.matches(diff::FailOn::Breaking));
    witnesses_hold(&o, &n, &r);
}

#[test]
fn a_pydantic_model_set() {
    let (o, n, r) = pair("orders-v1.json", "orders-v2.json");
    let create = kinds(&r, "create_order");
    for expected in [
        ("bound-tightened", Class::Breaking),
        ("schema-became-false", Class::Breaking),
        ("alternative-removed", Class::Breaking),
        ("alternative-added", Class::Widening),
        ("bound-loosened", Class::Widening),
        ("type-widened", Class::Widening),
        ("property-added-to-open-object", Class::Breaking),
        ("annotation-changed", Class::Neutral),
    ] {
        assert!(
            create.contains(&expected),
            "{expected:?} missing from {create:?}"
        );
    }
    // `Address` became `PostalAddress` with the same fields: only the bound that changed and
    // the annotations are reported, not the rename.
    let renamed: Vec<_> = r
        .tool("create_order")
        .unwrap()
        .changes
        .iter()
        .filter(|c| {
            c.side == Side::Original
                && c.new_pointer
                    .as_deref()
                    .is_some_and(|p| p.contains("PostalAddress"))
        })
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        renamed,
        [
            "annotation-changed",
            "bound-tightened",
            "annotation-changed"
        ]
    );
    assert_eq!(
        kinds(&r, "list_orders"),
        [
            ("enum-values-removed", Class::Breaking),
            ("property-added-to-open-object", Class::Breaking)
        ]
    );
    assert!(witnesses_hold(&o, &n, &r) >= 6);
    // The projection side: the flattened union now lists "wallet" instead of "voucher".
    let projection: Vec<_> = r
        .tool("create_order")
        .unwrap()
        .changes
        .iter()
        .filter(|c| c.side == Side::Projection)
        .map(|c| (c.kind, c.old_pointer.clone().unwrap_or_default()))
        .collect();
    assert!(
        projection.contains(&(
            "enum-values-removed",
            "/properties/payment/properties/method".to_owned()
        )),
        "{projection:?}"
    );
    assert!(
        projection.iter().any(|(k, _)| *k == "rule-changed"),
        "{projection:?}"
    );
}
