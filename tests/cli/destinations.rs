//! Output files that cannot eat what is there: `export -o`, `report -o` and `man --dir`
//! pointed at the database, its `-wal`, a hard link to it, an existing file, a symbolic
//! link, a device, a FIFO, a full disk. The database stays whole, the file there stays
//! as it was unless `--force` replaces it, a device stays a device, and no partial or
//! temporary file is left.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use iozone::store;

use crate::common::{Mount, iozone, iozone_process, planted, require_root};

/// A database of `runs` planted runs in a directory of its own.
struct PlantedDb {
    dir: tempfile::TempDir,
    db: PathBuf,
    runs: usize,
}

impl PlantedDb {
    fn new(runs: usize) -> PlantedDb {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        let planted: Vec<_> = (0..runs)
            .map(|day| planted("bebox", day as i64, 1e8))
            .collect();
        store::open(db.as_path())
            .unwrap()
            .save_runs(&planted)
            .unwrap();
        PlantedDb { dir, db, runs }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `iozone ARGS` on the database, from its directory.
    fn iozone<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> std::process::Output {
        iozone()
            .env("IOZONE_DB", &self.db)
            .current_dir(self.dir.path())
            .args(args)
            .output()
            .unwrap()
    }

    /// `db check` says ok, and every run planted is still listed.
    fn assert_intact(&self) {
        let check = self.iozone(&["db", "check"]);
        let said = String::from_utf8_lossy(&check.stdout);
        assert!(check.status.success(), "{said}");
        assert!(said.contains("integrity      ok"), "{said}");
        let listed = self.iozone(&["history", "--all", "--format", "json"]);
        let runs: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
        assert_eq!(runs.len(), self.runs);
    }
}

/// The two commands that write the file `-o` names, at `target`.
fn writers(target: &Path) -> [Vec<String>; 2] {
    let target = target.to_str().unwrap().to_string();
    [
        ["export", "--format", "json", "-o", &target]
            .map(String::from)
            .to_vec(),
        ["report", "-o", &target].map(String::from).to_vec(),
    ]
}

fn args(command: &[String], extra: &[&str]) -> Vec<String> {
    command
        .iter()
        .cloned()
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
}

/// Refused: status 2, one line on stderr with `words` in it.
fn assert_refused(out: &std::process::Output, words: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(words), "expected '{words}' in: {err}");
}

/// The names in `dir` that are not `expected`: a partial output, a temporary file.
fn assert_only(dir: &Path, expected: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("h.db"))
        .collect();
    names.sort();
    assert_eq!(names, expected, "in {dir:?}");
}

#[test]
fn the_database_and_its_files_are_never_written() {
    let scene = PlantedDb::new(3);
    let before = std::fs::read(&scene.db).unwrap();
    std::fs::hard_link(&scene.db, scene.path("hard.db")).unwrap();
    let targets = [
        scene.db.clone(),
        PathBuf::from("h.db"),
        scene.dir.path().join(".").join("h.db"),
        scene.path("hard.db"),
        scene.path("h.db-wal"),
        scene.path("h.db-shm"),
    ];
    for target in &targets {
        for command in writers(target) {
            for extra in [&[][..], &["--force"]] {
                let out = scene.iozone(&args(&command, extra));
                assert_refused(&out, "the database ");
            }
        }
    }
    assert_eq!(std::fs::read(&scene.db).unwrap(), before);
    // a -wal written there would be refused as another database's
    scene.assert_intact();
}

#[test]
fn an_existing_wal_is_known_by_its_inode() {
    let scene = PlantedDb::new(2);
    // a writer's connection left open keeps the -wal; a hard link reaches it by another name
    let wal = scene.path("h.db-wal");
    std::fs::write(&wal, b"").unwrap();
    std::fs::hard_link(&wal, scene.path("other-name")).unwrap();
    for command in writers(&scene.path("other-name")) {
        let out = scene.iozone(&args(&command, &["--force"]));
        assert_refused(&out, "write-ahead log of the database");
    }
    assert_eq!(std::fs::read(&wal).unwrap(), b"");
    std::fs::remove_file(scene.path("other-name")).unwrap();
    std::fs::remove_file(&wal).unwrap();
    scene.assert_intact();
}

#[test]
fn stdout_redirected_onto_the_database_is_refused() {
    let scene = PlantedDb::new(2);
    let before = std::fs::read(&scene.db).unwrap();
    let append = std::fs::File::options()
        .append(true)
        .open(&scene.db)
        .unwrap();
    let out = iozone_process()
        .env("IOZONE_DB", &scene.db)
        .args(["export", "--format", "json"])
        .stdout(append)
        .output()
        .unwrap();
    assert_refused(&out, "stdout is the database");
    assert_eq!(std::fs::read(&scene.db).unwrap(), before);
    scene.assert_intact();
}

#[test]
fn an_existing_file_is_replaced_only_with_force() {
    let scene = PlantedDb::new(2);
    for (i, command) in writers(&scene.path("backup")).iter().enumerate() {
        std::fs::write(scene.path("backup"), "keep me").unwrap();
        let out = scene.iozone(command);
        assert_refused(&out, "backup already exists; --force replaces it");
        assert_eq!(
            std::fs::read_to_string(scene.path("backup")).unwrap(),
            "keep me"
        );
        let out = scene.iozone(&args(command, &["--force"]));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = std::fs::read_to_string(scene.path("backup")).unwrap();
        let start = ["{", "<!DOCTYPE html>"][i];
        assert!(written.starts_with(start), "{}", &written[..100]);
        assert_only(scene.dir.path(), &["backup"]);
    }
    scene.assert_intact();
}

#[test]
fn a_new_file_gets_the_permissions_of_a_plain_create() {
    let scene = PlantedDb::new(1);
    let plain = scene.path("plain");
    std::fs::File::create(&plain).unwrap();
    for i in 0..2 {
        let target = scene.path(&format!("new{i}"));
        let command = &writers(&target)[i];
        let out = scene.iozone(command);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mode = |p: &Path| p.metadata().unwrap().mode() & 0o777;
        assert_eq!(mode(&target), mode(&plain), "{command:?}");
    }
}

#[test]
fn a_symlink_at_the_path_is_refused_not_followed() {
    let scene = PlantedDb::new(2);
    let victim = scene.path("passwd");
    std::fs::write(&victim, "root:x:0:0").unwrap();
    let link = scene.path("r.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let dangling = scene.path("dangling.html");
    std::os::unix::fs::symlink(scene.path("nowhere"), &dangling).unwrap();
    for target in [&link, &dangling] {
        for command in writers(target) {
            for extra in [&[][..], &["--force"]] {
                let out = scene.iozone(&args(&command, extra));
                assert_refused(&out, "is a symbolic link");
            }
        }
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root:x:0:0");
    assert!(link.is_symlink() && dangling.is_symlink());
    assert!(!scene.path("nowhere").exists());
    scene.assert_intact();
}

#[test]
fn dev_null_and_dev_stdout_take_the_output() {
    let scene = PlantedDb::new(2);
    for command in writers(Path::new("/dev/null")) {
        let out = scene.iozone(&command);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let null = std::fs::symlink_metadata("/dev/null").unwrap();
    assert!(null.file_type().is_char_device());
    for (command, start) in writers(Path::new("/dev/stdout"))
        .iter()
        .zip(["{", "<!DOCTYPE"])
    {
        let out = scene.iozone(command);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(printed.starts_with(start), "{printed}");
    }
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .is_symlink()
    );
}

/// Character devices made for the test, so that a regression removes these, not the
/// system's own: a null (1,3) and a full (1,7), as /dev/null and /dev/full.
#[test]
fn a_device_is_written_as_it_is_and_survives_a_failure() {
    if !require_root("make device nodes with mknod") {
        return;
    }
    let scene = PlantedDb::new(2);
    let devices = tempfile::tempdir().unwrap();
    let make = |name: &str, minor: u32| {
        let path = devices.path().join(name);
        let status = std::process::Command::new("mknod")
            .arg(&path)
            .args(["c", "1", &minor.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        path
    };
    let null = make("null", 3);
    let full = make("full", 7);
    for device in [&null, &full] {
        let rdev = device.metadata().unwrap().rdev();
        for command in writers(device) {
            let out = scene.iozone(&command);
            if device == &full {
                assert_refused(&out, "No space left on device");
            } else {
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            let meta = std::fs::symlink_metadata(device).unwrap();
            assert!(meta.file_type().is_char_device(), "{device:?} is gone");
            assert_eq!(meta.rdev(), rdev);
        }
    }
    assert_only(devices.path(), &["full", "null"]);
    scene.assert_intact();
}

#[test]
fn a_fifo_is_written_to_and_stays_a_fifo() {
    let scene = PlantedDb::new(2);
    let fifo = scene.path("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for command in writers(&fifo) {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let out = scene.iozone(&command);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = reader.join().unwrap();
        assert!(read.len() > 1000, "{read}");
        assert!(fifo.metadata().unwrap().file_type().is_fifo());
    }
}

#[test]
fn a_full_disk_leaves_no_partial_file_and_the_old_one_whole() {
    if !require_root("mount a tiny tmpfs") {
        return;
    }
    // enough runs that the export fails half-way through, after pages were written
    let scene = PlantedDb::new(60);
    let mount = Mount::tmpfs("64k", "");
    let filler = mount.path().join("filler");
    std::fs::write(&filler, vec![0u8; 40 << 10]).unwrap();
    std::fs::write(mount.path().join("old.json"), "keep me").unwrap();
    for name in ["new.json", "old.json"] {
        for command in writers(&mount.path().join(name)) {
            let out = scene.iozone(&args(&command, &["--force"]));
            assert_refused(&out, "No space left on device");
            assert_only(mount.path(), &["filler", "old.json"]);
        }
    }
    assert_eq!(
        std::fs::read_to_string(mount.path().join("old.json")).unwrap(),
        "keep me"
    );
    scene.assert_intact();
}

#[test]
fn a_spooled_run_is_never_written_over() {
    let scene = PlantedDb::new(1);
    let data = tempfile::tempdir().unwrap();
    let spool = data.path().join("iozone").join("spool");
    std::fs::create_dir_all(&spool).unwrap();
    let spooled = spool.join(format!("run-{}.json", uuid::Uuid::new_v4()));
    std::fs::write(&spooled, "the only copy").unwrap();
    for command in writers(&spooled) {
        let out = iozone()
            .env("IOZONE_DB", &scene.db)
            .env("XDG_DATA_HOME", data.path())
            .args(args(&command, &["--force"]))
            .output()
            .unwrap();
        assert_refused(&out, "is a run waiting in the spool");
    }
    assert_eq!(std::fs::read_to_string(&spooled).unwrap(), "the only copy");
}

#[test]
fn man_dir_replaces_pages_only_with_force_and_never_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let man = |extra: &[&str]| {
        iozone()
            .args(["man", "--dir", dir.path().to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    std::fs::write(dir.path().join("iozone-run.1"), "mine").unwrap();
    assert_refused(
        &man(&[]),
        "iozone-run.1 already exists; --force replaces it",
    );
    // refused before any page was written
    assert_only(dir.path(), &["iozone-run.1"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("iozone-run.1")).unwrap(),
        "mine"
    );
    assert!(man(&["--force"]).status.success());
    let page = std::fs::read_to_string(dir.path().join("iozone-run.1")).unwrap();
    assert!(page.contains(".TH iozone-run"), "{page}");

    let victim = dir.path().join("victim");
    std::fs::write(&victim, "mine").unwrap();
    std::fs::remove_file(dir.path().join("iozone.1")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("iozone.1")).unwrap();
    assert_refused(&man(&["--force"]), "iozone.1 is a symbolic link");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    assert!(dir.path().join("iozone.1").is_symlink());
}

#[test]
fn ctrl_c_during_a_long_export_leaves_no_file() {
    let scene = PlantedDb::new(2_000);
    let target = scene.path("all.json");
    let mut export = iozone_process()
        .env("IOZONE_DB", &scene.db)
        .current_dir(scene.dir.path())
        .args(["export", "--format", "json", "-o"])
        .arg(&target)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = rustix::process::Pid::from_raw(export.id() as i32).unwrap();
    // the copy written aside appears as the export begins; the signal comes while it grows
    let aside = || {
        std::fs::read_dir(scene.dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().starts_with(".iozone-"))
    };
    let waited = std::time::Instant::now();
    while !aside() {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(60),
            "no file written aside"
        );
        assert!(
            export.try_wait().unwrap().is_none(),
            "the export ended first"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = export.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&status.stderr);
    assert_eq!(status.status.code(), Some(130), "{err}");
    assert!(err.contains("was left as it was"), "{err}");
    assert_only(scene.dir.path(), &[]);
    scene.assert_intact();
}
