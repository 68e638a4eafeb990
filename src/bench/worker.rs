//! One worker: its own fresh file, run through every test of one round of one
//! (file size, record size) cell in lockstep with the other workers.

use std::path::Path;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::cache::CachePolicy;
use super::data::{AlignedBuf, DataPool};
use super::engine::{Bound, Engine, Opening, RecordIo, Uring, WriteBack};
use super::file::{ReopenError, TestFile};
use super::latency::Sampler;
use super::order::{Order, Permutation};
use super::{BenchError, Cancel, CellRound, Observer, Plan, Step, Tally};
use crate::model::{CacheMode, TestKind};
use crate::units::ByteSize;

/// One worker's figures for one timed phase.
pub(crate) struct PhaseTiming {
    pub test: TestKind,
    pub start: Instant,
    pub end: Instant,
    pub bytes: u64,
    pub histogram: Option<Histogram<u64>>,
}

pub(crate) struct Worker<'a> {
    pub plan: &'a Plan,
    /// The cell's engine, as what it does.
    pub engine: &'static dyn Engine,
    /// The cell's cache mode, as what it does.
    pub cache: CachePolicy,
    pub index: u32,
    pub cell: &'a CellRound<'a>,
    pub cancel: &'a Cancel<'a>,
    pub barrier: &'a Barrier,
    /// Only worker 0 reports progress, while the others wait at the barrier.
    pub observer: Option<&'a dyn Observer>,
    /// Where every worker counts its operations while a phase is timed.
    pub tally: Option<&'a Tally>,
}

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

impl Worker<'_> {
    pub fn run(self) -> Result<Vec<PhaseTiming>, BenchError> {
        private_fd_table();
        let plan = self.plan;
        let mut file = TestFile::new(&plan.dir, self.cell.run_tag, self.index);
        let pool = DataPool::new(
            plan.seed.wrapping_add(u64::from(self.index)),
            self.cell.cell.record as usize,
            self.cell.cell.file_size,
        );
        let mut buf = AlignedBuf::zeroed(self.cell.cell.record as usize);
        let mut timings = Vec::new();
        let mut error = None;
        // counted into the tally's counter, or into this one that nobody reads: the
        // timed loop stores either way, so it has no branch for it
        let unread = AtomicU64::new(0);
        let done = self
            .tally
            .and_then(|t| t.counter(self.index))
            .unwrap_or(&unread);
        for (step, test) in (self.cell.first_step..).zip(plan.tests_of(&self.cell.cell)) {
            let engine = match error.is_none() && !self.cancel.is_set() {
                true => self.prepare(test, &mut file, &pool).map_err(|e| {
                    self.cancel.fail();
                    error = Some(e);
                }),
                false => Err(()),
            };
            self.report(step, test);
            done.store(0, Ordering::Relaxed);
            // Every worker reaches every barrier, failed or not, so none waits
            // forever. The first starts the phase together; the second keeps any
            // worker from preparing the next phase (creating, syncing, evicting
            // its file) while another is still being timed.
            self.barrier.wait();
            let outcome = engine
                .ok()
                .map(|engine| self.measure(test, engine, &pool, &mut buf, file.path(), done));
            self.barrier.wait();
            match outcome {
                Some(Ok(t)) => timings.push(t),
                Some(Err(e)) => {
                    self.cancel.fail();
                    error.get_or_insert(e);
                }
                None => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None if self.cancel.is_set() => Err(BenchError::Interrupted),
            None => Ok(timings),
        }
    }

    fn report(&self, index: u64, test: TestKind) {
        if let Some(observer) = self.observer {
            if let Some(tally) = self.tally {
                tally.start_phase(self.cell.cell.file_size / self.cell.cell.record);
            }
            observer.step(&Step {
                index,
                total: self.cell.total,
                test,
                file_size: self.cell.cell.file_size,
                record_size: self.cell.cell.record,
                engine: self.cell.cell.engine,
                cache: self.cell.cell.cache,
                repetition: self.cell.repetition,
                warmup: self.cell.warmup,
                repeat: self.cell.repeat,
            });
        }
    }

    fn context(&self, doing: &str, path: &Path, test: TestKind) -> String {
        format!(
            "{doing} {} ({test} test, {} records)",
            path.display(),
            ByteSize(self.cell.cell.record)
        )
    }

    /// Everything before the clock starts: creating or opening the file, evicting it
    /// for a cold read, mapping it.
    fn prepare<'p>(
        &self,
        test: TestKind,
        file: &mut TestFile,
        pool: &'p DataPool,
    ) -> Result<Box<dyn Bound + 'p>, BenchError> {
        let cache = self.cache;
        let handle = if test == TestKind::Write {
            file.create(cache)
                .map_err(|e| BenchError::io(self.context("creating", file.path(), test), e))?
        } else {
            if !file.exists() {
                self.fill(file, pool, test)?;
            }
            let handle = file.open(cache).map_err(|e| match e {
                ReopenError::Io(e) => BenchError::io(self.context("opening", file.path(), test), e),
                ReopenError::Replaced => BenchError::Replaced(file.path().to_path_buf()),
            })?;
            cache
                .before_test(test, &handle, self.cell.cell.file_size)
                .map_err(|e| BenchError::io(self.context("evicting", file.path(), test), e))?;
            handle
        };
        let opening = Opening {
            file: handle,
            len: self.cell.cell.file_size,
            cache,
            depth: self.plan.iodepth,
            record: self.cell.cell.record,
            pool,
        };
        self.engine
            .open(opening)
            .map_err(|e| BenchError::io(self.context("opening", file.path(), test), e))
    }

    /// Writes the file untimed, for runs whose tests do not include `write`: through
    /// the page cache whatever the mode, then synced, so every mode starts from the
    /// same file on the device.
    fn fill(&self, file: &mut TestFile, pool: &DataPool, test: TestKind) -> Result<(), BenchError> {
        use std::os::unix::fs::FileExt;
        let path = file.path().to_path_buf();
        let err = |e| BenchError::io(self.context("preparing", &path, test), e);
        let handle = file
            .create(CachePolicy::of(CacheMode::Buffered))
            .map_err(err)?;
        for r in 0..self.cell.cell.file_size / self.cell.cell.record {
            if self.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            handle
                .write_all_at(pool.record(r), r * self.cell.cell.record)
                .map_err(err)?;
        }
        handle.sync_data().map_err(err)
    }

    fn measure<'p>(
        &self,
        test: TestKind,
        mut engine: Box<dyn Bound + 'p>,
        pool: &'p DataPool,
        buf: &mut AlignedBuf,
        path: &Path,
        done: &AtomicU64,
    ) -> Result<PhaseTiming, BenchError> {
        let n = self.cell.cell.file_size / self.cell.cell.record;
        // every round (warm-up included) visits records in orders of its own
        let seed = self.plan.seed
            ^ (u64::from(self.cell.round) << 40 | (test as u64) << 32 | u64::from(self.index));
        let order = match test {
            TestKind::Write | TestKind::Rewrite | TestKind::Read | TestKind::Reread => {
                Order::Sequential
            }
            TestKind::RandomRead | TestKind::RandomWrite | TestKind::Mix => {
                Order::Random(Permutation::new(n, seed))
            }
            TestKind::BackwardRead => Order::Backward,
            TestKind::RecordRewrite => Order::Same,
            TestKind::StrideRead => Order::stride(self.plan.stride_records, n),
            metadata => unreachable!("{metadata} is measured over a tree, not a file"),
        };
        let mut phase = Phase {
            worker: self,
            test,
            n,
            order,
            pool,
            buf: buf.as_mut_slice(),
            sampler: Sampler::new(self.plan.latency, self.cell.cell.record, seed),
            mix: Xoshiro256PlusPlus::seed_from_u64(seed),
            path,
            done,
        };
        let start = Instant::now();
        engine.drive(&mut phase)?;
        let end = Instant::now();
        drop(engine);
        Ok(PhaseTiming {
            test,
            start,
            end,
            bytes: n * self.cell.cell.record,
            histogram: phase.sampler.into_histogram(),
        })
    }
}

/// Gives this thread a file descriptor table of its own. In a process with more than
/// one thread sharing a table, every read(2)/write(2) takes a reference and the file
/// position lock (`fdget_pos`): about 50 ns per 512-byte operation here, which is the
/// harness, not the filesystem. A private table puts each worker back on the
/// single-threaded fast path, as iozone3's worker processes are.
pub(crate) fn private_fd_table() {
    // SAFETY: every descriptor this worker uses it opens and closes itself (its test
    // file); it only shares stderr, which is in the copied table too. No descriptor
    // opened here is ever handed to another thread.
    #[cfg(target_os = "linux")]
    let _ = unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::FILES) };
}

/// One timed phase's loop state, which an engine bound to the file drives.
pub(crate) struct Phase<'a> {
    worker: &'a Worker<'a>,
    test: TestKind,
    n: u64,
    order: Order,
    pool: &'a DataPool,
    buf: &'a mut [u8],
    sampler: Sampler,
    mix: Xoshiro256PlusPlus,
    path: &'a Path,
    /// Operations done so far, for progress: one relaxed store each.
    done: &'a AtomicU64,
}

impl Phase<'_> {
    /// The timed loop. Everything here runs once per operation, so it stays minimal:
    /// a relaxed load for cancellation, the access order, the sampler's countdown, a
    /// relaxed store of the operations done.
    pub(crate) fn drive<E: RecordIo>(&mut self, io: &mut E) -> Result<(), BenchError> {
        let record = self.worker.cell.cell.record;
        let access = access(self.test);
        let read_pct = u64::from(self.worker.plan.read_pct);
        let verify = self.worker.plan.verify;
        for i in 0..self.n {
            if self.worker.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            let (r, reading) = self.visit(i, access, read_pct);
            let timer = self.sampler.due().then(Instant::now);
            let result = if reading {
                io.read_at(r * record, self.buf)
            } else {
                io.write_at(r * record, self.pool.record(r))
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
        while next < self.n || ring.in_flight() > 0 {
            if self.worker.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            while next < self.n && ring.in_flight() < depth {
                let (r, reading) = self.visit(next, access, read_pct);
                let queued_at = self.sampler.due().then(Instant::now);
                if reading {
                    ring.read(r, r * record, queued_at);
                } else {
                    ring.write(r, r * record, pool.record(r), queued_at);
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
            offset: r * self.worker.cell.cell.record + at as u64,
            expected: expected[at],
            found: found[at],
        })
    }
}
