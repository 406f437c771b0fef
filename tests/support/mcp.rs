//! The MCP server the suites talk to: `examples/mcp_fixture_server.rs`, a real server built on
//! rmcp's server side, run as a process (stdio) or listening on a loopback port (HTTP).
//!
//! Also included by the inspector's unit tests (`src/tui/server_tests.rs`), which use a part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture server's executable. `cargo test` builds the examples before it runs the
/// suites; a suite run on its own (`cargo test --test mcp`) builds it here once.
pub fn server() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        // Test executables live in target/<profile>/deps, examples in target/<profile>/examples.
        let exe = std::env::current_exe().expect("the test's own path");
        let profile = exe
            .parent()
            .and_then(|deps| deps.parent())
            .expect("target/<profile>/deps");
        let path = profile.join("examples").join(format!(
            "mcp_fixture_server{}",
            std::env::consts::EXE_SUFFIX
        ));
        if !path.exists() {
            build_fixture_server(profile);
        }
        assert!(path.exists(), "no fixture server at {}", path.display());
        path
    })
    .clone()
}

/// Builds the fixture server where the test executables of `profile` (a
/// `target/<profile>` folder) look for it: a `--release` run needs a release build.
fn build_fixture_server(profile: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--example", "mcp_fixture_server", "--target-dir"])
        .arg(profile.parent().expect("target/<profile>"))
        .current_dir(root());
    match profile.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            build.arg("--release");
        }
        Some(other) => {
            build.args(["--profile", other]);
        }
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building the fixture server failed");
}

/// The tools the fixture serves, as written in its file (key order kept).
pub fn tools() -> Vec<Value> {
    let text = std::fs::read_to_string(root().join("tests/mcp/fixture-tools.json"))
        .expect("fixture tools");
    serde_json::from_str(&text).expect("fixture tools are JSON")
}

/// The fixture serving Streamable HTTP on a loopback port, ended when dropped.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start(args: &[&str]) -> HttpServer {
        let mut child = Command::new(server())
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the fixture prints its URL");
        HttpServer {
            child,
            url: line.trim().to_owned(),
        }
    }

    /// Ends the server as a crash would: at once, connections and all.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.kill();
    }
}
