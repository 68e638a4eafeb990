//! The disk behind a filesystem, found through sysfs: from a device number down through
//! partitions, device-mapper, md and loop devices to the whole disk, and what sysfs says
//! of it. Every path is taken under a `root`, so tests can build a fake sysfs.

use std::fs;
use std::path::{Path, PathBuf};

use super::{at, read_trimmed};

/// A device number, `(major, minor)`.
pub(super) type Dev = (u32, u32);

/// Stacked devices deeper than this are taken for a loop (a loop file on itself).
const MAX_DEPTH: u32 = 8;

/// What sysfs says about the disk at the bottom of the stack.
#[derive(Debug, PartialEq)]
pub(super) struct Disk {
    pub name: String,
    pub model: Option<String>,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub size_bytes: Option<u64>,
}

/// Follows `dev` to its whole disk. `backing` maps a loop device's backing file to the
/// device of the filesystem holding it; it needs the mount table, so the caller lends it.
pub(super) fn resolve(
    root: &Path,
    dev: Dev,
    backing: &dyn Fn(&Path) -> Option<Dev>,
) -> Option<Disk> {
    let node = disk_node(root, dev, backing, 0)?;
    Some(describe(&node))
}

fn disk_node(
    root: &Path,
    dev: Dev,
    backing: &dyn Fn(&Path) -> Option<Dev>,
    depth: u32,
) -> Option<PathBuf> {
    let link = at(root, &format!("/sys/dev/block/{}:{}", dev.0, dev.1));
    follow(root, fs::canonicalize(link).ok()?, backing, depth)
}

fn follow(
    root: &Path,
    mut node: PathBuf,
    backing: &dyn Fn(&Path) -> Option<Dev>,
    depth: u32,
) -> Option<PathBuf> {
    if depth > MAX_DEPTH {
        return None;
    }
    // a partition's sysfs node sits inside its disk's, and only the disk has a queue
    if node.join("partition").exists() {
        node = node.parent()?.to_path_buf();
    }
    if let Some(file) = read_trimmed(&node.join("loop/backing_file")) {
        let file = file.strip_suffix(" (deleted)").unwrap_or(&file);
        return disk_node(root, backing(Path::new(file))?, backing, depth + 1);
    }
    // dm and md list what they are built on in slaves/. With several (RAID, an LVM
    // volume spanning disks) the first in name order stands for all: the members of
    // one array are usually alike, and one member says more than nothing.
    match first_slave(&node) {
        Some(slave) => follow(root, slave, backing, depth + 1),
        None => Some(node),
    }
}

fn first_slave(node: &Path) -> Option<PathBuf> {
    let mut slaves: Vec<PathBuf> = fs::read_dir(node.join("slaves"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    slaves.sort();
    fs::canonicalize(slaves.first()?).ok()
}

fn describe(node: &Path) -> Disk {
    let rotational = read_trimmed(&node.join("queue/rotational"));
    Disk {
        name: node
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        model: read_trimmed(&node.join("device/model")),
        rotational: rotational.and_then(|r| match r.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        }),
        scheduler: read_trimmed(&node.join("queue/scheduler")).and_then(|s| active_scheduler(&s)),
        // sysfs counts sizes in 512-byte sectors whatever the device's block size
        size_bytes: read_trimmed(&node.join("size"))
            .and_then(|s| s.parse::<u64>().ok())
            .and_then(|s| s.checked_mul(512)),
    }
}

/// The active entry of `queue/scheduler`: the bracketed one, or the only one listed.
fn active_scheduler(text: &str) -> Option<String> {
    let mut names = text.split_whitespace();
    let bracketed = text
        .split_whitespace()
        .find_map(|n| n.strip_prefix('[').and_then(|n| n.strip_suffix(']')));
    match (bracketed, names.next(), names.next()) {
        (Some(active), _, _) => Some(active.to_string()),
        (None, Some(only), None) => Some(only.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// Builds the tree `testdata/sysfs.txt` describes in a temporary directory.
    fn fake_sysfs() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().expect("tempdir");
        let lines = include_str!("testdata/sysfs.txt").lines();
        for line in lines.filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let (rel, link, text) = match line.split_once(" -> ") {
                Some((rel, target)) => (rel, Some(target), ""),
                None => line
                    .split_once(" = ")
                    .map(|(r, t)| (r, None, t))
                    .expect("a spec"),
            };
            let path = tmp.path().join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            match link {
                Some(target) => symlink(target, &path).expect("symlink"),
                None => fs::write(&path, format!("{text}\n")).expect("write"),
            }
        }
        tmp
    }

    fn no_backing(_: &Path) -> Option<Dev> {
        None
    }

    fn sda() -> Disk {
        Disk {
            name: "sda".into(),
            model: Some("WDC WD10EZEX-00B".into()),
            rotational: Some(true),
            scheduler: Some("mq-deadline".into()),
            size_bytes: Some(1_953_525_168 * 512),
        }
    }

    #[test]
    fn whole_disk_and_partition() {
        let tmp = fake_sysfs();
        assert_eq!(resolve(tmp.path(), (8, 0), &no_backing), Some(sda()));
        assert_eq!(resolve(tmp.path(), (8, 1), &no_backing), Some(sda()));
        assert_eq!(resolve(tmp.path(), (8, 9), &no_backing), None);
    }

    #[test]
    fn device_mapper_through_a_partition() {
        let tmp = fake_sysfs();
        assert_eq!(resolve(tmp.path(), (253, 0), &no_backing), Some(sda()));
    }

    #[test]
    fn md_takes_its_first_member_in_name_order() {
        let tmp = fake_sysfs();
        assert_eq!(resolve(tmp.path(), (9, 0), &no_backing), Some(sda()));
    }

    #[test]
    fn loop_follows_its_backing_file() {
        let tmp = fake_sysfs();
        let asked = std::cell::RefCell::new(Vec::new());
        let backing = |file: &Path| {
            asked.borrow_mut().push(file.to_path_buf());
            (file == Path::new("/var/img.raw")).then_some((8, 1))
        };
        assert_eq!(resolve(tmp.path(), (7, 0), &backing), Some(sda()));
        assert_eq!(asked.borrow().as_slice(), [PathBuf::from("/var/img.raw")]);
        assert_eq!(resolve(tmp.path(), (7, 0), &no_backing), None);
    }

    #[test]
    fn a_loop_on_itself_ends() {
        let tmp = fake_sysfs();
        assert_eq!(resolve(tmp.path(), (7, 1), &|_: &Path| Some((7, 1))), None);
    }

    #[test]
    fn scheduler_is_the_bracketed_entry() {
        assert_eq!(
            active_scheduler("[mq-deadline] none").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(active_scheduler("none [bfq]").as_deref(), Some("bfq"));
        assert_eq!(active_scheduler("none").as_deref(), Some("none"));
        assert_eq!(active_scheduler("none kyber"), None);
        assert_eq!(active_scheduler(""), None);
    }
}
