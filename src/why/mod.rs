//! `why`: from a provider's rejection text to the node, the rule and the fix.
//!
//! The text is matched against a catalogue of provider messages ([`catalogue`], data); the
//! location the message carries is read in that provider's syntax ([`location`]); the tool is
//! found by name or position; and the location is looked up in every schema the provider may
//! have received — the original, the projection in either mode, the projection tailored for
//! that provider — because a Gemini proto path numbers properties in the order it got them,
//! and only the schema that was sent has the problem there. Lint decides between them: the
//! schema in which the matching lint rule fires at that place is the one that was sent. The
//! trace then maps the node to its counterparts, and the first projection or tailoring that
//! no longer has the finding is the fix.

pub mod catalogue;
pub mod location;
pub mod matcher;
mod resolve;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::lint::{Profile, Severity};
use crate::manifest::Manifest;
use crate::{Mode, Options};

pub use catalogue::{At, Known, MESSAGES, Provider};
pub use location::{Path, ToolRef};
pub use resolve::Session;

/// What `why` is asked.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub text: &'a str,
    /// Only this tool (`--tool`).
    pub tool: Option<&'a str>,
    /// The profile to read the message for (`--provider`); by default the message's own.
    pub provider: Option<Profile>,
    /// Projection options; `mode` is the projection shown beside the original.
    pub options: Options,
    /// The manifest as the user names it, for the commands in the fix.
    pub file: &'a str,
}

/// How far `why` got with the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every recognised message was placed on a node (or on its tool).
    Located,
    /// A message was recognised, but some could not be placed.
    Recognised,
    /// No known message in the text.
    Unrecognised,
}

impl Outcome {
    /// The process exit code: 0, 1, 2.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Located => 0,
            Outcome::Recognised => 1,
            Outcome::Unrecognised => 2,
        }
    }
}

/// The answer for the whole text.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub outcome: Outcome,
    /// One per message found (a Gemini error body can list several), or per location read in
    /// wording no row knows.
    pub diagnoses: Vec<Diagnosis>,
    /// When nothing was recognised: the known messages nearest in wording.
    pub closest: Vec<Closest>,
}

/// A known message that resembles unrecognised text.
#[derive(Debug, Clone, Serialize)]
pub struct Closest {
    pub id: &'static str,
    pub provider: Provider,
    pub example: &'static str,
    /// Share of the row's words found in the text, 0 to 1.
    pub score: f64,
}

/// Which schema a node is in: what the provider may have received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "schema", rename_all = "kebab-case")]
pub enum Variant {
    Original,
    Projection { mode: Mode },
    Tailored { provider: Profile, mode: Mode },
}

impl Variant {
    pub fn describe(self) -> String {
        match self {
            Variant::Original => "original schema".to_owned(),
            Variant::Projection { mode } => format!("{mode} projection"),
            Variant::Tailored { provider, mode } => {
                format!("{mode} projection tailored for {provider}")
            }
        }
    }
}

/// The message as recognised.
#[derive(Debug, Clone, Serialize)]
pub struct Recognition {
    /// The catalogue row; `None` when only a location was read from unknown wording.
    pub id: Option<&'static str>,
    pub provider: Provider,
    pub pattern: &'static str,
    pub source: &'static str,
    pub captures: BTreeMap<String, String>,
}

/// The location as written in the message.
#[derive(Debug, Clone, Serialize)]
pub struct ReadLocation {
    pub text: String,
    pub path: Option<Path>,
    pub tool: Option<ToolRef>,
}

/// The tool the message is about.
#[derive(Debug, Clone, Serialize)]
pub struct ToolFound {
    pub index: usize,
    pub name: String,
    /// How it was found: `name`, `index`, `declaration` (Gemini), `only` (the manifest has
    /// one), `option` (`--tool`), `search` (the location fits this tool only).
    pub by: &'static str,
}

/// The node, in the schema that was sent and in the others.
#[derive(Debug, Clone, Serialize)]
pub struct NodeRef {
    /// The schema `pointer` is in.
    pub schema: Variant,
    /// RFC 6901, into that schema (`""` is its root).
    pub pointer: String,
    /// The keyword of that node the message is about.
    pub keyword: Option<String>,
    /// True when the message is about the tool entry itself (its name).
    pub tool_entry: bool,
    /// The node's pointers in the tool's original schema (several when merged).
    pub original: Vec<String>,
    /// `original[0]` in the manifest document.
    pub document: Option<String>,
    pub projection_mode: Mode,
    /// Its pointers in the projection (several when inlined more than once).
    pub projection: Vec<String>,
}

/// What the provider received, as far as the location can tell.
#[derive(Debug, Clone, Serialize)]
pub struct Received {
    pub schema: Variant,
    /// The other schemas in which the same rule fires at this place.
    pub also: Vec<Variant>,
    /// The schemas in which the location exists at all.
    pub location_exists_in: Vec<Variant>,
    /// One sentence for people.
    pub summary: String,
}

/// The lint rule the message matches.
#[derive(Debug, Clone, Serialize)]
pub struct RuleMatch {
    pub profile: Profile,
    pub id: &'static str,
    pub severity: Severity,
    pub explanation: String,
    pub provider_message: Option<String>,
    /// True when lint reports this rule at this node of the schema that was sent.
    pub lint_agrees: bool,
    /// False when the rule rests on second-hand reports.
    pub confirmed: bool,
    pub source: &'static str,
}

/// One projection or tailoring step at the node.
#[derive(Debug, Clone, Serialize)]
pub struct FixStep {
    pub rule: &'static str,
    pub at: String,
    pub message: String,
}

/// The first schemalens output that no longer has the problem at this node.
#[derive(Debug, Clone, Serialize)]
pub struct Fix {
    pub schema: Variant,
    pub steps: Vec<FixStep>,
    /// A step gave up accepting some payloads the original accepts (it has a payload adapter).
    pub lossy: bool,
    pub command: String,
    /// Errors for the profile left in this tool in that schema.
    pub remaining_errors: usize,
}

/// Another place that fits the message as well as the chosen one.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub tool: String,
    pub pointer: String,
    pub keyword: Option<String>,
}

/// Everything `why` found out about one message.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// The message as matched.
    pub message: String,
    pub recognised: Recognition,
    /// The profile the message was read for.
    pub profile: Option<Profile>,
    pub location: Option<ReadLocation>,
    pub tool: Option<ToolFound>,
    pub received: Option<Received>,
    pub node: Option<NodeRef>,
    pub candidates: Vec<Candidate>,
    pub rule: Option<RuleMatch>,
    pub fix: Option<Fix>,
    pub advice: Option<&'static str>,
    pub notes: Vec<String>,
}

impl Diagnosis {
    /// Placed on a node or a tool entry.
    pub fn located(&self) -> bool {
        self.node.is_some()
    }
}

/// Reads `request.text` against `manifest`.
pub fn diagnose(manifest: &Manifest, request: &Request<'_>) -> Report {
    resolve::run(manifest, request)
}
