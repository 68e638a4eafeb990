//! `db check` finds what an older iozone let into a database — runs no command can read
//! back (a start in the year 10000 kept as text SQLite holds and chrono cannot read),
//! runs that hold what no store may keep — and damage under the runs (rows of a run
//! that is gone); `db check --repair` removes or repairs each, naming it; and until
//! then, the commands that write refuse a database `db check` found damaged.

use std::path::Path;

use rusqlite::Connection;

use crate::common::{Db, Measure, PgDb, fixture, json};

/// Copies run `id` (its row and its results) under `uuid`, with `set` (an SQL
/// assignment list) applied to the copy: a run as an older iozone could write it.
/// Returns the copy's id.
fn plant(db: &Path, id: i64, uuid: &str, set: &str) -> i64 {
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(&format!(
        "CREATE TEMP TABLE r AS SELECT * FROM runs WHERE id = {id};
         UPDATE r SET id = NULL, uuid = '{uuid}', {set};
         INSERT INTO runs SELECT * FROM r;
         CREATE TEMP TABLE f AS SELECT * FROM results WHERE run_id = {id};
         UPDATE f SET run_id = last_insert_rowid();
         INSERT INTO results SELECT * FROM f;"
    ))
    .unwrap();
    conn.query_row("SELECT id FROM runs WHERE uuid = ?", [uuid], |r| r.get(0))
        .unwrap()
}

fn count_runs(db: &Path) -> i64 {
    let conn = Connection::open(db).unwrap();
    conn.query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap()
}

/// Asserts `args` fail with exit status 2 and one line holding `needle`.
fn refused<A: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    db: &Db,
    args: &[A],
    needle: &str,
) -> String {
    let (code, _, err) = db.on(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {err}");
    assert!(lines[0].contains(needle), "{args:?}: {err}");
    err
}

/// A short run into `db`, measured in `dir`: its command line.
fn run_args(db: &Db, dir: &Path) -> Vec<String> {
    Measure::tiny(db.location(), dir).warmup(0).command_line()
}

/// The runs an older iozone let in, by UUID: text SQLite holds and no command can read
/// back (a start in the year 10000, one in the year -1), and a readable run from before
/// the years a run may state, which another store refuses.
const YEAR_10000: &str = "6b2a4c8e-0000-4000-8000-000000010000";
const YEAR_MINUS_1: &str = "6b2a4c8e-0000-4000-8000-00000000000f";
const BEFORE_1970: &str = "6b2a4c8e-0000-4000-8000-000000001969";

/// Plants the three runs of an older iozone in the database at `path`, copies of runs 1
/// and 2; returns the id of the one from the year 10000.
fn plant_an_older_iozones_runs(path: &Path) -> i64 {
    let year_10000 = plant(
        path,
        1,
        YEAR_10000,
        "started_at = '+10000-01-01T00:00:00.000000000Z'",
    );
    plant(
        path,
        2,
        YEAR_MINUS_1,
        "started_at = '-0001-12-31T00:00:00.000000000Z'",
    );
    // readable, but before the years a run may state: another store refuses it
    plant(
        path,
        1,
        BEFORE_1970,
        "finished_at = '1969-12-31T23:59:59.000000000Z'",
    );
    year_10000
}

/// Every read fails, naming the way out.
fn assert_every_read_refused(db: &Db, other: &Db, scratch: &Path) {
    let report = scratch.join("r.html");
    for args in [
        &["history"][..],
        &["history", "--all"],
        &["trend"],
        &["report", "-o", report.to_str().unwrap()],
        &["export", "--format", "json"],
        &["sync", "--to", &other.location()],
    ] {
        let err = refused(db, args, "`iozone db check --repair` removes them");
        assert!(err.contains("column started_at holds '"), "{err}");
    }
}

/// `db check` names each run and the column, and says the database is damaged.
fn assert_check_names_each_run(db: &Db, bad: i64) {
    let (code, out, err) = db.on(&["db", "check"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.contains("integrity      DAMAGED"), "{out}");
    assert!(
        err.contains(&format!(
            "run {bad} ({YEAR_10000}): column started_at holds '+10000-01-01T00:00:00.000000000Z'"
        )),
        "{err}"
    );
    assert!(err.contains(YEAR_MINUS_1), "{err}");
    assert!(
        err.contains(&format!(
            "({BEFORE_1970}): finished_at 1969-12-31T23:59:59Z is outside"
        )),
        "{err}"
    );
    assert!(
        err.contains("`iozone db check --repair` repairs it"),
        "{err}"
    );
}

#[test]
fn a_database_poisoned_by_an_older_iozone_is_found_and_repaired() {
    let db = Db::sqlite();
    let scratch = tempfile::tempdir().unwrap();
    let path = std::path::PathBuf::from(db.location());
    for f in ["iozone3/single-32m-r64k.txt", "fio/buffered-write-4k.json"] {
        db.ok(&["import", fixture(f).to_str().unwrap()]);
    }
    let bad = plant_an_older_iozones_runs(&path);
    let other = Db::sqlite();
    assert_every_read_refused(&db, &other, scratch.path());
    assert_check_names_each_run(&db, bad);

    // and from then on nothing writes to it
    let runs = count_runs(&path);
    let marked = "was found damaged by `iozone db check`";
    refused(
        &db,
        &[
            "import",
            fixture("fio/fsync-read-64k.json").to_str().unwrap(),
        ],
        marked,
    );
    let run = run_args(&db, scratch.path());
    refused(&db, &run, marked);
    refused(&db, &["db", "migrate"], marked);
    assert_eq!(count_runs(&path), runs);

    // --repair removes the three runs, naming each, and the rest reads again
    let (code, out, err) = db.on(&["db", "check", "--repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    let removed: Vec<&str> = err.lines().filter(|l| l.contains("Removed run")).collect();
    assert_eq!(removed.len(), 3, "{err}");
    for uuid in [YEAR_10000, YEAR_MINUS_1, BEFORE_1970] {
        assert!(removed.iter().any(|l| l.contains(uuid)), "{err}");
    }
    assert_eq!(db.uuids().len(), 2);
    db.assert_every_reader_works(scratch.path());
    db.ok(&["sync", "--to", &other.location()]);
    assert_eq!(other.uuids().len(), 2);
    // and the commands that write take it again
    db.ok(&[
        "import",
        fixture("fio/fsync-read-64k.json").to_str().unwrap(),
    ]);
    db.ok(&run);
    db.ok(&["db", "migrate"]);
    assert_eq!(db.uuids().len(), 4);
}

/// A result an older iozone let in fails the export as the run's own columns do,
/// naming the column, though the export decodes results on its printing thread.
#[test]
fn an_unreadable_result_fails_the_export_and_the_listing_naming_its_column() {
    let db = Db::sqlite();
    for f in ["iozone3/single-32m-r64k.txt", "fio/buffered-write-4k.json"] {
        db.ok(&["import", fixture(f).to_str().unwrap()]);
    }
    let path = std::path::PathBuf::from(db.location());
    let conn = Connection::open(&path).unwrap();
    for (set, needle) in [
        (
            "'warp drive'",
            "column engine holds 'warp drive', which this iozone cannot read",
        ),
        ("x'00ff'", "column engine holds a Blob value"),
    ] {
        let update = format!("UPDATE results SET engine = {set} WHERE run_id = 1");
        conn.execute_batch(&update).unwrap();
        for format in ["json", "csv"] {
            let err = refused(&db, &["export", "--format", format], needle);
            assert!(err.contains("db check --repair"), "{err}");
            // the run keeps no summaries: a listing summarizes its figures, on the
            // printer's thread too
            let err = refused(&db, &["history", "--all", "--format", format], needle);
            assert!(err.contains("db check --repair"), "{err}");
        }
    }
}

#[test]
fn damage_under_the_runs_keeps_writers_out_until_repaired() {
    let db = Db::sqlite();
    let scratch = tempfile::tempdir().unwrap();
    let path = std::path::PathBuf::from(db.location());
    for f in ["iozone3/single-32m-r64k.txt", "fio/buffered-write-4k.json"] {
        db.ok(&["import", fixture(f).to_str().unwrap()]);
    }
    // a run deleted behind iozone's back: its figures stay, belonging to nothing
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA foreign_keys = OFF; DELETE FROM runs WHERE id = 1;")
        .unwrap();
    let run = run_args(&db, scratch.path());

    let (code, out, err) = db.on(&["db", "check"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.contains("integrity      DAMAGED"), "{out}");
    assert!(
        err.contains("results has rows whose row in runs is gone"),
        "{err}"
    );
    let marked = "was found damaged by `iozone db check`, so nothing is written to it: \
                  `iozone db check --repair`";
    let runs = count_runs(&path);
    refused(&db, &run, marked);
    refused(
        &db,
        &[
            "import",
            fixture("fio/fsync-read-64k.json").to_str().unwrap(),
        ],
        marked,
    );
    refused(&db, &["db", "migrate"], marked);
    assert_eq!(count_runs(&path), runs);
    // reading goes on as far as it can
    assert_eq!(db.uuids().len(), 1);

    let (code, out, err) = db.on(&["db", "check", "--repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    assert!(
        err.contains("Removed 4 rows of results whose run is gone"),
        "{err}"
    );
    db.ok(&run);
    db.ok(&["db", "migrate"]);
    assert!(db.ok(&["db", "check"]).contains("integrity      ok"));
    db.assert_every_reader_works(scratch.path());
}

/// A damaged page of an index (bytes flipped on the disk): found by `db check`, kept
/// out of by the commands that write, rebuilt by `--repair`.
#[test]
fn a_damaged_index_page_is_found_and_rebuilt() {
    let db = Db::sqlite();
    let scratch = tempfile::tempdir().unwrap();
    let path = std::path::PathBuf::from(db.location());
    for f in ["iozone3/single-32m-r64k.txt", "fio/buffered-write-4k.json"] {
        db.ok(&["import", fixture(f).to_str().unwrap()]);
    }
    let (page, size): (i64, i64) = {
        let conn = Connection::open(&path).unwrap();
        // every page in the file itself, none in a -wal
        conn.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))
            .unwrap();
        let page = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'runs_fs_type_started_at'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        (page, size)
    };
    let mut bytes = std::fs::read(&path).unwrap();
    let end = (page * size) as usize;
    for b in &mut bytes[end - 60..end - 20] {
        *b ^= 0x5a;
    }
    std::fs::write(&path, bytes).unwrap();

    let (code, out, err) = db.on(&["db", "check"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.contains("integrity      DAMAGED"), "{out}");
    assert!(
        err.contains("missing from index runs_fs_type_started_at"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let fio = fixture("fio/fsync-read-64k.json");
    refused(
        &db,
        &["import", fio.to_str().unwrap()],
        "was found damaged by `iozone db check`",
    );

    let (code, out, err) = db.on(&["db", "check", "--repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("Rebuilt the indexes"), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    db.ok(&["import", fio.to_str().unwrap()]);
    assert_eq!(db.uuids().len(), 3);
    db.assert_every_reader_works(scratch.path());
}

/// A check that finds the database whole again (repaired by hand) lifts the mark too.
#[test]
fn a_check_that_finds_no_damage_lets_writers_in_again() {
    let db = Db::sqlite();
    let path = std::path::PathBuf::from(db.location());
    db.ok(&[
        "import",
        fixture("fio/buffered-write-4k.json").to_str().unwrap(),
    ]);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF; DELETE FROM runs WHERE id = 1;")
        .unwrap();
    assert_eq!(db.on(&["db", "check"]).0, Some(2));
    let fio = fixture("fio/buffered-write-4k.json");
    let import = ["import", fio.to_str().unwrap()];
    assert_eq!(db.on(&import).0, Some(2));
    conn.execute_batch("DELETE FROM results;").unwrap();
    drop(conn);
    assert!(db.ok(&["db", "check"]).contains("integrity      ok"));
    db.ok(&import);
    assert_eq!(db.uuids().len(), 1);
}

/// On PostgreSQL the server refuses what cannot be read back; a run an older iozone
/// recorded outside the years a run may state reads, but cannot go to a SQLite file:
/// `db check` says so and `--repair` removes it.
#[test]
fn a_postgres_run_outside_the_years_is_found_and_removed() {
    let Some(pg) = PgDb::new("find a run outside the years in PostgreSQL") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::Postgres(pg);
    for f in ["iozone3/single-32m-r64k.txt", "fio/buffered-write-4k.json"] {
        db.ok(&["import", fixture(f).to_str().unwrap()]);
    }
    let Db::Postgres(pg) = &db else {
        unreachable!()
    };
    let uuid: String = pg
        .client()
        .query_one(
            "UPDATE iozone.runs SET started_at = '10000-01-01T00:00:00Z' WHERE id = 1 \
             RETURNING uuid::text",
            &[],
        )
        .unwrap()
        .get(0);
    let other = Db::sqlite();
    let err = refused(&db, &["sync", "--to", &other.location()], &uuid);
    assert!(
        err.contains("started_at +10000-01-01T00:00:00Z is outside"),
        "{err}"
    );

    let (code, out, err) = db.on(&["db", "check"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("integrity      ok"), "{out}");
    assert!(
        err.contains(&format!(
            "run 1 ({uuid}): started_at +10000-01-01T00:00:00Z is outside"
        )),
        "{err}"
    );
    assert!(
        err.contains("`iozone db check --repair` removes it"),
        "{err}"
    );

    let (code, _, err) = db.on(&["db", "check", "--repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(&format!("Removed run 1 ({uuid})")), "{err}");
    let listed = json(db.ok(&["history", "--all", "--format", "json"]).as_bytes());
    assert_eq!(listed.as_array().unwrap().len(), 1);
    db.assert_every_reader_works(scratch.path());
    db.ok(&["sync", "--to", &other.location()]);
    assert_eq!(other.uuids().len(), 1);
}
