//! The test file's life: a unique name, created with O_EXCL and never through a
//! symlink, opened with the flags of the cache policy, and removed when dropped, which
//! covers normal ends, errors and interrupts alike.
//!
//! Between phases the file is reopened by name. In a directory others can write to,
//! someone may rename a hard link to a file of theirs (or one they want destroyed) over
//! that name; a reopen therefore checks, on the descriptor it got, that it is still the
//! file created (device and inode) with no other name (one link), before anything is
//! written through it.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use super::cache::CachePolicy;

/// A test file path this process owns (the file is removed when this is dropped), or
/// a region of a file another rank created and removes ([`TestFile::joined`]).
pub struct TestFile {
    path: PathBuf,
    exists: bool,
    /// The device and inode of the file created, once it is.
    identity: Option<(u64, u64)>,
    /// Whether this process created the file and so removes it.
    owned: bool,
}

/// How this process names its test files: `iozone-<pid>-<tag>-<worker>.tmp`, the tag
/// unique to the run; a client of many adds its rank and host
/// (`…-<worker>-<rank>@<host>.tmp`), so that ranks of hosts sharing a directory never
/// collide, and a later run on one host removes only that host's dead files.
#[derive(Clone, Debug)]
pub(crate) struct FileNames {
    pub tag: String,
    /// This client's rank and host, for a run of many.
    pub client: Option<(u32, String)>,
}

impl FileNames {
    /// The file of worker `worker` in `dir`.
    pub fn worker(&self, dir: &Path, worker: u32) -> PathBuf {
        let pid = std::process::id();
        let tag = &self.tag;
        dir.join(match &self.client {
            None => format!("iozone-{pid}-{tag}-{worker}.tmp"),
            Some((rank, host)) => format!("iozone-{pid}-{tag}-{worker}-{rank}@{}.tmp", safe(host)),
        })
    }

    /// The one file every worker shares (`--shared-file`): this process's
    /// (`iozone-<pid>-<tag>-shared.tmp`), or of many clients rank 0's, which creates
    /// and removes it (`iozone-<pid>-<tag>-shared@<host>.tmp`, `leader` its pid and host).
    pub fn shared(&self, dir: &Path, leader: Option<(u32, &str)>) -> PathBuf {
        let tag = &self.tag;
        dir.join(match leader {
            None => format!("iozone-{}-{tag}-shared.tmp", std::process::id()),
            Some((pid, host)) => format!("iozone-{pid}-{tag}-shared@{}.tmp", safe(host)),
        })
    }
}

/// A host name as part of a file name: what a host name may hold, and `_` for the rest.
pub(crate) fn safe(host: &str) -> String {
    host.chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// Why the test file could not be reopened.
#[derive(Debug, thiserror::Error)]
pub enum ReopenError {
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The name now leads to another file, or to one with other names.
    #[error("the file under this name is no longer the one this run created")]
    Replaced,
}

impl TestFile {
    /// A name no other run uses: the pid and a random tag shared by this run's files.
    pub fn new(dir: &Path, run_tag: &str, worker: u32) -> Self {
        let names = FileNames {
            tag: run_tag.to_string(),
            client: None,
        };
        TestFile::at(names.worker(dir, worker))
    }

    /// The file at `path`, which this process creates and removes.
    pub fn at(path: PathBuf) -> Self {
        TestFile {
            path,
            exists: false,
            identity: None,
            owned: true,
        }
    }

    /// The file at `path` that another process created and removes (the shared file
    /// of many clients, rank 0's): [`TestFile::create`] opens it as it is, and it is
    /// never removed from here.
    pub fn joined(path: PathBuf) -> Self {
        TestFile {
            path,
            exists: false,
            identity: None,
            owned: false,
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
        if !self.owned {
            return self.join(cache);
        }
        self.remove()?;
        match options(cache).create_new(true).open(&self.path) {
            Ok(file) => {
                self.exists = true;
                let meta = file.metadata()?;
                self.identity = Some((meta.dev(), meta.ino()));
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

    /// Opens the file created, never through a symlink, and never another file put
    /// under its name: the descriptor's device, inode and link count are checked.
    pub fn open(&self, cache: CachePolicy) -> Result<File, ReopenError> {
        let file = options(cache).open(&self.path)?;
        let meta = file.metadata()?;
        match self.identity == Some((meta.dev(), meta.ino())) && meta.nlink() == 1 {
            true => Ok(file),
            false => Err(ReopenError::Replaced),
        }
    }

    /// Opens the file another process created, as it is, and takes its identity: the
    /// one later opens check.
    fn join(&mut self, cache: CachePolicy) -> io::Result<File> {
        let file = options(cache).open(&self.path)?;
        let meta = file.metadata()?;
        if self
            .identity
            .is_some_and(|id| id != (meta.dev(), meta.ino()))
            || meta.nlink() != 1
        {
            return Err(io::Error::other(ReopenError::Replaced));
        }
        self.identity = Some((meta.dev(), meta.ino()));
        self.exists = true;
        Ok(file)
    }

    pub fn remove(&mut self) -> io::Result<()> {
        if !self.owned {
            self.exists = false;
            return Ok(());
        }
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
        assert!(matches!(f.open(BUFFERED), Err(ReopenError::Io(_))));
        f.remove().unwrap();
        drop(f);
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
        assert!(dir.path().join("victim").exists());
    }

    #[test]
    fn a_hard_link_renamed_over_the_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        let mut f = TestFile::new(dir.path(), "h", 0);
        f.create(BUFFERED).unwrap();
        assert!(f.open(BUFFERED).is_ok(), "its own file reopens");
        // another user's hard link to their file, renamed over the test file's name
        let link = dir.path().join("planted");
        std::fs::hard_link(&victim, &link).unwrap();
        std::fs::rename(&link, f.path()).unwrap();
        assert!(matches!(f.open(BUFFERED), Err(ReopenError::Replaced)));
        drop(f);
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    }

    #[test]
    fn a_second_name_for_the_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = TestFile::new(dir.path(), "n", 0);
        f.create(BUFFERED).unwrap();
        std::fs::hard_link(f.path(), dir.path().join("other-name")).unwrap();
        assert!(matches!(f.open(BUFFERED), Err(ReopenError::Replaced)));
    }
}
