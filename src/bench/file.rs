//! The test file's life: a unique name, created with O_EXCL and never through a
//! symlink, opened with the flags of the cache policy, and removed when dropped, which
//! covers normal ends, errors and interrupts alike.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use super::cache::CachePolicy;

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
    pub fn create(&mut self, cache: CachePolicy) -> io::Result<File> {
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
    pub fn open(&self, cache: CachePolicy) -> io::Result<File> {
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

fn options(cache: CachePolicy) -> OpenOptions {
    let flags = OFlags::NOFOLLOW | cache.open_flags();
    let mut options = OpenOptions::new();
    options
        .read(true)
        .write(true)
        .custom_flags(flags.bits() as i32);
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CacheMode;

    const BUFFERED: CachePolicy = CachePolicy::of(CacheMode::Buffered);

    #[test]
    fn create_is_exclusive_and_drop_removes() {
        let dir = tempfile::tempdir().unwrap();
        let path;
        {
            let mut f = TestFile::new(dir.path(), "t", 0);
            path = f.path().to_path_buf();
            f.create(BUFFERED).unwrap();
            assert!(path.exists());
            // a second create replaces this run's own copy
            f.create(BUFFERED).unwrap();
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
        assert!(options(BUFFERED).create_new(true).open(f.path()).is_err());
        assert!(f.open(BUFFERED).is_err());
        f.remove().unwrap();
        drop(f);
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
        assert!(dir.path().join("victim").exists());
    }
}
