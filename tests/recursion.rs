//! Rule 2 on the shapes users have: depth counted per path, the unrolling budget, and
//! refusals kept for ref bombs (docs/rules.md, *Recursion*).

mod support;

use schemalens::projection::{Detail, Rule};
use schemalens::schema::count_nodes;
use schemalens::{Mode, Options, Projection, ProjectionError, Recursion, project};
use serde_json::Value;
use support::cli::{run, run_with};

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(support::root().join(path)).expect("readable");
    serde_json::from_str(&text).expect("JSON")
}

fn options(mode: Mode, recursion: Recursion) -> Options {
    Options {
        mode,
        recursion,
        ..Options::default()
    }
}

/// `(requested, used)` when the default depth was lowered.
fn lowered(p: &Projection) -> Option<(usize, usize)> {
    p.trace.iter().find_map(|e| match e.detail {
        Detail::RecursionLowered {
            requested, used, ..
        } => Some((requested, used)),
        _ => None,
    })
}

/// For every recursion cut in an inline projection of the expression tree: the expression
/// objects above it (by their `op`), and how many of them re-enter an `op` already above them.
fn paths_to_cuts(schema: &Value) -> Vec<(usize, usize)> {
    fn walk<'a>(v: &'a Value, ops: &mut Vec<&'a str>, out: &mut Vec<(usize, usize)>) {
        match v {
            Value::Object(m) => {
                let cut = m
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.contains("Recursive #/$defs/"));
                if cut {
                    let reentries = (0..ops.len())
                        .filter(|i| ops[..*i].contains(&ops[*i]))
                        .count();
                    out.push((ops.len(), reentries));
                }
                let op = m
                    .get("properties")
                    .and_then(|p| p.get("op"))
                    .and_then(|o| o.get("const"))
                    .and_then(Value::as_str);
                ops.extend(op);
                m.values().for_each(|c| walk(c, ops, out));
                if op.is_some() {
                    ops.pop();
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, ops, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// The Pydantic expression tree as Pydantic emits it: no `Expr` definition, each use a `oneOf`
/// of four `$ref`s. Depth N is N re-entries on a path, whichever of Add, Neg and Call they
/// re-enter: a path reaches a cut after exactly N of them, so it holds at most N + 3
/// expressions (the first entries into Add, Neg and Call are not re-entries), where counting
/// each definition on its own allowed 3 × (N + 1).
#[test]
fn the_expression_tree_unrolls_levels_of_expr_not_of_each_definition() {
    let schema = read("samples/expression-tree-pydantic.json");
    for depth in 0..=3 {
        let p = project(&schema, &options(Mode::Inline, Recursion::Unroll(depth)))
            .unwrap_or_else(|e| panic!("unroll={depth}: {e}"));
        let paths = paths_to_cuts(&p.schema);
        assert!(!paths.is_empty(), "unroll={depth}: no cut");
        for (levels, reentries) in paths {
            assert_eq!(reentries, depth, "unroll={depth}");
            assert!(levels <= depth + 3, "unroll={depth}: {levels} levels");
        }
        assert_eq!(lowered(&p), None, "an explicit depth is never lowered");
    }
    for mode in [Mode::Inline, Mode::Flat] {
        let p = project(&schema, &options(mode, Options::default().recursion)).expect("projects");
        assert_eq!(
            lowered(&p),
            Some((3, 1)),
            "{mode}: the default fits its budget at 1"
        );
        project(&schema, &options(mode, Recursion::Unroll(3)))
            .expect("unroll=3 fits the node budget");
    }
}

#[test]
fn every_recursive_sample_projects_in_both_modes_at_the_default_depth() {
    for (sample, depth) in [
        ("samples/expression-tree-pydantic.json", 1),
        ("samples/json-value-pydantic.json", 3),
        ("samples/filesystem-entries-pydantic.json", 2),
        ("samples/recursive-expression.json", 3),
    ] {
        let schema = read(sample);
        for mode in [Mode::Inline, Mode::Flat] {
            let p = project(&schema, &options(mode, Options::default().recursion))
                .unwrap_or_else(|e| panic!("{sample} {mode}: {e}"));
            let used = lowered(&p).map_or(3, |(_, used)| used);
            assert_eq!(used, depth, "{sample} {mode}");
            let cuts = p.trace.iter().filter(|e| e.rule == Rule::Recursion).count();
            assert!(cuts > 0, "{sample} {mode}: recursion is cut somewhere");
        }
    }
}

/// The issue's case: an order schema whose address points back at the whole order with
/// `$ref: "#"`. Unrolled per definition it made 2,401 cuts and 2.3 MB here; held to the
/// unrolling budget it stays a small multiple of the input.
#[test]
fn a_ref_back_to_the_root_stays_a_small_multiple_of_the_input() {
    let schema = read("tests/data/order-with-root-ref.json");
    for mode in [Mode::Inline, Mode::Flat] {
        let p = project(&schema, &options(mode, Options::default().recursion)).expect("projects");
        assert_eq!(lowered(&p), Some((3, 2)), "{mode}");
        let ratio = count_nodes(&p.schema) / count_nodes(&schema);
        assert!(ratio <= 20, "{mode}: {ratio}× the input");
        let keep = project(&schema, &options(mode, Recursion::Keep)).expect("keep");
        let text = keep.schema.to_string();
        assert!(
            text.contains(r##""$ref":"#""##),
            "{mode}: a cycle through the root is #"
        );
    }
    let run = run(&["project", "tests/data/order-with-root-ref.json"]);
    run.expect_code(0, "order");
    assert!(
        run.stderr
            .contains("Recursion unrolled to depth 2 instead of 3"),
        "the lowered depth is a warning: {}",
        run.stderr
    );
}

/// The expression tree with a few keywords changed (every `oneOf` an `allOf`, or a
/// `prefixItems` tuple): the old engine spent seconds and more than a gigabyte before refusing
/// them. Their `$defs` form is small, so they must project, with the depth lowered.
#[test]
fn recursive_variants_whose_defs_form_fits_are_never_refused() {
    for file in [
        "tests/data/expression-tree-allof.json",
        "tests/data/expression-tree-prefixitems.json",
    ] {
        let schema = read(file);
        for mode in [Mode::Inline, Mode::Flat] {
            let p = project(&schema, &options(mode, Options::default().recursion))
                .unwrap_or_else(|e| panic!("{file} {mode}: {e}"));
            assert!(lowered(&p).is_some(), "{file} {mode}");
        }
    }
}

#[test]
fn an_exact_depth_that_does_not_fit_names_the_one_that_does() {
    let schema = read("samples/expression-tree-pydantic.json");
    let small = Options {
        node_budget: Some(5_000),
        ..options(Mode::Inline, Recursion::Unroll(3))
    };
    match project(&schema, &small) {
        Err(ProjectionError::UnrollTooDeep { depth, fits, .. }) => {
            assert_eq!((depth, fits), (3, 2))
        }
        other => panic!("{other:?}"),
    }
    let run = run_with(
        &[
            "project",
            "-",
            "--recursion",
            "unroll=9",
            "--mode",
            "inline",
        ],
        Some(&schema.to_string()),
    );
    run.expect_code(2, "unroll=9");
    let line = run.error_line();
    assert!(line.contains("depth 9") && line.contains("fits"), "{line}");
}
