//! Checks made before the first timed byte: the directory exists and is writable, the
//! files fit, each engine's own checks pass (io_uring can be set up), and O_DIRECT works with
//! every record size. A refusal here leaves nothing
//! behind and explains itself.

use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use rustix::fs::{AtFlags, StatVfsMountFlags, StatxFlags};
use rustix::io::Errno;

use super::cache::CachePolicy;
use super::data::AlignedBuf;
use super::engine;
use super::file::TestFile;
use super::{BenchError, Plan};
use crate::units::ByteSize;

/// What the checks learned about the filesystem, and what the user should know.
#[derive(Debug, Default)]
pub struct Preflight {
    pub block_size: Option<u64>,
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// Things that make figures mean something else than the user may think.
    pub warnings: Vec<String>,
    /// The metadata tests' phases under `--cache flush` start warm: the dentry and
    /// inode caches cannot be dropped here (said once among the warnings).
    pub metadata_warm: bool,
}

const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

pub fn preflight(plan: &Plan) -> Result<Preflight, BenchError> {
    let dir = plan.dir.as_path();
    let caches: Vec<CachePolicy> = plan.caches.iter().map(|&c| CachePolicy::of(c)).collect();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(BenchError::DirMissing(dir.to_path_buf()));
        }
        Err(e) => return Err(BenchError::io(format!("examining {}", dir.display()), e)),
        Ok(m) if !m.is_dir() => return Err(BenchError::NotADirectory(dir.to_path_buf())),
        Ok(_) => {}
    }
    let vfs = rustix::fs::statvfs(dir)
        .map_err(|e| BenchError::io(format!("examining {}", dir.display()), e.into()))?;
    if vfs.f_flag.contains(StatVfsMountFlags::RDONLY) {
        return Err(BenchError::ReadOnly(dir.to_path_buf()));
    }
    // ramfs and some pseudo filesystems report no size at all: capacity unknown
    let sized = vfs.f_blocks > 0;
    let free = vfs.f_bavail * vfs.f_frsize;
    let largest = plan.file_sizes.iter().copied().max().unwrap_or(0);
    let threads = u64::from(plan.threads);
    // a tree's files hold a block each at least; the tree and the files never coexist
    let tree_bytes = plan.tree().map_or(0, |t| {
        let per_file = t.file_bytes.next_multiple_of(vfs.f_bsize.max(1));
        t.files_per_thread()
            .saturating_mul(per_file)
            .saturating_mul(threads)
    });
    let needed = largest.saturating_mul(threads).max(tree_bytes);
    if sized && needed > free {
        return Err(BenchError::NoSpace {
            dir: dir.to_path_buf(),
            needed: ByteSize(needed),
            available: ByteSize(free),
        });
    }
    // before the probe file: a refusal here leaves nothing behind
    for &kind in &plan.engines {
        engine::of(kind)?.preflight(plan.iodepth)?;
    }
    for &cache in &caches {
        probe(plan, cache)?;
    }
    let mut report = Preflight {
        block_size: Some(vfs.f_bsize),
        total_bytes: sized.then_some(vfs.f_blocks * vfs.f_frsize),
        free_bytes: sized.then_some(free),
        warnings: Vec::new(),
        metadata_warm: false,
    };
    if let Some(tree) = plan.tree() {
        // every thread holds every directory it has files in open
        super::metadata::allow_open_directories(tree.dirs.saturating_mul(threads))?;
        if caches.iter().any(|c| c.drops_metadata_caches()) && !super::metadata::can_drop_caches() {
            report.metadata_warm = true;
            report.warnings.push(
                "--cache flush cannot drop the dentry and inode caches here (vm.drop_caches \
                 needs root): the metadata tests' phases start warm, and the run records it"
                    .to_string(),
            );
        }
    }
    if let Ok(fs) = rustix::fs::statfs(dir) {
        // f_type's integer type differs between architectures
        #[allow(clippy::unnecessary_cast)]
        let magic = fs.f_type as i64;
        if matches!(magic, TMPFS_MAGIC | RAMFS_MAGIC)
            && caches.iter().any(|c| c.cold_reads_need_eviction())
        {
            report.warnings.push(
                "this is a memory filesystem: its pages cannot be evicted, so cold reads are warm"
                    .to_string(),
            );
        }
    }
    Ok(report)
}

/// Creates a file the way the run will, writes one record of each size with the run's
/// flags, and removes it: this is what finds a read-only mount, a missing permission,
/// or O_DIRECT refused or misaligned, before any measurement starts.
fn probe(plan: &Plan, cache: CachePolicy) -> Result<(), BenchError> {
    let dir = plan.dir.as_path();
    let mut file = TestFile::new(dir, &format!("probe{:08x}", rand::random::<u32>()), 0);
    let handle = file.create(cache).map_err(|e| open_error(dir, cache, e))?;
    if !cache.around_page_cache {
        return Ok(());
    }
    let align = dio_alignment(file.path());
    for &record in &plan.record_sizes {
        if record % align != 0 {
            return Err(unaligned(dir, record, align));
        }
    }
    // statx may not know (kernels before 6.1): a real write of each size settles it
    for &record in &plan.record_sizes {
        let buf = AlignedBuf::zeroed(record as usize);
        match handle.write_all_at(buf.as_slice(), 0) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(Errno::INVAL.raw_os_error()) => {
                return Err(unaligned(dir, record, align.max(4096)));
            }
            Err(e) => return Err(BenchError::io(format!("probing {}", dir.display()), e)),
        }
    }
    Ok(())
}

fn open_error(dir: &Path, cache: CachePolicy, e: io::Error) -> BenchError {
    let dir = dir.to_path_buf();
    match e.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::ROFS) => BenchError::ReadOnly(dir),
        Some(Errno::ACCESS | Errno::PERM) => BenchError::NoPermission(dir),
        Some(Errno::INVAL) if cache.around_page_cache => BenchError::DirectUnsupported(dir),
        _ => BenchError::io(format!("creating a test file in {}", dir.display()), e),
    }
}

fn unaligned(dir: &Path, record: u64, align: u64) -> BenchError {
    BenchError::DirectUnaligned {
        dir: dir.to_path_buf(),
        record,
        align,
    }
}

/// The file offset alignment O_DIRECT needs here: statx's `dio_offset_align` where the
/// kernel reports it, else 512, the smallest logical block any device has.
fn dio_alignment(path: &Path) -> u64 {
    rustix::fs::statx(
        rustix::fs::CWD,
        path,
        AtFlags::empty(),
        StatxFlags::DIOALIGN,
    )
    .ok()
    .filter(|s| s.stx_mask & StatxFlags::DIOALIGN.bits() != 0 && s.stx_dio_offset_align > 0)
    .map_or(512, |s| u64::from(s.stx_dio_offset_align))
}
