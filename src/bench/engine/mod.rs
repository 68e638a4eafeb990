//! The four synchronous engines: how one record is written or read at an offset. Each
//! keeps the per-operation path to the system call itself, so the loop measures the
//! kernel and the filesystem, not us. The queued engine, io_uring, is in `uring.rs`.

mod mmap;
mod posix;
mod pread;
mod stdio;
pub(super) mod uring;

use std::fs::File;
use std::io;

use super::cache::CachePolicy;
use crate::model::EngineKind;
pub use mmap::Mmap;
pub use posix::Posix;
pub use pread::Pread;
pub use stdio::Stdio;
pub use uring::Uring;

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

/// An engine bound to an open file.
pub enum Engine<'data> {
    Posix(Posix),
    Pread(Pread),
    Mmap(Mmap),
    Stdio(Stdio),
    /// Boxed: a ring is several times the size of the other engines.
    Uring(Box<Uring<'data>>),
}

/// What an engine is opened for: the file's full size (mmap maps all of it), and for
/// a queued engine its depth and the size of each operation's buffer.
#[derive(Clone, Copy)]
pub struct Shape {
    pub len: u64,
    pub depth: u32,
    pub record: u64,
}

impl<'data> Engine<'data> {
    /// Binds `kind` to `file`.
    pub fn open(
        kind: EngineKind,
        file: File,
        shape: Shape,
        cache: CachePolicy,
    ) -> io::Result<Self> {
        Ok(match kind {
            EngineKind::Posix => Engine::Posix(Posix { file, pos: 0 }),
            EngineKind::Pread => Engine::Pread(Pread { file }),
            EngineKind::Mmap => Engine::Mmap(Mmap::new(file, shape.len, cache)?),
            EngineKind::Stdio => Engine::Stdio(Stdio::new(file)?),
            EngineKind::Uring => {
                Engine::Uring(Box::new(Uring::new(file, shape.depth, shape.record)?))
            }
        })
    }
}
