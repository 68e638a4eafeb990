//! Root, and filesystems mounted for one test: tmpfs, ramfs and ext4 on a loop device.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// Whether this process may mount filesystems. Tests that need it call
/// [`require_root`], which fails loudly instead of passing when it cannot.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Fails the test unless running as root, or returns false (with a loud line on
/// stderr) when `IOZONE_SKIP_ROOT_TESTS=1` explicitly allows skipping.
pub fn require_root(what: &str) -> bool {
    if is_root() {
        return true;
    }
    if std::env::var("IOZONE_SKIP_ROOT_TESTS").as_deref() == Ok("1") {
        eprintln!("SKIPPED (not root, IOZONE_SKIP_ROOT_TESTS=1): {what}");
        return false;
    }
    panic!(
        "this test needs root to {what}; run the tests as root (CI does), or set \
         IOZONE_SKIP_ROOT_TESTS=1 to skip the root-only tests knowingly"
    );
}

/// A filesystem mounted for one test, unmounted (and its backing file removed) on drop.
pub struct Mount {
    dir: TempDir,
    loop_image: Option<PathBuf>,
}

impl Mount {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A tmpfs of `size` (e.g. "8m") with extra mount options.
    pub fn tmpfs(size: &str, options: &str) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = format!("size={size}");
        if !options.is_empty() {
            opts = format!("{opts},{options}");
        }
        run_ok(
            Command::new("mount")
                .args(["-t", "tmpfs", "-o", &opts, "tmpfs"])
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: None,
        }
    }

    /// A ramfs: page cache only, no O_DIRECT.
    pub fn ramfs() -> Mount {
        let dir = tempfile::tempdir().unwrap();
        run_ok(
            Command::new("mount")
                .args(["-t", "ramfs", "ramfs"])
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: None,
        }
    }

    /// An ext4 filesystem on a loop device backed by a sparse file of `mib` MiB.
    pub fn ext4(mib: u64, options: &str) -> Mount {
        Mount::ext4_made(mib, &[], options)
    }

    /// An ext4 filesystem as [`Mount::ext4`] whose backing file is in memory (in
    /// `/dev/shm`), for tests that compare two mount options' writes. On a disk-backed
    /// image every `fsync` waits for the machine's disk: while another job's writeback
    /// filled that disk's queue, the wait decided the figures and `data=journal` came
    /// out four times *faster* than the default mount; in memory it stayed 2–3 times
    /// slower, with that writeback and a busy CPU beside it.
    pub fn ext4_in_memory(mib: u64, options: &str) -> Mount {
        Mount::ext4_image(Path::new("/dev/shm"), mib, &[], options)
    }

    /// An ext4 filesystem as [`Mount::ext4`], made with `mkfs` arguments of its own
    /// (`-N 64`: a tiny inode table; `-O ^dir_index`: no directory index).
    pub fn ext4_made(mib: u64, mkfs: &[&str], options: &str) -> Mount {
        Mount::ext4_image(&std::env::temp_dir(), mib, mkfs, options)
    }

    fn ext4_image(place: &Path, mib: u64, mkfs: &[&str], options: &str) -> Mount {
        let image = tempfile::Builder::new()
            .prefix("iozone-test-ext4-")
            .suffix(".img")
            .tempfile_in(place)
            .unwrap_or_else(|e| panic!("a loop filesystem's image in {}: {e}", place.display()))
            .into_temp_path()
            .keep()
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&image)
            .unwrap()
            .set_len(mib << 20)
            .unwrap();
        run_ok(
            Command::new("mkfs.ext4")
                .args(["-q", "-F"])
                .args(mkfs)
                .arg(&image),
        );
        let dir = tempfile::tempdir().unwrap();
        let mut opts = "loop".to_string();
        if !options.is_empty() {
            opts = format!("{opts},{options}");
        }
        run_ok(
            Command::new("mount")
                .args(["-o", &opts])
                .arg(&image)
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: Some(image),
        }
    }
}

impl Mount {
    /// Mounts a loop filesystem's image again with other `options` (ext4 changes no
    /// `data=` mode on a remount): the same files, a new loop device.
    pub fn remount(&self, options: &str) {
        let image = self.loop_image.as_ref().expect("a loop filesystem");
        run_ok(Command::new("umount").arg(self.dir.path()));
        run_ok(
            Command::new("mount")
                .args(["-o", &format!("loop,{options}")])
                .arg(image)
                .arg(self.dir.path()),
        );
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // a filesystem just written (data=journal's commits, a run's process just gone)
        // can be busy for a moment: try again, then detach it lazily, so that no mount
        // outlives its test (the directory would be emptied and left mounted)
        let umount = |lazy: bool| {
            let mut cmd = Command::new("umount");
            if lazy {
                cmd.arg("-l");
            }
            cmd.arg(self.dir.path())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let unmounted = (0..20).any(|_| {
            umount(false) || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                false
            }
        });
        if !unmounted {
            let _ = umount(true);
        }
        if let Some(image) = &self.loop_image {
            let _ = std::fs::remove_file(image);
        }
    }
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
