//! Facts about the machine and about the filesystem under the measured directory,
//! recorded with every run so that two runs can be told apart. A probe that fails
//! leaves `None`; probing never fails a run and never guesses.

use std::path::Path;

use crate::model::{Filesystem, Host};

pub use busy::{BusySignal, busy_reasons, busy_signals, busy_summary};
pub use liveness::ThisBoot;
pub use state::probe_state;

#[cfg(target_os = "linux")]
mod blockdev;
mod busy;
mod liveness;
#[cfg(target_os = "linux")]
mod mounts;
mod state;
#[cfg(target_os = "linux")]
mod system;

/// What the kernel and, on Linux, /proc, /sys and /etc say about this machine.
pub fn probe_host() -> Host {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| {
        let s = s.to_string_lossy().trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    #[allow(unused_mut)] // only Linux adds to it
    let mut host = Host {
        hostname: text(uname.nodename()),
        kernel: text(uname.release()),
        arch: text(uname.machine()),
        ..Host::default()
    };
    #[cfg(target_os = "linux")]
    system::probe(Path::new("/"), &mut host);
    host
}

/// The filesystem `dir` lives on: its mount, its size, and on Linux the disk under it.
pub fn probe_filesystem(dir: &Path) -> Filesystem {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut fs = Filesystem::default();
    if let Ok(vfs) = rustix::fs::statvfs(&dir) {
        fs.block_size = Some(vfs.f_bsize);
        // ramfs and some pseudo filesystems report no blocks at all: size unknown
        if vfs.f_blocks > 0 {
            fs.total_bytes = vfs.f_blocks.checked_mul(vfs.f_frsize);
            fs.free_bytes = vfs.f_bavail.checked_mul(vfs.f_frsize);
        }
    }
    #[cfg(target_os = "linux")]
    probe_mount(&mut fs, &dir);
    fs
}

#[cfg(target_os = "linux")]
fn probe_mount(fs: &mut Filesystem, dir: &Path) {
    let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return;
    };
    let entries = mounts::parse_mountinfo(&text);
    let Some(mount) = mounts::find_mount(&entries, dir) else {
        return;
    };
    fs.mount_point = Some(mount.mount_point.to_string_lossy().into_owned());
    fs.fs_type = Some(mount.fs_type.clone());
    fs.device = Some(mount.source.clone()).filter(|s| !s.is_empty());
    fs.mount_options = Some(mount.options.clone()).filter(|s| !s.is_empty());
    let backing = |file: &Path| mounts::find_mount(&entries, file).and_then(mount_device);
    let disk = mount_device(mount).and_then(|dev| blockdev::resolve(Path::new("/"), dev, &backing));
    if let Some(disk) = disk {
        fs.block_device = Some(disk.name).filter(|n| !n.is_empty());
        fs.device_model = disk.model;
        fs.rotational = disk.rotational;
        fs.scheduler = disk.scheduler;
        fs.device_size = disk.size_bytes;
    }
}

/// The block device a mount sits on. Filesystems such as btrfs report an anonymous
/// device (major 0); when their source names a block device, that device is the one.
#[cfg(target_os = "linux")]
fn mount_device(mount: &mounts::MountEntry) -> Option<blockdev::Dev> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if mount.dev.0 != 0 {
        return Some(mount.dev);
    }
    if !mount.source.starts_with("/dev/") {
        return None;
    }
    let meta = std::fs::metadata(&mount.source).ok()?;
    let rdev = meta.rdev();
    meta.file_type()
        .is_block_device()
        .then(|| (rustix::fs::major(rdev), rustix::fs::minor(rdev)))
}

/// `abs` (an absolute path such as `/proc/cmdline`) under `root`, which tests point
/// at a fake tree.
#[cfg(target_os = "linux")]
fn at(root: &Path, abs: &str) -> std::path::PathBuf {
    root.join(abs.trim_start_matches('/'))
}

/// A small text file's content, trimmed; `None` when unreadable or empty.
#[cfg(target_os = "linux")]
fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_host_answers() {
        let host = probe_host();
        println!("{host:#?}");
        assert!(host.kernel.is_some());
        assert_eq!(host.arch.as_deref(), Some(std::env::consts::ARCH));
        if cfg!(target_os = "linux") {
            assert!(host.cpus.is_some_and(|n| n > 0));
            assert!(host.memory_bytes.is_some_and(|n| n > 0));
            assert!(host.page_size.is_some_and(|n| n > 0));
            assert!(host.boot_id.is_some());
        }
    }

    #[test]
    fn the_live_root_filesystem() {
        let fs = probe_filesystem(Path::new("/"));
        println!("/: {fs:#?}");
        println!("/work: {:#?}", probe_filesystem(Path::new("/work")));
        assert!(fs.block_size.is_some());
        if cfg!(target_os = "linux") {
            assert_eq!(fs.mount_point.as_deref(), Some("/"));
            assert!(fs.fs_type.is_some());
        }
    }

    #[test]
    fn a_temporary_directory_is_under_its_mount_point() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let fs = probe_filesystem(tmp.path());
        let dir = std::fs::canonicalize(tmp.path()).expect("canonical");
        if cfg!(target_os = "linux") {
            let mount = fs.mount_point.expect("a mount point");
            assert!(
                dir.starts_with(&mount),
                "{} is not under {mount}",
                dir.display()
            );
        }
    }

    #[test]
    fn a_missing_directory_is_no_error() {
        let fs = probe_filesystem(Path::new("/no/such/directory/here"));
        assert_eq!(fs.block_size, None);
    }
}
