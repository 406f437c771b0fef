//! Running the `schemalens` binary from the integration tests: one runner with a hang guard,
//! shared by the suites that drive the CLI.

use std::time::{Duration, Instant};

use serde_json::Value;

/// Generous: only there so that a hang fails the test instead of stalling CI.
pub const HANG_GUARD: Duration = Duration::from_secs(60);

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the exit code, and that the binary did not panic on the way.
    pub fn expect_code(&self, code: i32, what: &str) -> &Self {
        assert!(
            !self.stderr.contains("panicked"),
            "{what}: the binary panicked:\n{}",
            self.stderr
        );
        assert_eq!(
            self.code,
            Some(code),
            "{what}: unexpected exit code\nstdout:\n{}\nstderr:\n{}",
            &self.stdout[..self.stdout.len().min(2000)],
            self.stderr
        );
        self
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}",
                &self.stdout[..self.stdout.len().min(2000)]
            )
        })
    }

    pub fn json_array(&self) -> Vec<Value> {
        self.json().as_array().expect("a JSON array").clone()
    }

    pub fn jsonl(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    /// The first stderr line that reports the failure, for message assertions.
    pub fn error_line(&self) -> &str {
        self.stderr
            .lines()
            .find(|l| l.starts_with("error:"))
            .unwrap_or_else(|| panic!("no `error:` line on stderr:\n{}", self.stderr))
    }
}

/// The binary, run from the project root (sample paths are relative to it).
pub fn command() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_schemalens"));
    cmd.current_dir(super::root()).timeout(HANG_GUARD);
    cmd
}

pub fn run_with(args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = command();
    cmd.args(args);
    if let Some(text) = stdin {
        cmd.write_stdin(text);
    }
    let started = Instant::now();
    let output = cmd.output().expect("the binary starts");
    // assert_cmd kills the child at the timeout and reports it only as a signal exit.
    assert!(
        started.elapsed() < HANG_GUARD,
        "`schemalens {}` did not finish within {HANG_GUARD:?}",
        args.join(" ")
    );
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

pub fn run(args: &[&str]) -> Run {
    run_with(args, None)
}
