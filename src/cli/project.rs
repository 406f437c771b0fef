//! `schemalens project`: the projected schema, in the input's own document shape; with
//! `--watch`, again after every save.

use std::cell::Cell;
use std::io::Write;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use schemalens::lint::report::Form;
use schemalens::lint::strict_plan::{self, Budgets, Candidate, Plan};
use schemalens::lint::{Finding, Profile};
use schemalens::manifest::{self, Manifest, ManifestFormat, Tool, Writeback, WritebackError};
use schemalens::projection::{Detail, Tailored, TraceEntry, WrittenSchema};
use schemalens::watch::{ProjectionCache, Target, WatchConfig, WatchEvent, Watcher};
use schemalens::{Linking, Options, Projection};
use serde_json::Value;

use super::{Failure, ProjectArgs, exit, input};

pub fn run(args: &ProjectArgs) -> Result<u8, Failure> {
    if args.watch {
        return watch(args);
    }
    // Each tool's schema is held once (as text until the worker projecting it parses it), and
    // each projection is written into the document as it comes and dropped, so only a few are
    // held at a time (the tools project in parallel, a bounded way ahead).
    let mut writeback = input::load_writeback(&args.input)?;
    let selected = input::selected_of(&writeback.tools, &writeback.origin, &args.input)?;
    let single = writes_schema_alone(writeback.format, args);
    let order = if single { selected } else { writeback.order() };
    // A schema written alone is no request; a document of tools is one: names another tool
    // has are refused there (the tools' names are read before the tools are taken).
    let tool_list = args
        .tailor
        .provider
        .filter(|_| !single)
        .map(|p| input::tool_list(p, order.iter().map(|i| &writeback.tools[*i])));
    // The tools go to the projection in the order their schemas are written (the writer needs
    // only the document); a tool left out by `--tool` is dropped here with its schema.
    let tools = writeback.take_tools(&order);
    // The provider's own way with recursion (openai-strict keeps `$defs`), as `lint`,
    // `explain` and `--watch` have it.
    let options = args.projection.options_for(args.tailor.provider);
    let origin = writeback.origin.clone();
    let count = tools.len();
    let mut request = args
        .tailor
        .provider
        .filter(|_| !single)
        .and_then(|profile| Request::new(profile, writeback.format, count));
    // A tool that does not project is told on stderr and written as it was: the others are
    // still written, and the exit code says that something failed. A schema written alone has
    // nothing else to write.
    let mut failed = 0;
    let mut fallback = |tool: Tool, failure: Failure| -> Result<WrittenSchema, Failure> {
        if single {
            return Err(failure);
        }
        failed += 1;
        eprintln!("error: {} (written unprojected)", failure.message);
        Ok(WrittenSchema::from(Arc::unwrap_or_clone(tool.schema)))
    };
    let found = |k: usize| {
        tool_list
            .as_ref()
            .map_or(&[][..], |set| set.findings(k, Form::Tailored))
    };
    match args.tailor.provider {
        Some(profile) => {
            // The strict flags sit in the tool entries, which come before later tools' schemas
            // are made: then the request's schemas are all made (and held) before any is written.
            let writes_flags = request.as_ref().is_some_and(Request::writes_flags);
            let mut tailor_one =
                |k: usize, tool: Tool, projection: Result<Projection, Failure>| match projection {
                    Ok(p) => Ok(WrittenSchema::from(tailored_schema(
                        &tool,
                        p,
                        profile,
                        found(k),
                        request.as_mut(),
                    ))),
                    Err(failure) => {
                        if let Some(r) = request.as_mut() {
                            r.record_missing(&tool, &failure.message);
                        }
                        fallback(tool, failure)
                    }
                };
            if writes_flags {
                let schemas = input::project_streamed(
                    &origin,
                    tools,
                    &options,
                    Linking::Build,
                    |projections| {
                        projections
                            .enumerate()
                            .map(|(k, (tool, projection))| tailor_one(k, tool, projection))
                            .collect::<Result<Vec<_>, Failure>>()
                    },
                )?;
                if let Some(request) = &request {
                    request.write_flags(&mut writeback);
                }
                write_out(&writeback, &order, single, &mut schemas.into_iter().map(Ok))
            } else {
                // Tailoring reads the links and rewrites the whole schema.
                input::project_streamed(&origin, tools, &options, Linking::Build, |projections| {
                    write_out(
                        &writeback,
                        &order,
                        single,
                        &mut projections
                            .enumerate()
                            .map(|(k, (tool, projection))| tailor_one(k, tool, projection)),
                    )
                })
            }
        }
        // The plain projection is only written out.
        None => input::project_written(&origin, tools, &options, |written| {
            write_out(
                &writeback,
                &order,
                single,
                &mut written.map(|(tool, written)| match written {
                    Ok(w) => {
                        warn_about_losses(&tool.name, &w.trace);
                        Ok(w.schema)
                    }
                    Err(failure) => fallback(tool, failure),
                }),
            )
        }),
    }?;
    Ok(if failed > 0 { exit::INPUT } else { exit::OK })
}

/// The tool's projection tailored for `profile`, loss warnings and tailoring notes on stderr,
/// and recorded for the request plan when there is one. `tool_list`: what the rules about
/// the whole tool list find on it.
fn tailored_schema(
    tool: &Tool,
    projection: Projection,
    profile: Profile,
    tool_list: &[Finding],
    request: Option<&mut Request>,
) -> Value {
    warn_about_losses(&tool.name, &projection.trace);
    let tailored = input::tailor(tool, projection, profile, tool_list);
    if let Some(request) = request {
        request.record(tool, &tailored);
    }
    tailored.projection.schema
}

/// Writes the document (or the one schema) to stdout, each tool's schema taken from `schemas`
/// in `order` as the writer reaches it; stdout holds everything back until the last schema is
/// made, so that a failure leaves it empty and every warning comes first.
fn write_out(
    writeback: &Writeback,
    order: &[usize],
    single: bool,
    schemas: &mut dyn Iterator<Item = Result<WrittenSchema, Failure>>,
) -> Result<(), Failure> {
    let released = Cell::new(order.is_empty());
    let mut out = HeldStdout::buffered(&released);
    let mut left = order.len();
    // Asked for in `order`, which is the order the projections come in.
    let mut schema_of = |_: usize| -> Result<WrittenSchema, Failure> {
        let schema = schemas.next().expect("one projection per selected tool")?;
        left -= 1;
        // Every warning and error is out once the last tool is made: from here on, what is
        // written goes straight to stdout.
        released.set(left == 0);
        Ok(schema)
    };
    if single {
        let schema = schema_of(order[0])?;
        // A closed stdout (a pipe to `head`) is not the user's error.
        let _ = serde_json::to_writer_pretty(&mut out, &schema);
        leave_to_exit(schema);
    } else {
        match writeback.write_pretty(&mut out, schema_of) {
            Err(WritebackError::Fill(failure)) => return Err(failure),
            Ok(()) | Err(WritebackError::Io(_)) => {}
        }
    }
    released.set(true);
    let _ = writeln!(out).and_then(|()| out.flush());
    Ok(())
}

/// The request a document of tools makes, for a profile that limits whole requests (Anthropic
/// strict tool use): each tool's standing as it is tailored; once the last is in, the plan of
/// which are sent strict, told on stderr, and written as the tools' `strict` flags where the
/// document has them.
struct Request {
    profile: Profile,
    budgets: Budgets,
    format: ManifestFormat,
    expected: usize,
    /// Each tool's name and entry, in the request's order.
    tools: Vec<(String, String)>,
    candidates: Vec<Candidate>,
    plan: Option<Plan>,
}

impl Request {
    fn new(profile: Profile, format: ManifestFormat, expected: usize) -> Option<Request> {
        Some(Request {
            profile,
            budgets: Budgets::of(profile)?,
            format,
            expected,
            tools: Vec::with_capacity(expected),
            candidates: Vec::with_capacity(expected),
            plan: None,
        })
    }

    /// Only Anthropic tools carry Anthropic's `strict` flag; elsewhere the plan is only told.
    fn writes_flags(&self) -> bool {
        self.format == ManifestFormat::Anthropic
    }

    /// One more tool, tailored; the plan is made (and told) with the last.
    fn record(&mut self, tool: &Tool, tailored: &Tailored) {
        let candidate = Candidate::of(
            self.profile,
            &tailored.projection.schema,
            &tailored.unresolved,
        );
        self.add(tool, candidate);
    }

    /// One more tool, which has no tailored schema (its projection failed): sent non-strict.
    fn record_missing(&mut self, tool: &Tool, why: &str) {
        self.add(tool, Candidate::missing(why));
    }

    fn add(&mut self, tool: &Tool, candidate: Candidate) {
        self.tools
            .push((tool.name.clone(), tool.tool_pointer.clone()));
        self.candidates.push(candidate);
        if self.candidates.len() == self.expected {
            let plan = strict_plan::plan(self.budgets, &self.candidates);
            for note in self.notes(&plan) {
                eprintln!("{note}");
            }
            self.plan = Some(plan);
        }
    }

    fn write_flags(&self, writeback: &mut Writeback) {
        for ((_, entry), strict) in self.tools.iter().zip(self.decided()) {
            writeback.write_strict(entry, strict);
        }
    }

    fn write_flags_into(&self, document: &mut Value) {
        for ((_, entry), strict) in self.tools.iter().zip(self.decided()) {
            manifest::write_strict(document, entry, strict);
        }
    }

    fn decided(&self) -> impl Iterator<Item = bool> + '_ {
        self.plan
            .iter()
            .flat_map(|p| p.decisions.iter().map(|d| d.strict))
    }

    /// Nothing when every tool is sent strict; else how many are, within which limits, and
    /// why each other one is not.
    fn notes(&self, plan: &Plan) -> Vec<String> {
        if plan.strict_count() == plan.decisions.len() {
            return Vec::new();
        }
        let how = if self.writes_flags() {
            "they are written with `strict: true`, the others without".to_owned()
        } else {
            format!(
                "{} has no `strict` flag: send those with `strict: true`, the others without",
                self.format.describe()
            )
        };
        let mut notes = vec![format!("note: {}: {}: {how}", self.profile, plan.summary())];
        for ((name, _), d) in self.tools.iter().zip(&plan.decisions) {
            if let Some(why) = &d.why_not {
                notes.push(format!(
                    "note: tool {name:?}: {}: sent non-strict: {why}",
                    self.profile
                ));
            }
        }
        notes
    }
}

/// Not freed: the process ends once the schema is written, and its pages then go back to the
/// system all at once, whereas dropping a large projection visits and frees each of its nodes
/// (the components schema's 35 MB projection: about a tenth of the run).
fn leave_to_exit(schema: WrittenSchema) {
    std::mem::forget(schema);
}

/// Whether the output is the one projected schema rather than the document around it.
fn writes_schema_alone(format: ManifestFormat, args: &ProjectArgs) -> bool {
    args.input.tool.is_some() || format == ManifestFormat::BareSchema
}

/// Standard output that holds back what is written until `released` is set: stderr's warnings
/// and errors all come before the document, and a schema written alone that fails to project
/// leaves stdout empty, as when the whole document was made before any of it was written.
struct HeldStdout<'a> {
    /// Each write as it came (see [`HeldStdout::buffered`]): one growing buffer would be copied
    /// each time it doubles, holding the old and the new at once.
    held: Vec<Vec<u8>>,
    out: std::io::StdoutLock<'static>,
    released: &'a Cell<bool>,
}

/// The size of the writes [`HeldStdout`] gets, and so of the pieces it holds.
const HELD_CHUNK: usize = 64 * 1024;

impl<'a> HeldStdout<'a> {
    /// Buffered in front, so that the JSON writer's many small writes (a brace, an indent) come
    /// to it as a few large ones.
    fn buffered(released: &'a Cell<bool>) -> std::io::BufWriter<HeldStdout<'a>> {
        let held = HeldStdout {
            held: Vec::new(),
            out: std::io::stdout().lock(),
            released,
        };
        std::io::BufWriter::with_capacity(HELD_CHUNK, held)
    }

    fn write_held(&mut self) -> std::io::Result<()> {
        for chunk in std::mem::take(&mut self.held) {
            self.out.write_all(&chunk)?;
        }
        Ok(())
    }
}

impl Write for HeldStdout<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.released.get() {
            self.held.push(buf.to_vec());
            return Ok(buf.len());
        }
        self.write_held()?;
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.released.get() {
            self.write_held()?;
            self.out.flush()?;
        }
        Ok(())
    }
}

/// Prints the projection of every version of the file that loads and projects, one JSON
/// document each, until interrupted. A version that does not is reported on stderr and the
/// previous output stands, as an editor's half-saved file must not end a pipeline.
fn watch(args: &ProjectArgs) -> Result<u8, Failure> {
    let path = &args.input.file;
    if path.as_os_str() == "-" {
        return Err(Failure::input(
            "--watch follows a file; standard input cannot be watched",
        ));
    }
    let config = WatchConfig {
        poll: args.poll.map(Duration::from_millis),
        ..WatchConfig::default()
    };
    let (tx, rx) = mpsc::channel();
    let _watcher = Watcher::start([Target::file(path)], config, move |event| {
        let _ = tx.send(event);
    })
    .map_err(|e| Failure::input(e.to_string()))?;
    let origin = path.display().to_string();
    // An edit usually changes one tool: the others' projections are reused.
    let mut cache = ProjectionCache::new();
    let mut first = true;
    for event in rx {
        match event {
            WatchEvent::Changed { content, .. } => {
                let rendered =
                    manifest::load_reader(content.as_slice(), &origin, args.input.input_format)
                        .map_err(|e| Failure::input(e.to_string()))
                        .and_then(|manifest| {
                            render(&manifest, args, |tool, options| {
                                cache.get_or_project(tool, options, |t, o| {
                                    input::project(&manifest, t, o)
                                })
                            })
                        })
                        .map(|document| {
                            serde_json::to_string_pretty(&document)
                                .expect("JSON values always serialize")
                        });
                match rendered {
                    Ok(text) => {
                        super::emit(&text);
                        cache.next_version();
                    }
                    Err(f) => eprintln!("error: {}", f.message),
                }
            }
            // Most likely a mistyped name: waiting for it would look like a hang.
            WatchEvent::Missing { .. } if first => {
                return Err(Failure::input(format!("{origin}: no such file")));
            }
            WatchEvent::Missing { .. } => {
                eprintln!("{origin}: missing; waiting for it to be saved again");
            }
            WatchEvent::Error { path, message } => match path {
                Some(p) => eprintln!("error: {}: {message}", p.display()),
                None => eprintln!("error: {message}"),
            },
        }
        first = false;
    }
    Ok(exit::OK)
}

/// The projected document, with loss warnings on stderr.
fn render(
    manifest: &Manifest,
    args: &ProjectArgs,
    mut project: impl FnMut(&Tool, &Options) -> Result<Arc<Projection>, Failure>,
) -> Result<Value, Failure> {
    let tools = input::selected(manifest, &args.input)?;
    let options = args.projection.options_for(args.tailor.provider);
    let single = writes_schema_alone(manifest.format, args);
    let mut request = args
        .tailor
        .provider
        .filter(|_| !single)
        .and_then(|profile| Request::new(profile, manifest.format, tools.len()));
    let tool_list = args
        .tailor
        .provider
        .filter(|_| !single)
        .map(|p| input::tool_list(p, tools.iter().map(|i| &manifest.tools[*i])));
    let mut replacements = Vec::new();
    for (k, i) in tools.iter().enumerate() {
        let tool = &manifest.tools[*i];
        let projection = project(tool, &options)?;
        // Unshared (without --watch), the schema is moved out rather than copied.
        let projection = Arc::try_unwrap(projection).unwrap_or_else(|p| (*p).clone());
        let schema = match args.tailor.provider {
            Some(profile) => {
                let found = tool_list
                    .as_ref()
                    .map_or(&[][..], |set| set.findings(k, Form::Tailored));
                tailored_schema(tool, projection, profile, found, request.as_mut())
            }
            None => {
                warn_about_losses(&tool.name, &projection.trace);
                projection.schema
            }
        };
        replacements.push((*i, schema));
    }
    Ok(match (single, replacements.len()) {
        (true, 1) => replacements.pop().expect("one replacement").1,
        _ => {
            let mut document = manifest.with_schemas_moved(replacements);
            if let Some(request) = request.filter(Request::writes_flags) {
                request.write_flags_into(&mut document);
            }
            document
        }
    })
}

/// Places where the projection had to give up information are worth a line on stderr, once
/// per cause (a recursive definition is cut at every leaf of its unrolling).
fn warn_about_losses(tool: &str, trace: &[TraceEntry]) {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for e in trace {
        let key = match &e.detail {
            Detail::Unresolvable { reference, .. } => {
                format!("`$ref` {reference} cannot be resolved; replaced by {{}}")
            }
            Detail::RecursionCut {
                reference, depth, ..
            } => {
                format!("recursive `$ref` {reference} cut to {{}} at recursion depth {depth}")
            }
            _ => continue,
        };
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    for (what, n) in seen {
        let places = if n == 1 {
            "1 place".to_owned()
        } else {
            format!("{n} places")
        };
        eprintln!("warning: tool {tool:?}: {what} ({places})");
    }
}
