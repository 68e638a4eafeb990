//! The four synchronous engines: how one record is written or read at an offset. Each
//! keeps the per-operation path to the system call itself, so the loop measures the
//! kernel and the filesystem, not us. The queued engine, io_uring, is in `uring.rs`.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt};

use memmap2::MmapMut;

use super::cache::CachePolicy;
use super::uring::Uring;
use crate::model::EngineKind;

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

/// read(2)/write(2) on the file position; lseek(2) only when the order jumps.
pub struct Posix {
    file: File,
    pos: u64,
}

impl RecordIo for Posix {
    #[inline]
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        if offset != self.pos {
            self.file.seek(SeekFrom::Start(offset))?;
        }
        self.file.write_all(data)?;
        self.pos = offset + data.len() as u64;
        Ok(())
    }

    #[inline]
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if offset != self.pos {
            self.file.seek(SeekFrom::Start(offset))?;
        }
        self.file.read_exact(buf)?;
        self.pos = offset + buf.len() as u64;
        Ok(())
    }
}

impl WriteBack for Posix {
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// pread(2)/pwrite(2): no file position at all.
pub struct Pread {
    file: File,
}

impl RecordIo for Pread {
    #[inline]
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.file.write_all_at(data, offset)
    }

    #[inline]
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }
}

impl WriteBack for Pread {
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// The whole file mapped shared; records are copied in and out of the mapping, so
/// page faults and write-back are what is measured.
pub struct Mmap {
    file: File,
    map: MmapMut,
    /// Durable writes: `O_SYNC` does not reach stores into a mapping, so every record
    /// is msynced as it is written.
    per_record_sync: bool,
}

impl Mmap {
    fn new(file: File, len: u64, cache: CachePolicy) -> io::Result<Self> {
        if file.metadata()?.len() < len {
            file.set_len(len)?;
        }
        // SAFETY: the file is this run's own (unique name, O_EXCL, never a symlink) and
        // is not truncated while mapped; another process scribbling on it can change
        // the bytes we read, which `--verify` exists to catch, but not their validity.
        let map = unsafe { MmapMut::map_mut(&file)? };
        Ok(Mmap {
            file,
            map,
            per_record_sync: cache.durable_writes,
        })
    }
}

impl RecordIo for Mmap {
    #[inline]
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let start = offset as usize;
        self.map[start..start + data.len()].copy_from_slice(data);
        if self.per_record_sync {
            self.map.flush_range(start, data.len())?;
        }
        Ok(())
    }

    #[inline]
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = offset as usize;
        buf.copy_from_slice(&self.map[start..start + buf.len()]);
        // keep the copy: nothing may read `buf` afterwards when --verify is off
        std::hint::black_box(&mut *buf);
        Ok(())
    }
}

impl WriteBack for Mmap {
    fn sync(&mut self) -> io::Result<()> {
        self.map.flush()?;
        self.file.sync_data()
    }
}

/// A user-space buffered stream, like C stdio: the buffer is the file's preferred I/O
/// size (st_blksize), as glibc chooses it, and switching between reading and writing
/// goes through a flush and a seek, as C requires.
pub struct Stdio {
    /// Always `Some` between calls; taken only while switching direction.
    stream: Option<Stream>,
    pos: u64,
    capacity: usize,
}

enum Stream {
    Reader(BufReader<File>),
    Writer(BufWriter<File>),
}

impl Stdio {
    fn new(file: File) -> io::Result<Self> {
        let capacity = (file.metadata()?.blksize() as usize).clamp(512, 1 << 20);
        Ok(Stdio {
            stream: Some(Stream::Writer(BufWriter::with_capacity(capacity, file))),
            pos: 0,
            capacity,
        })
    }

    fn writer(&mut self) -> io::Result<&mut BufWriter<File>> {
        if matches!(self.stream, Some(Stream::Reader(_))) {
            let Some(Stream::Reader(reader)) = self.stream.take() else {
                unreachable!("checked just above")
            };
            // the reader has read ahead: put the kernel's position back where we are
            let mut file = reader.into_inner();
            file.seek(SeekFrom::Start(self.pos))?;
            self.stream = Some(Stream::Writer(BufWriter::with_capacity(
                self.capacity,
                file,
            )));
        }
        match &mut self.stream {
            Some(Stream::Writer(w)) => Ok(w),
            _ => Err(io::Error::other("stdio stream lost after an earlier error")),
        }
    }

    fn reader(&mut self) -> io::Result<&mut BufReader<File>> {
        if matches!(self.stream, Some(Stream::Writer(_))) {
            let Some(Stream::Writer(writer)) = self.stream.take() else {
                unreachable!("checked just above")
            };
            let file = writer.into_inner().map_err(|e| e.into_error())?;
            self.stream = Some(Stream::Reader(BufReader::with_capacity(
                self.capacity,
                file,
            )));
        }
        match &mut self.stream {
            Some(Stream::Reader(r)) => Ok(r),
            _ => Err(io::Error::other("stdio stream lost after an earlier error")),
        }
    }
}

impl RecordIo for Stdio {
    #[inline]
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let pos = self.pos;
        let writer = self.writer()?;
        if offset != pos {
            writer.seek(SeekFrom::Start(offset))?;
        }
        writer.write_all(data)?;
        self.pos = offset + data.len() as u64;
        Ok(())
    }

    #[inline]
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let pos = self.pos;
        let reader = self.reader()?;
        if offset != pos {
            reader.seek_relative(offset as i64 - pos as i64)?;
        }
        reader.read_exact(buf)?;
        self.pos = offset + buf.len() as u64;
        Ok(())
    }
}

impl WriteBack for Stdio {
    fn drain(&mut self) -> io::Result<()> {
        match &mut self.stream {
            Some(Stream::Writer(w)) => w.flush(),
            _ => Ok(()),
        }
    }

    // A `mix` phase may end on a read: its writes were drained at the switch, and
    // must reach the disk inside the timing as on every other engine.
    fn sync(&mut self) -> io::Result<()> {
        match &self.stream {
            Some(Stream::Writer(w)) => w.get_ref().sync_data(),
            Some(Stream::Reader(r)) => r.get_ref().sync_data(),
            None => Ok(()),
        }
    }
}
