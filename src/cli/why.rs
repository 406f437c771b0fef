//! `schemalens why`: a provider's rejection text → the tool, the node, the rule and the fix.

use std::fmt::Write as _;
use std::io::{IsTerminal, Read};

use clap::Args;
use schemalens::lint::Profile;
use schemalens::pointer;
use schemalens::why::{self, Diagnosis, Outcome, Report, Request, Variant};

use super::{Failure, Format, InputArgs, ProjectionArgs, exit, input};

pub const WHY_HELP: &str = "The error text may be the bare message, a whole JSON error body as the provider returns it, or a log or traceback around it; several messages in one text are each explained. Known messages: OpenAI (context tuples, $.… paths), Gemini (proto paths such as tools[0].function_declarations[5].parameters.properties[8].value.any_of[0], numbered in the order the provider received the properties), Anthropic (tools.N.custom.input_schema…), Ollama (Go struct field paths), Bedrock and MCP clients; wording it does not know is still searched for a location.

The location is looked up in the original schema, in both projections and in the projection tailored for the provider; the one in which lint finds the same problem there is what the provider received.

Exit codes: 0 every recognised message was located; 1 a message was recognised but not located; 2 nothing recognised (the closest known messages are listed), or bad input.";

#[derive(Args, Debug)]
pub struct WhyArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The provider's error text (quote it); `-` or nothing reads it from standard input.
    #[arg(value_name = "ERROR_TEXT", num_args = 0..)]
    pub error: Vec<String>,
    /// Read the message as this profile's (openai-strict or openai, gemini, anthropic or
    /// anthropic-strict, …); by default the profile the message belongs to.
    #[arg(long, value_name = "NAME", value_parser = super::parse_profile)]
    pub provider: Option<Profile>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &WhyArgs) -> Result<u8, Failure> {
    let text = error_text(args)?;
    let manifest = input::load(&args.input)?;
    // An unknown --tool is a usage error, with the tools listed.
    input::selected(&manifest, &args.input)?;
    let file = args.input.file.display().to_string();
    let request = Request {
        text: &text,
        tool: args.input.tool.as_deref(),
        provider: args.provider,
        options: args.projection.options(),
        file: &file,
    };
    let report = why::diagnose(&manifest, &request);
    match args.format {
        Format::Json => {
            super::emit(&serde_json::to_string_pretty(&report).expect("the report serializes"))
        }
        Format::Text => super::emit(&render(&report)),
    }
    Ok(report.outcome.code())
}

fn error_text(args: &WhyArgs) -> Result<String, Failure> {
    let from_stdin = args.error.is_empty() || args.error == ["-"];
    if !from_stdin {
        return Ok(args.error.join(" "));
    }
    if args.input.file.as_os_str() == "-" {
        return Err(Failure::input(
            "the manifest and the error text cannot both come from standard input",
        ));
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Failure::input(
            "give the provider's error text as an argument, or pipe it in (`pbpaste | schemalens why FILE -`)",
        ));
    }
    let mut text = String::new();
    stdin
        .lock()
        .read_to_string(&mut text)
        .map_err(|e| Failure::input(format!("reading the error text: {e}")))?;
    if text.trim().is_empty() {
        return Err(Failure {
            message: "the error text is empty".to_owned(),
            code: exit::INPUT,
        });
    }
    Ok(text)
}

/// The report for people.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for (i, d) in report.diagnoses.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_diagnosis(&mut out, d);
    }
    if report.outcome == Outcome::Unrecognised {
        if !report.diagnoses.is_empty() {
            out.push('\n');
        }
        out.push_str("Not a message schemalens knows");
        if report.diagnoses.is_empty() {
            out.push_str(", and no schema location could be read from it");
        }
        out.push('.');
        if report.closest.is_empty() {
            out.push_str(" Nothing in the catalogue resembles it.\n");
        } else {
            out.push_str(" Closest known messages:\n");
            for c in &report.closest {
                let _ = writeln!(
                    out,
                    "  {:>3.0}%  {} ({}): {}",
                    c.score * 100.0,
                    c.id,
                    c.provider.label(),
                    c.example
                );
            }
        }
    }
    out.trim_end().to_owned()
}

fn variant(v: Variant) -> String {
    v.describe()
}

fn write_diagnosis(out: &mut String, d: &Diagnosis) {
    let r = &d.recognised;
    let _ = writeln!(out, "{} · {}", r.provider.label(), d.message.trim());
    let label = |out: &mut String, name: &str, text: &str| {
        let mut lines = text.lines();
        let _ = writeln!(out, "  {name:<11} {}", lines.next().unwrap_or_default());
        for line in lines {
            let _ = writeln!(out, "  {:<11} {line}", "");
        }
    };
    match (r.id, d.profile) {
        (Some(id), Some(p)) => label(out, "recognised", &format!("{id} (read for {p})")),
        (Some(id), None) => label(out, "recognised", id),
        (None, _) => label(
            out,
            "recognised",
            "no known wording; the location in it was read",
        ),
    }
    if let Some(loc) = &d.location {
        label(out, "location", &loc.text);
    }
    if let Some(t) = &d.tool {
        let by = match t.by {
            "name" => "named in the message",
            "index" => "by its position in the request",
            "declaration" => "by its function declaration",
            "only" => "the manifest's only tool",
            "option" => "--tool",
            _ => "the location fits it",
        };
        label(out, "tool", &format!("{} (#{}, {by})", t.name, t.index));
    }
    if let Some(received) = &d.received {
        label(out, "received", &received.summary);
    }
    if let Some(node) = &d.node {
        let mut text = String::new();
        if node.tool_entry {
            text.push_str("the tool entry itself");
        } else {
            let keyword = node
                .keyword
                .as_deref()
                .map(|k| format!("  (keyword `{k}`)"))
                .unwrap_or_default();
            let _ = write!(
                text,
                "#{}{keyword} in the {}",
                node.pointer,
                variant(node.schema)
            );
            if node.schema != Variant::Original {
                let _ = write!(
                    text,
                    "\noriginal: {}",
                    pointers(&node.original, "(no counterpart)")
                );
            }
            if node.schema
                != (Variant::Projection {
                    mode: node.projection_mode,
                })
            {
                let _ = write!(
                    text,
                    "\n{} projection: {}",
                    node.projection_mode,
                    pointers(&node.projection, "(none: the projection failed)")
                );
            }
        }
        if let Some(doc) = &node.document {
            let _ = write!(text, "\nin the file: #{doc}");
        }
        label(out, "node", &text);
    }
    if !d.candidates.is_empty() {
        let listed: Vec<String> = d
            .candidates
            .iter()
            .map(|c| {
                let at = match &c.keyword {
                    Some(k) => pointer::push(&c.pointer, k),
                    None => c.pointer.clone(),
                };
                format!("{} #{at}", c.tool)
            })
            .collect();
        label(out, "also fits", &listed.join("\n"));
    }
    if let Some(rule) = &d.rule {
        let mut text = format!(
            "{}/{} ({}){}: {}",
            rule.profile,
            rule.id,
            rule.severity,
            if rule.confirmed { "" } else { " [unconfirmed]" },
            rule.explanation
        );
        if !rule.lint_agrees {
            text.push_str("\n(lint does not report it here)");
        }
        label(out, "rule", &text);
    }
    if let Some(fix) = &d.fix {
        let mut text = format!("the {}", variant(fix.schema));
        if fix.lossy {
            text.push_str(" (lossy: send payloads through its adapter, see `check --provider`)");
        }
        for step in &fix.steps {
            let _ = write!(text, "\n{} at #{}: {}", step.rule, step.at, step.message);
        }
        let _ = write!(text, "\n$ {}", fix.command);
        if fix.remaining_errors > 0 {
            let _ = write!(
                text,
                "\n{} error(s) for this provider remain in that schema of the tool (`schemalens lint` lists them)",
                fix.remaining_errors
            );
        }
        label(out, "fix", &text);
    }
    if let Some(advice) = d.advice {
        label(out, "advice", advice);
    }
    for note in &d.notes {
        label(out, "note", note);
    }
}

fn pointers(list: &[String], none: &str) -> String {
    if list.is_empty() {
        return none.to_owned();
    }
    const MAX: usize = 4;
    let mut shown: Vec<String> = list.iter().take(MAX).map(|p| format!("#{p}")).collect();
    if list.len() > MAX {
        shown.push(format!("and {} more", list.len() - MAX));
    }
    shown.join(", ")
}
