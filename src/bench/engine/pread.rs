//! pread(2)/pwrite(2) at explicit offsets.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use super::{Bound, Engine, Opening, RecordIo, WriteBack};
use crate::model::EngineKind;

pub(super) struct PreadEngine;

impl Engine for PreadEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Pread
    }

    fn about(&self) -> &'static str {
        "pread(2)/pwrite(2) at explicit offsets"
    }

    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>> {
        Ok(Box::new(Pread { file: opening.file }))
    }
}

/// pread(2)/pwrite(2): no file position at all.
struct Pread {
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
