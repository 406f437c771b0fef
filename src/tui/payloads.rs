//! The payload panel: the tool's payload files (the convention of `schemalens check`) with both
//! verdicts and the class, the nodes that reject them, and why a looser projection accepts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ratatui::text::{Line, Span};
use serde_json::Value;

use schemalens::lint::Profile;
use schemalens::manifest::{Manifest, Tool};
use schemalens::projection::tailor::{Adaptation, steps};
use schemalens::validate::{
    Checker, Class, Expectation, PayloadFile, SchemaError, Verdict, discover, payload,
};
use schemalens::{Mode, Options, Projection};

use super::text::{clip, escape};
use super::theme::Theme;

/// One payload: a `.json` file, or one line of a `.jsonl` file.
#[derive(Debug, Clone)]
pub struct PayloadRow {
    pub path: PathBuf,
    /// The 1-based line of a JSON Lines record.
    pub line: Option<usize>,
    pub expectation: Option<Expectation>,
    pub value: Option<Value>,
    /// The verdict, or why there is none (unreadable file, invalid JSON with file:line:col,
    /// a schema the validator refuses).
    pub verdict: Result<Verdict, String>,
    /// With a provider chosen (`p`): the payload as `project --provider` would have it sent.
    pub sent: Option<Sent>,
    /// With calls read as the model's (`c`): the payload taken as a call in the provider's
    /// form, read back for the tool. `sent` is then `None`: what the file holds is no
    /// payload of the tool's.
    pub received: Option<FromModel>,
}

/// A call as the model made it for a provider's tailored schema, and what the tool is given
/// (the library's [`schemalens::validate::Received`], as `check --from-model` reads it).
#[derive(Debug, Clone)]
pub struct FromModel {
    pub profile: Profile,
    pub received: schemalens::validate::Received,
}

/// The provider the payload panel sends payloads to, and how it reads them.
#[derive(Debug, Clone, Copy)]
pub struct Provider<'a> {
    pub profile: Profile,
    /// The options the tailored schema is made with.
    pub options: &'a Options,
    /// Each payload is a call the model made for the tailored schema, not a payload of the
    /// tool's.
    pub calls: bool,
}

/// A payload as sent to a provider: adapted for the tailored schema, that schema's verdict, and
/// the payload taken back (the library's [`schemalens::validate::Sent`]).
#[derive(Debug, Clone)]
pub struct Sent {
    pub profile: Profile,
    pub sent: schemalens::validate::Sent,
}

impl PayloadRow {
    pub fn name(&self) -> String {
        let file = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        match self.line {
            Some(line) => format!("{file}:{line}"),
            None => file,
        }
    }

    pub fn class(&self) -> Option<Class> {
        self.verdict.as_ref().ok().map(|v| v.class)
    }

    /// Whether the verdict is what the file name promises; `None` without a promise.
    pub fn agrees(&self, options: &Options) -> Option<bool> {
        Some(
            self.expectation?
                .agrees(self.class()?, options.mode, options.open_branches),
        )
    }
}

/// The payload files of every tool of a manifest loaded from `path`; none for standard input
/// or a missing folder.
pub fn discover_for(path: &str, manifest: &Manifest) -> Vec<PayloadFile> {
    if path == schemalens::manifest::STDIN_ORIGIN {
        return Vec::new();
    }
    discover::discover(Path::new(path), manifest).unwrap_or_default()
}

/// The payload files of every tool of a manifest, found in `folder` (none without one, or
/// when it does not exist).
pub fn discover_in(folder: Option<PathBuf>, manifest: &Manifest) -> Vec<PayloadFile> {
    match folder {
        Some(dir) if dir.is_dir() => discover::discover_in(&dir, manifest).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Checks tool `index`'s payloads against the original and `projection` (made with
/// `options`). A file's text is taken from `texts` (what the watcher read) when it is there,
/// else read from disk.
///
/// With `sent_to` (the provider chosen with `p`), each payload is also adapted for that
/// provider's tailored schema and judged by it, as `check --provider` does; or, with
/// [`Provider::calls`], read as the model's call and read back for the tool, as
/// `check --from-model` does.
pub fn check_all(
    files: &[PayloadFile],
    index: usize,
    tool: &Tool,
    projection: &Projection,
    options: &Options,
    texts: &HashMap<PathBuf, Vec<u8>>,
    sent_to: Option<Provider<'_>>,
) -> (Vec<PayloadRow>, Option<String>) {
    let files: Vec<&PayloadFile> = files.iter().filter(|f| f.tool == index).collect();
    if files.is_empty() {
        return (Vec::new(), None);
    }
    let checker = Checker::new(tool, projection.clone())
        .and_then(|c| c.with_open_branch_reference(tool, options));
    let checker = match checker {
        Ok(c) => Some(c),
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    // Only the profiles that rewrite something; the others send the projection as it is.
    let calls = sent_to.is_some_and(|p| p.calls);
    let tailored = sent_to
        .filter(|p| {
            steps(p.profile).iter().any(|s| {
                !matches!(
                    s,
                    schemalens::projection::tailor::Step::RootObject
                        | schemalens::projection::tailor::Step::Limits
                )
            })
        })
        .and_then(|p| {
            let t = schemalens::tailor_tool(tool, p.options, p.profile).ok()?;
            Some((p.profile, Checker::tailored(tool, t).ok()?))
        });
    let mut rows = Vec::new();
    for file in files {
        let origin = file.path.display().to_string();
        let read = match texts.get(&file.path) {
            Some(bytes) => String::from_utf8(bytes.clone())
                .map_err(|_| std::io::Error::other("not UTF-8 text")),
            None => std::fs::read_to_string(&file.path),
        };
        let text = match read {
            Ok(t) => t,
            Err(e) => {
                rows.push(PayloadRow {
                    path: file.path.clone(),
                    line: None,
                    expectation: file.expectation,
                    value: None,
                    verdict: Err(format!("{origin}: cannot read: {e}")),
                    sent: None,
                    received: None,
                });
                continue;
            }
        };
        let parsed: Vec<(Option<usize>, Result<Value, String>)> =
            if discover::is_json_lines(&file.path) {
                payload::parse_lines(&text, &origin)
                    .into_iter()
                    .map(|p| (p.line, p.value.map_err(|e| e.to_string())))
                    .collect()
            } else {
                vec![(
                    None,
                    payload::parse(&text, &origin).map_err(|e| e.to_string()),
                )]
            };
        for (line, value) in parsed {
            let verdict = match (&value, &checker) {
                (Ok(v), Some(c)) => Ok(c.check(v)),
                (Err(e), _) => Err(e.clone()),
                (Ok(_), None) => Err("no checker".to_owned()),
            };
            let (sent, received) = match (&value, &tailored) {
                (Ok(v), Some((profile, t))) if calls => (
                    None,
                    t.receive(v).map(|received| FromModel {
                        profile: *profile,
                        received,
                    }),
                ),
                (Ok(v), Some((profile, t))) => (
                    t.send(v).map(|sent| Sent {
                        profile: *profile,
                        sent,
                    }),
                    None,
                ),
                _ => (None, None),
            };
            rows.push(PayloadRow {
                path: file.path.clone(),
                line,
                expectation: file.expectation,
                value: value.ok(),
                verdict,
                sent,
                received,
            });
        }
    }
    (rows, None)
}

/// Where `n` puts a new payload for tool `tool_name` of a manifest whose payloads live in
/// `folder`.
pub fn new_payload_path(folder: Option<PathBuf>, tool_name: &str, tools: usize) -> Option<PathBuf> {
    let dir = folder?;
    let dir = if tools > 1 {
        discover::tool_subdir(&dir, tool_name)?
    } else {
        dir
    };
    (1..1000)
        .map(|i| dir.join(format!("new-{i}.json")))
        .find(|p| !p.exists())
}

/// A starting payload the projection accepts.
pub fn skeleton(tool: &Tool, projection: &Projection) -> Option<String> {
    let checker = Checker::new(tool, projection.clone()).ok()?;
    serde_json::to_string_pretty(&checker.skeleton()).ok()
}

/// Two marks, original then projection: ✓ accepts, ✗ rejects.
pub fn class_glyphs(class: Class) -> &'static str {
    match class {
        Class::BothAccept => "✓✓",
        Class::BothReject => "✗✗",
        Class::ProjectionLooser => "✗✓",
        Class::Unsound => "✓✗",
        Class::ForeignKey => "✓⊂",
    }
}

pub fn class_text(class: Class) -> &'static str {
    match class {
        Class::BothAccept => "both accept",
        Class::BothReject => "both reject",
        Class::ProjectionLooser => {
            "projection looser: the original rejects, the projection accepts"
        }
        Class::Unsound => {
            "UNSOUND: the original accepts, the projection rejects (a schemalens bug)"
        }
        Class::ForeignKey => {
            "foreign key: the original accepts, the projection keeps the declared shape (open branches declared)"
        }
    }
}

pub fn expectation_text(e: Expectation) -> &'static str {
    match e {
        Expectation::Valid => "valid",
        Expectation::Invalid => "invalid",
        Expectation::WrongBranch => "wrong-branch",
        Expectation::ForeignKey => "foreign-key",
    }
}

/// The list row: class marks, name, and `!` when the verdict contradicts the file name. A call
/// from the model shows the tailored schema's verdict on it, then the original's on what the
/// tool gets, and how much text could not be read.
pub fn row_line(row: &PayloadRow, options: &Options, theme: Theme) -> Line<'static> {
    if let Some(call) = &row.received {
        return call_row_line(row, call, theme);
    }
    let mut spans = Vec::new();
    match row.class() {
        Some(class) => spans.push(Span::styled(class_glyphs(class), theme.class(class))),
        None => spans.push(Span::styled("??", theme.error())),
    }
    spans.push(Span::raw(" "));
    spans.push(Span::raw(clip(&row.name(), 60)));
    if row.agrees(options) == Some(false) {
        spans.push(Span::styled(" ! not as named", theme.error()));
    }
    Line::from(spans)
}

/// Two marks, the tailored schema's on the call then the original's on what the tool gets.
pub fn call_glyphs(r: &schemalens::validate::Received) -> String {
    let mark = |valid: bool| if valid { "✓" } else { "✗" };
    format!("{}→{}", mark(r.call.valid), mark(r.original.valid))
}

/// Dim when both accept, an error otherwise.
pub fn call_style(r: &schemalens::validate::Received, theme: Theme) -> ratatui::style::Style {
    if r.call.valid && r.original.valid {
        theme.dim()
    } else {
        theme.error()
    }
}

fn call_row_line(row: &PayloadRow, call: &FromModel, theme: Theme) -> Line<'static> {
    let r = &call.received;
    let mut spans = vec![Span::styled(
        format!("{} ", call_glyphs(r)),
        call_style(r, theme),
    )];
    // Before the name, which the narrow panel clips first.
    if !r.given.unread.is_empty() {
        spans.push(Span::styled(
            format!("unread:{} ", r.given.unread.len()),
            theme.error(),
        ));
    }
    spans.push(Span::raw(clip(&row.name(), 60)));
    Line::from(spans)
}

/// The detail for a call from the model: the tailored schema's verdict, the text the adapter
/// could not read, the original's verdict on what the tool gets, then that and the call.
pub fn call_lines(row: &PayloadRow, call: &FromModel, theme: Theme) -> Vec<Line<'static>> {
    let r = &call.received;
    let mut out = vec![
        Line::from(vec![
            Span::styled(escape(&row.name()).into_owned(), theme.heading()),
            Span::styled(
                format!(
                    "  a call the model made for {} (c: read it as the tool's payload)",
                    call.profile.name()
                ),
                theme.dim(),
            ),
        ]),
        side_line("the tailored schema", &r.call, theme),
    ];
    out.extend(r.call.leaf_errors().iter().map(|e| error_line(e, theme)));
    if !r.given.unread.is_empty() {
        out.push(Line::styled(
            "text the adapter could not read (given to the tool as it came; the provider cannot check what a string holds):",
            theme.error(),
        ));
        for at in &r.given.unread {
            out.push(Line::from(vec![
                Span::styled("  payload ", theme.dim()),
                Span::styled(
                    escape(if at.is_empty() { "/" } else { at }).into_owned(),
                    theme.pointer(),
                ),
            ]));
        }
    }
    out.push(side_line(
        "the original, on what the tool gets",
        &r.original,
        theme,
    ));
    out.extend(
        r.original
            .leaf_errors()
            .iter()
            .map(|e| error_line(e, theme)),
    );
    out.push(Line::from(""));
    out.push(Line::styled("the tool gets", theme.heading()));
    out.extend(super::overlay::json_lines(&r.given.payload, theme, 400));
    if let Some(value) = &row.value {
        out.push(Line::from(""));
        out.push(Line::styled("the call", theme.heading()));
        out.extend(super::overlay::json_lines(value, theme, 400));
    }
    out
}

/// `title: accepts`, or `title: rejects (N errors)`.
fn side_line(title: &str, side: &schemalens::validate::SideVerdict, theme: Theme) -> Line<'static> {
    let verdict = if side.valid {
        "accepts".to_owned()
    } else {
        let n = side.leaf_errors().len();
        format!("rejects ({n} error{})", if n == 1 { "" } else { "s" })
    };
    Line::from(vec![
        Span::styled(format!("{title}: "), theme.heading()),
        Span::raw(verdict),
    ])
}

/// Pointers of the nodes that reject the payload on one side.
pub fn error_nodes(verdict: &Verdict, original: bool) -> Vec<String> {
    side_error_nodes(if original {
        &verdict.original
    } else {
        &verdict.projection
    })
}

/// Pointers of the nodes that reject a value on `side`.
pub fn side_error_nodes(side: &schemalens::validate::SideVerdict) -> Vec<String> {
    side.leaf_errors().iter().map(|e| e.node.clone()).collect()
}

pub fn error_line(e: &SchemaError, theme: Theme) -> Line<'static> {
    let at = if e.instance_path.is_empty() {
        "payload".to_owned()
    } else {
        format!("payload {}", escape(&e.instance_path))
    };
    Line::from(vec![
        Span::styled("  ✗ ", theme.error()),
        Span::styled(format!("{at}: "), theme.pointer()),
        Span::raw(escape(&e.message).into_owned()),
        Span::styled(
            format!("  ({} at #{})", escape(&e.keyword), escape(&e.node)),
            theme.dim(),
        ),
    ])
}

/// The detail pane for a payload: verdicts, errors, lost correlations, then `more` (a live
/// server's verdict), then the payload itself.
pub fn detail_lines(
    row: &PayloadRow,
    options: &Options,
    theme: Theme,
    more: Vec<Line<'static>>,
) -> Vec<Line<'static>> {
    if let Some(call) = &row.received {
        let mut out = call_lines(row, call, theme);
        out.extend(more);
        return out;
    }
    let mut out = Vec::new();
    let mut head = vec![Span::styled(
        escape(&row.name()).into_owned(),
        theme.heading(),
    )];
    if let Some(e) = row.expectation {
        head.push(Span::styled(
            format!("  named {}", expectation_text(e)),
            theme.dim(),
        ));
    }
    out.push(Line::from(head));
    let verdict = match &row.verdict {
        Ok(v) => v,
        Err(e) => {
            out.push(Line::styled("Cannot check this payload", theme.error()));
            out.extend(super::text::escape_lines(e).into_iter().map(Line::from));
            return out;
        }
    };
    out.push(Line::from(vec![
        Span::styled(
            format!("{} ", class_glyphs(verdict.class)),
            theme.class(verdict.class),
        ),
        Span::styled(class_text(verdict.class), theme.class(verdict.class)),
    ]));
    match row.agrees(options) {
        Some(true) => out.push(Line::styled("as its name says", theme.dim())),
        Some(false) => out.push(Line::styled(
            match options.mode {
                Mode::Flat => format!(
                    "not what its name says in flat mode, open branches {}",
                    options.open_branches
                ),
                Mode::Inline => "not what its name says in inline mode".to_owned(),
            },
            theme.error(),
        )),
        None => {}
    }
    for (title, side) in [
        ("original", &verdict.original),
        ("projection", &verdict.projection),
    ] {
        if side.valid {
            out.push(Line::from(vec![
                Span::styled(format!("{title}: "), theme.heading()),
                Span::raw("accepts"),
            ]));
        } else {
            let leaves = side.leaf_errors();
            out.push(Line::from(vec![
                Span::styled(format!("{title}: "), theme.heading()),
                Span::raw(format!(
                    "rejects ({} error{})",
                    leaves.len(),
                    if leaves.len() == 1 { "" } else { "s" }
                )),
            ]));
            out.extend(leaves.iter().map(|e| error_line(e, theme)));
        }
    }
    if !verdict.lost.is_empty() {
        out.push(Line::styled(
            "why the projection accepts it:",
            theme.heading(),
        ));
        for c in &verdict.lost {
            out.push(Line::from(vec![
                Span::styled(format!("  {} ", c.rule.id()), theme.key()),
                Span::raw(escape(&c.message).into_owned()),
            ]));
        }
    }
    if !verdict.foreign.is_empty() {
        out.push(Line::styled(
            "why the projection rejects it (by policy, not a bug):",
            theme.heading(),
        ));
        for f in &verdict.foreign {
            out.push(Line::from(vec![
                Span::styled("  open-branch-declared ", theme.key()),
                Span::raw(escape(&f.message).into_owned()),
            ]));
            out.push(Line::from(vec![
                Span::styled("    payload ", theme.dim()),
                Span::styled(escape(&f.instance_path).into_owned(), theme.pointer()),
                Span::styled("  tolerated by ", theme.dim()),
                Span::styled(
                    f.tolerating
                        .iter()
                        .map(|t| format!("#{}", escape(&t.from)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    theme.pointer(),
                ),
                Span::styled("  declared by ", theme.dim()),
                Span::styled(
                    f.declaring
                        .iter()
                        .map(|d| format!("#{}", escape(&d.from)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    theme.pointer(),
                ),
            ]));
        }
    }
    for u in &verdict.unsound {
        out.push(Line::from(vec![
            Span::styled("  unsound at ", theme.error()),
            Span::raw(format!(
                "payload {}: {} (projection #{}, original {})",
                escape(&u.instance_path),
                escape(&u.message),
                escape(&u.projection_node),
                u.original_node
                    .as_deref()
                    .map_or("?".to_owned(), |n| format!("#{}", escape(n)))
            )),
        ]));
    }
    if let Some(sent) = &row.sent {
        out.extend(sent_lines(sent, theme));
    }
    out.extend(more);
    if let Some(value) = &row.value {
        out.push(Line::from(""));
        out.push(Line::styled("payload", theme.heading()));
        out.extend(super::overlay::json_lines(value, theme, 400));
    }
    out
}

/// The payload as the chosen provider is sent it, what its tailored schema says, and whether
/// the tool gets it back.
fn sent_lines(sent: &Sent, theme: Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from("")];
    let side = &sent.sent.verdict;
    let verdict = if side.valid {
        "accepts".to_owned()
    } else {
        format!("rejects ({} error(s))", side.leaf_errors().len())
    };
    out.push(Line::from(vec![
        Span::styled(
            format!("sent to {}: ", sent.profile.name()),
            theme.heading(),
        ),
        Span::raw(format!("the tailored schema {verdict}")),
    ]));
    if !side.valid {
        out.extend(side.leaf_errors().iter().map(|e| error_line(e, theme)));
    }
    let a = &sent.sent.adaptation;
    out.extend(change_lines(a, theme));
    if a.changed() {
        out.push(Line::styled("  as sent", theme.dim()));
        out.extend(super::overlay::json_lines(&a.payload, theme, 400));
        out.push(Line::styled(
            if sent.sent.round_trips {
                "  un-adapted back: the payload exactly"
            } else {
                "  un-adapted back: NOT the payload"
            },
            if sent.sent.round_trips {
                theme.dim()
            } else {
                theme.error()
            },
        ));
        if !sent.sent.round_trips {
            out.extend(super::overlay::json_lines(&sent.sent.returned, theme, 400));
        }
    } else {
        out.push(Line::styled("  sent as it is", theme.dim()));
    }
    out
}

/// What the adapter changed, one line per kind of change (payload pointers).
pub fn change_lines(a: &Adaptation, theme: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let list = |ps: &[String]| {
        ps.iter()
            .map(|p| {
                if p.is_empty() {
                    "/".to_owned()
                } else {
                    p.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (what, at) in [
        ("null for absent", &a.filled),
        ("in the provider's form", &a.encoded),
        ("under the provider's names", &a.renamed),
        ("null comes back absent", &a.ambiguous),
        (
            "undeclared key not sent (a renamed property's name)",
            &a.collided,
        ),
    ] {
        if !at.is_empty() {
            out.push(Line::from(vec![
                Span::styled(format!("  {what}: "), theme.dim()),
                Span::raw(escape(&list(at)).into_owned()),
            ]));
        }
    }
    out
}
