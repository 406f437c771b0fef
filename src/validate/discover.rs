//! Where payloads live, so the command line and the inspector find the same ones.
//!
//! Beside a manifest `<stem>.json` sits a folder `<stem>.payloads/`. A manifest with one tool
//! keeps its payloads directly in it; a manifest with several has one subfolder per tool name,
//! `<stem>.payloads/<tool name>/` (a one-tool manifest may use the subfolder too). Every `*.json`
//! file there is one payload, every `*.jsonl` file one payload a line. The file name's prefix
//! says what the payload is meant to show: `valid-*`, `invalid-*`, `wrong-branch-*`.

use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::manifest::Manifest;
use crate::projection::{Mode, OpenBranches};

use super::verdict::Class;

/// What a payload's file name says it is meant to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expectation {
    /// `valid-*`: the original accepts, so every projection must.
    Valid,
    /// `invalid-*`: the original rejects, and so does any sound flattened projection.
    Invalid,
    /// `wrong-branch-*`: the original rejects; the flat projection accepts, because it does not
    /// carry the correlation between tag and fields.
    WrongBranch,
    /// `foreign-key-*`: the original accepts a value under a property the payload's own open
    /// alternative does not declare; the flat projection under `--open-branches declared`
    /// rejects it as foreign-key, every other projection accepts it.
    ForeignKey,
}

impl Expectation {
    pub fn from_file_name(name: &str) -> Option<Expectation> {
        if name.starts_with("valid-") {
            Some(Expectation::Valid)
        } else if name.starts_with("invalid-") {
            Some(Expectation::Invalid)
        } else if name.starts_with("wrong-branch-") {
            Some(Expectation::WrongBranch)
        } else if name.starts_with("foreign-key-") {
            Some(Expectation::ForeignKey)
        } else {
            None
        }
    }

    /// Whether a verdict agrees with the name. Inline mode keeps every union as `anyOf`, so a
    /// wrong-branch payload may be rejected there too; it is only required that the original
    /// rejects it. Only flat mode under `--open-branches declared` has foreign keys.
    pub fn agrees(self, class: Class, mode: Mode, open_branches: OpenBranches) -> bool {
        match (self, mode) {
            (Expectation::ForeignKey, Mode::Flat) if open_branches == OpenBranches::Declared => {
                class == Class::ForeignKey
            }
            (Expectation::ForeignKey, _) => class == Class::BothAccept,
            (Expectation::Valid, _) => class == Class::BothAccept,
            // Under `strict` a property an open alternative tolerates is `{}`, so a mistake in
            // it is one the flat projection no longer sees.
            (Expectation::Invalid, Mode::Flat) if open_branches == OpenBranches::Strict => {
                matches!(class, Class::BothReject | Class::ProjectionLooser)
            }
            (Expectation::Invalid, _) => class == Class::BothReject,
            (Expectation::WrongBranch, Mode::Flat) => class == Class::ProjectionLooser,
            (Expectation::WrongBranch, Mode::Inline) => {
                matches!(class, Class::ProjectionLooser | Class::BothReject)
            }
        }
    }
}

/// One payload file found for a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadFile {
    /// Index into [`Manifest::tools`].
    pub tool: usize,
    pub path: PathBuf,
    pub expectation: Option<Expectation>,
}

/// `<dir>/<stem>.payloads` for a manifest file.
pub fn payload_dir(manifest_path: &Path) -> Option<PathBuf> {
    let stem = manifest_path.file_stem()?;
    let mut name = stem.to_os_string();
    name.push(".payloads");
    Some(manifest_path.with_file_name(name))
}

/// The payload files beside a manifest, tool by tool in manifest order, files by name. A
/// missing folder is no payloads, not an error.
pub fn discover(manifest_path: &Path, manifest: &Manifest) -> io::Result<Vec<PayloadFile>> {
    let Some(dir) = payload_dir(manifest_path) else {
        return Ok(Vec::new());
    };
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    discover_in(&dir, manifest)
}

/// Like [`discover`], for a payload folder given explicitly.
pub fn discover_in(dir: &Path, manifest: &Manifest) -> io::Result<Vec<PayloadFile>> {
    let mut out = Vec::new();
    for (index, tool) in manifest.tools.iter().enumerate() {
        let own = tool_subdir(dir, &tool.name);
        let folder = match own {
            Some(sub) if sub.is_dir() => sub,
            _ if manifest.tools.len() == 1 => dir.to_path_buf(),
            _ => continue,
        };
        for path in payload_files(&folder)? {
            out.push(PayloadFile {
                tool: index,
                expectation: expectation_of(&path),
                path,
            });
        }
    }
    Ok(out)
}

/// `<dir>/<tool name>`, unless the name could leave `dir` (tool names are untrusted text: a
/// tool called `..` or `a/b` gets no folder).
pub fn tool_subdir(dir: &Path, tool_name: &str) -> Option<PathBuf> {
    let mut components = Path::new(tool_name).components();
    match (components.next(), components.next()) {
        (Some(Component::Normal(name)), None) if name == tool_name => Some(dir.join(name)),
        _ => None,
    }
}

/// The `*.json` and `*.jsonl` files directly in `dir`, sorted by name.
pub fn payload_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && is_payload_file(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

pub fn is_payload_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "jsonl")
    )
}

pub fn is_json_lines(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some("jsonl")
}

pub fn expectation_of(path: &Path) -> Option<Expectation> {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(Expectation::from_file_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest;

    #[test]
    fn names_say_what_a_payload_shows() {
        assert_eq!(
            Expectation::from_file_name("valid-a.json"),
            Some(Expectation::Valid)
        );
        assert_eq!(
            Expectation::from_file_name("invalid-a.json"),
            Some(Expectation::Invalid)
        );
        assert_eq!(
            Expectation::from_file_name("wrong-branch-a.json"),
            Some(Expectation::WrongBranch)
        );
        assert_eq!(Expectation::from_file_name("a.json"), None);
    }

    #[test]
    fn hostile_tool_names_get_no_folder() {
        let dir = Path::new("/tmp/x.payloads");
        assert_eq!(
            tool_subdir(dir, "search"),
            Some(PathBuf::from("/tmp/x.payloads/search"))
        );
        for bad in ["..", ".", "", "a/b", "/etc", "a/.."] {
            assert_eq!(tool_subdir(dir, bad), None, "{bad:?}");
        }
    }

    #[test]
    fn finds_the_samples_payloads_per_tool() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        let path = root.join("mcp-tools-list.json");
        let m = manifest::load_path(&path, None).unwrap();
        let found = discover(&path, &m).unwrap();
        let tools: std::collections::BTreeSet<&str> = found
            .iter()
            .map(|f| m.tools[f.tool].name.as_str())
            .collect();
        assert_eq!(
            tools.into_iter().collect::<Vec<_>>(),
            ["create_issue", "list_labels", "move_file", "search"]
        );
        for f in &found {
            let folder = f.path.parent().unwrap().file_name().unwrap();
            assert_eq!(folder.to_str(), Some(m.tools[f.tool].name.as_str()));
        }

        let path = root.join("nested-union-pydantic.json");
        let m = manifest::load_path(&path, None).unwrap();
        let found = discover(&path, &m).unwrap();
        assert_eq!(found.len(), 13);
        assert!(found.iter().all(|f| f.tool == 0 && f.expectation.is_some()));
        let names: Vec<_> = found
            .iter()
            .map(|f| f.path.file_name().unwrap().to_str().unwrap())
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn no_folder_is_no_payloads() {
        let path = Path::new("/nonexistent/tools.json");
        let m = manifest::load_str(r#"{"type": "object"}"#, "tools.json", None).unwrap();
        assert!(discover(path, &m).unwrap().is_empty());
        assert_eq!(
            payload_dir(path),
            Some(PathBuf::from("/nonexistent/tools.payloads"))
        );
    }
}
