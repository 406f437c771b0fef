//! `schemalens completions SHELL` and `schemalens man`: generated from the CLI definition
//! itself, so they can never list a flag the binary does not have.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, Failure, exit};

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub const COMPLETIONS_HELP: &str = "Install (pick your shell):
  bash  schemalens completions bash > ~/.local/share/bash-completion/completions/schemalens
  zsh   schemalens completions zsh > ~/.zfunc/_schemalens   (with `fpath+=~/.zfunc; autoload -U compinit; compinit` in ~/.zshrc)
  fish  schemalens completions fish > ~/.config/fish/completions/schemalens.fish";

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write schemalens.1 and one page per command (schemalens-lint.1, …) into DIR instead of
    /// printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub const MAN_HELP: &str = "Install:
  schemalens man --dir ~/.local/share/man/man1   then `man schemalens`, `man schemalens-lint`, …
  schemalens man | man -l -                       to read it once";

pub fn completions(args: &CompletionsArgs) -> Result<u8, Failure> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "schemalens", &mut out);
    super::emit(String::from_utf8_lossy(&out).trim_end());
    Ok(exit::OK)
}

pub fn man(args: &ManArgs) -> Result<u8, Failure> {
    let command = Cli::command();
    match &args.dir {
        None => {
            let page = render(command)?;
            super::emit(String::from_utf8_lossy(&page).trim_end());
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| Failure::input(format!("{}: {e}", dir.display())))?;
            let mut written = vec![write_page(dir, "schemalens", command.clone())?];
            for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
                let name = format!("schemalens-{}", sub.get_name());
                let sub = sub
                    .clone()
                    .display_name(name.clone())
                    .bin_name(name.clone())
                    .version(env!("CARGO_PKG_VERSION"));
                written.push(write_page(dir, &name, sub)?);
            }
            for path in written {
                eprintln!("wrote {}", path.display());
            }
        }
    }
    Ok(exit::OK)
}

fn render(command: clap::Command) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut out)
        .map_err(|e| Failure::input(format!("rendering the man page: {e}")))?;
    Ok(out)
}

fn write_page(dir: &Path, name: &str, command: clap::Command) -> Result<PathBuf, Failure> {
    let path = dir.join(format!("{name}.1"));
    let page = render(command)?;
    std::fs::write(&path, page).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    Ok(path)
}
