//! How far the phase being timed has got, for a progress display that another thread
//! reads while the phase runs. The timed loop pays one relaxed store per operation
//! into a counter of the worker's own, on a cache line of its own: a plain store on
//! common hardware, with no other core writing to that line (see docs/methodology.md "How it
//! measures" for the figures).

use std::sync::atomic::{AtomicU64, Ordering};

/// One worker's operations done in the current phase. Aligned to 128 bytes (two
/// 64-byte lines, as adjacent-line prefetchers pair them) so workers never share one.
#[repr(align(128))]
#[derive(Default)]
struct Counter(AtomicU64);

/// Operations done in the phase being timed, per worker, against the phase's total.
pub struct Tally {
    workers: Box<[Counter]>,
    /// Operations each worker does in the current phase.
    per_worker: AtomicU64,
}

impl Tally {
    /// A tally for the workers of `plan`.
    pub fn for_plan(plan: &super::Plan) -> Self {
        Self::new(plan.threads)
    }

    fn new(workers: u32) -> Self {
        Tally {
            workers: (0..workers.max(1)).map(|_| Counter::default()).collect(),
            per_worker: AtomicU64::new(0),
        }
    }

    /// The share of the current phase done, from 0 to 1 (0 before any phase).
    pub fn phase_done(&self) -> f64 {
        let per_worker = self.per_worker.load(Ordering::Relaxed);
        if per_worker == 0 {
            return 0.0;
        }
        let done: u64 = self
            .workers
            .iter()
            .map(|c| c.0.load(Ordering::Relaxed).min(per_worker))
            .sum();
        done as f64 / (per_worker * self.workers.len() as u64) as f64
    }

    /// A new phase of `per_worker` operations a worker: said by worker 0 before the
    /// workers start together.
    pub(crate) fn start_phase(&self, per_worker: u64) {
        self.per_worker.store(per_worker, Ordering::Relaxed);
    }

    /// Worker `index`'s counter, which it zeroes before its clock starts and then sets
    /// to the operations it has done; `None` for a worker the tally was not made for.
    pub(crate) fn counter(&self, index: u32) -> Option<&AtomicU64> {
        self.workers.get(index as usize).map(|c| &c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_done_sums_every_worker() {
        let tally = Tally::new(2);
        assert_eq!(tally.phase_done(), 0.0);
        tally.start_phase(100);
        tally.counter(0).unwrap().store(50, Ordering::Relaxed);
        assert_eq!(tally.phase_done(), 0.25);
        tally.counter(1).unwrap().store(100, Ordering::Relaxed);
        assert_eq!(tally.phase_done(), 0.75);
        // a count left over from a longer phase never passes the whole
        tally.counter(0).unwrap().store(500, Ordering::Relaxed);
        assert_eq!(tally.phase_done(), 1.0);
    }

    #[test]
    fn counters_sit_on_lines_of_their_own() {
        let tally = Tally::new(3);
        let a = tally.counter(0).unwrap() as *const AtomicU64 as usize;
        let b = tally.counter(1).unwrap() as *const AtomicU64 as usize;
        assert!(b - a >= 128, "{a:#x} {b:#x}");
        assert_eq!(a % 128, 0);
        assert!(tally.counter(3).is_none());
    }
}
