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
mod shapes;
pub mod strict_plan;
pub(crate) mod text;
pub mod tool_set;

use std::collections::{HashMap, HashSet};
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
pub(crate) use checks::{OverDepth, has_lookaround, over_depth, says_a_kind};
pub(crate) use profiles::ANTHROPIC_STRICT_KEYWORDS;

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
    findings_where(profile, tools, &cxs, wanted)
}

/// The findings of the rules `wanted` picks on every tool, read through the tools' tables.
fn findings_where(
    profile: Profile,
    tools: &[Subject<'_>],
    cxs: &[SchemaCx<'_>],
    wanted: impl Fn(&LintRule) -> bool,
) -> Vec<Vec<Finding>> {
    hits(profile, tools, cxs, &wanted)
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

/// [`lint_grouped`] with every rule run at every node: the straightforward lint that the
/// shared one (node-local rules read once per class of equal subtrees) must equal. For tests.
#[doc(hidden)]
pub fn lint_grouped_node_by_node(
    profile: Profile,
    tools: &[Subject<'_>],
    links: &[Option<(&Links, &Value)>],
) -> Vec<Vec<Group>> {
    let batch = Batch::new(tools.to_vec(), links.to_vec());
    batch.grouped(profile, hits_node_by_node(profile, tools, &batch.cxs))
}

/// The tools of one request, read once and linted for as many profiles as asked: reading a
/// large projection costs more than running one profile's rules on it.
pub(crate) struct Batch<'a> {
    tools: Vec<Subject<'a>>,
    cxs: Vec<SchemaCx<'a>>,
    links: Vec<Option<(&'a Links, &'a Value)>>,
    /// The first tool's place in the request, which messages name (`tools.{index}…`).
    first: usize,
}

impl<'a> Batch<'a> {
    pub(crate) fn new(
        tools: Vec<Subject<'a>>,
        links: Vec<Option<(&'a Links, &'a Value)>>,
    ) -> Batch<'a> {
        let cxs = tools.iter().map(|t| SchemaCx::new(t.schema)).collect();
        Batch {
            tools,
            cxs,
            links,
            first: 0,
        }
    }

    /// The batch as part of a request whose tools before it are not in it: its first tool is
    /// tool `first` of the request.
    pub(crate) fn numbered_from(mut self, first: usize) -> Batch<'a> {
        self.first = first;
        self
    }

    /// What Ollama keeps of tool `i`'s schema, taken from the lint that made it (made here
    /// otherwise); a later Ollama lint of this batch makes it again.
    pub(crate) fn take_ollama_view(&mut self, i: usize) -> OllamaView {
        self.cxs[i].take_ollama()
    }

    pub(crate) fn lint(&self, profile: Profile) -> Vec<Vec<Group>> {
        self.grouped(profile, hits(profile, &self.tools, &self.cxs, &|_| true))
    }

    /// Ollama's view of tool `i`'s schema (made by an Ollama lint of this batch, else here).
    pub(crate) fn ollama_view(&self, i: usize) -> &OllamaView {
        self.cxs[i].ollama()
    }

    /// [`lint_schema_where`] on tool `i`'s schema, read through this batch's tables (made for
    /// its own lint of that schema): the same findings, without making them again.
    pub(crate) fn schema_where(
        &self,
        i: usize,
        profile: Profile,
        wanted: impl Fn(&LintRule) -> bool,
    ) -> Vec<Finding> {
        let unnamed = [Subject {
            name: None,
            schema: self.tools[i].schema,
        }];
        findings_where(
            profile,
            &unnamed,
            std::slice::from_ref(&self.cxs[i]),
            wanted,
        )
        .pop()
        .unwrap_or_default()
    }

    fn grouped(
        &self,
        profile: Profile,
        hits: Vec<Vec<(SortKey, &'static LintRule, Hit)>>,
    ) -> Vec<Vec<Group>> {
        hits.into_iter()
            .enumerate()
            .map(|(i, list)| {
                let links = self.links.get(i).copied().flatten();
                group::group(list, links, |rule, hit| {
                    finding(
                        profile,
                        rule,
                        hit,
                        &self.tools[i],
                        self.first + i,
                        &self.cxs[i],
                    )
                })
            })
            .collect()
    }
}

/// The hits of the rules `wanted` picks on every tool, each tool's sorted (tool-level first,
/// then document order, then table order).
///
/// A keyword a more specific rule already explained is not repeated by a catch-all list (a
/// presence rule): a presence hit is dropped when an earlier rule hit the same keyword of the
/// same node. An unwanted rule still runs when a wanted presence rule comes after it, for the
/// keywords it claims.
fn hits(
    profile: Profile,
    tools: &[Subject<'_>],
    cxs: &[SchemaCx<'_>],
    wanted: &dyn Fn(&LintRule) -> bool,
) -> Vec<Vec<(SortKey, &'static LintRule, Hit)>> {
    let tool_cxs = tool_cxs(tools, cxs);
    let mut keyed: Vec<Vec<(SortKey, &'static LintRule, Hit)>> =
        (0..tools.len()).map(|_| Vec::new()).collect();
    let last_claim_reader = profile
        .rules()
        .iter()
        .rposition(|r| wanted(r) && is_presence(r));
    let running: Vec<Running> = profile
        .rules()
        .iter()
        .enumerate()
        .filter_map(|(rank, rule)| {
            let keep = wanted(rule);
            let runs = keep || last_claim_reader.is_some_and(|last| rank <= last);
            runs.then_some(Running { rank, rule, keep })
        })
        .collect();
    let (local, other): (Vec<Running>, Vec<Running>) = running
        .into_iter()
        .filter(|r| r.rule.applies.target() == Target::Schema || r.keep)
        .partition(|r| checks::is_local(&r.rule.applies));
    for (i, cx) in cxs.iter().enumerate() {
        // (document order of the node, keyword) → the first rule (by rank) that hit it, among
        // the rules that do not read one node at a time.
        let mut claims: HashMap<(usize, String), usize> = HashMap::new();
        let mut other_hits: Vec<(SortKey, &'static LintRule, Hit)> = Vec::new();
        for r in &other {
            if r.rule.applies.target() == Target::Tool {
                continue;
            }
            for hit in checks::schema_hits(&r.rule.applies, cx) {
                let order = cx.order(&hit.pointer);
                if let Some(keyword) = &hit.keyword
                    && order != usize::MAX
                {
                    claims.entry((order, keyword.clone())).or_insert(r.rank);
                }
                if r.keep {
                    other_hits.push(((true, order, r.rank), r.rule, hit));
                }
            }
        }
        if !local.is_empty() {
            local_hits(&local, cx, &claims, &mut keyed[i]);
        }
        keyed[i].append(&mut other_hits);
    }
    for r in other
        .iter()
        .filter(|r| r.rule.applies.target() == Target::Tool)
    {
        for (i, hit) in checks::tool_hits(&r.rule.applies, &tool_cxs) {
            keyed[i].push(((false, 0, r.rank), r.rule, hit));
        }
    }
    for list in &mut keyed {
        list.sort_by_key(|(k, _, _)| *k);
    }
    keyed
}

fn tool_cxs<'c>(tools: &[Subject<'c>], cxs: &'c [SchemaCx<'c>]) -> Vec<ToolCx<'c>> {
    tools
        .iter()
        .zip(cxs)
        .map(|(t, cx)| ToolCx {
            name: t.name,
            schema: cx,
        })
        .collect()
}

/// A rule that runs, and whether its hits are kept (or only claim keywords).
struct Running {
    rank: usize,
    rule: &'static LintRule,
    keep: bool,
}

fn is_presence(rule: &LintRule) -> bool {
    matches!(
        rule.applies,
        Check::Keywords { .. } | Check::KeywordsOutside { .. }
    )
}

/// One kept hit of a node-local rule at the first node of a class, relative to that node.
struct Relative {
    rank: usize,
    rule: &'static LintRule,
    hit: Hit,
    /// The hit's pointer after the node's.
    suffix: String,
    /// The hit's place in document order after the node's (`None`: not a schema node).
    offset: Option<usize>,
    presence: bool,
}

/// The hits of node-local rules, read once per class of equal subtrees and repeated at every
/// member of the class. `claims` are the keywords other rules hit first.
fn local_hits(
    local: &[Running],
    cx: &SchemaCx<'_>,
    claims: &HashMap<(usize, String), usize>,
    out: &mut Vec<(SortKey, &'static LintRule, Hit)>,
) {
    for class in cx.classes() {
        let first = class.members[0];
        let relative = class_hits(local, cx, first);
        if relative.is_empty() {
            continue;
        }
        for &member in &class.members {
            let at = cx.pointer(member);
            for r in &relative {
                let order = r.offset.map_or(usize::MAX, |o| member + o);
                let claimed_before = r.presence
                    && !claims.is_empty()
                    && r.hit.keyword.as_deref().is_some_and(|k| {
                        claims
                            .get(&(order, k.to_owned()))
                            .is_some_and(|&rank| rank < r.rank)
                    });
                if claimed_before {
                    continue;
                }
                // The class's hit with this member's place (its own pointer is not copied).
                let mut pointer = String::with_capacity(at.len() + r.suffix.len());
                pointer.push_str(at);
                pointer.push_str(&r.suffix);
                let hit = Hit {
                    pointer,
                    keyword: r.hit.keyword.clone(),
                    detail: r.hit.detail.clone(),
                    item: r.hit.item.clone(),
                };
                out.push(((true, order, r.rank), r.rule, hit));
            }
        }
    }
}

/// The node-local rules' kept hits at node `first`, in rank order, with the keywords one rule
/// claimed dropped from a later presence rule.
fn class_hits(local: &[Running], cx: &SchemaCx<'_>, first: usize) -> Vec<Relative> {
    let node = &cx.nodes[first];
    let at = cx.pointer(first);
    let mut claimed: HashSet<(usize, String)> = HashSet::new();
    let mut out = Vec::new();
    let mut found = Vec::new();
    for r in local {
        found.clear();
        checks::local_hits(&r.rule.applies, node, at, &mut found);
        let presence = is_presence(r.rule);
        for hit in found.drain(..) {
            let offset = if hit.pointer == at {
                Some(0)
            } else {
                let order = cx.order(&hit.pointer);
                (order != usize::MAX).then(|| order - first)
            };
            if let (Some(keyword), Some(offset)) = (&hit.keyword, offset)
                && !claimed.insert((offset, keyword.clone()))
                && presence
            {
                continue;
            }
            if r.keep {
                out.push(Relative {
                    rank: r.rank,
                    rule: r.rule,
                    suffix: hit.pointer[at.len()..].to_owned(),
                    hit,
                    offset,
                    presence,
                });
            }
        }
    }
    out
}

/// [`hits`] with every rule run over every node in turn, sharing nothing.
fn hits_node_by_node(
    profile: Profile,
    tools: &[Subject<'_>],
    cxs: &[SchemaCx<'_>],
) -> Vec<Vec<(SortKey, &'static LintRule, Hit)>> {
    let tool_cxs = tool_cxs(tools, cxs);
    let mut keyed: Vec<Vec<(SortKey, &'static LintRule, Hit)>> =
        (0..tools.len()).map(|_| Vec::new()).collect();
    let mut claimed: Vec<HashSet<(usize, String)>> = vec![HashSet::new(); tools.len()];
    for (rank, rule) in profile.rules().iter().enumerate() {
        if rule.applies.target() == Target::Tool {
            for (i, hit) in checks::tool_hits(&rule.applies, &tool_cxs) {
                keyed[i].push(((false, 0, rank), rule, hit));
            }
            continue;
        }
        for (i, cx) in cxs.iter().enumerate() {
            for hit in checks::schema_hits(&rule.applies, cx) {
                let order = cx.order(&hit.pointer);
                if let Some(keyword) = &hit.keyword
                    && order != usize::MAX
                    && !claimed[i].insert((order, keyword.clone()))
                    && is_presence(rule)
                {
                    continue;
                }
                keyed[i].push(((true, order, rank), rule, hit));
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
