//! Independent work items (one per tool, one per payload file) spread over the machine's
//! cores, results in the items' order, so that output is the same as one after the other.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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
}
