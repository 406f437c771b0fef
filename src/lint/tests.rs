//! Unit tests of the tables and of how findings are assembled; every rule is exercised against
//! a hand-made schema in `tests/lint.rs`.

use std::collections::HashSet;

use serde_json::json;

use super::*;

const PLACEHOLDERS: &[&str] = &[
    "detail", "keyword", "item", "context", "jsonpath", "proto", "dotted", "tool", "index",
];

/// Every `{word}` in a template, where `word` is an identifier (so `{1,64}` is not one).
fn placeholders(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .filter(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .filter(|name| !name.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

#[test]
fn rule_ids_are_unique_within_each_profile() {
    for profile in Profile::ALL {
        let mut seen = HashSet::new();
        for rule in profile.rules() {
            assert!(
                seen.insert(rule.id),
                "{profile}: duplicate rule id {}",
                rule.id
            );
        }
    }
}

#[test]
fn templates_name_only_known_placeholders() {
    for profile in Profile::ALL {
        for rule in profile.rules() {
            for template in std::iter::once(rule.message).chain(rule.provider_message) {
                for name in placeholders(template) {
                    assert!(
                        PLACEHOLDERS.contains(&name),
                        "{profile}/{}: unknown placeholder {{{name}}} in {template:?}",
                        rule.id
                    );
                }
            }
        }
    }
}

#[test]
fn every_rule_cites_a_source() {
    for profile in Profile::ALL {
        for rule in profile.rules() {
            assert!(!rule.source.trim().is_empty(), "{profile}/{}", rule.id);
        }
    }
}

#[test]
fn profile_names_round_trip_and_aliases_parse() {
    for profile in Profile::ALL {
        assert_eq!(profile.name().parse::<Profile>(), Ok(profile));
    }
    assert_eq!("Gemini-OpenAPI".parse::<Profile>(), Ok(Profile::Gemini));
    assert_eq!("mcp-client".parse::<Profile>(), Ok(Profile::Mcp));
    let err = "openai-strcit".parse::<Profile>().unwrap_err();
    assert!(
        err.to_string().contains("openai-strict, openai, gemini"),
        "{err}"
    );
}

#[test]
fn a_specific_rule_wins_over_the_catch_all_keyword_list() {
    // `const` is both named by Gemini's `const` rule and absent from its Schema fields.
    let findings = lint_schema(
        Profile::Gemini,
        &json!({"type": "object", "properties": {"a": {"type": "string", "const": "x"}}}),
    );
    let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
    assert_eq!(rules, vec!["const"]);
}

#[test]
fn the_root_union_rule_wins_over_the_anywhere_rule_at_the_root() {
    let findings = lint_schema(
        Profile::OpenAiStrict,
        &json!({"oneOf": [{"type": "object", "properties": {}, "additionalProperties": false}]}),
    );
    let oneofs: Vec<&str> = findings
        .iter()
        .filter(|f| f.keyword.as_deref() == Some("oneOf"))
        .map(|f| f.rule)
        .collect();
    assert_eq!(oneofs, vec!["root-union"]);
}

#[test]
fn findings_come_in_document_order_then_table_order() {
    let findings = lint_schema(
        Profile::OpenAiStrict,
        &json!({
            "type": "object",
            "properties": {
                "b": {"type": "string", "default": "x", "format": "uri"},
                "a": {"type": "array"}
            },
            "required": ["a"],
            "additionalProperties": false
        }),
    );
    let got: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f.pointer.as_str(), f.rule))
        .collect();
    assert_eq!(
        got,
        vec![
            ("", "required-all"),
            ("/properties/b", "default"),
            ("/properties/b", "format"),
            ("/properties/a", "array-items"),
        ]
    );
}

#[test]
fn tool_findings_come_first_and_name_the_tool() {
    let schema = json!({"type": "object", "properties": {"x": {}}});
    let per_tool = lint_tools(
        Profile::OpenAiStrict,
        &[Subject {
            name: Some("do.it"),
            schema: &schema,
        }],
    );
    let first = &per_tool[0][0];
    assert_eq!((first.rule, first.target), ("tool-name", Target::Tool));
    assert_eq!(
        first.message,
        "Function name `do.it` contains '.'; OpenAI accepts letters, digits, `_` and `-`, 1 to 64 characters."
    );
    let closed = per_tool[0]
        .iter()
        .find(|f| f.rule == "additional-properties")
        .unwrap();
    assert_eq!(
        closed.provider_message.as_deref(),
        Some(
            "Invalid schema for function 'do.it': In context=(), 'additionalProperties' is required to be supplied and to be false."
        )
    );
}

#[test]
fn a_bare_schema_skips_tool_rules() {
    let findings = lint_schema(Profile::Anthropic, &json!({"type": "object"}));
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn unconfirmed_rules_carry_the_flag_into_findings() {
    let findings = lint_schema(
        Profile::OpenAiStrict,
        &json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a", "b"],
            "additionalProperties": false
        }),
    );
    let f = findings
        .iter()
        .find(|f| f.rule == "required-undeclared")
        .unwrap();
    assert!(!f.confirmed);
    assert_eq!(
        f.provider_message.as_deref(),
        Some("Extra required key 'b' supplied.")
    );
}

#[test]
fn findings_serialize_with_profile_names() {
    let findings = lint_schema(
        Profile::Gemini,
        &json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
    );
    let v = serde_json::to_value(&findings[0]).unwrap();
    assert_eq!(v["profile"], "gemini");
    assert_eq!(v["severity"], "error");
    assert_eq!(v["target"], "schema");
    assert_eq!(v["rule"], "type-array");
}

#[test]
fn draft_2020_errors_point_at_the_schema_and_keyword() {
    let findings = lint_schema(
        Profile::Anthropic,
        &json!({
            "type": "object",
            "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}
        }),
    );
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].pointer, "/properties/n");
    assert_eq!(findings[0].keyword.as_deref(), Some("exclusiveMinimum"));
}

/// Each sample schema, for the tests that run every profile over real shapes.
fn sample_schemas() -> Vec<serde_json::Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let manifest = crate::manifest::load_path(&path, None).unwrap();
        out.extend(
            manifest
                .tools
                .into_iter()
                .map(|t| std::sync::Arc::unwrap_or_clone(t.schema)),
        );
    }
    out
}

#[test]
fn a_rule_filter_gives_the_full_lint_filtered() {
    // A keyword claimed by an earlier rule is not repeated by a catch-all list: a filter that
    // keeps only the list must still let the earlier rule claim it.
    let claimed = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "format": "uri", "oneOf": [{"minLength": 1}]}},
        "discriminator": {"propertyName": "a"}
    });
    let mut schemas = sample_schemas();
    schemas.push(claimed);
    type Filter = Box<dyn Fn(&LintRule) -> bool>;
    let filters: Vec<(&str, Filter)> = vec![
        (
            "limits",
            Box::new(|r: &LintRule| r.id.starts_with("limit-")),
        ),
        (
            "errors",
            Box::new(|r: &LintRule| r.severity == Severity::Error),
        ),
        (
            "presence lists",
            Box::new(|r: &LintRule| {
                matches!(
                    r.applies,
                    Check::Keywords { .. } | Check::KeywordsOutside { .. }
                )
            }),
        ),
    ];
    let mut compared = 0;
    for schema in &schemas {
        for profile in Profile::ALL {
            let full = lint_schema(profile, schema);
            for (what, wanted) in &filters {
                let expected: Vec<&Finding> = full
                    .iter()
                    .filter(|f| wanted(profile.rule(f.rule).unwrap()))
                    .collect();
                let got = lint_schema_where(profile, schema, wanted);
                assert_eq!(got.iter().collect::<Vec<_>>(), expected, "{profile} {what}");
                compared += got.len();
            }
        }
    }
    assert!(compared > 100, "only {compared} findings compared");
}

/// The lint's own pointer lookup reads every pointer as `Value::pointer` does: escapes, array
/// indices (no sign, no leading zero), empty tokens, misses.
#[test]
fn node_lookup_resolves_pointers_as_serde_json_does() {
    let doc = json!({
        "a/b": {"m~n": [10, {"": {"x": 1}}]},
        "": {"": 2},
        "~1": 3,
        "list": [0, 1, 2],
    });
    let pointers = [
        "",
        "/",
        "//",
        "/a~1b",
        "/a~1b/m~0n",
        "/a~1b/m~0n/1//x",
        "/~01",
        "/~1",
        "/list/0",
        "/list/2",
        "/list/3",
        "/list/01",
        "/list/+1",
        "/list/-1",
        "/list/",
        "a",
        "/a/b",
        "/a~1b/m~0n/0/x",
        "/~2",
    ];
    for p in pointers {
        assert_eq!(super::checks::resolve(&doc, p), doc.pointer(p), "{p}");
    }
}
