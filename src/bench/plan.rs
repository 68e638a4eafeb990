//! What a run asks for, as the bench takes it: the [`Plan`], the checks that refuse
//! what cannot be measured before anything touches the disk ([`PlanError`]), and the
//! cells a round visits.

use std::path::PathBuf;

use super::Rounds;
use super::cache::CachePolicy;
use super::engine;
use crate::model::{CacheMode, EngineKind, MetadataTree, RoundOrder, TestKind};
use crate::units::ByteSize;

/// More workers than this is a typo, not a benchmark; each holds buffers and a thread.
pub const MAX_THREADS: u32 = 256;
/// Records are held in memory (a read buffer and the data pool), so they are bounded.
pub const MAX_RECORD: u64 = 1 << 30;
/// io_uring's queue depth beyond which a single file gains nothing (fio's users rarely
/// go past 256); every operation in flight holds a record's buffer.
pub const MAX_IODEPTH: u32 = 1024;
/// A metadata test's files are written and read whole from one buffer: small files, as
/// the tests are about, and bounded like a record.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// Entries in one thread's tree (files × directories): the index of an entry is kept
/// in 32 bits, so a shuffled order of a phase costs 4 bytes an entry.
pub const MAX_TREE_ENTRIES: u64 = u32::MAX as u64;

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
    /// The tree of the metadata tests: set when `tests` has one.
    pub metadata: Option<MetadataTree>,
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
    #[error("there is no engine {} to run here: only a run imported from another tool can name it", .0.name())]
    NotOurs(EngineKind),
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
    #[error("the metadata tests need at least one file and one directory")]
    EmptyTree,
    #[error(
        "{files} files in each of {dirs} directories is more than one thread's tree can hold \
         ({MAX_TREE_ENTRIES})"
    )]
    TreeTooLarge { files: u64, dirs: u64 },
    #[error(
        "a metadata test's file of {} is not small: use at most {}",
        ByteSize(*.0),
        ByteSize(MAX_FILE_BYTES)
    )]
    FileBytesTooLarge(u64),
    #[error(
        "the metadata tests go through plain system calls (engine {plain}); engine {} \
         has nothing to do with them",
        .0.name(),
        plain = engine::names_where(|e| e.plain_calls())
    )]
    MetadataEngine(EngineKind),
    #[error("direct I/O means nothing to the metadata tests: they move no records")]
    MetadataDirect,
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
        let sized = self.tests.iter().any(|t| !t.is_metadata());
        if self.tests.is_empty()
            || (sized && (self.file_sizes.is_empty() || self.record_sizes.is_empty()))
            || self.engines.is_empty()
            || self.caches.is_empty()
        {
            return Err(PlanError::NothingToMeasure);
        }
        self.validate_tree()?;
        if !sized {
            return self.validate_depth();
        }
        for (kind, cache) in self.combinations() {
            if !CachePolicy::of(cache).supports(engine::of(kind)?) {
                return Err(PlanError::NeedsPageCache(kind));
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

    /// The metadata tests' tree and the ways they can be measured: through plain
    /// system calls (the posix engine, which must be among the engines: the tests are
    /// measured once, under it), in any cache mode but direct.
    fn validate_tree(&self) -> Result<(), PlanError> {
        let Some(tree) = self.tree() else {
            return Ok(());
        };
        if tree.files == 0 || tree.dirs == 0 {
            return Err(PlanError::EmptyTree);
        }
        if tree.files_per_thread() > MAX_TREE_ENTRIES {
            return Err(PlanError::TreeTooLarge {
                files: tree.files,
                dirs: tree.dirs,
            });
        }
        if tree.file_bytes > MAX_FILE_BYTES {
            return Err(PlanError::FileBytesTooLarge(tree.file_bytes));
        }
        if self.plain_engine().is_none() {
            return Err(PlanError::MetadataEngine(self.engines[0]));
        }
        if self.caches.contains(&CacheMode::Direct) {
            return Err(PlanError::MetadataDirect);
        }
        Ok(())
    }

    /// The engine the metadata tests are recorded under: the run's engine of plain
    /// system calls (`Engine::plain_calls`).
    fn plain_engine(&self) -> Option<EngineKind> {
        let plain = |kind: &&EngineKind| engine::of(**kind).is_ok_and(|e| e.plain_calls());
        self.engines.iter().find(plain).copied()
    }

    /// The metadata tests' tree, when the plan has metadata tests.
    pub fn tree(&self) -> Option<MetadataTree> {
        match self.tests.iter().any(|t| t.is_metadata()) {
            true => Some(self.metadata.unwrap_or_default()),
            false => None,
        }
    }

    /// The tests of a cell: the metadata tests in a metadata cell, the others in the
    /// others, in canonical order.
    pub fn tests_of(&self, cell: &Cell) -> impl Iterator<Item = TestKind> + '_ {
        let metadata = cell.metadata;
        self.tests
            .iter()
            .copied()
            .filter(move |t| t.is_metadata() == metadata)
    }

    fn validate_depth(&self) -> Result<(), PlanError> {
        let depth = self.iodepth;
        if !(1..=MAX_IODEPTH).contains(&depth) {
            return Err(PlanError::DepthRange(depth));
        }
        let engines = self
            .engines
            .iter()
            .map(|&kind| engine::of(kind))
            .collect::<Result<Vec<_>, _>>()?;
        // one depth for the run: every engine measured must be able to keep it
        if let Some(engine) = engines.iter().find(|e| !e.queues())
            && depth > 1
        {
            return Err(PlanError::DepthNeedsQueue {
                engine: engine.kind(),
                depth,
            });
        }
        let largest = self.record_sizes.iter().copied().max().unwrap_or(0);
        if engines.iter().any(|e| e.queues()) && u64::from(depth) * largest > MAX_RECORD {
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
    /// size), in order, when there are tests of files; then the metadata tests' tree
    /// once through each cache mode, by plain system calls (the engine of them), when
    /// there are metadata tests.
    pub fn cells(&self) -> Vec<Cell> {
        let sizes = match self.tests.iter().any(|t| !t.is_metadata()) {
            true => self.sizes(),
            false => Vec::new(),
        };
        let mut cells: Vec<Cell> = self
            .combinations()
            .into_iter()
            .flat_map(|(engine, cache)| {
                sizes.iter().map(move |&(file_size, record)| Cell {
                    engine,
                    cache,
                    file_size,
                    record,
                    metadata: false,
                })
            })
            .collect();
        if let (Some(_), Some(engine)) = (self.tree(), self.plain_engine()) {
            cells.extend(self.caches.iter().map(|&cache| Cell {
                engine,
                cache,
                file_size: 0,
                record: 0,
                metadata: true,
            }));
        }
        cells
    }

    /// How many timed phases the run has planned at first, for progress.
    pub fn phase_count(&self) -> u64 {
        self.phases_with(self.rounds.planned())
    }

    /// How many timed phases the run has with `rounds` measured rounds after the
    /// warm-up ones (`--repeat auto` plans more as it goes).
    pub(crate) fn phases_with(&self, rounds: u32) -> u64 {
        let rounds = u64::from(self.warmup + rounds);
        let per_round: u64 = (self.cells().iter())
            .map(|cell| self.tests_of(cell).count() as u64)
            .sum();
        per_round * rounds
    }
}

/// What one round measures once: every test through one engine and cache mode, at one
/// file size and record size; or every metadata test over the tree, in one cache mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// 0 in a metadata cell, as its record.
    pub file_size: u64,
    pub record: u64,
    /// Whether the cell is the metadata tests' tree rather than a file.
    pub metadata: bool,
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
            metadata: None,
        }
    }

    #[test]
    fn every_engine_and_cache_mode_is_a_cell_at_every_size() {
        use CacheMode::{Buffered, Flush};
        use EngineKind as E;
        let p = plan(&[E::Posix, E::Pread, E::Mmap], &[Flush, Buffered]);
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
        use EngineKind as E;
        let p = plan(&[E::Posix, E::Mmap], &[Flush, Direct]);
        assert_eq!(p.validate(), Err(PlanError::NeedsPageCache(E::Mmap)));
        // one depth for the run: an engine that cannot keep it is refused
        let mut deep = plan(&[E::Uring, E::Posix], &[Flush]);
        deep.iodepth = 8;
        assert_eq!(
            deep.validate(),
            Err(PlanError::DepthNeedsQueue {
                engine: E::Posix,
                depth: 8
            })
        );
        assert_eq!(
            plan(&[], &[Flush]).validate(),
            Err(PlanError::NothingToMeasure)
        );
        // an engine only an imported run names cannot be run
        let libaio = EngineKind::named("libaio").unwrap();
        assert_eq!(
            plan(&[libaio], &[Flush]).validate(),
            Err(PlanError::NotOurs(libaio))
        );
    }
}
