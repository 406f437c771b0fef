//! Helpers for the sample-driven suites (`cli_project`, `cli_check`, `samples`, `tailor`).
//!
//! Each integration test is its own crate and uses only part of this module, hence the
//! module-wide `dead_code` allowance rather than one per item.
#![allow(dead_code)]

pub mod cli;
pub mod mcp;
pub mod ref_fan;

use std::path::{Path, PathBuf};

use schemalens::manifest::{self, Manifest, ManifestFormat};
use serde_json::{Map, Value};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `samples/*.json`, sorted so that test output and snapshot order are stable.
pub fn samples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join("samples"))
        .expect("samples/ exists")
        .map(|e| e.expect("readable samples/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    found.sort();
    assert!(
        found.len() >= 10,
        "expected the bundled samples, found {found:?}"
    );
    found
}

pub fn stem(path: &Path) -> String {
    path.file_stem()
        .expect("sample has a name")
        .to_string_lossy()
        .into_owned()
}

/// The path the CLI is given: relative, so that messages and `origin` read like a user's.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

pub fn load(path: &Path) -> Manifest {
    manifest::load_path(path, None)
        .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()))
}

pub fn is_multi_tool(manifest: &Manifest) -> bool {
    manifest.format != ManifestFormat::BareSchema
}

/// The folder holding a tool's payloads, by the convention in `samples/README.md`.
pub fn payload_dir(sample: &Path, manifest: &Manifest, tool: &str) -> Option<PathBuf> {
    let base = sample.with_file_name(format!("{}.payloads", stem(sample)));
    let dir = if is_multi_tool(manifest) {
        base.join(tool)
    } else {
        base
    };
    dir.is_dir().then_some(dir)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Valid,
    Invalid,
    WrongBranch,
    /// The original accepts a value under a key its own open alternative does not declare.
    ForeignKey,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Valid,
        Verdict::Invalid,
        Verdict::WrongBranch,
        Verdict::ForeignKey,
    ];

    fn from_file_name(name: &str) -> Option<Verdict> {
        // `wrong-branch-` before anything shorter, so that prefixes cannot shadow each other.
        if name.starts_with("wrong-branch-") {
            Some(Verdict::WrongBranch)
        } else if name.starts_with("foreign-key-") {
            Some(Verdict::ForeignKey)
        } else if name.starts_with("invalid-") {
            Some(Verdict::Invalid)
        } else if name.starts_with("valid-") {
            Some(Verdict::Valid)
        } else {
            None
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid => "invalid",
            Verdict::WrongBranch => "wrong-branch",
            Verdict::ForeignKey => "foreign-key",
        }
    }
}

pub struct Payload {
    pub path: PathBuf,
    pub verdict: Verdict,
    pub value: Value,
}

/// The payloads in `dir`, sorted; a `.json` file without a known prefix fails loudly, since a
/// misnamed payload would otherwise never be checked.
pub fn payloads(dir: &Path) -> Vec<Payload> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable payload entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let verdict = Verdict::from_file_name(&name)
                .unwrap_or_else(|| panic!("{}: unknown payload prefix", path.display()));
            let text = std::fs::read_to_string(&path).expect("readable payload");
            let value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Payload {
                path,
                verdict,
                value,
            }
        })
        .collect()
}

/// Keywords whose value is one schema.
const SINGLE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names (data) to schemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Calls `visit` with every schema object reachable through schema-valued keywords, and its
/// pointer. Values under `properties` are schemas but their keys are data, so a property named
/// `oneOf` is never mistaken for the keyword; `enum`, `const`, `default`, `examples` are
/// never entered.
pub fn walk_schemas(schema: &Value, at: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    let Value::Object(map) = schema else {
        return;
    };
    visit(map, at);
    for (key, value) in map {
        let here = format!("{at}/{}", escape(key));
        let key = key.as_str();
        if SINGLE.contains(&key) {
            walk_schemas(value, &here, visit);
        } else if LISTS.contains(&key) {
            walk_list(value, &here, visit);
        } else if MAPS.contains(&key) {
            walk_map(value, &here, visit);
        } else if key == "items" {
            // Draft-07 tuples are a list; 2020-12 `items` is one schema.
            match value {
                Value::Array(_) => walk_list(value, &here, visit),
                _ => walk_schemas(value, &here, visit),
            }
        } else if key == "dependencies" {
            // Draft-07: each value is either a list of names (data) or a schema.
            walk_map(value, &here, visit);
        }
    }
}

fn walk_list(value: &Value, at: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    if let Value::Array(items) = value {
        for (i, item) in items.iter().enumerate() {
            walk_schemas(item, &format!("{at}/{i}"), visit);
        }
    }
}

fn walk_map(value: &Value, at: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    if let Value::Object(entries) = value {
        for (name, item) in entries {
            walk_schemas(item, &format!("{at}/{}", escape(name)), visit);
        }
    }
}

pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Whether a schema (after projection) still holds a union: `anyOf`/`oneOf` anywhere.
pub fn has_union(schema: &Value) -> bool {
    let mut found = false;
    walk_schemas(schema, "", &mut |map, _| {
        found |= map.contains_key("anyOf") || map.contains_key("oneOf");
    });
    found
}

/// Sets the value at an RFC 6901 pointer, `""` meaning the whole document.
pub fn replace_at(document: &mut Value, pointer: &str, with: Value) {
    let slot = document
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no value at {pointer:?}"));
    *slot = with;
}

/// The real-manifest corpus (`<root>/mcp/<server>.json` and `<server>.cases.json`), when
/// `SCHEMALENS_CORPUS` points at it (`.ci/run` sets it when `../shared/corpus` exists). Suites
/// that need it print that they skipped and pass when it is absent, so the project's own tests
/// stand on their own.
pub fn corpus_dir() -> Option<PathBuf> {
    let root = PathBuf::from(std::env::var_os("SCHEMALENS_CORPUS")?);
    assert!(
        root.join("mcp").is_dir(),
        "SCHEMALENS_CORPUS must point at a corpus folder with an mcp/ subfolder: {}",
        root.display()
    );
    Some(root)
}

/// The manifests of the corpus's `mcp/` folder (not its payload cases nor its list of sources),
/// sorted so that test output is stable.
pub fn corpus_manifests(mcp_dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(mcp_dir)
        .expect("corpus mcp/ is readable")
        .map(|e| e.expect("readable corpus entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".json") && !name.ends_with(".cases.json") && name != "SOURCES.json"
        })
        .collect();
    found.sort();
    found
}

/// An `anyOf` whose first alternative is an `allOf` of two object parts declaring the property
/// `a` with different schemas: no one plain object is their conjunction, so a provider without
/// `allOf` (Gemini) gets it as it is, and refuses it.
pub fn all_of_clash() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {"c": {"anyOf": [
            {"type": "object", "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]}},
        "required": ["c"]
    })
}
