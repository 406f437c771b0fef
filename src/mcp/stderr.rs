//! The last lines a stdio server wrote on stderr: what it says when it fails to start or dies.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};

/// Bytes read at most before a line is reported, ended or not.
const MAX_READ: u64 = 64 * 1024;
/// A line longer than this is cut: a server that dumps a blob on stderr should not fill
/// memory or the screen.
const MAX_LINE: usize = 500;

/// A bounded ring of lines, shared between the reader task and whoever reports a failure.
#[derive(Debug, Clone)]
pub(crate) struct StderrRing {
    lines: Arc<Mutex<VecDeque<String>>>,
    capacity: usize,
}

impl StderrRing {
    pub fn new(capacity: usize) -> StderrRing {
        StderrRing {
            lines: Arc::new(Mutex::new(VecDeque::with_capacity(capacity.min(256)))),
            capacity,
        }
    }

    pub fn push(&self, line: &str) {
        if self.capacity == 0 {
            return;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        let line = match line.char_indices().nth(MAX_LINE) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line.to_owned(),
        };
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == self.capacity {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, oldest first.
    pub fn tail(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().cloned().collect()
    }

    /// Reads `stream` line by line into the ring until it ends. Bytes that are not UTF-8 are
    /// replaced, not fatal: stderr is for people.
    pub async fn follow(self, stream: impl AsyncRead + Unpin) {
        let mut reader = BufReader::new(stream);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match (&mut reader)
                .take(MAX_READ)
                .read_until(b'\n', &mut buf)
                .await
            {
                Ok(0) | Err(_) => return,
                Ok(_) => self.push(&String::from_utf8_lossy(&buf)),
            }
        }
    }
}
