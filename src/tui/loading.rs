//! Reading and parsing the files named on the command line off the event loop: a manifest of
//! a few MB takes a while to parse, and the inspector draws its first frame meanwhile (the
//! files' names and a spinner), keys working.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use schemalens::watch::WatchEvent;

use super::app::Source;

/// Files being loaded on a thread of their own; their sources arrive all together, in the
/// order named.
pub struct Loading {
    /// What the panes name while waiting.
    pub files: Vec<String>,
    pub started: Instant,
    /// How long it has been loading at the last tick: what the spinner shows (rendering reads
    /// no clock).
    pub elapsed: Duration,
    results: Receiver<Vec<Source>>,
    /// New versions of those files reported meanwhile (the watcher's first report among
    /// them), applied once the versions read are in place.
    pub(super) queued: Vec<WatchEvent>,
}

impl Loading {
    /// Starts loading `files` with `load`; `notify` wakes the event loop once they are in.
    /// `None` when no thread could be started (the caller loads them itself).
    pub fn start(
        files: &[PathBuf],
        load: fn(&Path) -> Source,
        notify: Arc<dyn Fn() + Send + Sync>,
    ) -> Option<Loading> {
        let (tx, results) = mpsc::channel();
        let paths = files.to_vec();
        std::thread::Builder::new()
            .name("schemalens-load".to_owned())
            .spawn(move || {
                let sources: Vec<Source> = paths.iter().map(|p| load(p)).collect();
                if tx.send(sources).is_ok() {
                    notify();
                }
            })
            .ok()?;
        Some(Loading {
            files: files.iter().map(|f| f.display().to_string()).collect(),
            started: Instant::now(),
            elapsed: Duration::ZERO,
            results,
            queued: Vec::new(),
        })
    }

    /// The sources, if they are in; waits up to `timeout` for them.
    pub fn wait(&self, timeout: Duration) -> Option<Vec<Source>> {
        match self.results.recv_timeout(timeout) {
            Ok(sources) => Some(sources),
            Err(RecvTimeoutError::Timeout) => None,
            // The thread died: each file says so, rather than loading forever.
            Err(RecvTimeoutError::Disconnected) => Some(
                self.files
                    .iter()
                    .map(|f| Source::new(f.clone(), Err(format!("{f}: could not be loaded"))))
                    .collect(),
            ),
        }
    }
}
