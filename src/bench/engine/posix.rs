//! read(2)/write(2) on the file position, as iozone3 does by default.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use super::{RecordIo, WriteBack};

/// read(2)/write(2) on the file position; lseek(2) only when the order jumps.
pub struct Posix {
    pub(super) file: File,
    pub(super) pos: u64,
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
