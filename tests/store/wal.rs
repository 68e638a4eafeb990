//! A kill while SQLite closes the database: the last connection checkpoints, deletes
//! the `-shm` index, then the `-wal`; killed between the two, it leaves a WAL whose
//! pages are all in the database already, without the index that would say it is the
//! database's. The next writer (`run`, `db check --repair`) recovers it, read commands
//! read through it, nothing is lost; a WAL from another database is still refused.

use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Scene, on, require_root};

fn beside(db: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", db.display()))
}

/// Leaves `scene`'s database as a kill while closing does: a second connection keeps
/// it open while iozone records `label`, so the WAL keeps its frames, then applies them
/// (`PRAGMA wal_checkpoint`); its own close deletes the `-shm` and `-wal`, and the WAL
/// as it was is put back, without its index.
fn kill_while_closing(scene: &Scene, label: &str) {
    let holder = rusqlite::Connection::open(&scene.db).unwrap();
    holder.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let _: i64 = holder
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    scene.run(&["-l", label]);
    holder.execute_batch("PRAGMA wal_checkpoint").unwrap();
    let wal = std::fs::read(beside(&scene.db, "-wal")).unwrap();
    drop(holder);
    assert!(
        !beside(&scene.db, "-wal").exists() && !beside(&scene.db, "-shm").exists(),
        "the last close removes both"
    );
    assert!(wal.len() > 32 + 24 + 4096, "the WAL holds frames");
    std::fs::write(beside(&scene.db, "-wal"), wal).unwrap();
}

fn labels(scene: &Scene) -> Vec<String> {
    let mut labels: Vec<String> = scene
        .history(&[])
        .iter()
        .map(|run| run["labels"][0].as_str().unwrap().to_string())
        .collect();
    labels.sort();
    labels
}

#[test]
fn a_database_killed_while_closing_is_recovered_by_the_next_writer() {
    let scene = Scene::new();
    scene.run(&["-l", "a-first"]);
    kill_while_closing(&scene, "b-second");
    let before = std::fs::read(&scene.db).unwrap();
    // a file no one may write is read as it is, the WAL adding nothing to it: no -shm
    // is left beside it (that would keep it unwritable after a chmod)
    let mode = |mode| std::fs::set_permissions(&scene.db, Permissions::from_mode(mode)).unwrap();
    mode(0o444);
    assert_eq!(labels(&scene), ["a-first", "b-second"]);
    assert!(!beside(&scene.db, "-shm").exists());
    mode(0o644);
    // read commands read through it and change nothing in the database
    assert_eq!(labels(&scene), ["a-first", "b-second"]);
    let (code, out, err) = on(&scene.db, &["db", "check"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    assert!(std::fs::read(&scene.db).unwrap() == before);
    // a run records, and its close leaves no -wal or -shm behind
    scene.run(&["-l", "c-third"]);
    assert!(!beside(&scene.db, "-wal").exists());
    assert!(!beside(&scene.db, "-shm").exists());
    assert_eq!(labels(&scene), ["a-first", "b-second", "c-third"]);

    // again, and `db check --repair` is the writer
    kill_while_closing(&scene, "d-fourth");
    let (code, out, err) = on(&scene.db, &["db", "check", "--repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("runs           4"), "{out}");
    assert!(out.contains("integrity      ok"), "{out}");
    assert!(!beside(&scene.db, "-wal").exists());
    assert_eq!(
        labels(&scene),
        ["a-first", "b-second", "c-third", "d-fourth"]
    );
}

#[test]
fn a_checkpointed_wal_of_another_database_is_still_refused() {
    let ours = Scene::new();
    ours.run(&["-l", "ours"]);
    let other = Scene::new();
    other.run(&["-l", "other"]);
    kill_while_closing(&other, "other-2");
    std::fs::copy(beside(&other.db, "-wal"), beside(&ours.db, "-wal")).unwrap();
    let files = || {
        [ours.db.clone(), beside(&ours.db, "-wal")]
            .map(|f| std::fs::read(f).unwrap())
            .to_vec()
    };
    let before = files();
    let dir = ours.dir.path().to_str().unwrap();
    for args in [
        &["history"][..],
        &["db", "check", "--repair"],
        &["run", "-s", "64k", "-r", "4k", "-n", "1", "-q", "-d", dir],
    ] {
        let (code, _, err) = on(&ours.db, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("may not belong to the database"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(files() == before, "{args:?} changed the files");
        assert!(!beside(&ours.db, "-shm").exists(), "{args:?}");
    }
}

/// The kill as it was first met: strace kills `run` at its third unlink, the `-wal`'s,
/// after the checkpoint and the `-shm`'s unlink.
#[test]
fn a_run_killed_at_the_wal_unlink_leaves_a_database_the_next_run_recovers() {
    if !require_root("kill iozone at an unlink under strace") {
        return;
    }
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("SKIPPED (no strace): kill iozone at the unlink of its -wal");
        return;
    }
    let scene = Scene::new();
    scene.run(&["-l", "a-first"]);
    let out = Command::new("strace")
        .args(["-f", "-o", "/dev/null", "-e", "trace=unlink"])
        .args(["-e", "inject=unlink:signal=SIGKILL:when=3", "--"])
        .arg(assert_cmd::cargo::cargo_bin("iozone"))
        .arg("--db")
        .arg(&scene.db)
        .args([
            "run", "-s", "64k", "-r", "4k", "-n", "1", "-q", "-l", "b-second",
        ])
        .arg("-d")
        .arg(scene.dir.path())
        .output()
        .unwrap();
    // strace reports the tracee's death by the signal as its own
    assert!(!out.status.success(), "the run was not killed");
    assert!(beside(&scene.db, "-wal").exists(), "the kill left no -wal");
    assert!(
        !beside(&scene.db, "-shm").exists(),
        "the kill left the -shm"
    );
    scene.run(&["-l", "c-third"]);
    assert!(!beside(&scene.db, "-wal").exists());
    assert_eq!(labels(&scene), ["a-first", "b-second", "c-third"]);
}
