//! The cache-mode policy: what each `--cache` mode does to a test file when it is
//! opened, between one test and the next, and at the end of a phase that wrote. This is
//! the one place that matches on [`CacheMode`]; the test file, the engines, the worker
//! and the preflight checks ask the policy. docs/running.md "Cache modes" says the same to users.

use std::fs::File;
use std::io;
use std::num::NonZeroU64;

use rustix::fs::{Advice, OFlags};

use super::engine::{Engine, WriteBack};
use crate::model::{CacheMode, TestKind};

/// What one cache mode does, as four independent choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CachePolicy {
    /// At open: `O_DIRECT`, reads and writes go around the page cache. Records must then
    /// be aligned as the filesystem asks (the preflight checks it), and the engines that
    /// go through the page cache by design cannot take part.
    pub around_page_cache: bool,
    /// At open: `O_SYNC`, every write is durable before it returns. A mapping's stores
    /// get nothing from the file's flags, so `mmap` msyncs every record instead.
    pub durable_writes: bool,
    /// Between phases: a test that starts cold finds the file synced and its pages
    /// dropped, so its data comes from the device.
    pub evict_before_cold: bool,
    /// At the end: a phase that wrote keeps its clock running through `fdatasync`, as
    /// iozone3 `-e` times its fsync, so writes measure the device and not memory.
    pub sync_after_writing: bool,
}

impl CachePolicy {
    /// The policy of `mode`.
    pub(crate) const fn of(mode: CacheMode) -> CachePolicy {
        match mode {
            CacheMode::Flush => CachePolicy {
                around_page_cache: false,
                durable_writes: false,
                evict_before_cold: true,
                sync_after_writing: true,
            },
            CacheMode::Buffered => CachePolicy {
                around_page_cache: false,
                durable_writes: false,
                evict_before_cold: false,
                sync_after_writing: false,
            },
            CacheMode::Direct => CachePolicy {
                around_page_cache: true,
                durable_writes: false,
                evict_before_cold: true,
                sync_after_writing: false,
            },
            CacheMode::Sync => CachePolicy {
                around_page_cache: false,
                durable_writes: true,
                evict_before_cold: false,
                sync_after_writing: false,
            },
        }
    }

    /// The flags every descriptor of a test file is opened with, besides read, write
    /// and never following a symlink.
    pub(crate) fn open_flags(self) -> OFlags {
        let mut flags = OFlags::empty();
        if self.around_page_cache {
            flags |= OFlags::DIRECT;
        }
        if self.durable_writes {
            flags |= OFlags::SYNC;
        }
        flags
    }

    /// Whether `engine` can work this way: one that goes through the page cache
    /// whatever the file's flags say cannot go around it.
    pub(crate) fn supports(self, engine: &dyn Engine) -> bool {
        !(self.around_page_cache && engine.uses_page_cache())
    }

    /// Whether cold reads are cold only because the file's pages were dropped, which a
    /// memory filesystem cannot do. Reads around the page cache are cold anyway.
    pub(crate) fn cold_reads_need_eviction(self) -> bool {
        self.evict_before_cold && !self.around_page_cache
    }

    /// Between phases, before the clock starts: readies `file`, just opened and `len`
    /// bytes long, for `test`.
    pub(crate) fn before_test(self, test: TestKind, file: &File, len: u64) -> io::Result<()> {
        // Around the page cache every test starts with none of the file's pages cached:
        // pages left by the untimed fill (written through the cache) would make each
        // direct write invalidate its page first, a cost of the harness, not the device
        // (fio drops them too when it opens a file for direct I/O).
        let evict = test.starts_cold() || self.around_page_cache;
        if self.evict_before_cold && evict {
            // fadvise(DONTNEED) drops only clean pages, hence the fdatasync first
            rustix::fs::fdatasync(file)?;
            rustix::fs::fadvise(file, 0, NonZeroU64::new(len), Advice::DontNeed)?;
        }
        Ok(())
    }

    /// Metadata tests: whether each phase starts after a sync and with the dentry and
    /// inode caches dropped where the process may (`flush`).
    pub(crate) fn drops_metadata_caches(self) -> bool {
        self.evict_before_cold && !self.around_page_cache
    }

    /// Metadata tests: whether each operation makes what it changed durable (every file
    /// written and its directory fsynced), inside its time (`sync`).
    pub(crate) fn syncs_each_metadata_change(self) -> bool {
        self.durable_writes
    }

    /// Ends a phase that wrote, inside its timed region: what the engine still buffers
    /// goes to the kernel in every mode, and is made durable where the mode says so.
    pub(crate) fn after_writing(self, io: &mut impl WriteBack) -> io::Result<()> {
        io.drain()?;
        if self.sync_after_writing {
            io.sync()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_opens_with_its_own_flag_only() {
        let flags = |mode| CachePolicy::of(mode).open_flags();
        assert_eq!(flags(CacheMode::Flush), OFlags::empty());
        assert_eq!(flags(CacheMode::Buffered), OFlags::empty());
        assert_eq!(flags(CacheMode::Direct), OFlags::DIRECT);
        assert_eq!(flags(CacheMode::Sync), OFlags::SYNC);
    }

    #[test]
    fn only_direct_refuses_the_page_cache_engines() {
        use crate::bench::engine::ALL;
        for mode in [CacheMode::Flush, CacheMode::Buffered, CacheMode::Sync] {
            assert!(ALL.iter().all(|&e| CachePolicy::of(mode).supports(e)));
        }
        let direct = CachePolicy::of(CacheMode::Direct);
        let refused: Vec<&str> = ALL
            .iter()
            .filter(|&&e| !direct.supports(e))
            .map(|e| e.kind().name())
            .collect();
        assert_eq!(refused, ["mmap", "stdio"]);
    }

    /// Records what the policy asks of an engine at the end of a writing phase.
    #[derive(Default)]
    struct Calls(Vec<&'static str>);

    impl WriteBack for Calls {
        fn drain(&mut self) -> io::Result<()> {
            self.0.push("drain");
            Ok(())
        }
        fn sync(&mut self) -> io::Result<()> {
            self.0.push("sync");
            Ok(())
        }
    }

    #[test]
    fn a_writing_phase_drains_always_and_syncs_only_in_flush_mode() {
        let calls = |mode| {
            let mut io = Calls::default();
            CachePolicy::of(mode).after_writing(&mut io).unwrap();
            io.0
        };
        assert_eq!(calls(CacheMode::Flush), ["drain", "sync"]);
        for mode in [CacheMode::Buffered, CacheMode::Direct, CacheMode::Sync] {
            assert_eq!(calls(mode), ["drain"]);
        }
    }

    /// How many of `file`'s first `len` bytes' pages are in the page cache.
    fn cached_pages(file: &File, len: usize) -> usize {
        use std::os::fd::AsRawFd;
        let page = rustix::param::page_size();
        let mut resident = vec![0u8; len.div_ceil(page)];
        // SAFETY: a shared read-only mapping of a file of at least `len` bytes, unmapped
        // before return; mincore fills one byte per page of it
        unsafe {
            let map = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(map, libc::MAP_FAILED);
            assert_eq!(libc::mincore(map, len, resident.as_mut_ptr()), 0);
            libc::munmap(map, len);
        }
        resident.iter().filter(|&&b| b & 1 == 1).count()
    }

    #[test]
    fn direct_tests_start_with_none_of_the_fills_pages_cached() {
        use std::io::Write;
        // the checkout's filesystem: a memory filesystem cannot drop pages
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let path = dir.path().join("filled");
        let len = 1 << 20;
        let mut file = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        file.write_all(&vec![7u8; len]).unwrap();
        assert!(
            cached_pages(&file, len) > 0,
            "the fill went through the page cache"
        );
        let buffered = CachePolicy::of(CacheMode::Buffered);
        buffered
            .before_test(TestKind::RandomWrite, &file, len as u64)
            .unwrap();
        assert!(
            cached_pages(&file, len) > 0,
            "buffered keeps the cache warm"
        );
        let direct = CachePolicy::of(CacheMode::Direct);
        direct
            .before_test(TestKind::RandomWrite, &file, len as u64)
            .unwrap();
        assert_eq!(
            cached_pages(&file, len),
            0,
            "a direct write would invalidate them"
        );
    }

    #[test]
    fn metadata_phases_start_cold_in_flush_and_sync_every_change_in_sync() {
        let policy = CachePolicy::of;
        let drops: Vec<bool> = CacheMode::ALL
            .iter()
            .map(|&m| policy(m).drops_metadata_caches())
            .collect();
        assert_eq!(drops, [true, false, false, false]);
        let syncs: Vec<bool> = CacheMode::ALL
            .iter()
            .map(|&m| policy(m).syncs_each_metadata_change())
            .collect();
        assert_eq!(syncs, [false, false, false, true]);
    }

    #[test]
    fn only_flush_relies_on_eviction_for_cold_reads() {
        assert!(CachePolicy::of(CacheMode::Flush).cold_reads_need_eviction());
        for mode in [CacheMode::Buffered, CacheMode::Direct, CacheMode::Sync] {
            assert!(!CachePolicy::of(mode).cold_reads_need_eviction());
        }
    }
}
