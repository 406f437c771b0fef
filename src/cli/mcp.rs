//! `schemalens mcp`: a live MCP server. `mcp list` prints or saves its whole tool list as an
//! MCP `tools/list` result, which every other command then reads; `mcp` alone opens the
//! inspector on the server.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use schemalens::manifest::{self, ManifestFormat};
use schemalens::mcp::{self, Config, Failure, Header, ServerSpec};

use super::{Failure as CliFailure, ProjectionArgs, emit, exit};
use schemalens::tui::text::escape_lines;

pub const MCP_HELP: &str = "Examples:
  schemalens mcp list -- npx -y @modelcontextprotocol/server-everything
  schemalens mcp list --save tools.json -- python -m my_server
  schemalens mcp list --url https://example.com/mcp --header 'Authorization: Bearer …'
  schemalens mcp -- npx -y @modelcontextprotocol/server-filesystem /tmp

Nothing is sent anywhere but to the server named. Headers are sent to it alone (redirects are followed only on the same origin) and are never printed, not even in errors.

Exit codes: 0 ok; 2 bad usage; 4 the server could not be reached, failed, or answered something that is not MCP (the error quotes the last lines it wrote on stderr).";

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, after_help = MCP_HELP)]
pub struct McpArgs {
    #[command(subcommand)]
    pub action: Option<McpAction>,
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub projection: ProjectionArgs,
    /// Payload folder for the inspector (one subfolder per tool; `n` writes new payloads
    /// there, `x` sends the selected one). Default: mcp.payloads
    #[arg(long, value_name = "DIR")]
    pub payloads: Option<PathBuf>,
    /// Leave the mouse to the terminal (native text selection) instead of capturing it.
    #[arg(long)]
    pub no_mouse: bool,
}

#[derive(Subcommand, Debug)]
pub enum McpAction {
    /// Print (or save) the server's whole tool list, every page, as an MCP tools/list result
    /// {"tools": […]}, each tool exactly as the server sent it.
    #[command(after_help = MCP_HELP)]
    List(ListArgs),
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Write the list to FILE instead of standard output; every other command reads it.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
}

/// Which server, and how long to wait for it.
#[derive(Args, Debug, Clone)]
pub struct ServerArgs {
    /// A Streamable HTTP server's endpoint, instead of a command.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With --url: an HTTP header for every request, 'Name: value' (repeat for more), such as
    /// 'Authorization: Bearer …'. Never printed.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// Seconds to wait for each answer (a page of tools/list, a tools/call).
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Seconds to wait for the server to start and finish the handshake (an npx server may
    /// download its package first).
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub connect_timeout: u64,
    /// The command that starts the server, and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl ServerArgs {
    pub fn spec(&self) -> Result<ServerSpec, CliFailure> {
        // Headers are parsed here, not by clap: clap's own errors quote the rejected value.
        let headers = self
            .headers
            .iter()
            .map(|h| Header::parse(h).map_err(|e| CliFailure::input(format!("--header: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        match (&self.url, self.command.split_first()) {
            (Some(_), Some(_)) => Err(CliFailure::input(
                "name the server once: either --url URL or -- COMMAND, not both",
            )),
            (Some(url), None) => Ok(ServerSpec::http(url.clone(), headers)),
            (None, Some((program, args))) => Ok(ServerSpec::stdio(program.clone(), args.to_vec())),
            (None, None) => Err(CliFailure::input(
                "name the server: `schemalens mcp list -- COMMAND [ARGS…]` starts one, `--url URL` connects to one",
            )),
        }
    }

    pub fn config(&self) -> Config {
        Config {
            connect_timeout: Duration::from_secs(self.connect_timeout),
            request_timeout: Duration::from_secs(self.timeout),
            ..Config::default()
        }
    }
}

/// A server failure as the user reads it: escaped (it quotes the server), exit code 4.
fn server_failure(spec: &ServerSpec, failure: Failure) -> CliFailure {
    // A command that cannot start names itself already.
    let text = match failure.error {
        mcp::McpError::Spawn { .. } => failure.to_string(),
        _ => format!("{}: {failure}", spec.label()),
    };
    CliFailure {
        message: escape_lines(&text).join("\n"),
        code: exit::SERVER,
    }
}

pub fn run(args: McpArgs) -> Result<u8, CliFailure> {
    match args.action {
        Some(McpAction::List(list)) => run_list(&list),
        None => inspect(args),
    }
}

fn run_list(args: &ListArgs) -> Result<u8, CliFailure> {
    let spec = args.server.spec()?;
    let (info, tools) =
        mcp::list_tools(&spec, args.server.config()).map_err(|f| server_failure(&spec, f))?;
    let document = tools.document();
    let text = serde_json::to_string_pretty(&document)
        .map_err(|e| CliFailure::input(format!("cannot write the tool list: {e}")))?;
    let origin = match &args.save {
        Some(path) => {
            std::fs::write(path, format!("{text}\n"))
                .map_err(|e| CliFailure::input(format!("{}: cannot write: {e}", path.display())))?;
            let said = format!(
                "saved {} tool{} ({} page{}) from {} {} to {}",
                tools.tools.len(),
                if tools.tools.len() == 1 { "" } else { "s" },
                tools.pages,
                if tools.pages == 1 { "" } else { "s" },
                info.name,
                info.version,
                path.display()
            );
            eprintln!("{}", escape_lines(&said).join(" "));
            path.display().to_string()
        }
        None => {
            emit(&text);
            spec.label()
        }
    };
    // Saved as sent, even so: but say when the other commands will not read it.
    if let Err(e) = manifest::load_value(document, &origin, Some(ManifestFormat::Mcp)) {
        eprintln!(
            "warning: the list is kept as the server sent it, but it does not read as a manifest: {}",
            escape_lines(&e.to_string()).join(" ")
        );
    }
    Ok(exit::OK)
}

fn inspect(args: McpArgs) -> Result<u8, CliFailure> {
    let spec = args.server.spec()?;
    let server = schemalens::tui::LiveServer {
        config: args.server.config(),
        spec,
        payloads: args
            .payloads
            .unwrap_or_else(schemalens::tui::server::default_payloads),
    };
    let options = schemalens::tui::TuiOptions {
        projection: args.projection.options(),
        mouse: !args.no_mouse,
        ..schemalens::tui::TuiOptions::default()
    };
    schemalens::tui::run_server(server, options)
        .map(|()| exit::OK)
        .map_err(|e| CliFailure::input(format!("{e:#}")))
}
