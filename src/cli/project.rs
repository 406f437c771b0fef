//! `schemalens project`: the projected schema, in the input's own document shape; with
//! `--watch`, again after every save.

use std::sync::{Arc, mpsc};
use std::time::Duration;

use schemalens::manifest::{self, Manifest, ManifestFormat, Tool};
use schemalens::projection::{Detail, TraceEntry};
use schemalens::watch::{ProjectionCache, Target, WatchConfig, WatchEvent, Watcher};
use schemalens::{Linking, Options, Projection};
use serde_json::Value;

use super::{Failure, ProjectArgs, exit, input};

pub fn run(args: &ProjectArgs) -> Result<u8, Failure> {
    if args.watch {
        return watch(args);
    }
    let manifest = input::load(&args.input)?;
    let selected = input::selected(&manifest, &args.input)?;
    // Tailoring reads the links; the plain projection is only written out.
    let linking = match args.tailor.provider {
        Some(_) => Linking::Build,
        None => Linking::Skip,
    };
    let mut projected =
        input::project_selected(&manifest, &selected, &args.projection.options(), linking);
    // `render` asks for the selected tools in order: the parallel results are taken in turn.
    let document = render(&manifest, args, |_, _| {
        projected
            .next()
            .expect("one projection per selected tool")
            .map(Arc::new)
    })?;
    drop(projected);
    drop(manifest);
    write_pretty(&document);
    Ok(exit::OK)
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

/// What `emit` prints for `document`, written as it is serialized: a large projection is
/// never held a second time as text.
fn write_pretty(document: &Value) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = serde_json::to_writer_pretty(&mut out, document)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
}

/// The projected document, with loss warnings on stderr.
fn render(
    manifest: &Manifest,
    args: &ProjectArgs,
    mut project: impl FnMut(&Tool, &Options) -> Result<Arc<Projection>, Failure>,
) -> Result<Value, Failure> {
    let tools = input::selected(manifest, &args.input)?;
    let options = args.projection.options_for(args.tailor.provider);
    let mut replacements = Vec::new();
    for i in &tools {
        let tool = &manifest.tools[*i];
        let projection = project(tool, &options)?;
        warn_about_losses(&tool.name, &projection.trace);
        // Unshared (without --watch), the schema is moved out rather than copied.
        let projection = Arc::try_unwrap(projection).unwrap_or_else(|p| (*p).clone());
        let schema = match args.tailor.provider {
            Some(profile) => input::tailor(tool, projection, profile).projection.schema,
            None => projection.schema,
        };
        replacements.push((*i, schema));
    }
    let single = args.input.tool.is_some() || manifest.format == ManifestFormat::BareSchema;
    Ok(match (single, replacements.len()) {
        (true, 1) => replacements.pop().expect("one replacement").1,
        _ => manifest.with_schemas_moved(replacements),
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
