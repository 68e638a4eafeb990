//! Opening a database safely: read commands read and never write, create or
//! checkpoint; a stray `-wal` beside a restored backup is refused, not applied; a
//! missing, read-only or impossible database gets one plain line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Mount, Scene, iozone, on, require_root};

/// The commands that only read, as run against a database with runs 1 and 2.
fn read_commands(out: &Path) -> Vec<Vec<String>> {
    let report = out.join("report.html").display().to_string();
    [
        vec!["history"],
        vec!["show", "1"],
        vec!["compare", "1", "2"],
        vec!["trend"],
        vec!["report", "1,2", "--force", "-o", &report],
        vec!["export", "--format", "json"],
        vec!["db", "check"],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_string).collect())
    .collect()
}

fn refused(db: &Path, args: &[String], needle: &str) {
    let (code, _, err) = on(db, args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in {err}"
    );
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn files(paths: &[&PathBuf]) -> Vec<Vec<u8>> {
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn a_backup_restored_beside_a_stale_wal_from_another_database_is_left_untouched() {
    let real = Scene::new();
    for label in ["one", "two", "three"] {
        real.run(&["-l", label]);
    }
    let other = Scene::new();
    other.run(&["-l", "other"]);
    // a connection held open keeps the other database's WAL from being checkpointed,
    // as a process still running (or killed) would
    let holder = rusqlite::Connection::open(&other.db).unwrap();
    holder.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let _: i64 = holder
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    other.run(&["-l", "other-2"]);
    other.run(&["-l", "other-3"]);
    let other_wal = PathBuf::from(format!("{}-wal", other.db.display()));
    assert!(
        std::fs::metadata(&other_wal).unwrap().len() > 32,
        "no WAL frames"
    );
    // while its own connection is open, the other database reads fine with its WAL
    assert_eq!(other.history(&[]).len(), 3);

    let restored = real.dir.path().join("restored.db");
    let restored_wal = PathBuf::from(format!("{}-wal", restored.display()));
    std::fs::copy(&real.db, &restored).unwrap();
    std::fs::copy(&other_wal, &restored_wal).unwrap();
    let before = files(&[&restored, &restored_wal]);
    let out = tempfile::tempdir().unwrap();
    for args in read_commands(out.path()) {
        refused(&restored, &args, "may not belong to the database");
        assert!(
            files(&[&restored, &restored_wal]) == before,
            "{args:?} changed the files"
        );
    }
    let dir = real.dir.path().to_str().unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/iozone3/single-32m-r64k.txt"
    );
    for args in [
        words(&["run", "-s", "64k", "-r", "4k", "-n", "2", "-d", dir]),
        words(&["import", fixture]),
        words(&["db", "migrate"]),
    ] {
        refused(&restored, &args, "may not belong to the database");
        assert!(
            files(&[&restored, &restored_wal]) == before,
            "{args:?} changed the files"
        );
    }
    crate::common::assert_no_leftovers(real.dir.path());
    // without the stale WAL the backup is whole
    std::fs::remove_file(&restored_wal).unwrap();
    let _ = std::fs::remove_file(format!("{}-shm", restored.display()));
    let (code, _, err) = on(&restored, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    drop(holder);
}

#[test]
fn read_commands_refuse_a_database_that_does_not_exist() {
    let scene = Scene::new();
    let out = tempfile::tempdir().unwrap();
    let typo = scene.dir.path().join("typo.db");
    for args in read_commands(out.path()) {
        refused(
            &typo,
            &args,
            &format!(
                "the database {} does not exist; `iozone run` or `iozone import` create it",
                typo.display()
            ),
        );
        assert!(!typo.exists(), "{args:?} created {}", typo.display());
    }
    // a directory or a device is named as what it is, for reads and writes alike
    let dir = scene.dir.path().to_str().unwrap().to_string();
    let run = words(&["run", "-s", "64k", "-d", &dir]);
    for args in [words(&["history"]), run.clone()] {
        refused(
            scene.dir.path(),
            &args,
            &format!("{dir} is a directory, not a database file; choose a database file with --db"),
        );
        refused(
            Path::new("/dev/null"),
            &args,
            "/dev/null is a device or special file, not a database file",
        );
    }
}

#[test]
fn an_empty_iozone_db_means_the_default_database() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let with_empty = || {
        let mut cmd = iozone();
        cmd.env("IOZONE_DB", "")
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", &data);
        cmd
    };
    let default = data.join("iozone/history.db");
    let shown = with_empty().args(["db", "path"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout).trim(),
        default.display().to_string()
    );
    let ran = with_empty()
        .args(["run", "-s", "64k", "-r", "4k", "-n", "2", "-q", "-d"])
        .arg(work.path())
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        default.exists(),
        "the run did not go to {}",
        default.display()
    );
    let listed = with_empty()
        .args(["history", "--format", "json"])
        .output()
        .unwrap();
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(runs.len(), 1);
}

/// `iozone` copied where an unprivileged user can run it (the build directory may not
/// be reachable), run as `nobody` through setpriv.
fn as_nobody(binary: &Path, db: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(binary)
        .arg("--db")
        .arg(db)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("IOZONE_DB")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn sidecars(db: &Path) -> Vec<PathBuf> {
    ["-wal", "-shm"]
        .iter()
        .map(|s| PathBuf::from(format!("{}{s}", db.display())))
        .filter(|p| p.exists())
        .collect()
}

#[test]
fn a_read_only_database_reads_as_a_normal_user_and_stays_usable() {
    // root passes permission bits, so the 0444 case runs as nobody
    if !require_root("run iozone as the unprivileged user nobody") {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let scene = Scene::new();
    scene.run(&["-l", "kept"]);
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let binary = shared.path().join("iozone");
    std::fs::copy(assert_cmd::cargo::cargo_bin("iozone"), &binary).unwrap();
    let db = shared.path().join("history.db");
    std::fs::copy(&scene.db, &db).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&db).unwrap();
    // root passes the permission bits, but leaves nothing of mode 0444 beside it either
    let (code, _, err) = on(&db, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(sidecars(&db).is_empty(), "root left {:?}", sidecars(&db));
    for args in [
        &["history"][..],
        &["show", "1"],
        &["export", "--format", "json"],
    ] {
        let (code, out) = as_nobody(&binary, &db, args);
        assert_eq!(code, Some(0), "{args:?}: {out}");
        assert!(
            sidecars(&db).is_empty(),
            "{args:?} left {:?}",
            sidecars(&db)
        );
    }
    assert!(
        as_nobody(&binary, &db, &["history"]).1.contains("kept"),
        "the run is listed"
    );
    let fixture = shared.path().join("fixture.txt");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/iozone3/single-32m-r64k.txt"
        ),
        &fixture,
    )
    .unwrap();
    let import = ["import", fixture.to_str().unwrap()];
    // a write names the file that is not writable, and why
    let (code, out) = as_nobody(&binary, &db, &import);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(&format!(
            "{} is not writable: Permission denied",
            db.display()
        )),
        "{out}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // made writable, it takes a run as that user: nothing left behind blocks it
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    Command::new("chown")
        .args(["nobody"])
        .arg(&db)
        .status()
        .unwrap();
    let (code, out) = as_nobody(&binary, &db, &import);
    assert_eq!(code, Some(0), "{out}");
    // a file this user cannot read is said to be that
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o200)).unwrap();
    let (code, out) = as_nobody(&binary, &db, &["history"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("the file is not readable: Permission denied"),
        "{out}"
    );
}

#[test]
fn history_works_on_a_read_only_mount() {
    if !require_root("mount a tmpfs and remount it read-only") {
        return;
    }
    let scene = Scene::new();
    scene.run(&["-l", "mounted"]);
    let mount = Mount::tmpfs("8m", "");
    let db = mount.path().join("history.db");
    std::fs::copy(&scene.db, &db).unwrap();
    let remount = Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(mount.path())
        .status()
        .unwrap();
    assert!(remount.success());
    let (code, _, err) = on(&db, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = on(&db, &["export", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let dir = scene.dir.path().to_str().unwrap();
    refused(
        &db,
        &words(&["run", "-s", "64k", "-d", dir]),
        &format!("{} is not writable: Read-only file system", db.display()),
    );
    assert!(sidecars(&db).is_empty());
}

/// A reader that finds the database locked (an import writing in a rollback journal
/// holds it whole) waits for it and says so once a second has gone, then reads.
#[test]
fn a_reader_kept_waiting_by_an_import_says_so_and_then_reads() {
    let scene = Scene::new();
    scene.run(&["-l", "waited"]);
    let mut holder = rusqlite::Connection::open(&scene.db).unwrap();
    let mode: String = holder
        .query_row("PRAGMA journal_mode = DELETE", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    let lock = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)
        .unwrap();
    let (child, _stderr, line) = crate::common::spawn_until(
        crate::common::iozone_process()
            .env("IOZONE_DB", &scene.db)
            .args(["history", "--format", "json"])
            .stdout(std::process::Stdio::piped()),
        "Waiting",
    );
    assert!(
        line.contains("for the database, locked by another process"),
        "{line}"
    );
    lock.rollback().unwrap();
    drop(holder);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.len(), 1);
}
