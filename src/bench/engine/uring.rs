//! The queued engine: io_uring, with up to a depth of operations in flight on one file.
//! It only queues and reaps; which record comes next, when to sample latency and how
//! to check what was read stay with the worker's phase loop, as for the synchronous
//! engines, so both measure the same test the same way.
//!
//! The file is registered with the ring: a request on a registered file skips taking
//! and dropping a reference to it, an atomic pair per operation that is the harness's
//! cost, not the filesystem's. Buffers are not registered (docs/running.md "Engines" says why).

use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::time::Instant;

use io_uring::{IoUring, opcode, types};
use rustix::io::Errno;

use super::{Bound, Engine, Opening, WriteBack};
use crate::bench::BenchError;
use crate::bench::data::{AlignedBuf, DataPool, Pages};
use crate::bench::phase::Phase;
use crate::model::EngineKind;

pub(super) struct UringEngine;

impl Engine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Uring
    }

    fn about(&self) -> &'static str {
        "io_uring: up to `--iodepth` operations in flight, refilled as each completes"
    }

    fn queues(&self) -> bool {
        true
    }

    /// A kernel without io_uring, or one that refuses it, is found before the probe
    /// file is written.
    fn preflight(&self, depth: u32) -> Result<(), BenchError> {
        probe(depth).map_err(|e| BenchError::UringUnavailable(unavailable_reason(&e)))
    }

    fn open<'p>(&self, opening: Opening<'p>) -> io::Result<Box<dyn Bound + 'p>> {
        let pages = opening.cache.buffer_pages();
        let ring = Uring::new(opening.file, opening.depth, opening.record, pages)?;
        Ok(Box::new(Queued {
            ring,
            pool: opening.pool,
        }))
    }
}

/// A ring, and the data its writes take: a queued engine drives the phase itself.
struct Queued<'p> {
    ring: Uring<'p>,
    pool: &'p DataPool,
}

impl Bound for Queued<'_> {
    fn drive(&mut self, phase: &mut Phase) -> Result<(), BenchError> {
        phase.drive_queued(&mut self.ring, self.pool)
    }
}

/// Why no ring could be set up here, in words that say what to look at.
fn unavailable_reason(e: &io::Error) -> String {
    match e.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::NOSYS) => {
            "this kernel has no io_uring (older than 5.1, built without it, or hidden by a \
             seccomp filter)"
                .into()
        }
        Some(Errno::PERM | Errno::ACCESS) => {
            "refused by kernel.io_uring_disabled or by a seccomp filter".into()
        }
        _ => format!("setting up a ring failed: {e}"),
    }
}

/// Sets up (and closes) a ring of `depth` entries, as every worker will: the check
/// made before anything is written.
fn probe(depth: u32) -> io::Result<()> {
    setup(depth).map(drop)
}

/// A ring of `depth` entries for one thread. Completions then wait for that thread to
/// ask for them (`DEFER_TASKRUN`, Linux 6.1) instead of interrupting it as they
/// arrive; on older kernels, which refuse the flags, a plain ring.
fn setup(depth: u32) -> io::Result<IoUring> {
    let deferred = IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(depth);
    match deferred {
        Err(e) if e.raw_os_error() == Some(Errno::INVAL.raw_os_error()) => IoUring::new(depth),
        ring => ring,
    }
}

/// One operation slot: what is in flight in it, or was last.
#[derive(Clone, Copy)]
struct Slot {
    record: u64,
    offset: u64,
    len: u32,
    /// Bytes already moved: a short transfer is queued again for the rest.
    moved: u32,
    reading: bool,
    /// Where a write's data comes from (the data pool, which outlives the ring).
    source: *const u8,
    queued_at: Option<Instant>,
}

/// A finished operation, as [`Uring::wait`] reaped it.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    slot: u32,
    pub record: u64,
    pub reading: bool,
    /// When it was queued, if it was chosen for latency sampling.
    pub queued_at: Option<Instant>,
    /// 0, or the negated errno, or [`END_OF_FILE`].
    outcome: i32,
}

/// A read that came back with nothing: the file is shorter than the run made it.
const END_OF_FILE: i32 = 1;

impl Done {
    pub fn result(&self) -> io::Result<()> {
        match self.outcome {
            0 => Ok(()),
            END_OF_FILE if self.reading => Err(io::ErrorKind::UnexpectedEof.into()),
            END_OF_FILE => Err(io::ErrorKind::WriteZero.into()),
            errno => Err(io::Error::from_raw_os_error(-errno)),
        }
    }
}

/// A ring bound to one open file, with a read buffer for every slot. Writes take their
/// data from memory that lives for `'data` (the worker's data pool), with no copy.
pub struct Uring<'data> {
    ring: IoUring,
    file: File,
    depth: u32,
    record: usize,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// `depth` records, slot k's at `k * record`: aligned, for O_DIRECT.
    buffers: AlignedBuf,
    done: Vec<Done>,
    data: PhantomData<&'data [u8]>,
}

impl<'data> Uring<'data> {
    /// A ring of `depth` entries on `file`, for operations of `record` bytes into
    /// read buffers in `pages`.
    pub fn new(file: File, depth: u32, record: u64, pages: Pages) -> io::Result<Self> {
        let ring = setup(depth)?;
        ring.submitter().register_files(&[file.as_raw_fd()])?;
        let idle = Slot {
            record: 0,
            offset: 0,
            len: 0,
            moved: 0,
            reading: false,
            source: std::ptr::null(),
            queued_at: None,
        };
        Ok(Uring {
            ring,
            file,
            depth,
            record: record as usize,
            slots: vec![idle; depth as usize],
            // popped from the end: slot 0 first
            free: (0..depth).rev().collect(),
            buffers: AlignedBuf::in_pages(depth as usize * record as usize, pages),
            done: Vec::with_capacity(depth as usize),
            data: PhantomData,
        })
    }

    pub fn depth(&self) -> u32 {
        self.depth
    }

    pub fn in_flight(&self) -> u32 {
        self.depth - self.free.len() as u32
    }

    /// Queues a read of `record` at `offset` into a free slot's buffer.
    ///
    /// # Panics
    /// When all `depth` slots are in flight: the caller keeps count.
    pub fn read(&mut self, record: u64, offset: u64, queued_at: Option<Instant>) {
        self.queue(record, offset, true, std::ptr::null(), queued_at);
    }

    /// Queues a write of `data` (one record) at `offset`.
    ///
    /// # Panics
    /// When all `depth` slots are in flight: the caller keeps count.
    pub fn write(
        &mut self,
        record: u64,
        offset: u64,
        data: &'data [u8],
        queued_at: Option<Instant>,
    ) {
        debug_assert_eq!(data.len(), self.record);
        self.queue(record, offset, false, data.as_ptr(), queued_at);
    }

    fn queue(
        &mut self,
        record: u64,
        offset: u64,
        reading: bool,
        source: *const u8,
        queued_at: Option<Instant>,
    ) {
        let slot = self
            .free
            .pop()
            .expect("a free slot: no more than depth in flight");
        self.slots[slot as usize] = Slot {
            record,
            offset,
            len: self.record as u32,
            moved: 0,
            reading,
            source,
            queued_at,
        };
        self.push(slot);
        // Submitted at once, one operation per call, as fio does by default: queueing
        // the refills of a batch of completions and submitting them together made
        // 4 KiB random O_DIRECT reads at depth 32 about 13% slower here (medians of 5
        // alternated rounds: 189 against 216 MiB/s, fio 216; fio itself slowed to 189
        // with --iodepth_batch_submit=16). An error leaves the entry queued: the next
        // wait submits it again and reports it.
        let _ = self.ring.submit();
    }

    /// Puts the slot's operation (or what is left of it) on the submission queue.
    fn push(&mut self, slot: u32) {
        let s = self.slots[slot as usize];
        let file = types::Fixed(0);
        let (offset, len) = (s.offset + u64::from(s.moved), s.len - s.moved);
        let entry = if s.reading {
            let start = slot as usize * self.record + s.moved as usize;
            let buf = self.buffers.as_mut_slice()[start..].as_mut_ptr();
            opcode::Read::new(file, buf, len).offset(offset).build()
        } else {
            // SAFETY: `source` points at `len` bytes of a `&'data [u8]` (see `write`)
            let buf = unsafe { s.source.add(s.moved as usize) };
            opcode::Write::new(file, buf, len).offset(offset).build()
        };
        // SAFETY: the buffer stays valid until the operation is reaped: read buffers
        // are this ring's own and are freed only after `drop` has reaped everything;
        // write data lives for 'data, longer than this ring. A slot is reused only
        // after its completion. The queue has room: it has `depth` entries and no more
        // than `depth` operations are ever queued or in flight.
        unsafe {
            self.ring
                .submission()
                .push(&entry.user_data(u64::from(slot)))
                .expect("room on the submission queue: at most depth in flight");
        }
    }

    /// Submits what was queued and waits for at least one operation to finish, then
    /// reaps every one that has: they are in [`Uring::done`] until the next wait. A
    /// short transfer is queued again for its rest and is not done yet.
    pub fn wait(&mut self) -> io::Result<()> {
        self.done.clear();
        loop {
            match self.ring.submit_and_wait(1) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
                Ok(_) => {}
            }
            self.reap();
            if !self.done.is_empty() {
                return Ok(());
            }
        }
    }

    fn reap(&mut self) {
        let mut completion = self.ring.completion();
        // allocates only when a transfer comes back short, which is rare
        let mut again = Vec::new();
        for cqe in &mut completion {
            let slot = cqe.user_data() as u32;
            let s = &mut self.slots[slot as usize];
            let outcome = match cqe.result() {
                res if res < 0 => res,
                0 => END_OF_FILE,
                res if s.moved + res as u32 >= s.len => 0,
                res => {
                    s.moved += res as u32;
                    again.push(slot);
                    continue;
                }
            };
            self.done.push(Done {
                slot,
                record: s.record,
                reading: s.reading,
                queued_at: s.queued_at,
                outcome,
            });
            self.free.push(slot);
        }
        drop(completion);
        for slot in again {
            self.push(slot);
        }
    }

    /// The operations the last [`Uring::wait`] reaped.
    pub fn done(&self) -> &[Done] {
        &self.done
    }

    /// What a reaped read brought in; valid until the next operation is queued.
    pub fn data(&self, done: &Done) -> &[u8] {
        let start = done.slot as usize * self.record;
        &self.buffers.as_slice()[start..start + self.record]
    }
}

impl WriteBack for Uring<'_> {
    /// Every operation of a phase was reaped before it ends: the kernel has them all.
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

impl Drop for Uring<'_> {
    /// A phase that stops early (an error, an interrupt) leaves operations in flight;
    /// the kernel may still write into their buffers, so they are reaped first.
    fn drop(&mut self) {
        while self.in_flight() > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // cannot know when the kernel is done with them: never free them
                    std::mem::forget(std::mem::replace(&mut self.buffers, AlignedBuf::zeroed(0)));
                    return;
                }
            }
            for cqe in self.ring.completion() {
                self.free.push(cqe.user_data() as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring_on(dir: &tempfile::TempDir, depth: u32, record: u64) -> Uring<'static> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join("f"))
            .unwrap();
        Uring::new(file, depth, record, Pages::Huge).unwrap()
    }

    /// Waits until `n` operations are done; returns them with what each read brought.
    fn reap(ring: &mut Uring, n: usize) -> Vec<(Done, Vec<u8>)> {
        let mut all = Vec::new();
        while all.len() < n {
            ring.wait().unwrap();
            all.extend(ring.done().iter().map(|d| (*d, ring.data(d).to_vec())));
        }
        all
    }

    #[test]
    fn keeps_depth_operations_in_flight_and_reads_back_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let mut ring = ring_on(&dir, 4, 512);
        let data: &'static [u8] = Box::leak((0..2048).map(|i| (i % 251) as u8).collect());
        for r in 0..4u64 {
            let at = r as usize * 512;
            ring.write(r, r * 512, &data[at..at + 512], None);
        }
        assert_eq!(ring.in_flight(), 4);
        for (done, _) in reap(&mut ring, 4) {
            done.result().unwrap();
            assert!(!done.reading);
        }
        assert_eq!(ring.in_flight(), 0);
        let queued = Instant::now();
        for r in (0..4u64).rev() {
            ring.read(r, r * 512, Some(queued));
        }
        for (done, bytes) in reap(&mut ring, 4) {
            done.result().unwrap();
            assert!(done.reading && done.queued_at == Some(queued));
            let at = done.record as usize * 512;
            assert_eq!(bytes, &data[at..at + 512], "record {}", done.record);
        }
    }

    #[test]
    fn a_read_past_the_end_is_an_error_and_a_short_one_is_completed_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut ring = ring_on(&dir, 2, 512);
        let data: &'static [u8] = Box::leak(vec![7u8; 512].into_boxed_slice());
        ring.write(0, 100, data, None);
        reap(&mut ring, 1)[0].0.result().unwrap();
        // the file is 612 bytes: record 1 holds 100 of its 512, then nothing
        ring.read(1, 512, None);
        ring.read(2, 1024, None);
        for (done, _) in reap(&mut ring, 2) {
            let e = done.result().unwrap_err();
            assert_eq!(
                e.kind(),
                io::ErrorKind::UnexpectedEof,
                "record {}",
                done.record
            );
        }
        assert_eq!(ring.in_flight(), 0);
    }

    #[test]
    fn failures_carry_the_kernels_error() {
        let done = |outcome, reading| Done {
            slot: 0,
            record: 0,
            reading,
            queued_at: None,
            outcome,
        };
        let nospc = done(-Errno::NOSPC.raw_os_error(), false)
            .result()
            .unwrap_err();
        assert_eq!(nospc.raw_os_error(), Some(Errno::NOSPC.raw_os_error()));
        let zero = done(END_OF_FILE, false).result().unwrap_err();
        assert_eq!(zero.kind(), io::ErrorKind::WriteZero);
    }

    #[test]
    fn unavailability_says_what_to_look_at() {
        let reason =
            |errno: Errno| unavailable_reason(&io::Error::from_raw_os_error(errno.raw_os_error()));
        assert!(reason(Errno::NOSYS).contains("no io_uring"));
        assert!(reason(Errno::PERM).contains("kernel.io_uring_disabled"));
        assert!(reason(Errno::NOMEM).starts_with("setting up a ring failed"));
        probe(32).unwrap();
    }
}
