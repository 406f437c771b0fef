//! The notify side: a debounced native watcher, or a debounced poller where native events do not
//! arrive (network mounts, some containers), and the set of folders currently watched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{PollWatcher, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, Debouncer, NoCache, RecommendedCache, new_debouncer_opt,
};

enum Kind {
    Native(Debouncer<RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<PollWatcher, NoCache>),
}

pub(super) struct Backend {
    kind: Kind,
    watched: BTreeSet<PathBuf>,
}

impl Backend {
    pub(super) fn new(
        debounce: Duration,
        poll: Option<Duration>,
        handler: impl FnMut(DebounceEventResult) + Send + 'static,
    ) -> notify::Result<Backend> {
        // The debouncer checks for due events every tick, so a tick is latency: the default of
        // a quarter of the delay adds 25 ms on average at 200 ms. An eighth halves that, for a
        // wake-up every 25 ms that finds nothing to do when nothing changed.
        let tick = Some(debounce / 8);
        let kind = match poll {
            None => Kind::Native(new_debouncer_opt(
                debounce,
                tick,
                handler,
                RecommendedCache::new(),
                notify::Config::default(),
            )?),
            // The poller compares modification times in whole seconds, so two saves within
            // one second would go unseen without comparing contents too.
            Some(interval) => Kind::Poll(new_debouncer_opt(
                debounce,
                tick,
                handler,
                NoCache::new(),
                notify::Config::default()
                    .with_poll_interval(interval)
                    .with_compare_contents(true),
            )?),
        };
        Ok(Backend {
            kind,
            watched: BTreeSet::new(),
        })
    }

    /// Watches exactly `wanted` (each non-recursively). `renew` are folders that were replaced
    /// since they were watched: their old watch died with the old folder. Returns the folders
    /// that could not be watched.
    pub(super) fn sync(
        &mut self,
        wanted: &BTreeSet<PathBuf>,
        renew: &BTreeSet<PathBuf>,
    ) -> Vec<(PathBuf, notify::Error)> {
        let stale: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|d| !wanted.contains(*d) || renew.contains(*d))
            .cloned()
            .collect();
        for dir in stale {
            // Fails when the folder is gone and its watch with it; there is nothing left to undo.
            let _ = self.unwatch(&dir);
            self.watched.remove(&dir);
        }
        let mut failed = Vec::new();
        for dir in wanted {
            if self.watched.contains(dir) {
                continue;
            }
            match self.watch(dir) {
                Ok(()) => {
                    self.watched.insert(dir.clone());
                }
                Err(e) => failed.push((dir.clone(), e)),
            }
        }
        failed
    }

    fn watch(&mut self, dir: &Path) -> notify::Result<()> {
        match &mut self.kind {
            Kind::Native(d) => d.watch(dir, RecursiveMode::NonRecursive),
            Kind::Poll(d) => d.watch(dir, RecursiveMode::NonRecursive),
        }
    }

    fn unwatch(&mut self, dir: &Path) -> notify::Result<()> {
        match &mut self.kind {
            Kind::Native(d) => d.unwatch(dir),
            Kind::Poll(d) => d.unwatch(dir),
        }
    }

    /// Stops watching and waits for the debouncer thread, so that the handler is not called
    /// afterwards (at most one debounce tick).
    pub(super) fn stop(self) {
        match self.kind {
            Kind::Native(d) => d.stop(),
            Kind::Poll(d) => d.stop(),
        }
    }
}
