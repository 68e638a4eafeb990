//! Test files a killed run left behind (`kill -9`, a power loss: nothing ran to remove
//! them). The next run in the directory removes those of its own naming whose process
//! is gone, and only those: regular files owned by this user (looked at without
//! following links), named `iozone-<pid>-<tag>-<worker>.tmp`, and the metadata tests'
//! trees, directories named `iozone-<pid>-<tag>-tree.tmp`, whose pid no longer runs or
//! was taken by a process that started after the file was last written.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Removes the test files dead runs left in `dir`; returns those removed. A file that
/// cannot be examined or removed is left alone: this is tidying, never a reason to
/// stop a run.
pub fn remove_stale_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let uid = rustix::process::geteuid().as_raw();
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let (pid, tree) = test_file_pid(entry.file_name().to_str()?)?;
            // lstat: a symlink under the name is not a file of ours, wherever it points
            let meta = std::fs::symlink_metadata(entry.path()).ok()?;
            let kind = meta.file_type();
            let ours = meta.uid() == uid && if tree { kind.is_dir() } else { kind.is_file() };
            let dead = match crate::process::started_at(pid) {
                None => true,
                // the pid was reused: its process is younger than the file
                Some(started) => meta.modified().is_ok_and(|written| started > written),
            };
            let removed = match tree {
                // never follows a link inside the tree
                true => ours && dead && std::fs::remove_dir_all(entry.path()).is_ok(),
                false => ours && dead && std::fs::remove_file(entry.path()).is_ok(),
            };
            removed.then(|| entry.path())
        })
        .collect()
}

/// The pid in a test file's name (`iozone-<pid>-<tag>-<worker>.tmp`, as
/// `TestFile::new` makes it), and whether the name is a metadata tree's
/// (`iozone-<pid>-<tag>-tree.tmp`); `None` for any other name.
fn test_file_pid(name: &str) -> Option<(u32, bool)> {
    let inner = name.strip_prefix("iozone-")?.strip_suffix(".tmp")?;
    let mut parts = inner.split('-');
    let pid = parts.next()?.parse().ok()?;
    let tag = parts.next()?;
    let worker = parts.next()?;
    let tree = worker == super::metadata::TREE_SUFFIX;
    let named = !tag.is_empty() && (tree || worker.parse::<u32>().is_ok());
    (named && parts.next().is_none()).then_some((pid, tree))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_test_file_names_give_a_pid() {
        assert_eq!(
            test_file_pid("iozone-4242-a1b2c3-0.tmp"),
            Some((4242, false))
        );
        assert_eq!(
            test_file_pid("iozone-4242-a1b2c3-12.tmp"),
            Some((4242, false))
        );
        assert_eq!(
            test_file_pid("iozone-4242-a1b2c3-tree.tmp"),
            Some((4242, true))
        );
        for other in [
            "iozone-4242.tmp",
            "iozone-x-a1b2c3-0.tmp",
            "iozone-4242-a1b2c3-0.txt",
            "iozone-4242--0.tmp",
            "iozone-4242-a1b2c3-0-1.tmp",
            "iozone-4242-a1b2c3-trees.tmp",
            "history.db",
        ] {
            assert_eq!(test_file_pid(other), None, "{other}");
        }
    }
}
