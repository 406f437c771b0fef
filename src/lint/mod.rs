//! Provider lint: every place in a tool's parameter schema that a provider rejects, or silently
//! drops, with a rule id, a plain explanation and the provider's own error text where it is
//! known.
//!
//! Each profile is a table of [`LintRule`]s (see `profiles`); a rule names one of a few generic
//! [`Check`]s plus its data. Lint runs the same tables on the original and on a projection, so a
//! caller can show which findings the projection resolves and which remain.

mod checks;
mod group;
mod nodes;
pub mod ollama;
mod profiles;
pub mod report;
mod rule;
mod text;

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};
use serde_json::Value;

pub use group::{Group, Placed, origins_of, place_by_origin};
pub use ollama::{Dropped, GoError, OllamaView};
pub use rule::{
    Check, Counted, DropClass, Limit, LintRule, NamePattern, RootTypeCase, Severity, Target, Where,
};

use crate::projection::Links;
use checks::{Hit, SchemaCx, ToolCx};
pub(crate) use checks::{has_lookaround, says_a_kind};

/// A provider, or one way of sending tools to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// OpenAI function tools with `strict: true` (Structured Outputs).
    OpenAiStrict,
    /// OpenAI function tools without strict mode.
    OpenAi,
    /// Gemini `parameters`: the OpenAPI 3.0 subset of the `Schema` proto (Developer API).
    Gemini,
    /// Gemini `parametersJsonSchema`.
    GeminiJsonSchema,
    /// Anthropic `input_schema`.
    Anthropic,
    /// Anthropic strict tool use.
    AnthropicStrict,
    /// Ollama `/api/chat` and its OpenAI-compatible endpoint.
    Ollama,
    /// Amazon Bedrock Converse `toolSpec.inputSchema.json`.
    Bedrock,
    /// MCP clients reading `tools/list`.
    Mcp,
}

impl Profile {
    pub const ALL: [Profile; 9] = [
        Profile::OpenAiStrict,
        Profile::OpenAi,
        Profile::Gemini,
        Profile::GeminiJsonSchema,
        Profile::Anthropic,
        Profile::AnthropicStrict,
        Profile::Ollama,
        Profile::Bedrock,
        Profile::Mcp,
    ];

    /// The `--provider` name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::OpenAiStrict => "openai-strict",
            Profile::OpenAi => "openai",
            Profile::Gemini => "gemini",
            Profile::GeminiJsonSchema => "gemini-jsonschema",
            Profile::Anthropic => "anthropic",
            Profile::AnthropicStrict => "anthropic-strict",
            Profile::Ollama => "ollama",
            Profile::Bedrock => "bedrock",
            Profile::Mcp => "mcp",
        }
    }

    /// What the profile stands for, for help and headings.
    pub fn label(self) -> &'static str {
        match self {
            Profile::OpenAiStrict => "OpenAI, strict: true (Structured Outputs)",
            Profile::OpenAi => "OpenAI, non-strict",
            Profile::Gemini => {
                "Gemini `parameters` (OpenAPI 3.0 subset; Developer API and Vertex AI)"
            }
            Profile::GeminiJsonSchema => "Gemini `parametersJsonSchema`",
            Profile::Anthropic => "Anthropic `input_schema`",
            Profile::AnthropicStrict => "Anthropic strict tool use",
            Profile::Ollama => "Ollama (what survives its Go structs)",
            Profile::Bedrock => "Amazon Bedrock Converse",
            Profile::Mcp => "MCP clients",
        }
    }

    /// The profile's rule table.
    pub fn rules(self) -> &'static [LintRule] {
        profiles::table(self)
    }

    /// The rule with this id in the profile's table.
    pub fn rule(self, id: &str) -> Option<&'static LintRule> {
        self.rules().iter().find(|r| r.id == id)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A `--provider` value that names no profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {given:?} (expected one of: {})", Profile::ALL.map(Profile::name).join(", "))]
pub struct ParseProfileError {
    pub given: String,
}

impl FromStr for Profile {
    type Err = ParseProfileError;

    /// Accepts the names of [`Profile::name`], case-insensitively, and the research notes'
    /// spellings `gemini-openapi` and `mcp-client`.
    fn from_str(s: &str) -> Result<Profile, ParseProfileError> {
        let wanted = s.trim().to_ascii_lowercase();
        let alias = match wanted.as_str() {
            "gemini-openapi" => Some(Profile::Gemini),
            "mcp-client" => Some(Profile::Mcp),
            _ => None,
        };
        alias
            .or_else(|| Profile::ALL.into_iter().find(|p| p.name() == wanted))
            .ok_or_else(|| ParseProfileError {
                given: s.to_owned(),
            })
    }
}

/// One place a provider rejects or drops something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub profile: Profile,
    pub severity: Severity,
    /// The rule id, unique within the profile.
    pub rule: &'static str,
    pub target: Target,
    /// The schema the finding is about (RFC 6901, into the linted schema); `""` for the root
    /// and for findings about the tool itself.
    pub pointer: String,
    /// The keyword of that schema the finding is about, when there is one.
    pub keyword: Option<String>,
    pub message: String,
    /// The provider's own wording, with this schema's locations filled in.
    pub provider_message: Option<String>,
    /// False when the rule rests on second-hand or unconfirmed reports.
    pub confirmed: bool,
    pub source: &'static str,
}

impl Finding {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// One tool as a provider receives it.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// `None` when there is no tool name to check (a bare schema file).
    pub name: Option<&'a str>,
    pub schema: &'a Value,
}

/// Lints one parameter schema on its own: tool-name and tool-list rules do not apply.
pub fn lint_schema(profile: Profile, schema: &Value) -> Vec<Finding> {
    lint_tools(profile, &[Subject { name: None, schema }])
        .pop()
        .unwrap_or_default()
}

/// Lints the tools of one request, in order; the result has one list per tool. Tool-list rules
/// (unique names, per-request limits) report on the tool where the problem shows up.
pub fn lint_tools(profile: Profile, tools: &[Subject<'_>]) -> Vec<Vec<Finding>> {
    lint_tools_where(profile, tools, |_| true)
}

/// [`lint_schema`] reduced to the findings of the rules `wanted` picks: the same findings as
/// filtering the full lint afterwards, without running the other rules (or writing their
/// messages) on what may be a very large schema. Tailoring asks this for its size limits and
/// for what Ollama still rejects.
pub(crate) fn lint_schema_where(
    profile: Profile,
    schema: &Value,
    wanted: impl Fn(&LintRule) -> bool,
) -> Vec<Finding> {
    lint_tools_where(profile, &[Subject { name: None, schema }], wanted)
        .pop()
        .unwrap_or_default()
}

fn lint_tools_where(
    profile: Profile,
    tools: &[Subject<'_>],
    wanted: impl Fn(&LintRule) -> bool,
) -> Vec<Vec<Finding>> {
    let cxs: Vec<SchemaCx<'_>> = tools.iter().map(|t| SchemaCx::new(t.schema)).collect();
    hits(profile, tools, &cxs, &wanted)
        .into_iter()
        .enumerate()
        .map(|(i, list)| {
            list.into_iter()
                .map(|(_, rule, hit)| finding(profile, rule, &hit, &tools[i], i, &cxs[i]))
                .collect()
        })
        .collect()
}

/// Like [`lint_tools`], with the findings of each tool grouped by the original node they come
/// from: a projection that inlined one definition a thousand times has one group for what is
/// wrong with that definition, not a thousand findings. `links[i]` maps tool `i`'s schema back
/// to its original schema (`None`: the schema is the original itself).
pub fn lint_grouped(
    profile: Profile,
    tools: &[Subject<'_>],
    links: &[Option<(&Links, &Value)>],
) -> Vec<Vec<Group>> {
    Batch::new(tools.to_vec(), links.to_vec()).lint(profile)
}

/// The tools of one request, read once and linted for as many profiles as asked: reading a
/// large projection costs more than running one profile's rules on it.
pub(crate) struct Batch<'a> {
    tools: Vec<Subject<'a>>,
    cxs: Vec<SchemaCx<'a>>,
    links: Vec<Option<(&'a Links, &'a Value)>>,
}

impl<'a> Batch<'a> {
    pub(crate) fn new(
        tools: Vec<Subject<'a>>,
        links: Vec<Option<(&'a Links, &'a Value)>>,
    ) -> Batch<'a> {
        let cxs = tools.iter().map(|t| SchemaCx::new(t.schema)).collect();
        Batch { tools, cxs, links }
    }

    /// What Ollama keeps of tool `i`'s schema, taken from the lint that made it (made here
    /// otherwise); a later Ollama lint of this batch makes it again.
    pub(crate) fn take_ollama_view(&mut self, i: usize) -> OllamaView {
        self.cxs[i].take_ollama()
    }

    pub(crate) fn lint(&self, profile: Profile) -> Vec<Vec<Group>> {
        hits(profile, &self.tools, &self.cxs, &|_| true)
            .into_iter()
            .enumerate()
            .map(|(i, list)| {
                let links = self.links.get(i).copied().flatten();
                group::group(list, links, |rule, hit| {
                    finding(profile, rule, hit, &self.tools[i], i, &self.cxs[i])
                })
            })
            .collect()
    }
}

/// The hits of the rules `wanted` picks on every tool, each tool's sorted (tool-level first,
/// then document order, then table order).
fn hits(
    profile: Profile,
    tools: &[Subject<'_>],
    cxs: &[SchemaCx<'_>],
    wanted: &dyn Fn(&LintRule) -> bool,
) -> Vec<Vec<(SortKey, &'static LintRule, Hit)>> {
    let tool_cxs: Vec<ToolCx<'_>> = tools
        .iter()
        .zip(cxs)
        .map(|(t, cx)| ToolCx {
            name: t.name,
            schema: cx,
        })
        .collect();
    let mut keyed: Vec<Vec<(SortKey, &'static LintRule, Hit)>> =
        (0..tools.len()).map(|_| Vec::new()).collect();
    // (document order of the node, keyword): the order stands for the pointer, uncopied.
    let mut claimed: Vec<HashSet<(usize, String)>> = vec![HashSet::new(); tools.len()];

    let is_presence = |rule: &LintRule| {
        matches!(
            rule.applies,
            Check::Keywords { .. } | Check::KeywordsOutside { .. }
        )
    };
    // An unwanted rule still runs when a wanted presence rule comes after it: the keywords it
    // claims decide what that rule repeats.
    let last_claim_reader = profile
        .rules()
        .iter()
        .rposition(|r| wanted(r) && is_presence(r));
    for (rank, rule) in profile.rules().iter().enumerate() {
        let keep = wanted(rule);
        if !keep && last_claim_reader.is_none_or(|last| rank > last) {
            continue;
        }
        if rule.applies.target() == Target::Tool {
            if keep {
                for (i, hit) in checks::tool_hits(&rule.applies, &tool_cxs) {
                    keyed[i].push(((false, 0, rank), rule, hit));
                }
            }
            continue;
        }
        let presence = is_presence(rule);
        for (i, cx) in cxs.iter().enumerate() {
            for hit in checks::schema_hits(&rule.applies, cx) {
                let order = cx.order(&hit.pointer);
                if let Some(keyword) = &hit.keyword
                    && order != usize::MAX
                {
                    // A keyword a more specific rule already explained is not repeated by a
                    // catch-all list.
                    if !claimed[i].insert((order, keyword.clone())) && presence {
                        continue;
                    }
                }
                if keep {
                    keyed[i].push(((true, order, rank), rule, hit));
                }
            }
        }
    }
    for list in &mut keyed {
        list.sort_by_key(|(k, _, _)| *k);
    }
    keyed
}

/// Tool-level findings first, then document order, then table order.
pub(crate) type SortKey = (bool, usize, usize);

/// True when some finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(Finding::is_error)
}

/// What Ollama keeps of a parameter schema, and what it drops.
pub fn ollama_view(schema: &Value) -> OllamaView {
    ollama::view(schema)
}

fn finding(
    profile: Profile,
    rule: &LintRule,
    hit: &Hit,
    tool: &Subject<'_>,
    index: usize,
    cx: &SchemaCx<'_>,
) -> Finding {
    let at = hit.pointer.as_str();
    // Locations are written only where a template asks for them: a large schema can have
    // tens of thousands of findings.
    let wanted = |name: &str| {
        let placeholder = format!("{{{name}}}");
        rule.message.contains(&placeholder)
            || rule
                .provider_message
                .is_some_and(|m| m.contains(&placeholder))
    };
    let vars = text::Vars {
        detail: &hit.detail,
        keyword: hit.keyword.as_deref().unwrap_or_default(),
        item: &hit.item,
        context: if wanted("context") {
            text::py_tuple(at)
        } else {
            String::new()
        },
        jsonpath: if wanted("jsonpath") {
            text::json_path(at)
        } else {
            String::new()
        },
        proto: if wanted("proto") {
            cx.proto_path(at)
        } else {
            String::new()
        },
        dotted: if wanted("dotted") {
            text::dotted(at)
        } else {
            String::new()
        },
        tool: tool.name.unwrap_or("<tool>"),
        index: index.to_string(),
    };
    Finding {
        profile,
        severity: rule.severity,
        rule: rule.id,
        target: rule.applies.target(),
        pointer: hit.pointer.clone(),
        keyword: hit.keyword.clone(),
        message: text::fill(rule.message, &vars),
        provider_message: rule.provider_message.map(|m| text::fill(m, &vars)),
        confirmed: rule.confirmed,
        source: rule.source,
    }
}

#[cfg(test)]
mod tests;
