//! The bundled payloads against the original and projected schemas, with a real validator as
//! the oracle: I-sound for `valid-*`, and the documented verdicts for `invalid-*` and
//! `wrong-branch-*` (samples/README.md).

mod common;
mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use schemalens::projection::Rule;
use schemalens::{Mode, project_tool};
use serde_json::Value;
use support::Verdict;

fn validator(schema: &Value, what: &str) -> jsonschema::Validator {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{what}: the validator rejects the schema itself: {e}"))
}

#[derive(Default)]
struct Row {
    counts: BTreeMap<Verdict, usize>,
    /// Wrong-branch payloads the inline projection accepts: informative only, since inline
    /// keeps each branch whole and usually still rejects them.
    inline_accepts_wrong_branch: usize,
    merged_union: bool,
    any_union: bool,
}

#[test]
fn payload_verdicts_match_the_readme() {
    let mut failures = Vec::new();
    let mut table: Vec<(String, String, Row)> = Vec::new();

    for sample in support::samples() {
        let manifest = support::load(&sample);
        let stem = support::stem(&sample);
        for tool in &manifest.tools {
            let what = format!("{stem}/{}", tool.name);
            let mut merged_union = false;
            let mut open_branch = false;
            let projections: Vec<(&str, bool, bool, Value)> = common::configs(None)
                .into_iter()
                .map(|(label, options)| {
                    let p = project_tool(tool, &options)
                        .unwrap_or_else(|e| panic!("{what}: {label} projection fails: {e}"));
                    merged_union |= p.trace.iter().any(|e| e.rule == Rule::DuObject);
                    open_branch |= p.relaxes_open_branches();
                    let declared = common::keeps_declared_shapes(&options);
                    (label, options.mode == Mode::Flat, declared, p.schema)
                })
                .collect();
            let mut row = Row {
                merged_union,
                any_union: support::has_union(&tool.schema),
                ..Row::default()
            };

            let Some(dir) = support::payload_dir(&sample, &manifest, &tool.name) else {
                if row.any_union {
                    failures.push(format!("{what}: has a union but no payload folder"));
                }
                table.push((stem.clone(), tool.name.clone(), row));
                continue;
            };
            let original = validator(&tool.schema, &format!("{what} original"));
            let projected: Vec<(&str, bool, bool, jsonschema::Validator)> = projections
                .iter()
                .map(|(label, flat, declared, schema)| {
                    let v = validator(schema, &format!("{what} {label}"));
                    (*label, *flat, *declared, v)
                })
                .collect();

            for payload in support::payloads(&dir) {
                *row.counts.entry(payload.verdict).or_default() += 1;
                let name = payload.path.file_name().unwrap().to_string_lossy();
                let mut wrong = Vec::new();
                let accepted = original.is_valid(&payload.value);
                let original_accepts =
                    matches!(payload.verdict, Verdict::Valid | Verdict::ForeignKey);
                if accepted != original_accepts {
                    wrong.push(format!("original says {}", verdict_word(accepted)));
                }
                for (label, flat, declared, v) in &projected {
                    let accepted = v.is_valid(&payload.value);
                    let want = match payload.verdict {
                        Verdict::Valid => Some(true),
                        // Flat under `strict` leaves tolerated properties unconstrained,
                        // so a mistake in one of them is not seen there.
                        Verdict::Invalid => (!*flat || *declared).then_some(false),
                        // Inline keeps each branch whole, so it is not pinned down here.
                        Verdict::WrongBranch => flat.then_some(true),
                        // Only the declared shapes reject it; every other projection is sound
                        // to the letter.
                        Verdict::ForeignKey => Some(!declared),
                    };
                    if payload.verdict == Verdict::WrongBranch
                        && !flat
                        && accepted
                        && *label == "inline"
                    {
                        row.inline_accepts_wrong_branch += 1;
                    }
                    if want.is_some_and(|w| w != accepted) {
                        wrong.push(format!("{label} says {}", verdict_word(accepted)));
                    }
                }
                if !wrong.is_empty() {
                    failures.push(format!("{what}/{name}: {}", wrong.join(", ")));
                }
            }

            // samples/README.md: union tools carry every kind of payload, except that a union
            // that is never merged has no wrong-branch payloads.
            let needed: &[Verdict] = if open_branch {
                &Verdict::ALL
            } else if row.merged_union {
                &Verdict::ALL[..3]
            } else if row.any_union {
                &[Verdict::Valid, Verdict::Invalid]
            } else {
                &[Verdict::Valid]
            };
            for verdict in needed {
                if !row.counts.contains_key(verdict) {
                    failures.push(format!("{what}: no {}-* payload", verdict.label()));
                }
            }
            if !open_branch && row.counts.contains_key(&Verdict::ForeignKey) {
                failures.push(format!(
                    "{what}: foreign-key payloads, but no union keeps a declared shape against an open alternative"
                ));
            }
            if !row.merged_union && row.counts.contains_key(&Verdict::WrongBranch) {
                failures.push(format!(
                    "{what}: wrong-branch payloads, but flat mode merged no union"
                ));
            }
            table.push((stem.clone(), tool.name.clone(), row));
        }
    }

    println!("{}", render(&table));
    assert!(
        failures.is_empty(),
        "{} payload verdict(s) differ from samples/README.md:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

fn verdict_word(accepted: bool) -> &'static str {
    if accepted { "accept" } else { "reject" }
}

fn render(table: &[(String, String, Row)]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<28} {:<18} {:>5} {:>7} {:>6} {:>7} {:>13} {:<6}",
        "sample", "tool", "valid", "invalid", "wrong", "foreign", "inline-wrong", "union"
    );
    let mut totals = [0usize; 4];
    for (sample, tool, row) in table {
        let count = |v| row.counts.get(&v).copied().unwrap_or(0);
        for (total, verdict) in totals.iter_mut().zip(Verdict::ALL) {
            *total += count(verdict);
        }
        let union = match (row.merged_union, row.any_union) {
            (true, _) => "merged",
            (false, true) => "kept",
            (false, false) => "-",
        };
        let _ = writeln!(
            out,
            "{sample:<28} {tool:<18} {:>5} {:>7} {:>6} {:>7} {:>13} {union:<6}",
            count(Verdict::Valid),
            count(Verdict::Invalid),
            count(Verdict::WrongBranch),
            count(Verdict::ForeignKey),
            row.inline_accepts_wrong_branch,
        );
    }
    let _ = writeln!(
        out,
        "{:<28} {:<18} {:>5} {:>7} {:>6} {:>7}",
        "total",
        format!("{} tools", table.len()),
        totals[0],
        totals[1],
        totals[2],
        totals[3]
    );
    out
}
