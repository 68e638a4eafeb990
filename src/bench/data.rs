//! The bytes a run writes: seeded, incompressible, and regenerable, so `--verify` can
//! check every byte read without keeping a copy of the file.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Memory alignment good enough for O_DIRECT on every device we know (page size).
pub const ALIGN: usize = 4096;

/// A transparent huge page (x86-64, arm64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Random data repeats every this many bytes, so no compression unit up to 1 MiB
/// compresses (btrfs: 128 KiB extents; ZFS: one record, 128 KiB by default, 1 MiB
/// for large files), while the pool stays within a core's L2 cache and TLB reach:
/// an 8 MiB pool cost 10% of 512-byte write throughput here, 2 MiB cost 4% at 64 KiB,
/// in cache misses that belong to the harness, not the filesystem. Fixed, so memory
/// does not grow with the file size.
const POOL_BYTES: usize = 1 << 20;

/// Where a buffer's pages come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pages {
    /// The heap's: I/O through the page cache copies to or from them, and the device
    /// never sees them.
    Small,
    /// Transparent huge pages, where the kernel gives them: an `O_DIRECT` transfer
    /// goes between the device and these pages themselves.
    Huge,
}

/// A buffer whose start is aligned to [`ALIGN`], zeroed, in safe code.
///
/// In [`Pages::Huge`], one longer than a page is a mapping of its own that starts on a
/// huge-page boundary and asks for transparent huge pages (`MADV_HUGEPAGE`), touched
/// here so its pages are in place before any clock starts. A record is then one
/// physically contiguous run, and a direct transfer of it one segment instead of one per
/// 4 KiB page. On this machine's virtio disk (no indirect descriptors) a 64 KiB read
/// into scattered pages took twice as long at the device as one into a huge page, for
/// fio's engine as for ours (docs/benchmarks.md, "bench-vs-fio.sh"): the buffers'
/// layout, not the device. Where the kernel has no huge page to give, the mapping keeps
/// 4 KiB pages.
pub struct AlignedBuf {
    storage: Storage,
    start: usize,
    len: usize,
}

enum Storage {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl AlignedBuf {
    /// On the heap, as any buffer that does not meet the device.
    pub fn zeroed(len: usize) -> Self {
        Self::in_pages(len, Pages::Small)
    }

    pub fn in_pages(len: usize, pages: Pages) -> Self {
        if pages == Pages::Huge
            && len > ALIGN
            && let Ok(buf) = Self::in_huge_pages(len)
        {
            return buf;
        }
        let storage = vec![0u8; len + ALIGN];
        let start = storage.as_ptr().align_offset(ALIGN);
        AlignedBuf {
            storage: Storage::Heap(storage),
            start,
            len,
        }
    }

    fn in_huge_pages(len: usize) -> std::io::Result<Self> {
        let span = len.next_multiple_of(HUGE_PAGE);
        // one huge page more than the span, to start on a huge-page boundary inside it
        let mut map = memmap2::MmapOptions::new()
            .len(span + HUGE_PAGE)
            .map_anon()?;
        let start = map.as_ptr().align_offset(HUGE_PAGE);
        // refused where the kernel has no transparent huge pages: 4 KiB pages then
        #[cfg(target_os = "linux")]
        let _ = map.advise_range(memmap2::Advice::HugePage, start, span);
        for page in map[start..start + len].chunks_mut(ALIGN) {
            page[0] = 0;
        }
        Ok(AlignedBuf {
            storage: Storage::Mapped(map),
            start,
            len,
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        let all: &[u8] = match &self.storage {
            Storage::Heap(v) => v,
            Storage::Mapped(m) => m,
        };
        &all[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let all: &mut [u8] = match &mut self.storage {
            Storage::Heap(v) => v,
            Storage::Mapped(m) => m,
        };
        &mut all[self.start..self.start + self.len]
    }
}

/// The content of a test file: record `i` holds the pool slice at `i * record` modulo
/// the pool length, which is a whole number of records so no record wraps.
pub struct DataPool {
    buf: AlignedBuf,
    record: usize,
    records_in_pool: u64,
    /// `records_in_pool - 1` when that is a power of two (always, for power-of-two
    /// records): spares the per-operation division, a few ns of a 512-byte write.
    mask: Option<u64>,
}

impl DataPool {
    pub fn new(seed: u64, record: usize, file_size: u64, pages: Pages) -> Self {
        let per_pool = (POOL_BYTES / record).max(1);
        let records_in_file = (file_size / record as u64).max(1);
        let records_in_pool = (per_pool as u64).min(records_in_file);
        let mut buf = AlignedBuf::in_pages(records_in_pool as usize * record, pages);
        Xoshiro256PlusPlus::seed_from_u64(seed).fill_bytes(buf.as_mut_slice());
        DataPool {
            buf,
            record,
            records_in_pool,
            mask: records_in_pool
                .is_power_of_two()
                .then(|| records_in_pool - 1),
        }
    }

    /// The bytes record `index` holds.
    #[inline]
    pub fn record(&self, index: u64) -> &[u8] {
        let slot = match self.mask {
            Some(mask) => index & mask,
            None => index % self.records_in_pool,
        };
        let start = slot as usize * self.record;
        &self.buf.as_slice()[start..start + self.record]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned() {
        for len in [1, 512, 4096, 65536] {
            let buf = AlignedBuf::zeroed(len);
            assert_eq!(buf.as_slice().as_ptr() as usize % ALIGN, 0);
            assert_eq!(buf.as_slice().len(), len);
        }
    }

    #[test]
    fn huge_buffers_longer_than_a_page_start_on_a_huge_page_and_ask_for_huge_pages() {
        let mut buf = AlignedBuf::in_pages(3 * HUGE_PAGE + 5, Pages::Huge);
        assert_eq!(buf.as_slice().len(), 3 * HUGE_PAGE + 5);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
        buf.as_mut_slice()[3 * HUGE_PAGE + 4] = 9;
        let at = buf.as_slice().as_ptr() as usize;
        assert_eq!(at % HUGE_PAGE, 0);
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            eprintln!(
                "SKIPPED the huge-page advice check: this kernel has no transparent huge pages"
            );
            return;
        }
        // MADV_HUGEPAGE shows as `hg` among the mapping's flags, whatever THP's mode
        let flags = smaps_field(at, "VmFlags:").expect("the buffer's mapping in smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
        let page = AlignedBuf::in_pages(ALIGN, Pages::Huge);
        assert_eq!(page.as_slice().as_ptr() as usize % ALIGN, 0);
    }

    #[test]
    fn small_buffers_stay_on_the_heap_whatever_their_length() {
        let buf = AlignedBuf::in_pages(3 * HUGE_PAGE, Pages::Small);
        let at = buf.as_slice().as_ptr() as usize;
        assert_eq!(at % ALIGN, 0);
        // a heap buffer is not a mapping of its own, so never one advised for huge pages
        if let Some(flags) = smaps_field(at, "VmFlags:") {
            assert!(!flags.split_whitespace().any(|f| f == "hg"), "{flags}");
        }
        let pool = DataPool::new(1, 65536, 1 << 20, Pages::Huge);
        let at = pool.record(0).as_ptr() as usize;
        assert_eq!(at % HUGE_PAGE, 0);
    }

    /// A field of the smaps entry of the mapping that holds `addr`.
    fn smaps_field(addr: usize, field: &str) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'));
            if let Some((Ok(lo), Ok(hi))) =
                range.map(|(lo, hi)| (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)))
            {
                inside = lo <= addr && addr < hi;
            } else if let Some(value) = line.strip_prefix(field).filter(|_| inside) {
                return Some(value.trim().to_string());
            }
        }
        None
    }

    #[test]
    fn pool_is_seeded_and_not_repetitive_within_the_file() {
        let a = DataPool::new(7, 512, 1 << 20, Pages::Small);
        let b = DataPool::new(7, 512, 1 << 20, Pages::Small);
        let c = DataPool::new(8, 512, 1 << 20, Pages::Small);
        assert_eq!(a.record(5), b.record(5));
        assert_ne!(a.record(5), c.record(5));
        assert_ne!(a.record(0), a.record(1));
        assert!(a.record(3).iter().any(|&b| b != 0));
        // a 1 MiB file of 512 B records never repeats a record
        assert_ne!(a.record(0), a.record(2047));
    }

    #[test]
    fn pool_wraps_on_whole_records() {
        let record = 3000;
        let pool = DataPool::new(1, record, 1 << 30, Pages::Small);
        let per_pool = (POOL_BYTES / record) as u64;
        assert_eq!(pool.record(0), pool.record(per_pool));
        assert_eq!(pool.record(per_pool - 1).len(), record);
    }

    #[test]
    fn records_larger_than_the_pool_still_fit() {
        let record = 16 << 20;
        let pool = DataPool::new(1, record, 32 << 20, Pages::Small);
        assert_eq!(pool.record(1).len(), record);
    }

    #[test]
    fn data_does_not_compress() {
        let pool = DataPool::new(42, 65536, 1 << 20, Pages::Small);
        let bytes = pool.record(0);
        let mut counts = [0u32; 256];
        for &b in bytes {
            counts[b as usize] += 1;
        }
        // near-uniform byte histogram: entropy close to 8 bits per byte
        let n = bytes.len() as f64;
        let entropy: f64 = counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum();
        assert!(entropy > 7.99, "entropy {entropy}");
    }
}
