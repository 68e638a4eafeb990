//! Where the metadata tests work: a round's tree in the run's directory, named as the
//! run's test files are (`iozone-<pid>-<tag>-tree.tmp`, so the next run removes the
//! tree of a killed one), and removed with everything in it when the round ends,
//! fails or is interrupted. Inside it, each thread's subtree `t<k>` of directories
//! `d<j>`, or with `--shared-dir` one set of directories every thread works in;
//! files are `f<k>.<i>` (`r<k>.<i>` once renamed), named by their thread so that
//! threads sharing a directory never collide. Files and directories are named in
//! [`NAME_BYTES`] bytes, the number zero-padded.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{CWD, Mode, OFlags};

use crate::model::MetadataTree;

/// What ends the name of a round's tree; `stale` recognises it.
pub(crate) const TREE_SUFFIX: &str = "tree";

/// The length of every file and directory name the tests make (past it only when
/// the number needs more). A directory holds entries of its names' length: 200 names
/// of 4 to 10 bytes fit in an ext4 leaf block where 120 of 24 do, so a lookup scans
/// more of them and creates were measured 20–25% slower with the short names than
/// with fs_mark's. One length for every file count keeps a row's workload the same
/// whatever its numbers; 24 is within the names of the tools of the field (bonnie++
/// 10 to 22, mdtest's `file.mdtest.<rank>.<i>`, fs_mark's 40 by default).
pub(crate) const NAME_BYTES: usize = 24;

/// A round's tree, removed whole when dropped.
pub(super) struct TreeRoot {
    path: PathBuf,
    fd: OwnedFd,
}

impl TreeRoot {
    /// Makes the round's empty tree in `dir`: exclusively, so nothing planted under
    /// its name is ever worked in.
    pub(super) fn create(dir: &Path, run_tag: &str) -> io::Result<TreeRoot> {
        let name = format!("iozone-{}-{run_tag}-{TREE_SUFFIX}.tmp", std::process::id());
        let path = dir.join(name);
        rustix::fs::mkdir(&path, Mode::from_raw_mode(0o755))?;
        let root = TreeRoot {
            fd: open_dir(CWD, path.as_path()).inspect_err(|_| {
                let _ = std::fs::remove_dir(&path);
            })?,
            path,
        };
        Ok(root)
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for TreeRoot {
    fn drop(&mut self) {
        // never follows a link inside the tree; a million files take a while
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Opens directory `path` under `at` to work in, never through a symlink.
pub(super) fn open_dir<P: rustix::path::Arg>(at: impl AsFd, path: P) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::openat(at, path, flags, Mode::empty())?)
}

/// A name in the tree, formatted without allocating (the timed loops make one an
/// operation).
pub(super) struct Name {
    buf: [u8; 48],
    len: usize,
}

impl Name {
    fn new(prefix: u8) -> Name {
        let mut name = Name {
            buf: [0; 48],
            len: 1,
        };
        name.buf[0] = prefix;
        name
    }

    fn number(self, n: u64) -> Name {
        self.padded(n, 0)
    }

    /// `n` in decimal, zero-padded so that the name is `width` bytes long.
    fn padded(mut self, mut n: u64, width: usize) -> Name {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let pad = width.saturating_sub(self.len + digits.len() - at);
        self.buf[self.len..self.len + pad].fill(b'0');
        self.len += pad;
        let tail = &digits[at..];
        self.buf[self.len..self.len + tail.len()].copy_from_slice(tail);
        self.len += tail.len();
        self
    }

    fn dot(mut self) -> Name {
        self.buf[self.len] = b'.';
        self.len += 1;
        self
    }

    /// Directory `j`: `d<j>`, in [`NAME_BYTES`].
    pub(super) fn dir(j: u64) -> Name {
        Name::new(b'd').padded(j, NAME_BYTES)
    }

    /// Thread `k`'s subtree: `t<k>`.
    pub(super) fn subtree(k: u32) -> Name {
        Name::new(b't').number(u64::from(k))
    }

    /// Thread `k`'s file `i`: `f<k>.<i>`, or `r<k>.<i>` once renamed, in
    /// [`NAME_BYTES`].
    pub(super) fn file(renamed: bool, k: u32, i: u64) -> Name {
        let prefix = if renamed { b'r' } else { b'f' };
        Name::new(prefix)
            .number(u64::from(k))
            .dot()
            .padded(i, NAME_BYTES)
    }

    pub(super) fn as_cstr(&self) -> &CStr {
        // the buffer past `len` is zero, and no digit or letter is
        CStr::from_bytes_until_nul(&self.buf[..=self.len]).expect("a name ends in a zero")
    }

    pub(super) fn text(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

/// Which entries of the tree one thread works on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Share {
    pub tree: MetadataTree,
    pub threads: u32,
    pub worker: u32,
}

impl Share {
    /// The thread's files: `files` in each of `dirs` directories, numbered directory
    /// by directory (creation order).
    pub(super) fn entries(&self) -> u64 {
        self.tree.files_per_thread()
    }

    /// Entry `e`'s directory and file number.
    #[inline]
    pub(super) fn entry(&self, e: u64) -> (usize, u64) {
        ((e / self.tree.files) as usize, e % self.tree.files)
    }

    /// The directories this thread makes and removes: all of its own subtree's, or
    /// with a shared set every `threads`-th, starting at its own number.
    pub(super) fn own_dirs(&self) -> u64 {
        match self.tree.shared_dir {
            false => self.tree.dirs,
            true => {
                let k = u64::from(self.worker);
                self.tree
                    .dirs
                    .saturating_sub(k)
                    .div_ceil(u64::from(self.threads))
            }
        }
    }

    /// The `n`-th directory this thread makes or removes.
    #[inline]
    pub(super) fn own_dir(&self, n: u64) -> u64 {
        match self.tree.shared_dir {
            false => n,
            true => u64::from(self.worker) + n * u64::from(self.threads),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_the_tree_is_documented_to_hold() {
        assert_eq!(Name::dir(0).text(), "d00000000000000000000000");
        assert_eq!(Name::subtree(12).text(), "t12");
        assert_eq!(
            Name::file(false, 3, 1_000_000).text(),
            "f3.000000000000001000000"
        );
        assert_eq!(Name::file(false, 3, 7).text().len(), NAME_BYTES);
        // past the length only when the number needs it
        assert_eq!(
            Name::file(true, 4_000_000_000, u64::MAX)
                .as_cstr()
                .to_str()
                .unwrap(),
            "r4000000000.18446744073709551615"
        );
    }

    #[test]
    fn shared_directories_are_dealt_out_to_the_threads_once_each() {
        let tree = MetadataTree {
            files: 5,
            dirs: 7,
            shared_dir: true,
            ..MetadataTree::default()
        };
        let mut dealt: Vec<u64> = (0..3)
            .flat_map(|worker| {
                let share = Share {
                    tree,
                    threads: 3,
                    worker,
                };
                (0..share.own_dirs()).map(move |n| share.own_dir(n))
            })
            .collect();
        dealt.sort_unstable();
        assert_eq!(dealt, (0..7).collect::<Vec<_>>());
        let own = Share {
            tree: MetadataTree {
                shared_dir: false,
                ..tree
            },
            threads: 3,
            worker: 2,
        };
        assert_eq!(own.own_dirs(), 7);
        assert_eq!(own.entry(11), (2, 1));
    }

    #[test]
    fn a_tree_is_removed_whole_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let root = TreeRoot::create(dir.path(), "abc").unwrap();
        let path = root.path().to_path_buf();
        assert!(path.ends_with(format!("iozone-{}-abc-tree.tmp", std::process::id())));
        rustix::fs::mkdirat(root.fd(), "d0", Mode::from_raw_mode(0o755)).unwrap();
        std::fs::write(path.join("d0/f0.0"), b"x").unwrap();
        // exclusive: a second tree of the same name is refused
        assert!(TreeRoot::create(dir.path(), "abc").is_err());
        drop(root);
        assert!(!path.exists());
    }
}
