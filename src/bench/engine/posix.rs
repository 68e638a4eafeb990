//! read(2)/write(2) on the file position, as iozone3 does by default.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use super::{Bound, Engine, Opening, RecordIo, WriteBack};
use crate::model::EngineKind;

pub(super) struct PosixEngine;

impl Engine for PosixEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Posix
    }

    fn about(&self) -> &'static str {
        "read(2)/write(2), with lseek(2) only where the access is not sequential"
    }

    fn plain_calls(&self) -> bool {
        true
    }

    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>> {
        Ok(Box::new(Posix {
            file: opening.file,
            pos: 0,
        }))
    }
}

/// read(2)/write(2) on the file position; lseek(2) only when the order jumps.
struct Posix {
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
