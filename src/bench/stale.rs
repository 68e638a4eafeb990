//! Test files a killed run left behind (`kill -9`, a power loss: nothing ran to remove
//! them). The next run in the directory removes those of its own naming whose process
//! is gone, and only those: regular files owned by this user (looked at without
//! following links), named `iozone-<pid>-<tag>-<worker>.tmp` (or `-shared.tmp`), and
//! the metadata tests' trees, directories named `iozone-<pid>-<tag>-tree.tmp`, whose
//! pid no longer runs or was taken by a process that started after the file was last
//! written. A client of many names its host too (`…@<host>.tmp`): a directory several
//! hosts share holds other hosts' files, whose pids say nothing here, so only this
//! host's are looked at.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::file::safe;

/// Removes the test files dead runs left in `dir`; returns those removed. A file that
/// cannot be examined or removed is left alone: this is tidying, never a reason to
/// stop a run.
pub fn remove_stale_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let uid = rustix::process::geteuid().as_raw();
    let here = safe(&rustix::system::uname().nodename().to_string_lossy());
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let (pid, host, tree) = test_file_owner(name.to_str()?)?;
            if host.is_some_and(|host| host != here) {
                return None;
            }
            // lstat: a symlink under the name is not a file of ours, wherever it points
            let meta = std::fs::symlink_metadata(entry.path()).ok()?;
            let kind = meta.file_type();
            let ours = meta.uid() == uid && if tree { kind.is_dir() } else { kind.is_file() };
            // gone, or a zombie no one reaped yet (a rank whose launcher left)
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

/// Removes the test files of the client with `pid` on `host` (its own, and the shared
/// file when it is rank 0), whether it lives or not: for a rank ending alone, and for
/// rank 0 when another died. Returns those removed.
pub fn remove_client_files(dir: &Path, pid: u32, host: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let host = safe(host);
    (entries.filter_map(Result::ok))
        .filter(|entry| {
            let name = entry.file_name();
            let owner = name.to_str().and_then(test_file_owner);
            owner.is_some_and(|(p, h, _)| p == pid && h == Some(host.as_str()))
        })
        .filter(|entry| std::fs::remove_file(entry.path()).is_ok())
        .map(|entry| entry.path())
        .collect()
}

/// The pid in a test file's name, the host for a client of many's (as `FileNames`
/// makes them), and whether the name is a metadata tree's: `iozone-<pid>-<tag>-<worker>.tmp`,
/// `iozone-<pid>-<tag>-shared.tmp`, `iozone-<pid>-<tag>-<worker>-<rank>@<host>.tmp`,
/// `iozone-<pid>-<tag>-shared@<host>.tmp`, `iozone-<pid>-<tag>-tree.tmp`; `None` for
/// any other name.
fn test_file_owner(name: &str) -> Option<(u32, Option<&str>, bool)> {
    let inner = name.strip_prefix("iozone-")?.strip_suffix(".tmp")?;
    let (inner, host) = match inner.rsplit_once('@') {
        Some((inner, host)) if !host.is_empty() => (inner, Some(host)),
        Some(_) => return None,
        None => (inner, None),
    };
    let mut parts = inner.split('-');
    let pid = parts.next()?.parse().ok()?;
    let tag = parts.next()?;
    let worker = parts.next()?;
    // trees are of runs of one client, which name no host
    let tree = host.is_none() && worker == super::metadata::TREE_SUFFIX;
    let worker = worker == "shared" || worker.parse::<u32>().is_ok();
    let rank = match (host, worker) {
        (Some(_), true) => parts.next().is_none_or(|r| r.parse::<u32>().is_ok()),
        (None, true) => true,
        (_, false) => false,
    };
    let named = !tag.is_empty() && (tree || worker && rank) && parts.next().is_none();
    named.then_some((pid, host, tree))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_file_pid(name: &str) -> Option<(u32, bool)> {
        test_file_owner(name).map(|(pid, _, tree)| (pid, tree))
    }

    #[test]
    fn a_client_of_many_names_its_host() {
        let owner = |name| test_file_owner(name).map(|(pid, host, _)| (pid, host));
        assert_eq!(owner("iozone-42-ab-0-3@vm-b.tmp"), Some((42, Some("vm-b"))));
        assert_eq!(
            owner("iozone-42-ab-shared@vm.example.tmp"),
            Some((42, Some("vm.example")))
        );
        assert_eq!(owner("iozone-42-ab-shared.tmp"), Some((42, None)));
        for other in [
            "iozone-42-ab-0-x@vm.tmp",
            "iozone-42-ab-0-1@.tmp",
            "iozone-42-ab-shared-1-2@vm.tmp",
            "iozone-42-ab-w@vm.tmp",
            "iozone-42-ab-tree@vm.tmp",
        ] {
            assert_eq!(owner(other), None, "{other}");
        }
    }

    #[test]
    fn a_clients_files_are_removed_by_pid_and_host_alone() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            "iozone-42-ab-0-1@vm-b.tmp",
            "iozone-42-ab-shared@vm-b.tmp",
            "iozone-42-ab-0-2@vm-c.tmp",
            "iozone-43-ab-0-3@vm-b.tmp",
            "iozone-42-ab-0.tmp",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let mut removed: Vec<String> = remove_client_files(dir.path(), 42, "vm-b")
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        removed.sort();
        assert_eq!(
            removed,
            ["iozone-42-ab-0-1@vm-b.tmp", "iozone-42-ab-shared@vm-b.tmp"]
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

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
