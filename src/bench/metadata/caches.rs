//! What the metadata tests need of the machine beyond the tree: dropping the dentry and
//! inode caches before a phase under `--cache flush` (`vm.drop_caches=2`, which only
//! root may write; otherwise the run says once that its phases start warm, and records
//! it), enough descriptors for every thread's open directories, and a failure for lack
//! of inodes told apart from a lack of blocks.

use std::io::{self, Write};
use std::path::Path;

use rustix::process::{Resource, Rlimit};

use crate::bench::BenchError;

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Descriptors kept for what is not a directory of the tree (the standard streams, the
/// database, the files the run opens between phases).
const SPARE_DESCRIPTORS: u64 = 64;

/// Whether this process may drop the caches: it can open the sysctl for writing
/// (root, and a /proc not mounted read-only as some containers have it).
pub(crate) fn can_drop_caches() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)
        .is_ok()
}

/// Drops the kernel's dentry and inode caches (reclaimable slab objects), as
/// `sysctl vm.drop_caches=2`: a phase then looks every entry up from the filesystem.
pub(super) fn drop_dentries_and_inodes() -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)?
        .write_all(b"2")
}

/// Raises the soft limit of open descriptors to what `directories` open at once need,
/// up to the hard limit; an error says what `ulimit -n` has to allow.
pub(crate) fn allow_open_directories(directories: u64) -> Result<(), BenchError> {
    let needed = directories.saturating_add(SPARE_DESCRIPTORS);
    let limit = rustix::process::getrlimit(Resource::Nofile);
    let soft = limit.current.unwrap_or(u64::MAX);
    if soft >= needed {
        return Ok(());
    }
    let hard = limit.maximum.unwrap_or(u64::MAX);
    if hard < needed {
        return Err(BenchError::TooManyDirectories {
            needed,
            limit: hard,
        });
    }
    let raised = Rlimit {
        current: Some(needed),
        maximum: limit.maximum,
    };
    rustix::process::setrlimit(Resource::Nofile, raised)
        .map_err(|e| BenchError::io("raising the limit of open files", e.into()))
}

/// A failure `while` doing something in the tree under `dir`; ENOSPC with no inode
/// left is said as that, not as a full disk.
pub(super) fn out_of_space(dir: &Path, context: String, e: io::Error) -> BenchError {
    let no_inodes = e.raw_os_error() == Some(rustix::io::Errno::NOSPC.raw_os_error())
        && rustix::fs::statvfs(dir).is_ok_and(|v| v.f_files > 0 && v.f_favail == 0);
    match no_inodes {
        true => BenchError::NoInodes { context },
        false => BenchError::io(context, e),
    }
}
