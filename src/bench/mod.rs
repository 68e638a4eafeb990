//! The measuring engine: turns a [`Plan`] into [`Measurement`]s. It knows files, the
//! page cache and clocks; nothing of databases, tables or the command line.

mod cache;
mod cell;
mod data;
pub(crate) mod engine;
mod file;
mod latency;
mod metadata;
mod order;
mod plan;
mod preflight;
mod rounds;
mod stale;
mod tally;
mod worker;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use cell::{CellRound, measure_cell};
pub(crate) use metadata::measure_tree;
pub use plan::{
    Cell, MAX_FILE_BYTES, MAX_IODEPTH, MAX_RECORD, MAX_THREADS, MAX_TREE_ENTRIES, Plan, PlanError,
};
pub use preflight::{Preflight, preflight};
pub use rounds::{AUTO_MAX_ROUNDS, AUTO_MIN_ROUNDS, Outcome, Rounds, execute};
pub use stale::remove_stale_files;
pub use tally::Tally;

use crate::model::{CacheMode, EngineKind, Measurement, TestKind};
use crate::units::ByteSize;

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
    #[error("no inode left on the filesystem while {context}: it holds fewer files than the tree")]
    NoInodes { context: String },
    #[error(
        "the tree's directories need {needed} open files at once, more than this process may \
         open ({limit}); raise `ulimit -n`, or use fewer --dirs or --threads"
    )]
    TooManyDirectories { needed: u64, limit: u64 },
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
