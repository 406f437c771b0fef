//! The headless front end: argument parsing and the subcommands. Engine decisions live in the
//! library; these modules only load, call and print.

mod check;
mod diff;
mod explain;
mod input;
mod lint;
mod mcp;
mod project;
mod sarif;
mod shell;
mod why;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use schemalens::lint::Profile;
use schemalens::manifest::ManifestFormat;
use schemalens::{Mode, OpenBranches, Options, Recursion};

/// Exit codes shared by every subcommand.
pub mod exit {
    pub const OK: u8 = 0;
    /// `check`: the original rejects some payload; `lint`: the projection still has errors.
    pub const FINDING: u8 = 1;
    /// Bad usage or input: unreadable file, invalid JSON, unknown shape, failed projection.
    pub const INPUT: u8 = 2;
    /// `check`: the projection rejects a payload the original accepts (I-sound broken).
    pub const UNSOUND: u8 = 3;
    /// `mcp`: the server could not be reached, failed, or did not speak MCP.
    pub const SERVER: u8 = 4;
    /// `check`: the original accepts every payload, and the projection rejects some only
    /// because of a foreign key (`--open-branches declared`): by policy, not a bug.
    pub const FOREIGN_KEY: u8 = 5;
}

#[derive(Parser, Debug)]
#[command(
    name = "schemalens",
    version,
    about = "See why an LLM provider rejects a tool schema, and what a provider-safe projection looks like.",
    after_help = "Run `schemalens <command> --help` for each command. Input may be a bare JSON Schema, an MCP tools/list result, or an OpenAI, Anthropic or Gemini tool list; `-` reads standard input."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Manifests to open in the inspector (when no command is given).
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    /// Inspector: leave the mouse to the terminal (native text selection) instead of capturing it.
    #[arg(long)]
    pub no_mouse: bool,
    /// Inspector: do not follow the files; what was loaded at start stays on screen.
    #[arg(long)]
    pub no_watch: bool,
    /// Inspector: poll the files every MS milliseconds (default 500) instead of relying on
    /// file events, which do not arrive on network mounts and in some containers.
    #[arg(long, value_name = "MS", num_args = 0..=1, require_equals = true,
          default_missing_value = "500", conflicts_with = "no_watch",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub poll: Option<u64>,
    /// Inspector: start from a provider's error message — open on the tool and the node it is
    /// about, with the explanation in the detail pane (as `!` does).
    #[arg(long, value_name = "ERROR_TEXT")]
    pub why: Option<String>,
    /// Inspector: open NEW with what changed since OLD marked in both trees (OLD: a file, `-`
    /// or REV:PATH from git; NEW: a file, followed as it is saved). `D` lists the changes.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with = "files")]
    pub diff: Option<Vec<String>>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the projected schema (bare schema) or the manifest with every tool's schema projected.
    #[command(after_help = PROJECT_HELP)]
    Project(ProjectArgs),
    /// Explain every rule the projection applied, one line each, grouped by tool.
    Explain(ExplainArgs),
    /// Check payloads against the original and the projection: which accept, which reject, why.
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Lint for providers: what each rejects or drops, in the original and the projection.
    #[command(after_help = lint::LINT_HELP)]
    Lint(lint::LintArgs),
    /// A live MCP server: `mcp list` prints or saves its tool list; `mcp` alone opens the
    /// inspector on it (`-- COMMAND [ARGS…]` starts it, `--url URL` connects to it).
    Mcp(mcp::McpArgs),
    /// Explain a provider's rejection: the tool, the node, the lint rule and the fix.
    #[command(after_help = why::WHY_HELP)]
    Why(why::WhyArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = shell::COMPLETIONS_HELP)]
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff), or write one page per command with --dir.
    #[command(after_help = shell::MAN_HELP)]
    Man(shell::ManArgs),
    /// Review a schema change: what OLD → NEW breaks for callers (with a witness payload for
    /// each breaking change), changes for the model, and for providers.
    #[command(after_help = diff::DIFF_HELP)]
    Diff(diff::DiffArgs),
}

const PROJECT_HELP: &str = "With --provider, the tools of a manifest are one request: a name another tool has is warned of (the provider refuses the request), and for anthropic-strict the request plan chooses the tools sent with `strict: true` (written as the tools' flags in an Anthropic tool list, told on stderr otherwise).

Exit codes: 0 every tool projected; 2 bad usage or input, also when some tool of a manifest cannot be projected: that tool is written as it was, its error (the tool's name and the manifest pointer) goes to stderr, and the other tools are written projected. A schema written alone (a bare schema, --tool) is not written when it cannot be projected.";

const CHECK_HELP: &str = "Payloads: JSON files, `-` for standard input, folders (every *.json and *.jsonl in them), .jsonl files (one payload a line, reported by line number). Without payloads, the ones beside the manifest: <stem>.payloads/ (one subfolder per tool name for a manifest with several tools).

Classes: both-accept, both-reject, projection-looser (the original rejects, the projection accepts: a correlation flat mode gives up), foreign-key (the original accepts, the projection rejects only because the payload puts a value under a property its own open alternative does not declare, outside the shape the declaring alternatives give it: the stated exception of --open-branches declared, the default), unsound (any other payload the original accepts and the projection rejects: a schemalens bug).

Exit codes: 0 the original accepts every payload and the projection every one of them; 1 the original rejects some; 2 bad usage or input (also when some payload is not readable JSON; the others are still checked and reported); 3 some payload is UNSOUND; 5 the original accepts every payload and the projection rejects some only as foreign-key (CI that accepts the declared policy can allow 5; --open-branches strict never gives it). 3 wins over 2, 2 over 1, 1 over 5.";

#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Manifest or schema file (`-` for standard input).
    pub file: PathBuf,
    /// Only this tool (by name).
    #[arg(long)]
    pub tool: Option<String>,
    /// Input format when detection should not guess: schema, mcp, openai, anthropic, gemini.
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<ManifestFormat>,
}

#[derive(Args, Debug, Clone)]
pub struct ProjectionArgs {
    /// inline: refs inlined, oneOf→anyOf, discriminator stripped. flat: also merge discriminated unions.
    #[arg(long, default_value = "flat", value_parser = parse_mode)]
    pub mode: Mode,
    /// Recursive $refs: unroll=N (exactly N levels of recursion on any path, then cut to {}),
    /// keep ($defs + $ref) or auto. Default: what the --provider takes (keep for
    /// openai-strict), else auto: up to 3 levels, fewer when unrolling would outgrow the input
    /// (a warning says which depth was used).
    #[arg(long, value_name = "auto|unroll=N|keep", value_parser = parse_recursion)]
    pub recursion: Option<Recursion>,
    /// Do not append "Required when …" / "Only when …" hints to descriptions.
    #[arg(long)]
    pub no_hints: bool,
    /// Flat mode, a property that some alternatives of a union declare and other, open ones
    /// only tolerate: declared keeps the declared shape (a foreign value under that name is
    /// no longer accepted; `check` reports it as foreign-key); strict leaves it unconstrained,
    /// exactly sound.
    #[arg(long, value_name = "POLICY", default_value = "declared", value_parser = parse_open_branches)]
    pub open_branches: OpenBranches,
}

impl ProjectionArgs {
    pub fn options(&self) -> Options {
        let defaults = Options::default();
        Options {
            mode: self.mode,
            recursion: self.recursion.unwrap_or(defaults.recursion),
            hints: !self.no_hints,
            open_branches: self.open_branches,
            ..defaults
        }
    }

    /// The options for a projection tailored for `provider`: the provider's way with recursion
    /// unless `--recursion` says otherwise, and its shared definitions either way (what is
    /// kept then never reaches recursion, so it reads the same under every setting).
    pub fn options_for(&self, provider: Option<Profile>) -> Options {
        let options = self.options();
        let Some(profile) = provider else {
            return options;
        };
        let tailored = schemalens::projection::tailor::options_for(profile, &options);
        match self.recursion {
            None => tailored,
            Some(_) => Options {
                share_over: tailored.share_over,
                ..options
            },
        }
    }
}

/// `--provider` for the commands that can tailor the projection to one provider.
#[derive(Args, Debug, Clone, Default)]
pub struct TailorArgs {
    /// Tailor the projection for this provider (openai-strict, gemini, ollama, anthropic-strict,
    /// …): closes objects, makes optional properties nullable, rewrites `const` and type lists,
    /// drops keywords it rejects. Lossy steps come with a payload adapter; what cannot be
    /// tailored soundly is reported on stderr.
    #[arg(long = "provider", value_name = "NAME", value_parser = parse_profile)]
    pub provider: Option<Profile>,
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
        .map_err(|e: schemalens::lint::ParseProfileError| e.to_string())
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse()
}

fn parse_recursion(s: &str) -> Result<Recursion, String> {
    s.parse()
}

fn parse_open_branches(s: &str) -> Result<OpenBranches, String> {
    s.parse()
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct ProjectArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    #[command(flatten)]
    pub tailor: TailorArgs,
    /// Keep running and print the projection again after every save of FILE (one JSON document
    /// per good version; errors go to stderr and the last output stands). Ctrl-C ends it.
    #[arg(long)]
    pub watch: bool,
    /// With --watch: poll every MS milliseconds (default 500) instead of relying on file events,
    /// which do not arrive on network mounts and in some containers.
    #[arg(long, value_name = "MS", num_args = 0..=1, require_equals = true,
          default_missing_value = "500", requires = "watch",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub poll: Option<u64>,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    /// One row per payload, for people.
    Text,
    /// A JSON array, one object per payload.
    Json,
    /// JSON Lines, one object per payload.
    Jsonl,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Payload files, `-`, folders or .jsonl files; none: the manifest's <stem>.payloads/ folder.
    #[arg(value_name = "PAYLOAD")]
    pub payloads: Vec<PathBuf>,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    /// Check against this projected schema (one tool's) instead of projecting the tool.
    #[arg(long, value_name = "FILE", conflicts_with = "provider")]
    pub projection_file: Option<PathBuf>,
    /// Check against the projection tailored for this provider, each payload first rewritten
    /// by the tailoring's adapter (absent optional properties sent as null, a closed object's
    /// other keys sent in one more property), as it would be sent.
    #[command(flatten)]
    pub tailor: TailorArgs,
    /// With --provider: each payload is a call as the model made it, in the tailored schema's
    /// form. It is checked against the tailored schema, read back by the adapter, and what the
    /// tool is given is checked against the original.
    #[arg(long, requires = "provider")]
    pub from_model: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: CheckFormat,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    #[command(flatten)]
    pub tailor: TailorArgs,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// A failure that ends the command with a message and an exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: exit::INPUT,
        }
    }
}

/// Opens the interactive inspector.
fn inspect(cli: Cli) -> Result<u8, Failure> {
    use schemalens::watch::WatchConfig;
    let watch = (!cli.no_watch).then(|| WatchConfig {
        poll: cli.poll.map(std::time::Duration::from_millis),
        ..WatchConfig::default()
    });
    let options = schemalens::tui::TuiOptions {
        projection: cli.projection.options(),
        mouse: !cli.no_mouse,
        watch,
        why: cli.why.clone(),
        ..schemalens::tui::TuiOptions::default()
    };
    let mut files = cli.files;
    let mut options = options;
    if let Some([old, new]) = cli.diff.as_deref() {
        use schemalens::diff::source::{self, Spec};
        let new_spec = Spec::parse(new);
        if old == "-" && new == "-" {
            return Err(Failure::input("only one of OLD and NEW can be `-`"));
        }
        let path = match &new_spec {
            Spec::Stdin => Some(PathBuf::from("-")),
            Spec::File(p) => Some(p.clone()),
            Spec::Git { .. } => None,
        };
        let Some(path) = path else {
            return Err(Failure::input(format!(
                "{new}: the inspector opens NEW as a file (it follows its saves); REV:PATH is for OLD"
            )));
        };
        let old =
            source::load(&Spec::parse(old), None).map_err(|e| Failure::input(e.to_string()))?;
        options.baseline = Some(old);
        files = vec![path];
    }
    schemalens::tui::run(files, options)
        .map(|()| exit::OK)
        .map_err(|e| Failure::input(format!("{e:#}")))
}

/// Writes command output; a closed pipe (`| head`) ends output quietly instead of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}

pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Some(Command::Project(args)) => project::run(&args),
        Some(Command::Explain(args)) => explain::run(&args),
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Lint(args)) => lint::run(&args),
        Some(Command::Mcp(args)) => mcp::run(args),
        Some(Command::Why(args)) => why::run(&args),
        Some(Command::Completions(args)) => shell::completions(&args),
        Some(Command::Man(args)) => shell::man(&args),
        Some(Command::Diff(args)) => diff::run(&args),
        None if cli.files.is_empty() && cli.diff.is_none() => {
            let _ = <Cli as clap::CommandFactory>::command().print_help();
            Err(Failure::input(
                "give a manifest to inspect (`schemalens FILE`) or a command",
            ))
        }
        None => inspect(cli),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
