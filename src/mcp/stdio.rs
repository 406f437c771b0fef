//! A server started as a child process, MCP over its standard input and output: one JSON-RPC
//! message a line. Its stderr goes to the [`StderrRing`]; a line on stdout that is not a
//! JSON-RPC message ends the connection with [`McpError::NotMcp`] (the protocol reserves stdout
//! for messages, and a client that skipped such lines would hide the server's bug).

use std::io;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::{Sink, Stream};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::McpError;
use super::stderr::StderrRing;
use super::tap::Tap;

/// A message line longer than this is not read into memory: no tool list comes near it.
const MAX_MESSAGE: u64 = 256 * 1024 * 1024;
/// How much of an offending line an error quotes.
const QUOTE: usize = 200;

/// Why the stream of messages stopped early, when it was the server's fault.
#[derive(Debug, Clone, Default)]
pub(crate) struct Broken(Arc<Mutex<Option<McpError>>>);

impl Broken {
    fn set(&self, error: McpError) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(error);
    }

    pub fn get(&self) -> Option<McpError> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The server process. Dropping it kills the server's whole process group (an `npx` server is
/// `npx` and the `node` it starts); [`ChildGuard::stop`] first lets it exit on its own.
pub(crate) struct ChildGuard {
    child: Child,
    /// The server's process group, named by its pid at start: tokio forgets the pid once the
    /// child is reaped, while the group can outlive it (npx's node).
    group: Option<u32>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
}

type Writer = Pin<Box<dyn Sink<ClientJsonRpcMessage, Error = io::Error> + Send>>;
type Reader = Pin<Box<dyn Stream<Item = ServerJsonRpcMessage> + Send>>;
/// rmcp takes a (sink, stream) pair as a transport.
pub(crate) type Transport = (Writer, Reader);

/// Starts `program` and returns it with the transport over its pipes.
pub(crate) fn spawn(
    program: &str,
    args: &[String],
    label: &str,
    tap: Tap,
    stderr: StderrRing,
    broken: Broken,
) -> Result<(ChildGuard, Transport), McpError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own process group: the whole server can be ended together, and a Ctrl-C meant for
    // the inspector is not delivered to the server behind its back.
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|e| McpError::Spawn {
        command: label.to_owned(),
        message: e.to_string(),
    })?;
    let (Some(stdin), Some(stdout), Some(err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(McpError::Spawn {
            command: label.to_owned(),
            message: "its standard streams could not be opened".to_owned(),
        });
    };
    let stderr_task = tokio::spawn(stderr.follow(err));
    let transport = (writer(stdin), reader(stdout, tap, broken));
    Ok((
        ChildGuard {
            group: child.id(),
            child,
            stderr_task: Some(stderr_task),
        },
        transport,
    ))
}

fn writer(stdin: ChildStdin) -> Writer {
    Box::pin(futures::sink::unfold(
        stdin,
        |mut stdin, message: ClientJsonRpcMessage| async move {
            let mut line = serde_json::to_vec(&message).map_err(io::Error::other)?;
            line.push(b'\n');
            stdin.write_all(&line).await?;
            stdin.flush().await?;
            Ok::<_, io::Error>(stdin)
        },
    ))
}

fn reader(stdout: ChildStdout, tap: Tap, broken: Broken) -> Reader {
    let state = (BufReader::new(stdout), tap, broken, Vec::new());
    Box::pin(futures::stream::unfold(
        state,
        |(mut reader, tap, broken, mut buf)| async move {
            loop {
                buf.clear();
                let read = (&mut reader)
                    .take(MAX_MESSAGE)
                    .read_until(b'\n', &mut buf)
                    .await;
                match read {
                    Ok(0) | Err(_) => return None,
                    Ok(_) => {}
                }
                if buf.len() as u64 >= MAX_MESSAGE && buf.last() != Some(&b'\n') {
                    broken.set(McpError::NotMcp {
                        detail: format!("a line of more than {MAX_MESSAGE} bytes"),
                    });
                    return None;
                }
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match parse(&buf, &tap) {
                    Ok(message) => return Some((message, (reader, tap, broken, buf))),
                    Err(error) => {
                        broken.set(error);
                        return None;
                    }
                }
            }
        },
    ))
}

/// One line as rmcp's message, after the tap has seen it as JSON.
fn parse(line: &[u8], tap: &Tap) -> Result<ServerJsonRpcMessage, McpError> {
    let value: Value = serde_json::from_slice(line).map_err(|_| McpError::NotMcp {
        detail: quote(line),
    })?;
    tap.observe(&value);
    serde_json::from_value(value).map_err(|e| McpError::NotMcp {
        detail: format!("{} ({e})", quote(line)),
    })
}

fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    match text.char_indices().nth(QUOTE) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}

impl ChildGuard {
    /// The exit status, if the server exits within `within`.
    pub async fn exit_status(&mut self, within: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(within, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Waits (briefly) for the stderr reader to reach the end, so the last lines are in.
    pub async fn drain_stderr(&mut self, within: Duration) {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(within, task).await;
        }
    }

    /// Ends the server politely: its stdin is already closed (the transport is gone), so it
    /// should exit by itself; then SIGTERM to its process group, then SIGKILL.
    pub async fn stop(mut self) {
        const GRACE: Duration = Duration::from_millis(500);
        if self.exit_status(GRACE).await.is_none() {
            self.signal_group(Signal::Terminate);
            if self.exit_status(GRACE).await.is_none() {
                self.signal_group(Signal::Kill);
                let _ = self.exit_status(GRACE).await;
            }
        }
        // Children it left behind in its group (npx's node) go too.
        self.signal_group(Signal::Kill);
    }

    fn signal_group(&mut self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pid) = self.group {
            let sig = match signal {
                Signal::Terminate => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: `kill` has no memory-safety preconditions; a negative pid addresses the
            // process group the server was started in (its own, see `spawn`).
            unsafe {
                libc::kill(-(pid as i32), sig);
            }
        }
        #[cfg(not(unix))]
        if matches!(signal, Signal::Kill) {
            let _ = self.child.start_kill();
        }
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Not stopped politely (the session was abandoned mid-way): end the group now.
        self.signal_group(Signal::Kill);
    }
}
