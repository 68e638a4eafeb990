//! The test file's life: a unique name, created with O_EXCL and never through a
//! symlink, opened with the cache mode's flags, evicted for cold reads, and removed
//! when dropped, which covers normal ends, errors and interrupts alike.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::{Advice, OFlags};

use crate::model::CacheMode;

/// A test file path this process owns. The file is removed when this is dropped.
pub struct TestFile {
    path: PathBuf,
    exists: bool,
}

impl TestFile {
    /// A name no other run uses: the pid and a random tag shared by this run's files.
    pub fn new(dir: &Path, run_tag: &str, worker: u32) -> Self {
        let name = format!("iozone-{}-{run_tag}-{worker}.tmp", std::process::id());
        TestFile {
            path: dir.join(name),
            exists: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn exists(&self) -> bool {
        self.exists
    }

    /// Creates the file anew: removes this run's previous copy, then O_CREAT|O_EXCL,
    /// so a file or symlink planted under the name is never written through.
    pub fn create(&mut self, cache: CacheMode) -> io::Result<File> {
        self.remove()?;
        match options(cache).create_new(true).open(&self.path) {
            Ok(file) => {
                self.exists = true;
                Ok(file)
            }
            // Some filesystems (ramfs) create the inode and only then refuse a flag
            // such as O_DIRECT. Nothing was there before (that would be EEXIST), so
            // whatever is there now is ours to remove.
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                let _ = std::fs::remove_file(&self.path);
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// Opens the existing file, never through a symlink.
    pub fn open(&self, cache: CacheMode) -> io::Result<File> {
        options(cache).open(&self.path)
    }

    pub fn remove(&mut self) -> io::Result<()> {
        if self.exists {
            match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => self.exists = false,
            }
        }
        Ok(())
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

fn options(cache: CacheMode) -> OpenOptions {
    let mut flags = OFlags::NOFOLLOW;
    match cache {
        CacheMode::Direct => flags |= OFlags::DIRECT,
        CacheMode::Sync => flags |= OFlags::SYNC,
        CacheMode::Flush | CacheMode::Buffered => {}
    }
    let mut options = OpenOptions::new();
    options
        .read(true)
        .write(true)
        .custom_flags(flags.bits() as i32);
    options
}

/// Drops the file's pages from the page cache so the next read comes from the device.
/// `fadvise(DONTNEED)` only drops clean pages, hence the `fdatasync` first.
pub fn evict(file: &File, len: u64) -> io::Result<()> {
    rustix::fs::fdatasync(file)?;
    rustix::fs::fadvise(file, 0, std::num::NonZeroU64::new(len), Advice::DontNeed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_is_exclusive_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let path;
        {
            let mut f = TestFile::new(dir.path(), "t", 0);
            path = f.path().to_path_buf();
            f.create(CacheMode::Buffered).unwrap();
            assert!(path.exists());
            // a second create replaces this run's own copy
            f.create(CacheMode::Buffered).unwrap();
            assert!(path.exists());
        }
        assert!(!path.exists());
    }

    #[test]
    fn a_planted_symlink_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("victim");
        std::fs::write(&target, b"keep me").unwrap();
        let f = TestFile::new(dir.path(), "s", 0);
        std::os::unix::fs::symlink(&target, f.path()).unwrap();
        let mut f = f;
        // not ours: create must refuse rather than write through the link
        assert!(
            options(CacheMode::Buffered)
                .create_new(true)
                .open(f.path())
                .is_err()
        );
        assert!(f.open(CacheMode::Buffered).is_err());
        f.remove().unwrap();
        drop(f);
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
        assert!(dir.path().join("victim").exists());
    }
}
