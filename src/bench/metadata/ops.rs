//! The timed loop of one metadata phase and the one system call (or few) each test
//! makes per entry: all relative to a directory descriptor opened before the clock
//! starts (`openat`, `statat`, `renameat`, `unlinkat`, `mkdirat`), so a phase times
//! the operation on the entry, not a walk of the path to it. Under `--cache sync`
//! every file written is fsynced, and so is its directory after each create, rename
//! and unlink (and the parent after each mkdir and rmdir), inside the operation's time.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hdrhistogram::Histogram;
use rustix::fs::{AtFlags, Mode, OFlags};

use super::tree::{Name, Share, open_dir};
use crate::bench::latency::Sampler;
use crate::bench::order::Permutation;
use crate::bench::{BenchError, Cancel};
use crate::model::TestKind;

/// One worker's figures for one phase.
pub(super) struct Timed {
    pub test: TestKind,
    pub start: Instant,
    pub end: Instant,
    pub ops: u64,
    pub bytes: u64,
    pub histogram: Option<Histogram<u64>>,
}

/// What a phase works with, all ready before its clock starts.
pub(super) struct Phase<'a> {
    pub test: TestKind,
    pub share: Share,
    /// Where the thread's directories are made: its subtree, or the shared root.
    pub base: BorrowedFd<'a>,
    /// The directories the thread has files in, by number (empty before they exist).
    pub dirs: &'a [OwnedFd],
    /// Whether the files are named as renamed.
    pub renamed: bool,
    /// fsync what each operation changed (`--cache sync`).
    pub durable: bool,
    /// The visiting order when shuffled; creation order otherwise.
    pub order: Option<Permutation>,
    pub sampler: Sampler,
    pub cancel: &'a Cancel<'a>,
    pub done: &'a AtomicU64,
    /// A created file's content (`--file-bytes`).
    pub data: &'a [u8],
    /// Where `readfile` reads to: larger than a file, so a read of 0 ends it.
    pub buf: &'a mut [u8],
}

/// A failed operation: what was being done to which name under the tree.
pub(super) struct Failed {
    pub doing: &'static str,
    pub name: String,
    pub error: io::Error,
}

impl Phase<'_> {
    /// How many operations of the loop this thread does (a readdir lists a directory).
    pub(super) fn count(&self) -> u64 {
        match self.test {
            TestKind::Mkdir | TestKind::Rmdir => self.share.own_dirs(),
            TestKind::Readdir => self.dirs.len() as u64,
            _ => self.share.entries(),
        }
    }

    /// Times the phase: every operation, in its order.
    pub(super) fn run(mut self) -> Result<Timed, Result<Failed, BenchError>> {
        let test = self.test;
        let start = Instant::now();
        let (ops, bytes) = match test {
            TestKind::Mkdir => self.each(|p, n| p.mkdir(n))?,
            TestKind::Rmdir => self.each(|p, n| p.rmdir(n))?,
            TestKind::Create => self.each(|p, e| p.create(e))?,
            TestKind::Stat => self.each(|p, e| p.stat(e))?,
            TestKind::Open => self.each(|p, e| p.open(e))?,
            TestKind::Readfile => self.each(|p, e| p.readfile(e))?,
            TestKind::Readdir => self.each(|p, j| p.readdir(j))?,
            TestKind::Rename => self.each(|p, e| p.rename(e))?,
            TestKind::Unlink => self.each(|p, e| p.unlink(e))?,
            other => unreachable!("{other} is not a metadata test"),
        };
        let end = Instant::now();
        Ok(Timed {
            test,
            start,
            end,
            ops,
            bytes,
            histogram: self.sampler.into_histogram(),
        })
    }

    /// The loop: per operation a relaxed load for cancellation, the order, the
    /// sampler's countdown and a relaxed store of the count done, as the throughput
    /// tests' loop. `op` does operation `n` and says how many it counted (a readdir:
    /// the entries it listed) and the bytes it moved.
    #[inline]
    fn each(
        &mut self,
        mut op: impl FnMut(&mut Self, u64) -> Result<(u64, u64), Failed>,
    ) -> Result<(u64, u64), Result<Failed, BenchError>> {
        let (mut ops, mut bytes) = (0, 0);
        for n in 0..self.count() {
            if self.cancel.is_set() {
                return Err(Err(BenchError::Interrupted));
            }
            let visited = self.order.as_ref().map_or(n, |p| p.apply(n));
            let timer = self.sampler.due().then(Instant::now);
            let (counted, moved) = op(self, visited).map_err(Ok)?;
            if let Some(t) = timer {
                self.sampler.record(t.elapsed());
            }
            ops += counted;
            bytes += moved;
            self.done.store(n + 1, Ordering::Relaxed);
        }
        Ok((ops, bytes))
    }

    fn file(&self, e: u64) -> (BorrowedFd<'_>, Name, usize) {
        let (j, i) = self.share.entry(e);
        let name = Name::file(self.renamed, self.share.worker, i);
        (self.dirs[j].as_fd(), name, j)
    }

    fn sync_dir(&self, dir: impl AsFd, doing: &'static str, name: &Name) -> Result<(), Failed> {
        match self.durable {
            true => rustix::fs::fsync(dir).map_err(|e| failed(doing, name, e.into())),
            false => Ok(()),
        }
    }

    fn mkdir(&mut self, n: u64) -> Result<(u64, u64), Failed> {
        let name = Name::dir(self.share.own_dir(n));
        rustix::fs::mkdirat(self.base, name.as_cstr(), Mode::from_raw_mode(0o755))
            .map_err(|e| failed("making directory", &name, e.into()))?;
        self.sync_dir(self.base, "syncing the directory above", &name)?;
        Ok((1, 0))
    }

    fn rmdir(&mut self, n: u64) -> Result<(u64, u64), Failed> {
        let name = Name::dir(self.share.own_dir(n));
        rustix::fs::unlinkat(self.base, name.as_cstr(), AtFlags::REMOVEDIR)
            .map_err(|e| failed("removing directory", &name, e.into()))?;
        self.sync_dir(self.base, "syncing the directory above", &name)?;
        Ok((1, 0))
    }

    fn create(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        let (dir, name, _) = self.file(e);
        let flags =
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, name.as_cstr(), flags, Mode::from_raw_mode(0o644))
            .map_err(|e| failed("creating", &name, e.into()))?;
        let mut written = 0;
        while written < self.data.len() {
            written += rustix::io::write(&fd, &self.data[written..])
                .map_err(|e| failed("writing", &name, e.into()))?;
        }
        if self.durable {
            rustix::fs::fsync(&fd).map_err(|e| failed("syncing", &name, e.into()))?;
        }
        drop(fd);
        self.sync_dir(dir, "syncing the directory of", &name)?;
        Ok((1, written as u64))
    }

    fn stat(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        let (dir, name, _) = self.file(e);
        rustix::fs::statat(dir, name.as_cstr(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| failed("examining", &name, e.into()))?;
        Ok((1, 0))
    }

    fn open_read(&self, e: u64) -> Result<(OwnedFd, Name), Failed> {
        let (dir, name, _) = self.file(e);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, name.as_cstr(), flags, Mode::empty())
            .map_err(|e| failed("opening", &name, e.into()))?;
        Ok((fd, name))
    }

    fn open(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        drop(self.open_read(e)?);
        Ok((1, 0))
    }

    fn readfile(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        let (fd, name) = self.open_read(e)?;
        let mut read = 0;
        loop {
            match rustix::io::read(&fd, &mut *self.buf) {
                Ok(0) => break,
                Ok(n) => read += n as u64,
                Err(e) => return Err(failed("reading", &name, e.into())),
            }
        }
        Ok((1, read))
    }

    /// Lists directory `j` whole: opened anew (as opendir does), every entry read.
    fn readdir(&mut self, j: u64) -> Result<(u64, u64), Failed> {
        let name = Name::dir(j);
        let fd = open_dir(&self.dirs[j as usize], c".")
            .map_err(|e| failed("opening directory", &name, e))?;
        let mut dir = rustix::fs::Dir::new(fd).map_err(|e| failed("listing", &name, e.into()))?;
        let mut entries = 0;
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(|e| failed("listing", &name, e.into()))?;
            let dots = matches!(entry.file_name().to_bytes(), b"." | b"..");
            entries += u64::from(!dots);
        }
        Ok((entries, 0))
    }

    fn rename(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        let (dir, from, j) = self.file(e);
        let to = Name::file(true, self.share.worker, self.share.entry(e).1);
        rustix::fs::renameat(dir, from.as_cstr(), dir, to.as_cstr())
            .map_err(|e| failed("renaming", &from, e.into()))?;
        self.sync_dir(&self.dirs[j], "syncing the directory of", &to)?;
        Ok((1, 0))
    }

    fn unlink(&mut self, e: u64) -> Result<(u64, u64), Failed> {
        let (dir, name, _) = self.file(e);
        rustix::fs::unlinkat(dir, name.as_cstr(), AtFlags::empty())
            .map_err(|e| failed("removing", &name, e.into()))?;
        self.sync_dir(dir, "syncing the directory of", &name)?;
        Ok((1, 0))
    }
}

fn failed(doing: &'static str, name: &Name, error: io::Error) -> Failed {
    Failed {
        doing,
        name: name.text().to_string(),
        error,
    }
}
