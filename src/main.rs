mod cli;

// Projection allocates many small maps and strings; mimalloc cuts its run time markedly
// (measured in the closing note of the foundation issue).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Readable reports for unexpected failures; user errors are reported by `cli` itself.
    let _ = color_eyre::install();
    cli::run(cli::Cli::parse())
}
