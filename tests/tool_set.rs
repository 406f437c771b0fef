//! A tool linted on its own with its manifest's tool-list facts (`report::lint_forms_in`) gets
//! the report `lint` of the whole manifest gives it: unique names, the request-wide counts and
//! Anthropic's strict plan included. The inspector lints one tool at a time this way; a
//! difference would be a verdict there that the provider (and `lint`) contradicts.

mod support;

use schemalens::lint::Profile;
use schemalens::lint::report::{self, Form, ToolForms};
use schemalens::lint::tool_set::ToolSet;
use schemalens::manifest::{self, Manifest, ManifestFormat, Tool};
use schemalens::{Options, Projection, project_tool};
use serde_json::{Value, json};

const PROFILES: [Profile; 5] = [
    Profile::Anthropic,
    Profile::AnthropicStrict,
    Profile::Mcp,
    Profile::OpenAiStrict,
    Profile::Ollama,
];

/// Every tool of `manifest`, linted alone with the facts, against the whole manifest's lint;
/// the facts made from the projections and made by projecting again are the same.
fn each_tool_as_in_the_whole_lint(manifest: &Manifest, profiles: &[Profile], options: &Options) {
    let projections: Vec<Result<Projection, String>> = manifest
        .tools
        .iter()
        .map(|t| project_tool(t, options).map_err(|e| e.to_string()))
        .collect();
    let named = manifest.format != ManifestFormat::BareSchema;
    let forms: Vec<ToolForms<'_>> = manifest
        .tools
        .iter()
        .zip(&projections)
        .map(|(tool, p)| ToolForms {
            name: named.then_some(tool.name.as_str()),
            tool,
            options,
            projection: p.as_ref().map_err(String::as_str),
        })
        .collect();
    let tools: Vec<&Tool> = manifest.tools.iter().collect();
    for &profile in profiles {
        let whole = report::lint_forms(profile, &forms);
        let set = report::tool_set(profile, &forms);
        if projections.iter().all(Result::is_ok) {
            let made = report::tool_set_of(profile, &tools, named, options).expect("not cancelled");
            assert_eq!(made, set, "{}: {profile}", manifest.origin);
        }
        for (i, f) in forms.iter().enumerate() {
            let alone = report::lint_forms_in(profile, f, i, &set).expect("a report");
            assert_eq!(
                format!("{alone:?}"),
                format!("{:?}", whole[i]),
                "{}: {profile}, tool {i} ({})",
                manifest.origin,
                manifest.tools[i].name
            );
        }
    }
}

/// An Anthropic tool with `optional` optional properties, `unions` of them typed by a type
/// list.
fn tool(name: &str, optional: usize, unions: usize) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("id".into(), json!({"type": "string"}));
    for i in 0..optional {
        let schema = if i < unions {
            json!({"type": ["string", "null"]})
        } else {
            json!({"type": "integer"})
        };
        properties.insert(format!("p{i}"), schema);
    }
    json!({"name": name, "input_schema": {"type": "object", "properties": properties, "required": ["id"]}})
}

/// 24 tools: two pairs sharing a name, one that cannot be projected, and more strict-capable
/// tools and optional properties than one strict request takes.
fn crowded() -> Manifest {
    let mut tools: Vec<Value> = (0..24).map(|i| tool(&format!("t{i}"), 2, 1)).collect();
    tools[5] = tool("t1", 3, 0);
    tools[17] = tool("t3", 1, 1);
    tools[9] = json!({"name": "broken", "input_schema": {"type": "object", "properties": {"x": {"oneOf": 5}}}});
    tools[12] = tool("wide", 30, 2);
    manifest::load_str(&Value::Array(tools).to_string(), "crowded.json", None).expect("loads")
}

#[test]
fn a_tool_linted_with_its_manifest_s_facts_is_linted_as_in_the_whole_manifest() {
    let manifest = crowded();
    for options in [Options::flat(), Options::inline()] {
        each_tool_as_in_the_whole_lint(&manifest, &PROFILES, &options);
    }
}

#[test]
fn the_facts_hold_the_repeated_names_and_the_strict_plan() {
    let manifest = crowded();
    let set = report::tool_set_of(
        Profile::AnthropicStrict,
        &manifest.tools.iter().collect::<Vec<_>>(),
        true,
        &Options::flat(),
    )
    .expect("not cancelled");
    let rules = |i: usize, form: Form| -> Vec<&'static str> {
        set.findings(i, form).iter().map(|f| f.rule).collect()
    };
    assert_eq!(rules(5, Form::Tailored), ["tool-name-unique"]);
    assert_eq!(rules(17, Form::Original)[0], "tool-name-unique");
    assert!(
        rules(1, Form::Original).is_empty(),
        "the first of a name is fine"
    );
    let plan = set
        .plan
        .as_ref()
        .expect("anthropic-strict plans the request");
    assert_eq!(plan.decisions.len(), 24);
    assert!(plan.strict_count() <= 20);
    assert!(plan.used.optional <= 24 && plan.used.unions <= 16);
    let broken = set.sent(9).expect("a decision");
    assert!(!broken.strict);
    assert!(broken.label().contains("`no-schema`"), "{}", broken.label());
    // Tailoring brings the wide tool within the counts on its own; beside the others there is
    // no room for it.
    let wide = set.sent(12).expect("a decision");
    assert!(
        wide.label()
            .starts_with("non-strict: the request has room for no more: with it, ")
            && wide.label().ends_with(" optional properties (at most 24)"),
        "{}",
        wide.label()
    );
    // Names only: the repeated names, no plan.
    let names: Vec<Option<&str>> = manifest
        .tools
        .iter()
        .map(|t| Some(t.name.as_str()))
        .collect();
    let named = ToolSet::of_names(Profile::AnthropicStrict, &names);
    assert_eq!(named.plan, None);
    assert_eq!(
        named.findings(5, Form::Tailored),
        set.findings(5, Form::Tailored)
    );
    assert!(
        named.findings(23, Form::Original).is_empty(),
        "no counts were made: {:?}",
        named.findings(23, Form::Original)
    );
}

#[test]
fn the_samples_tools_are_linted_as_in_the_whole_manifest() {
    for path in support::samples() {
        let manifest = support::load(&path);
        if manifest.tools.len() < 2 {
            continue;
        }
        each_tool_as_in_the_whole_lint(&manifest, &PROFILES, &Options::flat());
    }
}

/// The corpus's servers cross Anthropic's strict budgets (more than 20 tools, more than 24
/// optional properties): each tool, shown alone, gets the plan the whole manifest makes.
#[test]
fn the_corpus_tools_are_linted_as_in_the_whole_manifest() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let mut crossed = 0;
    for path in support::corpus_manifests(&corpus.join("mcp")) {
        let manifest = support::load(&path);
        let profiles = [Profile::AnthropicStrict, Profile::Mcp];
        each_tool_as_in_the_whole_lint(&manifest, &profiles, &Options::flat());
        let tools: Vec<&Tool> = manifest.tools.iter().collect();
        let set = report::tool_set_of(Profile::AnthropicStrict, &tools, true, &Options::flat())
            .expect("not cancelled");
        if set
            .plan
            .as_ref()
            .is_some_and(|p| p.strict_count() < tools.len())
        {
            crossed += 1;
        }
    }
    assert!(crossed > 0, "some corpus server crosses a strict budget");
}
