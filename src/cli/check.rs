//! `schemalens check`: payloads against the original and the projection, one row each.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use schemalens::lint::Finding;
use schemalens::lint::report::Form;
use schemalens::manifest::{Manifest, STDIN_ORIGIN, SchemaDialect, Tool};
use schemalens::projection::Links;
use schemalens::projection::tailor::Adaptation;
use schemalens::schema::Draft;
use schemalens::validate::{
    CheckError, Checker, Class, Correlation, ForeignKey, Received, SchemaError, SideVerdict,
    Unsoundness, Verdict, discover, payload,
};
use schemalens::{Linking, Mode, Options, Projection, parallel};
use serde_json::{Value, json};

use super::{CheckArgs, CheckFormat, Failure, exit, input};

/// Errors shown per side in text output; JSON output has them all.
const SHOWN_ERRORS: usize = 3;
/// Validator messages quote the payload; a terminal row should not.
const MESSAGE_CHARS: usize = 160;

/// `writeln!` into the output buffer; writing to a `String` cannot fail.
macro_rules! line {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// Writes the output at once. A reader that stops early (`| head`) is not an error.
fn emit(text: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::input(format!("cannot write the output: {e}")))
        }
        _ => Ok(()),
    }
}

/// Where one payload comes from.
enum Source {
    File(PathBuf),
    Stdin,
}

/// One payload to check, with the tool it is for.
struct Item {
    tool: usize,
    source: Source,
}

/// What one payload was judged as.
enum Judged {
    /// A payload for the tool, against the original and the projection.
    Payload(Verdict),
    /// `--from-model`: a call in the tailored schema's form, on its way to the tool.
    Call(Received),
}

impl Judged {
    fn payload(&self) -> Option<&Verdict> {
        match self {
            Judged::Payload(v) => Some(v),
            Judged::Call(_) => None,
        }
    }

    /// The original rejects the payload, or the tool would be given something it rejects.
    fn rejected(&self) -> bool {
        match self {
            Judged::Payload(v) => !v.original.valid,
            Judged::Call(c) => !c.call.valid || !c.original.valid,
        }
    }
}

/// One row of output.
struct Row {
    tool: usize,
    name: String,
    outcome: Result<Judged, String>,
    /// `--provider`: what the tailoring's adapter made of the payload the projection judged.
    adapted: Option<Adaptation>,
}

pub fn run(args: &CheckArgs) -> Result<u8, Failure> {
    let manifest = input::load(&args.input)?;
    let selected = input::selected(&manifest, &args.input)?;
    let items = gather(args, &manifest, &selected)?;
    let options = args.projection.options_for(args.tailor.provider);
    let given = match &args.projection_file {
        Some(path) => Some(given_projection(path, &manifest, &selected)?),
        None => None,
    };

    // The payloads' tools, in the order the items first need them, each with its items.
    let mut tools: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut position: HashMap<usize, usize> = HashMap::new();
    for (k, item) in items.iter().enumerate() {
        let at = *position.entry(item.tool).or_insert_with(|| {
            tools.push((item.tool, Vec::new()));
            tools.len() - 1
        });
        tools[at].1.push(k);
    }
    // One tool at a time: its checker (projection, validators) is built and its payloads
    // are read and judged on the thread that projected it, and the checker is dropped there,
    // so a manifest of many tools holds a few checkers at once, not all of them. Rows keep
    // the items' order; warnings, tailoring notes and errors come in the tools' order.
    // Tools are checked one per thread; a single tool's payloads are spread over the
    // threads instead (its checker is then built on this thread).
    let judge_all = |mine: &[usize], checker: &Checker| -> Vec<Vec<Row>> {
        if tools.len() == 1 {
            parallel::map(mine, |&k| rows_of(&items[k], checker, args.from_model))
        } else {
            mine.iter()
                .map(|&k| rows_of(&items[k], checker, args.from_model))
                .collect()
        }
    };
    let mut judged: Vec<Vec<Row>> = items.iter().map(|_| Vec::new()).collect();
    let mut take = |i: usize,
                    mine: &[usize],
                    (notes, rows): (Vec<String>, Result<Vec<Vec<Row>>, CheckError>)|
     -> Result<(), Failure> {
        for note in notes {
            eprintln!("{note}");
        }
        let rows = rows.map_err(|err| {
            let tool = &manifest.tools[i];
            Failure::input(format!("{} (tool {:?}): {err}", manifest.origin, tool.name))
        })?;
        for (&k, rows) in mine.iter().zip(rows) {
            judged[k] = rows;
        }
        Ok(())
    };
    // The tools of the manifest are one request: a name another tool has is refused there.
    let tool_list = args
        .tailor
        .provider
        .map(|p| input::tool_list(p, selected.iter().map(|i| &manifest.tools[*i])));
    let in_request: HashMap<usize, usize> =
        selected.iter().enumerate().map(|(k, i)| (*i, k)).collect();
    let tool_list_on = |i: usize| -> &[Finding] {
        match (&tool_list, in_request.get(&i)) {
            (Some(set), Some(&k)) => set.findings(k, Form::Tailored),
            _ => &[],
        }
    };
    let checked = |k: usize, tool: &Tool, projection: Projection| {
        let (notes, checker) =
            checker_for(tool, projection, args, &options, tool_list_on(tools[k].0));
        (notes, checker.map(|c| judge_all(&tools[k].1, &c)))
    };
    match &given {
        Some(schema) => {
            // Built here, one after the other: each tool's payloads are judged in parallel.
            for (i, mine) in &tools {
                let tool = &manifest.tools[*i];
                let projection = given_as_projection(schema, tool, &options);
                let (notes, checker) =
                    checker_for(tool, projection, args, &options, tool_list_on(*i));
                let rows = checker
                    .map(|c| parallel::map(mine, |&k| rows_of(&items[k], &c, args.from_model)));
                take(*i, mine, (notes, rows))?;
            }
        }
        None => {
            let selected: Vec<usize> = tools.iter().map(|(i, _)| *i).collect();
            input::project_selected_then(
                &manifest,
                &selected,
                &options,
                Linking::Build,
                checked,
                |built| {
                    for ((i, mine), done) in tools.iter().zip(built) {
                        take(*i, mine, done?)?;
                    }
                    Ok::<_, Failure>(())
                },
            )?;
        }
    }
    let rows: Vec<Row> = judged.into_iter().flatten().collect();

    let mut out = String::new();
    match args.format {
        CheckFormat::Text => {
            let mode = if given.is_some() {
                "given projection".to_owned()
            } else if let Some(profile) = args.tailor.provider
                && args.from_model
            {
                format!(
                    "{}, tailored for {profile} (calls from the model, read back for the tool)",
                    mode_text(args)
                )
            } else if let Some(profile) = args.tailor.provider {
                format!(
                    "{}, tailored for {profile} (payloads adapted before the projection sees them)",
                    mode_text(args)
                )
            } else {
                mode_text(args)
            };
            print_text(&mut out, &manifest, &rows, &mode, given.is_some());
        }
        CheckFormat::Json => {
            let all: Vec<Value> = rows.iter().map(|r| row_json(&manifest, r, args)).collect();
            out = serde_json::to_string_pretty(&all).expect("JSON values always serialize");
            out.push('\n');
        }
        CheckFormat::Jsonl => {
            for r in &rows {
                line!(out, "{}", row_json(&manifest, r, args));
            }
        }
    }
    emit(&out)?;

    let unreadable = rows.iter().filter(|r| r.outcome.is_err()).count();
    let unsound = count(&rows, Class::Unsound);
    for r in &rows {
        if let Err(e) = &r.outcome {
            eprintln!("error: {}", clean(e));
        }
    }
    if unsound > 0 {
        eprintln!(
            "error: {unsound} payload(s) UNSOUND: the original accepts them and the projection rejects them; {}",
            if given.is_some() {
                "the given projection is unsound"
            } else {
                "this is a schemalens bug (I-sound)"
            }
        );
    }
    let foreign = count(&rows, Class::ForeignKey);
    if foreign > 0 {
        eprintln!(
            "note: {foreign} payload(s) foreign-key: the original accepts them; the projection does not, because they put a value under a property their own open alternative does not declare (--open-branches declared, the default; --open-branches strict accepts them)"
        );
    }
    let rejected = rows
        .iter()
        .any(|r| r.outcome.as_ref().is_ok_and(Judged::rejected));
    Ok(if unsound > 0 {
        exit::UNSOUND
    } else if unreadable > 0 {
        exit::INPUT
    } else if rejected {
        exit::FINDING
    } else if foreign > 0 {
        exit::FOREIGN_KEY
    } else {
        exit::OK
    })
}

/// The checker of one tool's projection (tailored with `--provider`), and the notes tailoring
/// has for stderr.
fn checker_for(
    tool: &Tool,
    projection: Projection,
    args: &CheckArgs,
    options: &Options,
    tool_list: &[Finding],
) -> (Vec<String>, Result<Checker, CheckError>) {
    let (notes, checker) = match args.tailor.provider {
        Some(profile) => {
            let tailored = schemalens::projection::tailor(projection, profile);
            let notes = input::tailor_notes(tool, &tailored, profile, tool_list);
            (notes, Checker::tailored(tool, tailored))
        }
        None => (Vec::new(), Checker::new(tool, projection)),
    };
    let checker = checker.and_then(|c| c.with_open_branch_reference(tool, options));
    (notes, checker)
}

/// The rows of one payload source, judged by its tool's checker (as calls from the model with
/// `from_model`).
fn rows_of(item: &Item, checker: &Checker, from_model: bool) -> Vec<Row> {
    read(&item.source)
        .into_iter()
        .map(|(name, parsed)| {
            let (adapted, outcome) = match parsed {
                Err(e) => (None, Err(e)),
                Ok(call) if from_model => {
                    let received = checker
                        .receive(&call)
                        .ok_or_else(|| "--from-model needs --provider".to_owned());
                    (None, received.map(Judged::Call))
                }
                Ok(value) => (
                    checker.adapt(&value),
                    Ok(Judged::Payload(checker.check(&value))),
                ),
            };
            Row {
                tool: item.tool,
                name,
                adapted,
                outcome,
            }
        })
        .collect()
}

/// The mode, and in flat mode the open-branches policy, which decides the foreign-key class.
fn mode_text(args: &CheckArgs) -> String {
    let p = &args.projection;
    match p.mode {
        Mode::Flat => format!("{} mode, open branches {}", p.mode, p.open_branches),
        Mode::Inline => format!("{} mode", p.mode),
    }
}

fn count(rows: &[Row], class: Class) -> usize {
    rows.iter()
        .filter(|r| {
            r.outcome
                .as_ref()
                .is_ok_and(|j| j.payload().is_some_and(|v| v.class == class))
        })
        .count()
}

/// `--projection-file`: a projected schema made elsewhere (sent to a provider, edited by hand,
/// produced by another version), checked against the original instead of projecting anew.
fn given_projection(
    path: &Path,
    manifest: &Manifest,
    selected: &[usize],
) -> Result<Value, Failure> {
    if selected.len() != 1 {
        return Err(Failure::input(format!(
            "--projection-file is one tool's projected schema, and {} has {} tools: name one with --tool",
            manifest.origin,
            selected.len()
        )));
    }
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::input(format!("{origin}: cannot read: {e}")))?;
    payload::parse(&text, &origin).map_err(|e| Failure::input(e.to_string()))
}

/// A given projected schema, without trace or links: its errors point into it, but nothing
/// says which original node they came from.
fn given_as_projection(schema: &Value, tool: &Tool, options: &Options) -> Projection {
    Projection {
        schema: schema.clone(),
        mode: options.mode,
        draft: match tool.dialect {
            SchemaDialect::OpenApi30 => Draft::OpenApi30,
            SchemaDialect::JsonSchema => Draft::detect(schema),
        },
        trace: Vec::new(),
        links: Links::default(),
    }
}

/// The payloads named on the command line, or found beside the manifest.
fn gather(args: &CheckArgs, manifest: &Manifest, selected: &[usize]) -> Result<Vec<Item>, Failure> {
    if args.payloads.is_empty() {
        return discovered(args, manifest, selected);
    }
    let mut items = Vec::new();
    let mut stdin_taken = args.input.file.as_os_str() == "-";
    for arg in &args.payloads {
        if arg.as_os_str() == "-" {
            if stdin_taken {
                return Err(Failure::input(
                    "standard input can be read only once: give the manifest or one payload as `-`, not both",
                ));
            }
            stdin_taken = true;
            items.push(Item {
                tool: tool_for(args, manifest, selected, arg, None)?,
                source: Source::Stdin,
            });
        } else if arg.is_dir() {
            items.extend(folder(args, manifest, selected, arg)?);
        } else {
            items.push(Item {
                tool: tool_for(args, manifest, selected, arg, arg.parent())?,
                source: Source::File(arg.clone()),
            });
        }
    }
    Ok(items)
}

fn discovered(
    args: &CheckArgs,
    manifest: &Manifest,
    selected: &[usize],
) -> Result<Vec<Item>, Failure> {
    let file = &args.input.file;
    if file.as_os_str() == "-" {
        return Err(Failure::input(
            "no payloads given, and a manifest read from standard input has no payload folder beside it",
        ));
    }
    let found = discover::discover(file, manifest)
        .map_err(|e| Failure::input(format!("{}: cannot list payloads: {e}", manifest.origin)))?;
    let items: Vec<Item> = found
        .into_iter()
        .filter(|f| selected.contains(&f.tool))
        .map(|f| Item {
            tool: f.tool,
            source: Source::File(f.path),
        })
        .collect();
    if items.is_empty() {
        let dir = discover::payload_dir(file).unwrap_or_default();
        return Err(Failure::input(format!(
            "no payloads given and none found in {} (see `schemalens check --help`)",
            dir.display()
        )));
    }
    Ok(items)
}

/// A folder: a payload root with one subfolder per tool, or the payloads of one tool.
fn folder(
    args: &CheckArgs,
    manifest: &Manifest,
    selected: &[usize],
    dir: &Path,
) -> Result<Vec<Item>, Failure> {
    let cannot =
        |e: std::io::Error| Failure::input(format!("{}: cannot list payloads: {e}", dir.display()));
    let has_tool_folders = selected
        .iter()
        .any(|&i| discover::tool_subdir(dir, &manifest.tools[i].name).is_some_and(|d| d.is_dir()));
    if has_tool_folders {
        let found = discover::discover_in(dir, manifest).map_err(cannot)?;
        return Ok(found
            .into_iter()
            .filter(|f| selected.contains(&f.tool))
            .map(|f| Item {
                tool: f.tool,
                source: Source::File(f.path),
            })
            .collect());
    }
    let tool = tool_for(args, manifest, selected, dir, Some(dir))?;
    let files = discover::payload_files(dir).map_err(cannot)?;
    if files.is_empty() {
        return Err(Failure::input(format!(
            "{}: no *.json or *.jsonl payloads in this folder",
            dir.display()
        )));
    }
    Ok(files
        .into_iter()
        .map(|path| Item {
            tool,
            source: Source::File(path),
        })
        .collect())
}

/// The tool a payload is for: `--tool`, the only tool, or the tool its folder is named after.
fn tool_for(
    args: &CheckArgs,
    manifest: &Manifest,
    selected: &[usize],
    payload: &Path,
    folder: Option<&Path>,
) -> Result<usize, Failure> {
    if (args.input.tool.is_some() || manifest.tools.len() == 1)
        && let Some(&i) = selected.first()
    {
        return Ok(i);
    }
    if let Some(name) = folder.and_then(Path::file_name).and_then(|n| n.to_str())
        && let Some(i) = selected
            .iter()
            .copied()
            .find(|&i| manifest.tools[i].name == name)
    {
        return Ok(i);
    }
    let names: Vec<&str> = manifest.tools.iter().map(|t| t.name.as_str()).collect();
    Err(Failure::input(format!(
        "{}: which tool is this payload for? {} has {} tools ({}); name one with --tool, or put the payload in a folder named after its tool",
        payload.display(),
        manifest.origin,
        names.len(),
        names.join(", ")
    )))
}

/// The payloads of one source: a file or standard input is one payload, a `.jsonl` file one per
/// non-blank line. Errors become rows, so one bad payload does not hide the others.
fn read(source: &Source) -> Vec<(String, Result<Value, String>)> {
    let (origin, text) = match source {
        Source::Stdin => {
            let mut text = String::new();
            match std::io::stdin().lock().read_to_string(&mut text) {
                Ok(_) => (STDIN_ORIGIN.to_owned(), text),
                Err(e) => {
                    return vec![(
                        STDIN_ORIGIN.to_owned(),
                        Err(format!("{STDIN_ORIGIN}: cannot read: {e}")),
                    )];
                }
            }
        }
        Source::File(path) => {
            let origin = path.display().to_string();
            match std::fs::read(path).map(String::from_utf8) {
                Ok(Ok(text)) => (origin, text),
                Ok(Err(_)) => {
                    let message = format!("{origin}: cannot read: not UTF-8 text");
                    return vec![(origin, Err(message))];
                }
                Err(e) => {
                    let message = format!("{origin}: cannot read: {e}");
                    return vec![(origin, Err(message))];
                }
            }
        }
    };
    let lines = matches!(source, Source::File(p) if discover::is_json_lines(p));
    if lines {
        let parsed = payload::parse_lines(&text, &origin);
        if parsed.is_empty() {
            return vec![(
                origin.clone(),
                Err(format!("{origin}: no payloads: every line is blank")),
            )];
        }
        return parsed
            .into_iter()
            .map(|p| {
                let name = format!("{origin}:{}", p.line.unwrap_or(0));
                (name, p.value.map_err(|e| e.to_string()))
            })
            .collect();
    }
    let value = payload::parse(&text, &origin).map_err(|e| e.to_string());
    vec![(origin, value)]
}

// ---------------------------------------------------------------------------------------------
// Text output

fn print_text(out: &mut String, manifest: &Manifest, rows: &[Row], mode: &str, given: bool) {
    let mut current = None;
    for r in rows {
        if current != Some(r.tool) {
            current = Some(r.tool);
            line!(
                out,
                "{} · {mode} · {}",
                clean(&manifest.tools[r.tool].name),
                clean(&manifest.origin)
            );
            match &r.outcome {
                Ok(Judged::Call(_)) => line!(out, "  call tool  payload"),
                _ => line!(out, "  orig proj  {:<18} payload", "class"),
            }
        }
        let name = clean(&r.name);
        match &r.outcome {
            Err(e) => {
                line!(out, "  ?    ?     {:<18} {name}", "unreadable");
                line!(out, "             {}", clean(e));
            }
            Ok(Judged::Call(c)) => {
                line!(
                    out,
                    "  {}    {}     {name}",
                    mark(c.call.valid),
                    mark(c.original.valid)
                );
                print_received(out, c);
            }
            Ok(Judged::Payload(v)) => {
                let class = if v.class == Class::Unsound {
                    "UNSOUND".to_owned()
                } else {
                    v.class.to_string()
                };
                line!(
                    out,
                    "  {}    {}     {class:<18} {name}",
                    mark(v.original.valid),
                    mark(v.projection.valid)
                );
                if let Some(a) = &r.adapted {
                    print_adapted(out, a);
                }
                print_details(out, v, given);
            }
        }
    }
    let calls: Vec<&Received> = rows
        .iter()
        .filter_map(|r| match &r.outcome {
            Ok(Judged::Call(c)) => Some(c),
            _ => None,
        })
        .collect();
    if !calls.is_empty() {
        print_calls_summary(out, rows.len(), &calls);
        return;
    }
    let mut parts: Vec<String> = [
        Class::BothAccept,
        Class::BothReject,
        Class::ProjectionLooser,
        Class::Unsound,
    ]
    .iter()
    .map(|c| format!("{} {c}", count(rows, *c)))
    .collect();
    let foreign = count(rows, Class::ForeignKey);
    if foreign > 0 {
        parts.push(format!("{foreign} {}", Class::ForeignKey));
    }
    let unreadable = rows.iter().filter(|r| r.outcome.is_err()).count();
    if unreadable > 0 {
        parts.push(format!("{unreadable} unreadable"));
    }
    line!(
        out,
        "{} payload{}: {}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        parts.join(", ")
    );
}

/// How many calls the tool is given as it accepts them, and why the others are not.
fn print_calls_summary(out: &mut String, rows: usize, calls: &[&Received]) {
    let count = |f: &dyn Fn(&Received) -> bool| calls.iter().filter(|c| f(c)).count();
    let mut parts = vec![
        format!("{} the tool accepts", count(&|c| c.original.valid)),
        format!("{} the tool rejects", count(&|c| !c.original.valid)),
        format!("{} outside the tailored schema", count(&|c| !c.call.valid)),
        format!(
            "{} with unread text",
            count(&|c| !c.given.unread.is_empty())
        ),
    ];
    let unreadable = rows - calls.len();
    if unreadable > 0 {
        parts.push(format!("{unreadable} unreadable"));
    }
    line!(
        out,
        "{} call{}: {}",
        rows,
        if rows == 1 { "" } else { "s" },
        parts.join(", ")
    );
}

/// A call from the model: why the tailored schema refuses it, what the tool is given, what the
/// adapter could not read, and why the original refuses what the tool is given.
fn print_received(out: &mut String, c: &Received) {
    print_side(out, "call", &c.call);
    for at in &c.given.unread {
        line!(
            out,
            "{INDENT}{:<11}{}: text the model made up where the adapter expects JSON text, entries or a bundle; given to the tool as it came",
            "unread",
            instance(at)
        );
    }
    line!(
        out,
        "{INDENT}{:<11}{}",
        "tool gets",
        shorten(&c.given.payload.to_string(), 400)
    );
    print_side(out, "original", &c.original);
}

/// What the adapter changed, so that a projection verdict is read against the right payload.
fn print_adapted(out: &mut String, a: &Adaptation) {
    let list = |ps: &[String]| {
        ps.iter()
            .map(|p| instance(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !a.filled.is_empty() {
        line!(
            out,
            "{INDENT}{:<11}null sent for absent {}",
            "adapted",
            list(&a.filled)
        );
    }
    if !a.encoded.is_empty() {
        line!(
            out,
            "{INDENT}{:<11}sent in the provider's form (JSON text, entries, enum text, wrapper): {}",
            "adapted",
            list(&a.encoded)
        );
    }
    if !a.renamed.is_empty() {
        line!(
            out,
            "{INDENT}{:<11}sent under the provider's names: {}",
            "adapted",
            list(&a.renamed)
        );
    }
    if !a.ambiguous.is_empty() {
        line!(
            out,
            "{INDENT}{:<11}null comes back as absent (the provider's form sends both as null): {}",
            "not exact",
            list(&a.ambiguous)
        );
    }
    if !a.collided.is_empty() {
        line!(
            out,
            "{INDENT}{:<11}undeclared key under the name a renamed property is sent as, not sent: {}",
            "not exact",
            list(&a.collided)
        );
    }
    if a.changed() {
        line!(
            out,
            "{INDENT}{:<11}{}",
            "sent",
            shorten(&a.payload.to_string(), 400)
        );
    }
}

/// `text`, cut at about `max` characters (on a character boundary) with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

fn mark(valid: bool) -> char {
    if valid { '✓' } else { '✗' }
}

const INDENT: &str = "             ";

fn print_details(out: &mut String, v: &Verdict, given: bool) {
    if v.class == Class::Unsound {
        let whose = if given {
            "the given projection is unsound"
        } else {
            "this is a schemalens bug"
        };
        line!(
            out,
            "{INDENT}!! UNSOUND: the original accepts this payload and the projection rejects it; a projection must accept everything the original accepts: {whose}."
        );
        for u in &v.unsound {
            print_unsound(out, u);
        }
        return;
    }
    if v.class == Class::ForeignKey {
        for f in &v.foreign {
            print_foreign(out, f);
        }
        return;
    }
    print_side(out, "original", &v.original);
    print_side(out, "projection", &v.projection);
    if v.class == Class::ProjectionLooser {
        if v.lost.is_empty() {
            line!(
                out,
                "{INDENT}{:<11}no trace entry explains the difference",
                "lost"
            );
        }
        for l in &v.lost {
            print_lost(out, l);
        }
    }
}

fn print_unsound(out: &mut String, u: &Unsoundness) {
    line!(
        out,
        "{INDENT}{:<11}{}: {}",
        "projection",
        instance(&u.instance_path),
        clean(&u.message)
    );
    line!(
        out,
        "{INDENT}{:<11}rejected by projection #{}",
        "",
        clean(&u.projection_keyword)
    );
    match &u.original_node {
        Some(node) => line!(
            out,
            "{INDENT}{:<11}accepted by original   #{}",
            "",
            clean(node)
        ),
        None => line!(out, "{INDENT}{:<11}accepted by the original", ""),
    }
    if !u.linked_originals.is_empty() {
        let linked: Vec<String> = u
            .linked_originals
            .iter()
            .map(|o| format!("#{}", clean(o)))
            .collect();
        line!(
            out,
            "{INDENT}{:<11}the projection node came from {}",
            "",
            linked.join(", ")
        );
    }
}

/// A foreign key, named from the trace: the key, the alternative that tolerates it and the
/// ones that declare it.
fn print_foreign(out: &mut String, f: &ForeignKey) {
    let tags = |t: &[Value]| {
        t.iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let alternatives: Vec<String> = f
        .tolerating
        .iter()
        .map(|t| format!("#{}", clean(&t.from)))
        .collect();
    let whose = match &f.tag {
        Some(tag) => format!(
            "{} = {}, {}",
            clean(&f.discriminator),
            clean(&tag.to_string()),
            alternatives.join(", ")
        ),
        None => format!(
            "no {}: one of {}",
            clean(&f.discriminator),
            alternatives.join(", ")
        ),
    };
    line!(
        out,
        "{INDENT}{:<11}{}: `{}` is not declared by its alternative ({whose}), which is open",
        "foreign",
        instance(&f.instance_path),
        clean(&f.property),
    );
    let declaring: Vec<String> = f
        .declaring
        .iter()
        .map(|d| format!("{} (#{})", clean(&tags(&d.tags)), clean(&d.from)))
        .collect();
    line!(
        out,
        "{INDENT}{:<11}the projection keeps the shape declared by {}",
        "",
        declaring.join(", ")
    );
    line!(
        out,
        "{INDENT}{:<11}open-branch-declared at #{}",
        "",
        clean(&f.at)
    );
}

fn print_side(out: &mut String, label: &str, side: &SideVerdict) {
    if side.valid {
        return;
    }
    let leaves = side.leaf_errors();
    for e in leaves.iter().take(SHOWN_ERRORS) {
        print_error(out, label, e);
    }
    if leaves.len() > SHOWN_ERRORS {
        line!(
            out,
            "{INDENT}{:<11}… and {} more",
            "",
            leaves.len() - SHOWN_ERRORS
        );
    }
}

fn print_error(out: &mut String, label: &str, e: &SchemaError) {
    line!(
        out,
        "{INDENT}{label:<11}{}: {}",
        instance(&e.instance_path),
        clean(&e.message)
    );
    let at = format!("#{}", clean(&e.keyword_pointer));
    if label == "original" {
        line!(out, "{INDENT}{:<11}schema {at}", "");
        return;
    }
    if e.originals.is_empty() {
        line!(out, "{INDENT}{:<11}schema {at}", "");
    } else {
        let originals: Vec<String> = e
            .originals
            .iter()
            .map(|o| format!("#{}", clean(o)))
            .collect();
        line!(
            out,
            "{INDENT}{:<11}schema {at} (from original {})",
            "",
            originals.join(", ")
        );
    }
}

fn print_lost(out: &mut String, l: &Correlation) {
    line!(out, "{INDENT}{:<11}{}", "lost", clean(&l.message));
    line!(
        out,
        "{INDENT}{:<11}{} at #{}",
        "",
        l.rule.id(),
        clean(&l.at)
    );
}

fn instance(p: &str) -> String {
    if p.is_empty() {
        "(payload)".to_owned()
    } else {
        clean(p)
    }
}

/// Payload text, file names and tool names are untrusted: control characters are shown
/// escaped so that nothing drives the terminal, and long text is cut.
fn clean(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MESSAGE_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// JSON output

fn row_json(manifest: &Manifest, r: &Row, args: &CheckArgs) -> Value {
    let tool = &manifest.tools[r.tool].name;
    match &r.outcome {
        Err(e) => json!({"tool": tool, "payload": r.name, "error": e}),
        Ok(Judged::Call(c)) => json!({
            "tool": tool,
            "payload": r.name,
            "mode": args.projection.mode,
            "provider": args.tailor.provider,
            "call": side_json(&c.call),
            "tool_gets": c.given.payload,
            "unread": c.given.unread,
            "original": side_json(&c.original),
        }),
        Ok(Judged::Payload(v)) => {
            let mut row = json!({
                "tool": tool,
                "payload": r.name,
                "mode": args.projection.mode,
                "class": v.class,
                "original": side_json(&v.original),
                "projection": side_json(&v.projection),
                "lost": v.lost,
                "unsound": v.unsound,
                "foreign": v.foreign,
            });
            if args.projection.mode == Mode::Flat {
                row["open_branches"] = json!(args.projection.open_branches);
            }
            if let Some(profile) = args.tailor.provider {
                row["provider"] = json!(profile);
                row["adapted"] = json!(r.adapted);
            }
            row
        }
    }
}

fn side_json(side: &SideVerdict) -> Value {
    let errors: Vec<Value> = side
        .errors
        .iter()
        .flat_map(|top| {
            top.leaves().into_iter().map(move |leaf| {
                let mut e = json!({
                    "message": leaf.message,
                    "instance_path": leaf.instance_path,
                    "schema_path": leaf.schema_path,
                    "keyword": leaf.keyword,
                    "node": leaf.node,
                    "keyword_pointer": leaf.keyword_pointer,
                });
                if !leaf.originals.is_empty() {
                    e["originals"] = json!(leaf.originals);
                }
                let via: Vec<Value> = top
                    .path_to(leaf)
                    .into_iter()
                    .map(|(u, branch)| {
                        json!({"keyword_pointer": u.keyword_pointer, "instance_path": u.instance_path, "branch": branch})
                    })
                    .collect();
                if !via.is_empty() {
                    e["via"] = Value::Array(via);
                }
                e
            })
        })
        .collect();
    json!({"valid": side.valid, "errors": errors})
}
