//! `lint --format sarif`: a SARIF 2.1.0 log whose results point at the right text of the
//! manifest. The SARIF JSON schema itself is not vendored (it is published under the OASIS IPR
//! policy, not an open-source licence), so the structure the 2.1.0 specification requires is
//! checked here, and every region is checked against the file's own text.

mod support;

use std::path::Path;

use schemalens::manifest::TextIndex;
use serde_json::Value;
use support::cli;

fn sarif(args: &[&str]) -> (Value, i32) {
    let mut all = vec!["lint"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "sarif"]);
    let run = cli::run(&all);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    (run.json(), run.code.expect("exit code"))
}

/// The characters of `text` from (line, column) to (line, end column), 1-based code points.
fn text_at(text: &str, line: u64, start: u64, end: u64) -> String {
    let row = text
        .lines()
        .nth(line as usize - 1)
        .expect("the line exists");
    row.chars()
        .skip(start as usize - 1)
        .take((end - start) as usize)
        .collect()
}

/// The structure SARIF 2.1.0 requires of what schemalens writes (sarif-v2.1.0 §3.13–3.30):
/// version and runs; a driver with a name and rules with unique ids; results whose ruleId and
/// ruleIndex agree, whose level is one of the four, with a message text and locations.
fn check_structure(log: &Value) {
    assert_eq!(log["version"], "2.1.0");
    assert!(
        log["$schema"]
            .as_str()
            .is_some_and(|s| s.ends_with("sarif-schema-2.1.0.json"))
    );
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["tool"]["driver"]["name"], "schemalens");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let mut ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for r in rules {
        assert!(
            r["shortDescription"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        assert!(matches!(
            r["defaultConfiguration"]["level"].as_str(),
            Some("error" | "warning" | "note")
        ));
    }
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "rule ids are unique");
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(result["ruleId"], rules[index]["id"]);
        assert!(matches!(
            result["level"].as_str(),
            Some("error" | "warning" | "note" | "none")
        ));
        assert!(
            result["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let locations = result["locations"].as_array().expect("locations");
        assert_eq!(locations.len(), 1);
        assert!(
            locations[0]["logicalLocations"][0]["fullyQualifiedName"]
                .as_str()
                .is_some()
        );
    }
}

/// Every region starts at the quoted member name its document pointer ends with (or at the
/// value, for array elements), in the file as it is on disk.
fn check_regions(log: &Value, file: &Path) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    let mut checked = 0;
    for result in log["runs"][0]["results"].as_array().unwrap() {
        let physical = &result["locations"][0]["physicalLocation"];
        let region = &physical["region"];
        let line = region["startLine"].as_u64().expect("a region");
        assert_eq!(
            region["endLine"].as_u64(),
            Some(line),
            "names are on one line"
        );
        let got = text_at(
            &text,
            line,
            region["startColumn"].as_u64().unwrap(),
            region["endColumn"].as_u64().unwrap(),
        );
        let document = result["properties"]["documentPointer"].as_str().unwrap();
        let last = schemalens::pointer::tokens(document)
            .unwrap()
            .pop()
            .unwrap_or_default();
        let is_index =
            document.is_empty() || (!last.is_empty() && last.chars().all(|c| c.is_ascii_digit()));
        if is_index {
            assert!(
                got.starts_with('{') || got.starts_with('['),
                "{got:?} at {document}"
            );
        } else {
            let name: String = serde_json::from_str(&got)
                .unwrap_or_else(|e| panic!("{got:?} at {document} is not a JSON string: {e}"));
            assert_eq!(name, last, "{document}");
        }
        // The keyword the finding names is the one highlighted, when the schema has it.
        if let Some(keyword) = result["properties"]["keyword"].as_str()
            && document.ends_with(&format!("/{}", schemalens::pointer::escape(keyword)))
        {
            assert_eq!(got, format!("\"{keyword}\""));
        }
        checked += 1;
    }
    checked
}

#[test]
fn every_sample_result_points_at_its_keyword_in_the_file() {
    let mut total = 0;
    for sample in support::samples() {
        let path = support::relative(&sample);
        let (log, _) = sarif(&[&path, "--provider", "all"]);
        check_structure(&log);
        assert_eq!(
            log["runs"][0]["artifacts"][0]["location"]["uri"],
            path.as_str()
        );
        total += check_regions(&log, &sample);
    }
    assert!(total > 100, "the samples have findings: {total}");
}

#[test]
fn results_are_the_original_findings_of_lint_json_with_the_same_exit_code() {
    let path = "samples/mcp-tools-list.json";
    let (log, code) = sarif(&[path]);
    let run = cli::run(&["lint", path, "--format", "json"]);
    assert_eq!(run.code, Some(code));
    let report = run.json();
    let mut expected = Vec::new();
    for tool in report["tools"].as_array().unwrap() {
        for p in tool["profiles"].as_array().unwrap() {
            // The original's groups: one per place (a copy is a place of its own).
            for g in p["original"]["groups"].as_array().unwrap() {
                for at in g["pointers"].as_array().unwrap() {
                    expected.push(format!(
                        "{}/{} {}#{}",
                        p["profile"].as_str().unwrap(),
                        g["rule"].as_str().unwrap(),
                        tool["tool"].as_str().unwrap(),
                        at.as_str().unwrap()
                    ));
                }
            }
        }
    }
    let got: Vec<String> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}#{}",
                r["ruleId"].as_str().unwrap(),
                r["properties"]["tool"].as_str().unwrap(),
                r["properties"]["pointer"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(got, expected);
    // The projection's verdict rides along: the flat projection removes the root oneOf.
    assert!(
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["properties"]["remainsInProjection"] == false)
    );
}

#[test]
fn standard_input_has_logical_locations_only() {
    let text = std::fs::read_to_string(support::root().join("samples/openai-tools.json")).unwrap();
    let run = cli::run_with(
        &[
            "lint",
            "-",
            "--provider",
            "openai-strict",
            "--format",
            "sarif",
        ],
        Some(&text),
    );
    let log = run.json();
    check_structure(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        assert!(r["locations"][0].get("physicalLocation").is_none());
    }
}

#[test]
fn corpus_regions_all_resolve() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let mut total = 0;
    for name in [
        "notion-mcp-server.json",
        "server-github.json",
        "desktop-commander.json",
    ] {
        let file = corpus.join("mcp").join(name);
        let (log, _) = sarif(&[file.to_str().unwrap(), "--provider", "openai-strict,gemini"]);
        check_structure(&log);
        total += check_regions(&log, &file);
    }
    assert!(total > 500, "{total}");
}

/// The index behind the regions, on real files: every value serde_json parses has a span, and
/// the text of the span parses back to the same value.
#[test]
fn text_index_spans_parse_back_to_their_values() {
    let mut files = support::samples();
    if let Some(corpus) = support::corpus_dir() {
        files.push(corpus.join("mcp/notion-mcp-server.json"));
        files.push(corpus.join("mcp/chrome-devtools-mcp.json"));
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let index = TextIndex::new(&text);
        let lines: Vec<&str> = text.split('\n').collect();
        let offset = |p: schemalens::manifest::Position| -> usize {
            let before: usize = lines[..p.line - 1].iter().map(|l| l.len() + 1).sum();
            let within: usize = lines[p.line - 1]
                .chars()
                .take(p.column - 1)
                .map(char::len_utf8)
                .sum();
            before + within
        };
        let mut stack = vec![(String::new(), &doc)];
        let mut seen = 0;
        while let Some((at, value)) = stack.pop() {
            let span = index
                .span(&at)
                .unwrap_or_else(|| panic!("{}: no span for {at:?}", file.display()));
            let slice = &text[offset(span.start)..offset(span.end)];
            let back: Value = serde_json::from_str(slice)
                .unwrap_or_else(|e| panic!("{}: {at:?}: {slice:?}: {e}", file.display()));
            assert_eq!(&back, value, "{}: {at}", file.display());
            seen += 1;
            match value {
                Value::Object(map) => stack.extend(
                    map.iter()
                        .map(|(k, v)| (schemalens::pointer::push(&at, k), v)),
                ),
                Value::Array(items) => stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (schemalens::pointer::push_index(&at, i), v)),
                ),
                _ => {}
            }
        }
        assert_eq!(seen, index.len(), "{}", file.display());
    }
}
