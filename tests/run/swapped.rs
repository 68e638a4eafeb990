//! A test file swapped for a hard link between phases: someone who can write to the
//! directory renames a hard link to another file over the test file's name while the
//! run measures. The run must refuse (exit 2, one line), and never write the other file.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::common::{assert_no_leftovers, iozone};

/// Renames a fresh hard link to `victim` over every test file that appears in `dir`,
/// as fast as it can, until told to stop; counts the swaps made.
fn swap_in_links(dir: &Path, victim: &Path, stop: &AtomicBool, swaps: &AtomicUsize) {
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with("iozone-") && name.ends_with(".tmp")) {
                continue;
            }
            n += 1;
            let link = dir.join(format!("planted-{n}"));
            if std::fs::hard_link(victim, &link).is_ok()
                && std::fs::rename(&link, entry.path()).is_ok()
            {
                swaps.fetch_add(1, Ordering::Relaxed);
            }
            let _ = std::fs::remove_file(&link);
        }
    }
}

#[test]
fn a_hard_link_swapped_in_between_phases_is_refused_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    // the victim lives on the same filesystem (hard links need that), outside the run's
    // naming; its content must survive
    let victim = dir.path().join("victim.dat");
    let content = b"someone else's data\n".repeat(100_000);
    std::fs::write(&victim, &content).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let renamer = {
        let (dir, victim) = (dir.path().to_path_buf(), victim.clone());
        let (stop, swaps) = (stop.clone(), swaps.clone());
        std::thread::spawn(move || swap_in_links(&dir, &victim, &stop, &swaps))
    };
    // write then rewrite, which reopens the file by name, over several rounds
    let out = iozone()
        .env("IOZONE_DB", keep.path().join("h.db"))
        .args([
            "run",
            "-s",
            "8M",
            "-r",
            "4k",
            "-i",
            "write",
            "-n",
            "5",
            "--cache",
            "flush",
            "--no-record",
            "-q",
            "-d",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    renamer.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(swaps.load(Ordering::Relaxed) > 0, "no swap was made: {err}");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // the swap lands during a write (then the rewrite's reopen finds it) or between a
    // file's removal and its re-creation (then O_EXCL refuses the planted name)
    assert!(
        err.contains("was replaced between phases") || err.contains("File exists"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        content,
        "the victim was written"
    );
    std::fs::remove_file(&victim).unwrap();
    for planted in std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
    {
        let _ = std::fs::remove_file(planted.path());
    }
    assert_no_leftovers(dir.path());
}
