//! Our exports stream into `import`: through a pipe, a database of more runs than a
//! batch holds comes out of a second export the same; a file that fails half-way
//! stores nothing of itself, and the whole file imported again stores it all.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Stdio;

use super::runs;
use crate::common::{Mount, PgDb, iozone_process, ok, on, planted, require_root};

/// More runs than `import` stores in one batch (500), so that the stream crosses
/// several: one transaction must still hold them all.
const RUNS: usize = 1_250;

/// A database of [`RUNS`] runs, a minute apart (whole seconds, which PostgreSQL keeps
/// exactly), a few labelled and tagged.
fn populated(db: &Path) {
    use chrono::SubsecRound;
    let start = chrono::Utc::now().trunc_subsecs(0) - chrono::Duration::days(30);
    let runs: Vec<iozone::model::Run> = (0..RUNS)
        .map(|i| {
            let mut run = planted(&format!("host-{}", i % 7), 0, 1e9 + i as f64);
            run.started_at = start + chrono::Duration::minutes(i as i64);
            run.finished_at = Some(run.started_at + chrono::Duration::seconds(10));
            if i % 100 == 0 {
                run.labels.push(format!("hundred-{i}"));
                run.tags.insert("kernel".into(), format!("6.{}", i % 13));
            }
            run
        })
        .collect();
    let mut store = iozone::store::open(db).unwrap();
    assert_eq!(store.save_runs(&runs).unwrap(), RUNS);
}

/// `iozone export --format FORMAT` of `from` piped into `iozone import -` into `into`
/// (a file or a server's URL): the import's stderr, after both succeeded.
fn piped(from: &Path, format: &str, into: impl AsRef<OsStr>) -> String {
    let mut export = iozone_process()
        .env("IOZONE_DB", from)
        .args(["export", "--format", format])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let import = iozone_process()
        .env("IOZONE_DB", into)
        .args(["import", "-"])
        .stdin(export.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(export.wait().unwrap().success());
    let err = String::from_utf8_lossy(&import.stderr).into_owned();
    assert_eq!(import.status.code(), Some(0), "{err}");
    err
}

fn exported(db: &Path, format: &str) -> String {
    ok(db, &["export", "--format", format])
}

/// The export without its one line that must differ, its own timestamp.
fn without_exported_at(export: &str) -> String {
    let kept: Vec<&str> = export
        .lines()
        .filter(|line| !line.trim_start().starts_with("\"exported_at\""))
        .collect();
    assert_eq!(kept.len() + 1, export.lines().count(), "one exported_at");
    kept.join("\n")
}

#[test]
fn an_export_piped_into_import_crosses_batches_and_comes_back_the_same() {
    let scratch = tempfile::tempdir().unwrap();
    let (first, second) = (scratch.path().join("a.db"), scratch.path().join("b.db"));
    populated(&first);
    let err = piped(&first, "json", &second);
    assert!(
        err.contains(&format!("standard input: {RUNS} runs (0 already there)")),
        "{err}"
    );
    let once = exported(&first, "json");
    assert_eq!(once.matches("\"uuid\"").count(), RUNS);
    let twice = exported(&second, "json");
    if without_exported_at(&once) != without_exported_at(&twice) {
        let (a, b) = (once.lines())
            .zip(twice.lines())
            .find(|(a, b)| a != b && !a.contains("exported_at"))
            .unwrap_or(("(lengths differ)", ""));
        panic!("the second export differs, first at:\n{a}\n{b}");
    }
    // the same stream again: every run known by its UUID, nothing added
    let err = piped(&first, "json", &second);
    assert!(
        err.contains(&format!("0 runs ({RUNS} already there)")),
        "{err}"
    );
    // and the CSV export streams the same way
    let third = scratch.path().join("c.db");
    let err = piped(&first, "csv", &third);
    assert!(err.contains(&format!("{RUNS} runs")), "{err}");
    assert_eq!(exported(&third, "csv"), exported(&first, "csv"));
}

/// The one line a file that cannot be imported gets, exit status 2.
fn refused(db: &Path, file: &Path) -> String {
    let (code, _, err) = on(db, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_file_that_fails_half_way_stores_nothing_and_imports_whole_once_mended() {
    let scratch = tempfile::tempdir().unwrap();
    let (first, second) = (scratch.path().join("a.db"), scratch.path().join("b.db"));
    populated(&first);
    let export = exported(&first, "json");
    let file = scratch.path().join("export.json");

    // run 1,100 unreadable: two batches were stored before it, and are gone again
    let (at, _) = export
        .match_indices("\"started_at\": \"")
        .nth(1_099)
        .unwrap();
    let uuid_at = export[..at].rfind("\"uuid\": \"").unwrap() + 9;
    let uuid = &export[uuid_at..uuid_at + 36];
    let damaged = format!(
        "{}\"started_at\": \"soon{}",
        &export[..at],
        &export[at + 15..]
    );
    std::fs::write(&file, &damaged).unwrap();
    let err = refused(&second, &file);
    assert!(
        err.contains(&format!(
            "export.json: run 1100 ({uuid}): not an iozone run"
        )),
        "{err}"
    );
    assert!(runs(&second).is_empty(), "runs of a failed file were kept");

    // cut short near the end: a syntax error with its line, nothing stored
    std::fs::write(&file, &export[..export.len() - 2_000]).unwrap();
    let err = refused(&second, &file);
    assert!(
        err.contains("export.json: line ") && err.contains("not valid JSON: EOF"),
        "{err}"
    );
    assert!(runs(&second).is_empty(), "runs of a cut file were kept");

    // mended: the whole file lands
    std::fs::write(&file, &export).unwrap();
    let (code, _, err) = on(&second, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("{RUNS} runs (0 already there)")),
        "{err}"
    );
    assert_eq!(runs(&second).len(), RUNS);
}

#[test]
fn a_csv_whose_runs_lines_are_apart_is_refused_naming_the_line() {
    let scratch = tempfile::tempdir().unwrap();
    let (first, db) = (scratch.path().join("a.db"), scratch.path().join("h.db"));
    let two = [planted("h", 1, 1e9), planted("h", 2, 1e9)];
    iozone::store::open(first.as_path())
        .unwrap()
        .save_runs(&two)
        .unwrap();
    let text = exported(&first, "csv");
    // the first run's last line moved after the second run's
    let mut lines: Vec<&str> = text.lines().collect();
    let moved = lines.remove(3);
    lines.push(moved);
    let file = scratch.path().join("apart.csv");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let err = refused(&db, &file);
    assert!(
        err.contains("apart.csv: line 7: run ") && err.contains("lines apart from its others"),
        "{err}"
    );
    assert!(runs(&db).is_empty());
}

#[test]
fn into_postgresql_the_stream_is_one_transaction_too() {
    let Some(pg) = PgDb::new("import a stream into PostgreSQL") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let first = scratch.path().join("a.db");
    populated(&first);
    let export = exported(&first, "json");
    // a run past the first two batches unreadable: nothing stays
    let file = scratch.path().join("export.json");
    let (at, _) = export
        .match_indices("\"throughput\": ")
        .nth(1_200 * 3)
        .unwrap();
    std::fs::write(
        &file,
        format!(
            "{}\"throughput\": \"fast\"{}",
            &export[..at],
            &export[at + 14..]
        ),
    )
    .unwrap();
    let (code, _, err) = on(&pg.url, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("run 1201 (") && err.contains("not an iozone run"),
        "{err}"
    );
    let count = |pg: &PgDb| -> i64 {
        pg.client()
            .query_one("SELECT count(*) FROM iozone.runs", &[])
            .unwrap()
            .get(0)
    };
    assert_eq!(count(&pg), 0);
    // piped whole: every run, and the same export back
    let err = piped(&first, "json", &pg.url);
    assert!(
        err.contains(&format!("{RUNS} runs (0 already there)")),
        "{err}"
    );
    assert_eq!(count(&pg), RUNS as i64);
    let twice = ok(&pg.url, &["export", "--format", "json"]);
    // the same but for the ids: a sequence does not roll back, so the ids the failed
    // import drew are skipped (run 1 is 1001 now)
    let without_ids = |export: &str| -> String {
        let text = without_exported_at(export);
        let kept = text.lines().filter(|l| !l.starts_with("      \"id\": "));
        kept.collect::<Vec<_>>().join("\n")
    };
    let (once, twice) = (without_ids(&export), without_ids(&twice));
    if once != twice {
        let (a, b) = (once.lines())
            .zip(twice.lines())
            .find(|(a, b)| a != b)
            .unwrap_or(("(lengths differ)", ""));
        panic!("the PostgreSQL export differs, first at:\n{a}\n{b}");
    }
}

/// An iozone3 auto-mode output of about `bytes`: the fixture's header, then one row per
/// (file size, record size) pair, as `scripts/bench-import.sh` makes them.
fn large_iozone3_output(bytes: usize) -> String {
    let fixture =
        std::fs::read_to_string(crate::common::fixture("iozone3/auto-n64k-g4m.txt")).unwrap();
    let header_end = fixture.find("kB  reclen").unwrap();
    let header_end = header_end + fixture[header_end..].find('\n').unwrap() + 1;
    let mut text = fixture[..header_end].to_string();
    let mut seed: u64 = 1;
    let mut file_kb = 64;
    while text.len() < bytes {
        let mut record_kb = 4;
        while record_kb <= file_kb {
            text.push_str(&format!("{file_kb:>16}{record_kb:>8}"));
            for column in 0..13 {
                seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
                let figure = 1_000_000 + seed % 30_000_000;
                let width = if column == 7 || column == 8 { 10 } else { 9 };
                text.push_str(&format!("{figure:>width$}"));
            }
            text.push('\n');
            record_kb *= 2;
        }
        file_kb += 4;
    }
    text + "\niozone test complete.\n"
}

/// An import killed before its commit: with the database to itself it writes in a
/// rollback journal, its pages spilled into the database and the originals of those
/// they changed in the `-journal`; the next command, a reader first, puts them back,
/// and the database is as it was, for every command, in WAL mode again.
#[test]
fn an_import_killed_before_its_commit_leaves_the_database_as_it_was() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let small = crate::common::fixture("iozone3/auto-n64k-g4m.txt");
    ok(&db, &["import", small.to_str().unwrap()]);
    let before = runs(&db);
    let journal = scratch.path().join("h.db-journal");
    kill_import_when(
        &db,
        &scratch.path().join("auto.txt"),
        spilled_with_journal(&db),
    );
    assert!(journal.exists(), "the killed import left no -journal");
    assert_eq!(runs(&db), before);
    assert!(
        !journal.exists(),
        "the reader did not put the journal's pages back"
    );
    usable_again_in_wal_mode(&db, &small);
}

/// With another connection holding the database open, an import cannot leave WAL mode:
/// it writes there, and one killed before its commit spills pages into a WAL the
/// `-shm` index does not name yet, which every command reads past.
#[test]
fn an_import_beside_another_connection_writes_in_wal_mode_and_killed_changes_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let small = crate::common::fixture("iozone3/auto-n64k-g4m.txt");
    ok(&db, &["import", small.to_str().unwrap()]);
    let before = runs(&db);
    let other = rusqlite::Connection::open(&db).unwrap();
    let count = || -> i64 {
        other
            .query_row("SELECT count(*) FROM runs", [], |row| row.get(0))
            .unwrap()
    };
    assert_eq!(count(), 2);
    let wal = scratch.path().join("h.db-wal");
    let spilled = || std::fs::metadata(&wal).is_ok_and(|m| m.len() > 2 << 20);
    kill_import_when(&db, &scratch.path().join("auto.txt"), spilled);
    assert!(!scratch.path().join("h.db-journal").exists());
    assert_eq!(count(), 2);
    drop(other);
    assert_eq!(runs(&db), before);
    usable_again_in_wal_mode(&db, &small);
}

/// An import whose database sits on a read-only mount since a kill left its `-journal`
/// cannot be read as it is: a reader refuses it in one line that says why.
#[test]
fn a_journal_left_beside_a_database_no_one_here_can_write_is_refused_in_one_line() {
    if !require_root("remount a tmpfs read-only under a killed import's journal") {
        return;
    }
    // the figures set aside (48 bytes each) and the database's pages (about 70)
    let mount = Mount::tmpfs("160m", "");
    let db = mount.path().join("h.db");
    let small = crate::common::fixture("iozone3/auto-n64k-g4m.txt");
    ok(&db, &["import", small.to_str().unwrap()]);
    let scratch = tempfile::tempdir().unwrap();
    kill_import_when(
        &db,
        &scratch.path().join("auto.txt"),
        spilled_with_journal(&db),
    );
    remount(mount.path(), "remount,ro");
    let (code, _, err) = on(&db, &["history"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("-journal"), "{err}");
    remount(mount.path(), "remount,rw");
    let (code, out, err) = on(&db, &["history", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        serde_json::from_str::<Vec<serde_json::Value>>(&out)
            .unwrap()
            .len(),
        2
    );
}

/// Whether an import into `db` writing in a rollback journal has spilled pages: the
/// database grown by 2 MiB since now, with a `-journal` beside it.
fn spilled_with_journal(db: &Path) -> impl Fn() -> bool + '_ {
    let size_before = std::fs::metadata(db).unwrap().len();
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    let journal = std::path::PathBuf::from(journal);
    move || journal.exists() && std::fs::metadata(db).unwrap().len() > size_before + (2 << 20)
}

/// Starts an import of an 8 MB iozone3 output (written to `file`) into `db` and kills
/// it once `ready` holds, which it must before the import ends.
fn kill_import_when(db: &Path, file: &Path, ready: impl Fn() -> bool) {
    std::fs::write(file, large_iozone3_output(8 << 20)).unwrap();
    let mut import = iozone_process()
        .env("IOZONE_DB", db)
        .args(["-q", "import"])
        .arg(file)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !ready() {
        assert!(
            import.try_wait().unwrap().is_none(),
            "the import ended before its pages spilled"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    import.kill().unwrap();
    import.wait().unwrap();
}

/// After a killed import: `db check` finds the database whole, the import runs again,
/// and the database is in WAL mode.
fn usable_again_in_wal_mode(db: &Path, small: &Path) {
    let (code, out, err) = on(db, &["db", "check"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    let (code, _, err) = on(db, &["import", small.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(journal_mode(db), "wal");
}

fn remount(dir: &Path, options: &str) {
    let status = std::process::Command::new("mount")
        .args(["-o", options])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success(), "mount -o {options} {}", dir.display());
}

fn journal_mode(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap()
}

/// An iozone3 table's figures wait beside the database until their run closes: where
/// there is no room for them, the import fails with one line that names the directory
/// and why, and the database is as it was, for the next import as for every command.
#[test]
fn an_import_without_room_beside_the_database_stores_nothing() {
    if !require_root("mount a small tmpfs for the database") {
        return;
    }
    let mount = Mount::tmpfs("4m", "");
    let db = mount.path().join("h.db");
    let small = crate::common::fixture("iozone3/auto-n64k-g4m.txt");
    ok(&db, &["import", small.to_str().unwrap()]);
    let before = runs(&db);
    let scratch = tempfile::tempdir().unwrap();
    let large = scratch.path().join("auto.txt");
    // some 400,000 figures: about 20 MB set aside
    std::fs::write(&large, large_iozone3_output(4 << 20)).unwrap();
    let (code, _, err) = on(&db, &["import", large.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let dir = mount.path().display().to_string();
    assert!(err.contains(&dir), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert_eq!(runs(&db), before);
    let (code, out, err) = on(&db, &["db", "check"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
}
