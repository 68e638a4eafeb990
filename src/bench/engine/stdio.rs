//! A user-space buffered stream, like C's fread/fwrite.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;

use super::{Bound, Engine, Opening, RecordIo, WriteBack};
use crate::model::EngineKind;

pub(super) struct StdioEngine;

impl Engine for StdioEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Stdio
    }

    fn about(&self) -> &'static str {
        "a user-space buffered stream, like fread/fwrite"
    }

    /// The stream's buffer is memory of ours, filled and drained through the page
    /// cache whatever the file was opened with.
    fn uses_page_cache(&self) -> bool {
        true
    }

    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>> {
        Ok(Box::new(Stdio::new(opening.file)?))
    }
}

/// A user-space buffered stream, like C stdio: the buffer is the file's preferred I/O
/// size (st_blksize), as glibc chooses it, and switching between reading and writing
/// goes through a flush and a seek, as C requires.
struct Stdio {
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
