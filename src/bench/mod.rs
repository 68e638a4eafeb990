//! The measuring engine: turns a [`Plan`] into [`Measurement`]s. It knows files, the
//! page cache and clocks; nothing of databases, tables or the command line.

mod cache;
mod data;
mod file;
mod io;
mod latency;
mod order;
mod preflight;
mod rounds;
mod stale;
mod tally;
mod uring;
mod worker;

use std::path::PathBuf;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

pub use preflight::{Preflight, preflight};
pub use rounds::{AUTO_MAX_ROUNDS, AUTO_MIN_ROUNDS, Outcome, Rounds, execute};
pub use stale::remove_stale_files;
pub use tally::Tally;

use crate::model::{CacheMode, EngineKind, Measurement, RoundOrder, TestKind};
use crate::units::ByteSize;
use cache::CachePolicy;
use worker::{PhaseTiming, Worker};

/// More workers than this is a typo, not a benchmark; each holds buffers and a thread.
pub const MAX_THREADS: u32 = 256;
/// Records are held in memory (a read buffer and the data pool), so they are bounded.
pub const MAX_RECORD: u64 = 1 << 30;
/// io_uring's queue depth beyond which a single file gains nothing (fio's users rarely
/// go past 256); every operation in flight holds a record's buffer.
pub const MAX_IODEPTH: u32 = 1024;

/// What to measure, validated by [`Plan::validate`] before anything touches the disk.
#[derive(Clone, Debug)]
pub struct Plan {
    pub dir: PathBuf,
    /// Ascending. More than one only in auto mode.
    pub file_sizes: Vec<u64>,
    pub record_sizes: Vec<u64>,
    /// Canonical order, no duplicates.
    pub tests: Vec<TestKind>,
    /// Every engine measured, each through every cache mode: in the order given, no
    /// duplicates. Each (engine, cache mode) is part of every cell.
    pub engines: Vec<EngineKind>,
    pub caches: Vec<CacheMode>,
    /// Operations each worker keeps in flight: 1 on the synchronous engines.
    pub iodepth: u32,
    pub threads: u32,
    /// Measured rounds: a number, or as many as precision asks for.
    pub rounds: Rounds,
    /// Warm-up rounds before them, measured and set apart.
    pub warmup: u32,
    pub order: RoundOrder,
    pub seed: u64,
    pub verify: bool,
    pub read_pct: u8,
    pub stride_records: u64,
    pub latency: bool,
    /// Auto mode skips record sizes larger than the file instead of refusing them.
    pub auto: bool,
}

/// Why a plan could not be measured. Every message names the problem and the way out.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    InvalidPlan(#[from] PlanError),
    #[error("directory {0} does not exist")]
    DirMissing(PathBuf),
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
    #[error("{0} is on a read-only filesystem")]
    ReadOnly(PathBuf),
    #[error("no permission to create files in {0}")]
    NoPermission(PathBuf),
    #[error("not enough free space in {dir}: the run needs {needed} but only {available} is free")]
    NoSpace {
        dir: PathBuf,
        needed: ByteSize,
        available: ByteSize,
    },
    #[error("the filesystem at {0} does not support O_DIRECT (tmpfs does not)")]
    DirectUnsupported(PathBuf),
    #[error(
        "O_DIRECT on {dir} needs record sizes that are multiples of {align} bytes; {record} is not"
    )]
    DirectUnaligned {
        dir: PathBuf,
        record: u64,
        align: u64,
    },
    #[error("no space left on device while {context}")]
    DiskFull { context: String },
    #[error("I/O error while {context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error(
        "verification failed: {path} at byte {offset} holds {found:#04x}, {expected:#04x} was written"
    )]
    Verify {
        path: PathBuf,
        offset: u64,
        expected: u8,
        found: u8,
    },
    #[error(
        "{0} was replaced between phases by another file (a hard link renamed over it); \
         nothing was written to it"
    )]
    Replaced(PathBuf),
    #[error("io_uring is unavailable here: {0}")]
    UringUnavailable(String),
    #[error("interrupted; the test files were removed")]
    Interrupted,
}

/// A plan that cannot be measured, found before the filesystem is touched. The text
/// names parameters as the engine knows them; the command line, which knows its flags,
/// words it for its user (`cmd::error_message`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("the thread count must be at least 1")]
    NoThreads,
    #[error("the thread count must be at most {MAX_THREADS}")]
    TooManyThreads,
    #[error(
        "record size {0} is too large: each worker holds a record and a pool of records in \
         memory; use at most {max}",
        max = ByteSize(MAX_RECORD)
    )]
    RecordTooLarge(ByteSize),
    #[error("the number of rounds must be at least 1")]
    NoRounds,
    #[error("the precision must be above 0 and below 100 (percent), the time limit above 0")]
    AutoBounds,
    #[error("the read share must be 0..100 (percent), not {0}")]
    ReadShare(u8),
    #[error("nothing to measure: no tests, file sizes or record sizes")]
    NothingToMeasure,
    #[error("engine {} goes through the page cache and cannot do direct I/O", .0.name())]
    NeedsPageCache(EngineKind),
    #[error("the queue depth must be 1..={MAX_IODEPTH}, not {0}")]
    DepthRange(u32),
    #[error(
        "engine {} keeps one operation in flight: its queue depth is 1, not {depth}",
        engine.name()
    )]
    DepthNeedsQueue { engine: EngineKind, depth: u32 },
    #[error(
        "{depth} operations in flight of {record} each need {}: every one holds a record's \
         buffer; use at most {max}",
        ByteSize(u64::from(*depth) * record.0),
        max = ByteSize(MAX_RECORD)
    )]
    QueueTooLarge { depth: u32, record: ByteSize },
    #[error("record size {record} is larger than the file ({file})")]
    RecordLargerThanFile { file: ByteSize, record: ByteSize },
    #[error(
        "file size {file} is not a whole number of {record}-byte records; choose sizes that divide"
    )]
    FileNotWhole { file: ByteSize, record: u64 },
}

impl BenchError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        let context = context.into();
        match source.raw_os_error() {
            Some(code)
                if code == rustix::io::Errno::NOSPC.raw_os_error()
                    || code == rustix::io::Errno::DQUOT.raw_os_error() =>
            {
                BenchError::DiskFull { context }
            }
            _ => BenchError::Io { context, source },
        }
    }
}

/// One timed phase about to start; given to the [`Observer`] outside the timed region.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// 1-based position among all phases of the run.
    pub index: u64,
    /// Phases planned so far (grows when `--repeat auto` adds a round).
    pub total: u64,
    pub test: TestKind,
    pub file_size: u64,
    pub record_size: u64,
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// 1-based among the measured rounds, or among the warm-up rounds.
    pub repetition: u32,
    pub warmup: bool,
    /// Measured rounds planned so far.
    pub repeat: u32,
}

/// Progress reporting. Called between timed regions only, never inside one.
pub trait Observer: Sync {
    fn step(&self, step: &Step);
    fn measured(&self, measurement: &Measurement, warmup: bool);
    /// Where the workers count their operations while a phase is timed, for a display
    /// that reads it from a thread of its own; `None` counts into nothing anyone reads.
    fn tally(&self) -> Option<&Tally> {
        None
    }
}

/// Stops every worker at the next operation: set by a signal, or by a worker's failure.
pub(crate) struct Cancel<'a> {
    signal: &'a AtomicBool,
    failed: AtomicBool,
}

impl Cancel<'_> {
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        self.signal.load(Ordering::Relaxed) || self.failed.load(Ordering::Relaxed)
    }

    pub(crate) fn fail(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    pub(crate) fn by_signal(&self) -> bool {
        self.signal.load(Ordering::Relaxed)
    }
}

impl Plan {
    /// Checks what can be checked without touching the filesystem.
    pub fn validate(&self) -> Result<(), PlanError> {
        if self.threads == 0 {
            return Err(PlanError::NoThreads);
        }
        if self.threads > MAX_THREADS {
            return Err(PlanError::TooManyThreads);
        }
        if let Some(&r) = self.record_sizes.iter().find(|&&r| r > MAX_RECORD) {
            return Err(PlanError::RecordTooLarge(ByteSize(r)));
        }
        if self.rounds.fixed() == Some(0) {
            return Err(PlanError::NoRounds);
        }
        if let Rounds::Auto {
            precision,
            max_time,
        } = self.rounds
            && !(precision > 0.0 && precision < 1.0 && max_time.as_secs_f64() > 0.0)
        {
            return Err(PlanError::AutoBounds);
        }
        if self.read_pct > 100 {
            return Err(PlanError::ReadShare(self.read_pct));
        }
        if self.tests.is_empty()
            || self.file_sizes.is_empty()
            || self.record_sizes.is_empty()
            || self.engines.is_empty()
            || self.caches.is_empty()
        {
            return Err(PlanError::NothingToMeasure);
        }
        for (engine, cache) in self.combinations() {
            if !CachePolicy::of(cache).supports(engine) {
                return Err(PlanError::NeedsPageCache(engine));
            }
        }
        self.validate_depth()?;
        let larger_than_file = |file: u64, record: u64| {
            Err(PlanError::RecordLargerThanFile {
                file: ByteSize(file),
                record: ByteSize(record),
            })
        };
        if self.sizes().is_empty() {
            return larger_than_file(self.file_sizes[0], self.record_sizes[0]);
        }
        for &file in &self.file_sizes {
            for &record in &self.record_sizes {
                if record > file && !self.auto {
                    return larger_than_file(file, record);
                }
                if record <= file && file % record != 0 {
                    return Err(PlanError::FileNotWhole {
                        file: ByteSize(file),
                        record,
                    });
                }
            }
        }
        Ok(())
    }

    fn validate_depth(&self) -> Result<(), PlanError> {
        let depth = self.iodepth;
        if !(1..=MAX_IODEPTH).contains(&depth) {
            return Err(PlanError::DepthRange(depth));
        }
        // one depth for the run: every engine measured must be able to keep it
        if let Some(&engine) = self.engines.iter().find(|&&e| e != EngineKind::Uring)
            && depth > 1
        {
            return Err(PlanError::DepthNeedsQueue { engine, depth });
        }
        let largest = self.record_sizes.iter().copied().max().unwrap_or(0);
        if self.engines.contains(&EngineKind::Uring) && u64::from(depth) * largest > MAX_RECORD {
            return Err(PlanError::QueueTooLarge {
                depth,
                record: ByteSize(largest),
            });
        }
        Ok(())
    }

    /// The sizes measured, in order: each (file size, record size) pair whose record
    /// fits the file.
    pub fn sizes(&self) -> Vec<(u64, u64)> {
        let mut pairs = Vec::new();
        for &file in &self.file_sizes {
            for &record in &self.record_sizes {
                if record <= file {
                    pairs.push((file, record));
                }
            }
        }
        pairs
    }

    /// Every combination measured, (engine, cache mode): engines first, each through
    /// every mode.
    pub fn combinations(&self) -> Vec<(EngineKind, CacheMode)> {
        let caches = &self.caches;
        self.engines
            .iter()
            .flat_map(|&engine| caches.iter().map(move |&cache| (engine, cache)))
            .collect()
    }

    /// Whether more than one combination (engine, cache mode) is measured.
    pub fn combined(&self) -> bool {
        self.engines.len() * self.caches.len() > 1
    }

    /// Every cell a round visits: each (engine, cache mode) at each (file size, record
    /// size), in order.
    pub fn cells(&self) -> Vec<Cell> {
        let sizes = self.sizes();
        self.combinations()
            .into_iter()
            .flat_map(|(engine, cache)| {
                sizes.iter().map(move |&(file_size, record)| Cell {
                    engine,
                    cache,
                    file_size,
                    record,
                })
            })
            .collect()
    }

    /// How many timed phases the run has planned at first, for progress.
    pub fn phase_count(&self) -> u64 {
        self.phases_with(self.rounds.planned())
    }

    /// How many timed phases the run has with `rounds` measured rounds after the
    /// warm-up ones (`--repeat auto` plans more as it goes).
    pub(crate) fn phases_with(&self, rounds: u32) -> u64 {
        let rounds = u64::from(self.warmup + rounds);
        self.cells().len() as u64 * rounds * self.tests.len() as u64
    }
}

/// What one round measures once: every test through one engine and cache mode, at one
/// file size and record size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub engine: EngineKind,
    pub cache: CacheMode,
    pub file_size: u64,
    pub record: u64,
}

/// Which round of which cell to measure, and where it sits in the run's progress.
pub(crate) struct CellRound<'a> {
    pub cell: Cell,
    pub repetition: u32,
    pub warmup: bool,
    /// 1-based among all rounds, warm-up included: seeds the round's random orders.
    pub round: u32,
    pub first_step: u64,
    pub total: u64,
    pub repeat: u32,
    pub run_tag: &'a str,
}

/// One round of one (file size, record size) cell: every test once, in order, by every
/// worker in lockstep, on fresh files.
pub(crate) fn measure_cell(
    plan: &Plan,
    cell: &CellRound,
    observer: &dyn Observer,
    signal: &AtomicBool,
) -> Result<Vec<Measurement>, BenchError> {
    let cancel = Cancel {
        signal,
        failed: AtomicBool::new(false),
    };
    let barrier = Barrier::new(plan.threads as usize);
    let cache = CachePolicy::of(cell.cell.cache);
    let results: Vec<Result<Vec<PhaseTiming>, BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.threads)
            .map(|index| {
                let worker = Worker {
                    plan,
                    cache,
                    index,
                    cell,
                    cancel: &cancel,
                    barrier: &barrier,
                    observer: (index == 0).then_some(observer),
                    tally: observer.tally(),
                };
                scope.spawn(move || worker.run())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let per_worker = first_error(results, &cancel)?;
    let measured = combine(per_worker, cell);
    for m in &measured {
        observer.measured(m, cell.warmup);
    }
    Ok(measured)
}

/// The error that caused the stop: a real fault beats the cancellations it triggered.
fn first_error(
    results: Vec<Result<Vec<PhaseTiming>, BenchError>>,
    cancel: &Cancel,
) -> Result<Vec<Vec<PhaseTiming>>, BenchError> {
    let mut ok = Vec::new();
    let mut interrupted = false;
    for r in results {
        match r {
            Ok(t) => ok.push(t),
            Err(BenchError::Interrupted) => interrupted = true,
            Err(e) => return Err(e),
        }
    }
    if interrupted || cancel.by_signal() {
        return Err(BenchError::Interrupted);
    }
    Ok(ok)
}

/// Folds the workers' phases into one measurement per phase: bytes summed, time from
/// the first worker's start to the last one's end, latency histograms merged.
fn combine(per_worker: Vec<Vec<PhaseTiming>>, cell: &CellRound) -> Vec<Measurement> {
    let mut workers = per_worker.into_iter();
    let Some(mut merged) = workers.next() else {
        return Vec::new();
    };
    for phases in workers {
        for (acc, p) in merged.iter_mut().zip(phases) {
            acc.bytes += p.bytes;
            acc.start = acc.start.min(p.start);
            acc.end = acc.end.max(p.end);
            if let (Some(h), Some(other)) = (&mut acc.histogram, &p.histogram) {
                h.add(other)
                    .expect("histograms auto-resize, so adding cannot overflow");
            }
        }
    }
    merged
        .into_iter()
        .map(|p| {
            let elapsed_ns = p.end.duration_since(p.start).as_nanos().max(1) as u64;
            Measurement {
                test: p.test,
                file_size: ByteSize(cell.cell.file_size),
                record_size: ByteSize(cell.cell.record),
                repetition: cell.repetition,
                bytes: p.bytes,
                elapsed_ns,
                throughput: p.bytes as f64 * 1e9 / elapsed_ns as f64,
                latency_ns: p
                    .histogram
                    .as_ref()
                    .and_then(latency::summarize)
                    .map(Box::new),
                engine: cell.cell.engine,
                cache: cell.cell.cache,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(engines: &[EngineKind], caches: &[CacheMode]) -> Plan {
        Plan {
            dir: PathBuf::from("/nonexistent"),
            file_sizes: vec![256 << 10],
            record_sizes: vec![4 << 10, 64 << 10],
            tests: vec![TestKind::Write, TestKind::Read],
            engines: engines.to_vec(),
            caches: caches.to_vec(),
            iodepth: 1,
            threads: 1,
            rounds: Rounds::Fixed(3),
            warmup: 1,
            order: RoundOrder::Interleaved,
            seed: 1,
            verify: false,
            read_pct: 50,
            stride_records: 17,
            latency: false,
            auto: false,
        }
    }

    #[test]
    fn every_engine_and_cache_mode_is_a_cell_at_every_size() {
        use CacheMode::{Buffered, Flush};
        use EngineKind::{Mmap, Posix, Pread};
        let p = plan(&[Posix, Pread, Mmap], &[Flush, Buffered]);
        assert_eq!(p.validate(), Ok(()));
        let cells = p.cells();
        assert_eq!(cells.len(), 3 * 2 * 2);
        for (engine, cache) in p.combinations() {
            let sizes: Vec<u64> = cells
                .iter()
                .filter(|c| (c.engine, c.cache) == (engine, cache))
                .map(|c| c.record)
                .collect();
            assert_eq!(sizes, [4 << 10, 64 << 10], "{engine:?}/{cache:?}");
        }
        // (1 warm-up + 3 rounds) × 12 cells × 2 tests
        assert_eq!(p.phase_count(), 4 * 12 * 2);
    }

    #[test]
    fn a_combination_that_cannot_be_measured_is_named() {
        use CacheMode::{Direct, Flush};
        use EngineKind::{Mmap, Posix, Uring};
        let p = plan(&[Posix, Mmap], &[Flush, Direct]);
        assert_eq!(p.validate(), Err(PlanError::NeedsPageCache(Mmap)));
        // one depth for the run: an engine that cannot keep it is refused
        let mut deep = plan(&[Uring, Posix], &[Flush]);
        deep.iodepth = 8;
        assert_eq!(
            deep.validate(),
            Err(PlanError::DepthNeedsQueue {
                engine: Posix,
                depth: 8
            })
        );
        assert_eq!(
            plan(&[], &[Flush]).validate(),
            Err(PlanError::NothingToMeasure)
        );
    }
}
