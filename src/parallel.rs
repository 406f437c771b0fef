//! Independent work items (one per tool, one per payload file) spread over the machine's
//! cores, results in the items' order, so that output is the same as one after the other.

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Threads to use: the cores available, or `SCHEMALENS_THREADS` when set (1 turns parallelism
/// off, for measuring or debugging).
pub fn threads() -> usize {
    std::env::var("SCHEMALENS_THREADS")
        .ok()
        .and_then(|v| v.parse::<NonZeroUsize>().ok())
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get)
}

/// `f` applied to every item, on up to [`threads`] threads; the results in `items`' order.
///
/// Items are handed out one at a time, so one large item does not leave the other threads
/// idle behind a fixed share. A panic in `f` is propagated once every thread has stopped.
pub fn map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    map_on(threads(), items, f)
}

fn map_on<T, R, F>(threads: usize, items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let workers = threads.min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    mine.push((i, f(item)));
                }
                done.lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .extend(mine);
            });
        }
    });
    let mut done = done
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// [`map`] over owned items (each handed to `f`, which may drop what it no longer needs),
/// with the results handed to `consume` as an iterator, in the items' order, while the rest
/// are still being computed. At most a few results per thread are computed ahead of the one
/// `consume` waits for, so a caller that writes each result out and drops it holds a bounded
/// number of them, however many items there are. Items after the point where `consume`
/// returns are not computed.
pub fn map_streamed<T, R, F, U>(
    items: Vec<T>,
    f: F,
    consume: impl FnOnce(&mut dyn Iterator<Item = R>) -> U,
) -> U
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync,
{
    map_streamed_on(threads(), items, f, consume)
}

/// Results computed ahead of the one being waited for, per thread: enough that a thread
/// finishing a small item always finds more work behind a large one.
const AHEAD_PER_THREAD: usize = 2;

fn map_streamed_on<T, R, F, U>(
    threads: usize,
    items: Vec<T>,
    f: F,
    consume: impl FnOnce(&mut dyn Iterator<Item = R>) -> U,
) -> U
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync,
{
    let workers = threads.min(items.len());
    if workers <= 1 {
        return consume(&mut items.into_iter().map(f));
    }
    let stream = Stream::new(items, workers * AHEAD_PER_THREAD);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| stream.work(&f));
        }
        let result = consume(&mut stream.results());
        stream.stop();
        result
    })
}

/// What the workers of [`map_streamed`] and its consumer share.
struct Stream<T, R> {
    state: Mutex<StreamState<T, R>>,
    /// Signalled when a result is ready, when one is taken, and on stop.
    changed: Condvar,
    window: usize,
}

struct StreamState<T, R> {
    /// Each item until it is handed out.
    items: Vec<Option<T>>,
    /// The next item to hand out.
    next: usize,
    /// Items already taken by the consumer; `ready[0]` is item `taken`.
    taken: usize,
    ready: VecDeque<Option<R>>,
    total: usize,
    /// The consumer is done, or a worker panicked: no more work is started.
    stopped: bool,
    panicked: bool,
}

impl<T, R> Stream<T, R> {
    fn new(items: Vec<T>, window: usize) -> Stream<T, R> {
        let total = items.len();
        Stream {
            state: Mutex::new(StreamState {
                items: items.into_iter().map(Some).collect(),
                next: 0,
                taken: 0,
                ready: VecDeque::new(),
                total,
                stopped: false,
                panicked: false,
            }),
            changed: Condvar::new(),
            window,
        }
    }

    fn lock(&self) -> MutexGuard<'_, StreamState<T, R>> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn wait<'a>(
        &self,
        guard: MutexGuard<'a, StreamState<T, R>>,
    ) -> MutexGuard<'a, StreamState<T, R>> {
        self.changed
            .wait(guard)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// One worker: takes the next item whenever it is within the window of the one being
    /// waited for, until every item is handed out or the stream stops.
    fn work(&self, f: &impl Fn(T) -> R) {
        let _flag = PanicFlag(self);
        loop {
            let mut state = self.lock();
            while !state.stopped
                && state.next < state.total
                && state.next >= state.taken + self.window
            {
                state = self.wait(state);
            }
            if state.stopped || state.next >= state.total {
                return;
            }
            let i = state.next;
            state.next += 1;
            let item = state.items[i].take().expect("each item is handed out once");
            drop(state);
            let result = f(item);
            let mut state = self.lock();
            // An item is taken only once it is ready, so `i` is at or after `taken`.
            let slot = i - state.taken;
            if state.ready.len() <= slot {
                state.ready.resize_with(slot + 1, || None);
            }
            state.ready[slot] = Some(result);
            drop(state);
            self.changed.notify_all();
        }
    }

    /// The results in order, each waited for; ends early if a worker panicked (the panic is
    /// propagated when the threads are joined).
    fn results(&self) -> impl Iterator<Item = R> + '_ {
        std::iter::from_fn(move || {
            let mut state = self.lock();
            loop {
                if state.taken >= state.total || state.panicked {
                    return None;
                }
                if let Some(Some(_)) = state.ready.front() {
                    let result = state.ready.pop_front().flatten();
                    state.taken += 1;
                    drop(state);
                    self.changed.notify_all();
                    return result;
                }
                state = self.wait(state);
            }
        })
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}

/// Stops the stream when a worker unwinds, so that the consumer does not wait for a result
/// that will never come.
struct PanicFlag<'a, T, R>(&'a Stream<T, R>);

impl<T, R> Drop for PanicFlag<'_, T, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut state = self.0.lock();
            state.panicked = true;
            state.stopped = true;
            drop(state);
            self.0.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven work, so that threads finish out of order.
        let out = map_on(4, &items, |n| {
            let mut x = *n;
            for _ in 0..(n % 7) * 1000 {
                x = std::hint::black_box(x);
            }
            x
        });
        assert_eq!(out, items);
        assert_eq!(map_on(1, &items, |n| *n), items);
    }

    #[test]
    fn no_items_no_threads() {
        let out: Vec<u8> = map_on(4, &[] as &[u8], |_| unreachable!());
        assert!(out.is_empty());
    }

    #[test]
    fn streamed_results_keep_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [1, 2, 4] {
            let out = map_streamed_on(
                threads,
                items.clone(),
                |n| {
                    let mut x = n;
                    for _ in 0..(n % 7) * 1000 {
                        x = std::hint::black_box(x);
                    }
                    x
                },
                |results| results.collect::<Vec<_>>(),
            );
            assert_eq!(out, items);
        }
    }

    #[test]
    fn streamed_items_wait_within_the_window() {
        let items: Vec<usize> = (0..200).collect();
        let started = AtomicUsize::new(0);
        map_streamed_on(
            4,
            items,
            |_| started.fetch_add(1, Ordering::SeqCst),
            |results| {
                for (taken, _) in results.enumerate() {
                    // Each thread may hold one item in hand beyond the window.
                    let limit = taken + 1 + 4 * AHEAD_PER_THREAD + 4;
                    assert!(started.load(Ordering::SeqCst) <= limit);
                }
            },
        );
    }

    #[test]
    fn a_consumer_that_stops_early_stops_the_work() {
        let items: Vec<usize> = (0..10_000).collect();
        let started = AtomicUsize::new(0);
        let first = map_streamed_on(
            2,
            items,
            |n| {
                started.fetch_add(1, Ordering::SeqCst);
                n
            },
            |results| results.take(3).collect::<Vec<_>>(),
        );
        assert_eq!(first, vec![0, 1, 2]);
        assert!(started.load(Ordering::SeqCst) < 100);
    }

    /// The worker's panic ends the scope, which panics in turn once every thread has stopped
    /// (the consumer is not left waiting for the missing result).
    #[test]
    #[should_panic(expected = "a scoped thread panicked")]
    fn a_panicking_item_is_propagated() {
        let items: Vec<usize> = (0..50).collect();
        map_streamed_on(
            2,
            items,
            |n| {
                assert!(n != 7, "item 7");
                n
            },
            |results| results.count(),
        );
    }
}
