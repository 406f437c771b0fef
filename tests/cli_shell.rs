//! `schemalens completions` and `schemalens man`: the scripts and pages are generated from the
//! CLI definition, so these tests check that what comes out is usable by the shell or `man`
//! that reads it, and that it names every command.

mod support;

use std::process::Command;

use support::cli;

/// Every visible subcommand, read from `--help` so that a new command is covered without
/// editing this list.
fn subcommands() -> Vec<String> {
    let help = cli::run(&["--help"]);
    help.expect_code(0, "--help");
    let commands: Vec<String> = help
        .stdout
        .split("Commands:")
        .nth(1)
        .expect("--help lists commands")
        .lines()
        .skip(1)
        .map_while(|l| l.strip_prefix("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect();
    assert!(
        commands.iter().any(|c| c == "lint") && commands.iter().any(|c| c == "man"),
        "{commands:?}"
    );
    commands
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn bash_completion_is_valid_bash_and_completes_every_command() {
    let run = cli::run(&["completions", "bash"]);
    run.expect_code(0, "completions bash");
    for command in subcommands() {
        assert!(
            run.stdout.contains(&command),
            "bash completion lacks {command}"
        );
    }
    assert!(run.stdout.contains("--provider"), "flags are completed too");
    if !have("bash") {
        eprintln!("skipped the bash syntax check: no bash here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("schemalens.bash");
    std::fs::write(&script, &run.stdout).unwrap();
    // Sourcing defines the function and registers it; `complete -p` proves the registration.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p schemalens",
            script.display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bash could not source the script: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("schemalens"));
}

#[test]
fn zsh_and_fish_scripts_name_every_command() {
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let run = cli::run(&["completions", shell]);
        run.expect_code(0, shell);
        for command in subcommands() {
            assert!(
                run.stdout.contains(&command),
                "{shell} completion lacks {command}"
            );
        }
    }
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let run = cli::run(&["completions", "tcsh"]);
    run.expect_code(2, "completions tcsh");
    assert!(run.stderr.contains("tcsh"), "{}", run.stderr);
}

#[test]
fn man_page_has_the_sections_and_every_command() {
    let run = cli::run(&["man"]);
    run.expect_code(0, "man");
    let page = &run.stdout;
    assert!(page.contains(".TH schemalens 1"), "{}", &page[..200]);
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "man page lacks {section}");
    }
    for command in subcommands() {
        assert!(
            page.contains(&format!("schemalens\\-{}", command.replace('-', "\\-"))),
            "man page does not list {command}"
        );
    }
}

#[test]
fn man_dir_writes_one_page_per_command_that_groff_renders() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let run = cli::run(&["man", "--dir", out.to_str().unwrap()]);
    run.expect_code(0, "man --dir");
    let mut pages = vec!["schemalens".to_owned()];
    pages.extend(subcommands().into_iter().map(|c| format!("schemalens-{c}")));
    for page in &pages {
        let path = out.join(format!("{page}.1"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.contains(&format!(".TH {page} 1")), "{page}: {text}");
    }
    let lint = std::fs::read_to_string(out.join("schemalens-lint.1")).unwrap();
    assert!(lint.contains("\\-\\-provider"), "{lint}");
    if !have("groff") {
        eprintln!("skipped rendering the pages: no groff here");
        return;
    }
    for page in &pages {
        let rendered = Command::new("groff")
            // -k: preconv first, as `man` does (the pages hold UTF-8 such as → and …).
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .arg(out.join(format!("{page}.1")))
            .output()
            .unwrap();
        assert!(
            rendered.status.success() && rendered.stderr.is_empty(),
            "groff on {page}: {}",
            String::from_utf8_lossy(&rendered.stderr)
        );
    }
}
