//! `lint --format sarif`: the original's findings as a SARIF 2.1.0 log, so that code-review
//! tools show them on the manifest's lines.
//!
//! Each result points into the manifest file: the member name of the keyword the finding is
//! about (or of the schema node, or the tool's `name` for a tool-level finding), with line and
//! column (code points) from [`TextIndex`], plus the JSON pointer as a logical location. The
//! projection's verdict rides along in each result's properties: whether the projection still
//! has the problem there.

use serde_json::{Value, json};

use schemalens::Projection;
use schemalens::lint::{Finding, LintRule, Profile, Severity, Target};
use schemalens::manifest::{Manifest, Position, TextIndex, Tool};
use schemalens::pointer;

const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// `lint --format`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LintFormat {
    Text,
    Json,
    /// SARIF 2.1.0, for code-review tools: the original's findings on the manifest's lines.
    Sarif,
}

/// The log for `file` as the user named it, pretty-printed. The file is read again for
/// positions; standard input has none, so its results carry logical locations only.
pub fn log(file: &std::path::Path, manifest: &Manifest, tools: &[SarifTool<'_>]) -> String {
    let from_stdin = file.as_os_str() == "-";
    let text = (!from_stdin)
        .then(|| std::fs::read_to_string(file).ok())
        .flatten();
    let uri = (!from_stdin).then(|| uri_of(file));
    let doc = render(manifest, text.as_deref(), uri.as_deref(), tools);
    serde_json::to_string_pretty(&doc).expect("JSON values serialize")
}

/// One linted tool with what the log needs of it.
pub struct SarifTool<'a> {
    pub tool: &'a Tool,
    /// `None` when the tool could not be projected.
    pub projection: Option<&'a Projection>,
    /// Per profile: the original's findings and the projection's.
    pub profiles: Vec<(Profile, &'a [Finding], &'a [Finding])>,
}

/// The log. `text` is the manifest as read (no regions without it); `uri` how the file is
/// named in the log.
pub fn render(
    manifest: &Manifest,
    text: Option<&str>,
    uri: Option<&str>,
    tools: &[SarifTool<'_>],
) -> Value {
    let index = text.map(TextIndex::new);
    let mut rules: Vec<(Profile, &'static LintRule)> = Vec::new();
    let mut results = Vec::new();
    for t in tools {
        for (profile, original, projection) in &t.profiles {
            for f in *original {
                let rule = profile
                    .rule(f.rule)
                    .expect("a finding names a rule of its profile");
                let rule_index = match rules
                    .iter()
                    .position(|(p, r)| p == profile && r.id == rule.id)
                {
                    Some(i) => i,
                    None => {
                        rules.push((*profile, rule));
                        rules.len() - 1
                    }
                };
                results.push(result(
                    t,
                    *profile,
                    f,
                    rule_index,
                    projection,
                    index.as_ref(),
                    uri,
                ));
            }
        }
    }
    let rules: Vec<Value> = rules.iter().map(|(p, r)| rule_entry(*p, r)).collect();
    let mut run = json!({
        "tool": {"driver": {
            "name": "schemalens",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        }},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"origin": manifest.origin, "format": manifest.format.name()},
    });
    if let Some(uri) = uri {
        run["artifacts"] = json!([{"location": {"uri": uri}, "mimeType": "application/json"}]);
    }
    json!({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]})
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warn => "warning",
        Severity::Info => "note",
    }
}

/// A rule's template with its placeholders written as an ellipsis.
fn generic(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').map(|c| open + c);
        match close {
            Some(close)
                if rest[open + 1..close]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && close > open + 1 =>
            {
                out.push_str(&rest[..open]);
                out.push('…');
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn rule_entry(profile: Profile, rule: &LintRule) -> Value {
    json!({
        "id": format!("{profile}/{}", rule.id),
        "name": rule.id,
        "shortDescription": {"text": format!("{}: {}", profile.label(), rule.id)},
        "fullDescription": {"text": generic(rule.message)},
        "help": {"text": format!("{}\nSource: {}", generic(rule.message), rule.source)},
        "defaultConfiguration": {"level": level(rule.severity)},
        "properties": {"profile": profile.name(), "confirmed": rule.confirmed},
    })
}

fn result(
    t: &SarifTool<'_>,
    profile: Profile,
    f: &Finding,
    rule_index: usize,
    projection_findings: &[Finding],
    index: Option<&TextIndex>,
    uri: Option<&str>,
) -> Value {
    let tool = t.tool;
    let (document, logical) = match f.target {
        Target::Tool => {
            let name = ["/name", "/function/name"]
                .iter()
                .map(|n| format!("{}{n}", tool.tool_pointer))
                .find(|p| index.is_some_and(|i| i.span(p).is_some()));
            (
                name.unwrap_or_else(|| tool.tool_pointer.clone()),
                format!("{} (tool)", tool.name),
            )
        }
        Target::Schema => {
            let base = tool.schema_pointer.clone().unwrap_or_default();
            let node = format!("{base}{}", f.pointer);
            let at = match &f.keyword {
                Some(k) => pointer::push(&node, k),
                None => node.clone(),
            };
            // A keyword the finding asks for but the schema lacks (`additionalProperties` not
            // set) has no text: the node it belongs to does.
            let at = if index.is_some_and(|i| i.span(&at).is_some()) {
                at
            } else {
                node
            };
            let shown = match &f.keyword {
                Some(k) => pointer::push(&f.pointer, k),
                None => f.pointer.clone(),
            };
            (at, format!("{}#{shown}", tool.name))
        }
    };
    let mut location = json!({
        "logicalLocations": [{"fullyQualifiedName": logical, "kind": "member"}],
    });
    if let Some(uri) = uri {
        let mut physical = json!({"artifactLocation": {"uri": uri, "index": 0}});
        if let Some(span) = index.and_then(|i| i.span(&document)) {
            let (start, end) = span.head();
            physical["region"] = region(start, end);
        }
        location["physicalLocation"] = physical;
    }
    let remains = t
        .projection
        .map(|p| remains_in_projection(p, f, projection_findings));
    let mut message = f.message.clone();
    if let Some(said) = &f.provider_message {
        message.push_str(&format!(" Provider: {said}"));
    }
    json!({
        "ruleId": format!("{profile}/{}", f.rule),
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": message},
        "locations": [location],
        "partialFingerprints": {"schemalensPointer/v1": format!("{}|{profile}/{}|{}|{}", tool.name, f.rule, f.pointer, f.keyword.as_deref().unwrap_or(""))},
        "properties": {
            "profile": profile.name(),
            "tool": tool.name,
            "pointer": f.pointer,
            "documentPointer": document,
            "keyword": f.keyword,
            "providerMessage": f.provider_message,
            "confirmed": f.confirmed,
            "remainsInProjection": remains,
            "projectionMode": t.projection.map(|p| p.mode),
        },
    })
}

fn region(start: Position, end: Position) -> Value {
    json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
    })
}

/// Whether the projection has the same rule at the node's counterparts (or, for tool-level
/// rules, at all).
fn remains_in_projection(projection: &Projection, f: &Finding, after: &[Finding]) -> bool {
    if f.target == Target::Tool {
        return after.iter().any(|g| g.rule == f.rule);
    }
    let mut at = f.pointer.as_str();
    let counterparts = loop {
        let found = projection.links.projections(at);
        if !found.is_empty() {
            break found;
        }
        match pointer::parent(at) {
            Some(p) => at = p,
            None => break &[][..],
        }
    };
    after.iter().any(|g| {
        g.rule == f.rule
            && counterparts
                .iter()
                .any(|c| pointer::is_within(&g.pointer, c))
    })
}

/// A relative path as a URI reference (forward slashes, spaces and `%` escaped).
pub fn uri_of(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}
