//! One timed phase: the loop an engine bound to the file drives, a record at a time or
//! with operations queued, and what it does with each record it visits.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::data::DataPool;
use super::engine::{RecordIo, Uring, WriteBack};
use super::latency::Sampler;
use super::order::Order;
use super::worker::Worker;
use super::{BenchError, Stonewall};
use crate::model::TestKind;

/// What a phase does with each record it visits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Write,
    Read,
    Mix,
}

fn access(test: TestKind) -> Access {
    match test {
        TestKind::Mix => Access::Mix,
        t if t.is_read() => Access::Read,
        _ => Access::Write,
    }
}

/// How a phase visits the records: made before it is timed ([`Worker::visits`]).
pub(super) struct Visits {
    pub test: TestKind,
    /// The phase's step for the stonewall ([`Stonewall::NEVER`] without it).
    pub step: u64,
    pub n: u64,
    pub order: Order,
    pub sampler: Sampler,
    pub mix: Xoshiro256PlusPlus,
}

/// One timed phase's loop state, which an engine bound to the file drives.
pub(crate) struct Phase<'a> {
    pub(super) worker: &'a Worker<'a>,
    pub(super) test: TestKind,
    pub(super) n: u64,
    pub(super) order: Order,
    pub(super) pool: &'a DataPool,
    pub(super) buf: &'a mut [u8],
    pub(super) sampler: Sampler,
    pub(super) mix: Xoshiro256PlusPlus,
    pub(super) path: &'a Path,
    /// Operations done so far, for progress: one relaxed store each.
    pub(super) done: &'a AtomicU64,
    /// Where the worker's records start in the file (its region of a shared one).
    pub(super) base: u64,
    /// `--stonewall`: the wall, and this phase's step; a step no wall reaches (`u64::MAX`)
    /// without it.
    pub(super) wall: &'a Stonewall,
    pub(super) step: u64,
    /// Operations done when the loop ended: all, or as many as before the wall fell.
    pub(super) moved: u64,
}

impl Phase<'_> {
    /// The timed loop. Everything here runs once per operation, so it stays minimal:
    /// a relaxed load for cancellation and one for the stonewall, the access order, the
    /// sampler's countdown, a relaxed store of the operations done. A fallen wall ends
    /// the phase as if it were done, with what it moved.
    pub(crate) fn drive<E: RecordIo>(&mut self, io: &mut E) -> Result<(), BenchError> {
        let record = self.worker.cell.cell.record;
        let access = access(self.test);
        let read_pct = u64::from(self.worker.plan.read_pct);
        let verify = self.worker.plan.verify;
        self.moved = self.n;
        for i in 0..self.n {
            if self.worker.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            if self.wall.fell_in(self.step) {
                self.moved = i;
                break;
            }
            let (r, reading) = self.visit(i, access, read_pct);
            let timer = self.sampler.due().then(Instant::now);
            let at = self.base + r * record;
            let result = if reading {
                io.read_at(at, self.buf)
            } else {
                io.write_at(at, self.pool.record(r))
            };
            if let Some(t) = timer {
                self.sampler.record(t.elapsed());
            }
            if let Err(e) = result {
                let doing = if reading { "reading" } else { "writing" };
                return Err(self.error(doing, e));
            }
            if reading && verify {
                self.check(r, self.buf)?;
            }
            self.done.store(i + 1, Ordering::Relaxed);
        }
        self.end(access, io)
    }

    /// The timed loop of a queued engine: as many operations in flight as its depth,
    /// one more queued as each completes (never a batch waited for as a whole), in the
    /// order the test visits records. Latency is per completion, queued to reaped.
    /// `pool` is the phase's own, with the lifetime the ring's writes need.
    pub(crate) fn drive_queued<'p>(
        &mut self,
        ring: &mut Uring<'p>,
        pool: &'p DataPool,
    ) -> Result<(), BenchError> {
        let record = self.worker.cell.cell.record;
        let access = access(self.test);
        let read_pct = u64::from(self.worker.plan.read_pct);
        let verify = self.worker.plan.verify;
        let depth = match self.order.revisits() {
            true => 1,
            false => ring.depth(),
        };
        let mut next = 0;
        // at the wall, nothing more is queued, and what is in flight completes
        let mut end = self.n;
        while next < end || ring.in_flight() > 0 {
            if self.worker.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            if self.wall.fell_in(self.step) {
                end = next;
            }
            while next < end && ring.in_flight() < depth {
                let (r, reading) = self.visit(next, access, read_pct);
                let queued_at = self.sampler.due().then(Instant::now);
                let at = self.base + r * record;
                if reading {
                    ring.read(r, at, queued_at);
                } else {
                    ring.write(r, at, pool.record(r), queued_at);
                }
                next += 1;
            }
            ring.wait()
                .map_err(|e| self.error("waiting for operations on", e))?;
            for done in ring.done() {
                if let Some(t) = done.queued_at {
                    self.sampler.record(t.elapsed());
                }
                if let Err(e) = done.result() {
                    let doing = if done.reading { "reading" } else { "writing" };
                    return Err(self.error(doing, e));
                }
                if done.reading && verify {
                    self.check(done.record, ring.data(done))?;
                }
            }
            self.done
                .store(next - u64::from(ring.in_flight()), Ordering::Relaxed);
        }
        self.moved = next;
        self.end(access, ring)
    }

    /// Operation `i`'s record, and whether it reads it (in `mix`, a seeded coin).
    #[inline]
    fn visit(&mut self, i: u64, access: Access, read_pct: u64) -> (u64, bool) {
        let r = self.order.record(i, self.n);
        let reading = match access {
            Access::Read => true,
            Access::Write => false,
            Access::Mix => self.mix.next_u64() % 100 < read_pct,
        };
        (r, reading)
    }

    /// The end of the timed loop: what the cache policy asks of a phase that wrote.
    fn end(&self, access: Access, io: &mut impl WriteBack) -> Result<(), BenchError> {
        if access != Access::Read {
            self.worker
                .cache
                .after_writing(io)
                .map_err(|e| self.error("syncing", e))?;
        }
        Ok(())
    }

    fn error(&self, doing: &str, e: std::io::Error) -> BenchError {
        BenchError::io(self.worker.context(doing, self.path, self.test), e)
    }

    /// Compares record `r` as read (`found`) with what was written.
    fn check(&self, r: u64, found: &[u8]) -> Result<(), BenchError> {
        let expected = self.pool.record(r);
        if found == expected {
            return Ok(());
        }
        let at = found
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        Err(BenchError::Verify {
            path: self.path.to_path_buf(),
            offset: self.base + r * self.worker.cell.cell.record + at as u64,
            expected: expected[at],
            found: found[at],
        })
    }
}
