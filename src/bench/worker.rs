//! One worker: its own fresh file, run through every test of one round of one
//! (file size, record size) cell in lockstep with the other workers.

use std::path::Path;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hdrhistogram::Histogram;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::cache::CachePolicy;
use super::data::{AlignedBuf, DataPool};
use super::engine::{Bound, Engine, Opening};
use super::file::{ReopenError, TestFile};
use super::latency::Sampler;
use super::order::{Order, Permutation};
use super::phase::{Phase, Visits};
use super::{BenchError, Cancel, CellRound, Observer, Plan, Standing, Step, Stonewall, Tally};
use crate::model::{CacheMode, TestKind};
use crate::units::ByteSize;

/// One worker's figures for one timed phase.
pub(crate) struct PhaseTiming {
    pub test: TestKind,
    pub start: Instant,
    pub end: Instant,
    pub bytes: u64,
    pub histogram: Option<Histogram<u64>>,
    /// When this process left the barrier of all clients that began the phase: known
    /// to the worker that met them (worker 0), in a run of many clients.
    pub gated_at: Option<Instant>,
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

impl Worker<'_> {
    pub fn run(self) -> Result<Vec<PhaseTiming>, BenchError> {
        private_fd_table();
        let plan = self.plan;
        let mut file = match self.cell.shared {
            Some(path) => TestFile::joined(path.to_path_buf()),
            None => TestFile::at(self.cell.files.worker(&plan.dir, self.index)),
        };
        let pages = self.cache.buffer_pages();
        let pool = DataPool::new(
            plan.seed.wrapping_add(self.number()),
            self.cell.cell.record as usize,
            self.cell.cell.file_size,
            pages,
        );
        let mut buf = AlignedBuf::in_pages(self.cell.cell.record as usize, pages);
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
            let visits = self.visits(test, step);
            done.store(0, Ordering::Relaxed);
            // Every worker reaches every barrier, failed or not, so none waits
            // forever. The first starts the phase together; the second keeps any
            // worker from preparing the next phase (creating, syncing, evicting
            // its file) while another is still being timed. Between the first and
            // the start, worker 0 meets the other clients, if any: all of them
            // start together too.
            self.barrier.wait();
            let gated_at = self.meet_clients();
            let outcome = engine.ok().map(|engine| {
                self.measure(visits, engine, &pool, &mut buf, file.path(), done)
                    .map(|t| PhaseTiming { gated_at, ..t })
            });
            self.barrier.wait();
            match outcome {
                Some(Ok(t)) => {
                    let written = t.bytes / self.cell.cell.record;
                    let records = self.cell.cell.file_size / self.cell.cell.record;
                    let cut_short = t.test == TestKind::Write && written < records;
                    if cut_short && let Err(e) = self.fill(&mut file, &pool, t.test, written) {
                        self.cancel.fail();
                        error.get_or_insert(e);
                    }
                    timings.push(t);
                }
                Some(Err(e)) => {
                    self.cancel.fail();
                    if let (Some(peers), false) = (self.cell.peers, e.is_interrupted()) {
                        peers.alarm();
                    }
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

    /// Which worker this is among all clients' (`rank × threads + index`): it seeds
    /// the worker's data and orders, and places its region of a shared file.
    fn number(&self) -> u64 {
        let rank = self.cell.peers.map_or(0, |p| p.rank());
        u64::from(rank) * u64::from(self.plan.threads) + u64::from(self.index)
    }

    /// Where this worker's records start in its file: 0 in a file of its own, its
    /// region in the shared one.
    fn base(&self) -> u64 {
        match self.cell.shared {
            Some(_) => self.number() * self.cell.cell.file_size,
            None => 0,
        }
    }

    /// In a run of many clients: worker 0 meets the other clients, saying whether a
    /// worker here failed to prepare, and learns whether one anywhere did (then every
    /// worker here stops before its first operation); the others wait for it at a
    /// second barrier. When worker 0 left the meeting, which is the phase's zero.
    fn meet_clients(&self) -> Option<Instant> {
        let peers = self.cell.peers?;
        let mut gated_at = None;
        if self.index == 0 {
            let mine = match (self.cancel.by_signal(), self.cancel.has_failed()) {
                (true, _) => Standing::Interrupted,
                (false, true) => Standing::Failed,
                (false, false) => Standing::Ready,
            };
            if peers.meet(mine) != Standing::Ready {
                self.cancel.fail();
            }
            gated_at = Some(Instant::now());
        }
        self.barrier.wait();
        gated_at
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

    pub(super) fn context(&self, doing: &str, path: &Path, test: TestKind) -> String {
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
                self.fill(file, pool, test, 0)?;
            }
            let handle = file.open(cache).map_err(|e| match e {
                ReopenError::Io(e) => BenchError::io(self.context("opening", file.path(), test), e),
                ReopenError::Replaced => BenchError::Replaced(file.path().to_path_buf()),
            })?;
            cache
                .before_test(test, &handle, self.base(), self.cell.cell.file_size)
                .map_err(|e| BenchError::io(self.context("evicting", file.path(), test), e))?;
            handle
        };
        let opening = Opening {
            file: handle,
            len: self.base() + self.cell.cell.file_size,
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
    /// From record `from` on: the rest of a file whose write the stonewall cut short,
    /// so that the tests after it find the whole file.
    fn fill(
        &self,
        file: &mut TestFile,
        pool: &DataPool,
        test: TestKind,
        from: u64,
    ) -> Result<(), BenchError> {
        use std::os::unix::fs::FileExt;
        let path = file.path().to_path_buf();
        let err = |e| BenchError::io(self.context("preparing", &path, test), e);
        let buffered = CachePolicy::of(CacheMode::Buffered);
        let handle = match from {
            0 => file.create(buffered).map_err(err)?,
            _ => file.open(buffered).map_err(|e| match e {
                ReopenError::Io(e) => err(e),
                ReopenError::Replaced => BenchError::Replaced(path.clone()),
            })?,
        };
        let base = self.base();
        for r in from..self.cell.cell.file_size / self.cell.cell.record {
            if self.cancel.is_set() {
                return Err(BenchError::Interrupted);
            }
            handle
                .write_all_at(pool.record(r), base + r * self.cell.cell.record)
                .map_err(err)?;
        }
        handle.sync_data().map_err(err)
    }

    /// How a phase of `test` visits the records, made before the phase's barriers so
    /// that nothing but the clock stands between the last barrier and the first
    /// operation: the order, the latency sampler (which allocates) and the mix's coin.
    fn visits(&self, test: TestKind, step: u64) -> Visits {
        let n = self.cell.cell.file_size / self.cell.cell.record;
        // every round (warm-up included) visits records in orders of its own
        let seed = self.plan.seed
            ^ (u64::from(self.cell.round) << 40 | (test as u64) << 32 | self.number());
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
        Visits {
            test,
            step: match self.plan.stonewall {
                true => step,
                false => Stonewall::NEVER,
            },
            n,
            order,
            sampler: Sampler::new(self.plan.latency, self.cell.cell.record, seed),
            mix: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    fn measure<'p>(
        &self,
        visits: Visits,
        mut engine: Box<dyn Bound + 'p>,
        pool: &'p DataPool,
        buf: &mut AlignedBuf,
        path: &Path,
        done: &AtomicU64,
    ) -> Result<PhaseTiming, BenchError> {
        let (test, n) = (visits.test, visits.n);
        let mut phase = Phase {
            worker: self,
            test,
            n,
            order: visits.order,
            pool,
            buf: buf.as_mut_slice(),
            sampler: visits.sampler,
            mix: visits.mix,
            path,
            done,
            base: self.base(),
            wall: self.cell.wall,
            step: visits.step,
            moved: 0,
        };
        let start = Instant::now();
        engine.drive(&mut phase)?;
        let end = Instant::now();
        drop(engine);
        // the first to finish fells the wall, here and on the other ranks
        if phase.moved == n
            && self.plan.stonewall
            && self.cell.wall.fall(phase.step)
            && let Some(peers) = self.cell.peers
        {
            peers.wall(phase.step);
        }
        Ok(PhaseTiming {
            test,
            start,
            end,
            bytes: phase.moved * self.cell.cell.record,
            histogram: phase.sampler.into_histogram(),
            gated_at: None,
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
