//! The file mapped into memory, records copied in and out of the mapping.

use std::fs::File;
use std::io;

use memmap2::MmapMut;

use super::{Bound, Engine, Opening, RecordIo, WriteBack};
use crate::model::EngineKind;

pub(super) struct MmapEngine;

impl Engine for MmapEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Mmap
    }

    fn about(&self) -> &'static str {
        "the file mapped into memory and copied to or from"
    }

    /// Stores into a mapping and faults on it go through the page cache whatever the
    /// file was opened with.
    fn uses_page_cache(&self) -> bool {
        true
    }

    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>> {
        Ok(Box::new(Mmap::new(
            opening.file,
            opening.len,
            opening.cache,
        )?))
    }
}
use crate::bench::cache::CachePolicy;

/// The whole file mapped shared; records are copied in and out of the mapping, so
/// page faults and write-back are what is measured.
struct Mmap {
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
