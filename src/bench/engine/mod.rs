//! The engines, one file each, and the one list that registers them ([`ALL`]). An
//! engine says what it can do ([`Engine`]: whether it queues, whether it can go around
//! the page cache, what it checks before a run) and binds itself to an open file; the
//! rest of the bench asks it, never which engine it is. The synchronous engines keep
//! the per-operation path to the system call itself, so the loop measures the kernel
//! and the filesystem, not us.

mod mmap;
mod posix;
mod pread;
mod stdio;
mod uring;

use std::fs::File;
use std::io;

use super::cache::CachePolicy;
use super::data::DataPool;
use super::worker::Phase;
use super::{BenchError, PlanError};
use crate::model::EngineKind;
pub(crate) use uring::Uring;

/// Every engine `run` can measure through, in the order `--engine` lists them.
pub(crate) const ALL: [&dyn Engine; 5] = [
    &posix::PosixEngine,
    &pread::PreadEngine,
    &mmap::MmapEngine,
    &stdio::StdioEngine,
    &uring::UringEngine,
];

/// One engine: its name, what it can do, and how it binds to a file. Each capability
/// has the answer most engines give as its default, so an engine states only where it
/// differs.
pub(crate) trait Engine: Sync {
    /// The name `--engine` takes and runs store.
    fn kind(&self) -> EngineKind;

    /// One line for `--help`: the system calls the I/O goes through.
    fn about(&self) -> &'static str;

    /// Whether it keeps several operations in flight, and so takes a queue depth
    /// (`--iodepth`) above 1.
    fn queues(&self) -> bool {
        false
    }

    /// Whether its I/O goes through the page cache whatever the file's flags say (a
    /// mapping, a user-space stream), so that it cannot go around it (`--cache direct`).
    fn uses_page_cache(&self) -> bool {
        false
    }

    /// Whether it is the plain system calls on a descriptor, which the metadata tests
    /// are made of (they move no records through any engine): their figures are
    /// recorded under this engine, which a run of them must name.
    fn plain_calls(&self) -> bool {
        false
    }

    /// What must work before anything is written, for a queue of `depth` (a kernel
    /// facility the engine needs): a refusal here leaves nothing behind.
    fn preflight(&self, depth: u32) -> Result<(), BenchError> {
        let _ = depth;
        Ok(())
    }

    /// Binds the engine to an open test file, before the clock starts.
    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>>;
}

/// The engine of that name, if it is one of ours.
pub(crate) fn of(kind: EngineKind) -> Result<&'static dyn Engine, PlanError> {
    ALL.into_iter()
        .find(|e| e.kind() == kind)
        .ok_or(PlanError::NotOurs(kind))
}

/// Our engines that `capable` holds for, as a sentence names them: "posix, pread or uring".
pub(crate) fn names_where(capable: impl Fn(&dyn Engine) -> bool) -> String {
    let names: Vec<&str> = ALL
        .into_iter()
        .filter(|&e| capable(e))
        .map(|e| e.kind().name())
        .collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What an engine is opened with: the test file, its full size (mmap maps all of
/// it), the cell's cache policy, and for a queued engine its depth, the size of each
/// operation's buffer and the data its writes take, which outlives the binding.
pub(crate) struct Opening<'p> {
    pub file: File,
    pub len: u64,
    pub cache: CachePolicy,
    pub depth: u32,
    pub record: u64,
    pub pool: &'p DataPool,
}

/// An engine bound to an open file: it runs a phase's timed loop, statically
/// dispatched inside, so the one virtual call is per phase, not per operation.
pub(crate) trait Bound {
    fn drive(&mut self, phase: &mut Phase) -> Result<(), BenchError>;
}

/// A synchronous engine drives the phase a record at a time.
impl<T: RecordIo> Bound for T {
    fn drive(&mut self, phase: &mut Phase) -> Result<(), BenchError> {
        phase.drive(self)
    }
}

/// The end of a phase that wrote, on any engine, synchronous or queued.
pub trait WriteBack {
    /// Hands what a user-space buffer still holds to the kernel; only stdio has one.
    fn drain(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Makes what was written durable; the cache policy decides when (`after_writing`).
    fn sync(&mut self) -> io::Result<()>;
}

/// One record at a time, at an offset.
pub trait RecordIo: WriteBack {
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
}
