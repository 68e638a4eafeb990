//! Databases new, old, newer and not iozone's: created and migrated once, refused
//! untouched; on both backends, then what only a file or only a server can be.

use super::*;

on_every_backend!(
    a_new_database_gets_the_latest_schema_once,
    a_database_from_a_newer_iozone_is_refused_untouched,
);

fn a_new_database_gets_the_latest_schema_once(backend: &Backend) {
    let latest = backend.latest();
    assert_eq!(backend.migrate().unwrap(), (0, latest));
    let mut store = backend.open();
    store.save_run(&sample_run("h", 0)).unwrap();
    drop(store);
    let before = backend.snapshot();
    // opening and migrating again change nothing
    assert_eq!(backend.migrate().unwrap(), (latest, latest));
    let store = backend.open();
    let report = store.check().unwrap();
    assert_eq!(
        (report.schema_version, report.latest_schema),
        (latest, latest)
    );
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    drop(store);
    if let Backend::Postgres(_) = backend {
        // (a SQLite file's bytes change with a checkpoint; its test is the one above)
        assert_eq!(backend.snapshot(), before);
    }
}

fn a_database_from_a_newer_iozone_is_refused_untouched(backend: &Backend) {
    let mut store = backend.open();
    store.save_run(&sample_run("h", 0)).unwrap();
    drop(store);
    backend.set_version(99);
    let before = backend.snapshot();
    for attempt in [
        backend.try_open().map(|_| ()),
        backend.migrate().map(|_| ()),
    ] {
        match attempt {
            Err(StoreError::TooNew {
                found: 99, known, ..
            }) => assert_eq!(known, backend.latest()),
            Err(other) => panic!("expected TooNew, got {other}"),
            Ok(_) => panic!("expected TooNew, got a store"),
        }
    }
    assert_eq!(backend.snapshot(), before);
}
// ---- SQLite only: what a file can be that a server's database cannot ----

fn temp_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    (dir, path)
}

#[test]
fn a_file_that_is_not_an_iozone_database_is_refused_untouched() {
    let (dir, _) = temp_db();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "hello, this is not SQLite at all, not even close.\n".repeat(100),
    )
    .unwrap();
    let before = std::fs::read(&text).unwrap();
    assert!(matches!(
        SqliteStore::open(&text),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(std::fs::read(&text).unwrap(), before);

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    assert!(matches!(
        SqliteStore::open(&other),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

#[test]
fn the_first_schema_migrates_with_its_runs() {
    let (_dir, path) = temp_db();
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../../../migrations/0001_init.sql"))
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        // a run as the first schema stored it
        conn.execute_batch(
            "INSERT INTO runs (uuid, started_at, status, tool_version, engine, cache, threads, \
             file_size, file_sizes, record_sizes, tests, repeat, seed, auto, verify, read_pct, \
             stride_records, latency, dir, hostname) VALUES ('0b8e8f8e-6a0e-4a4c-9b1e-6c3c1c1c1c1c', \
             '2026-01-01T00:00:00.000000000Z', 'complete', '0.1.0', 'mmap', 'buffered', 1, 1048576, \
             '[1048576]', '[4096]', '[\"write\"]', 1, 7, 0, 0, 50, 17, 1, '/srv', 'old'); \
             INSERT INTO results VALUES (1, 'write', 1048576, 4096, 1, 1048576, 1000000, 1.048576e9, \
             NULL, NULL, NULL, NULL, NULL);",
        )
        .unwrap();
    }
    let (before, after) = SqliteStore::migrate_only(&path).unwrap();
    assert_eq!((before, after), (1, latest_schema()));
    let store = SqliteStore::open(&path).unwrap();
    let runs = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].host.hostname.as_deref(), Some("old"));
    assert_eq!(runs[0].source, None);
    let full = store.load_run(runs[0].id.unwrap()).unwrap().unwrap();
    assert_eq!(full.results.len(), 1);
    assert_eq!(full.results[0].throughput, 1.048576e9);
    // before queue depths, every run kept one operation in flight
    assert_eq!(full.params.iodepth, 1);
    // before a run could measure several engines, its results went through its own
    assert_eq!(
        (full.results[0].engine, full.results[0].cache),
        (EngineKind::Mmap, CacheMode::Buffered)
    );
    assert_eq!(
        (full.params.engines, full.params.caches),
        (vec![EngineKind::Mmap], vec![CacheMode::Buffered])
    );
    let report = store.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.schema_version, latest_schema());
}

#[test]
fn an_empty_file_becomes_a_database() {
    let (_dir, path) = temp_db();
    std::fs::write(&path, b"").unwrap();
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.check().unwrap().schema_version, latest_schema());
}

// ---- PostgreSQL only: its schemas ----

#[test]
fn pg_a_schema_of_another_application_is_refused_untouched() {
    let db = pg_database!();
    db.client()
        .batch_execute(
            "CREATE SCHEMA iozone; CREATE TABLE iozone.things (x int); \
             INSERT INTO iozone.things VALUES (1)",
        )
        .unwrap();
    let before = db.snapshot();
    assert!(matches!(
        PgStore::open(&db.url),
        Err(StoreError::NotIozone(_))
    ));
    assert!(matches!(
        PgStore::migrate_only(&db.url),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(db.snapshot(), before);
}

#[test]
fn pg_other_tables_of_a_shared_database_are_left_alone() {
    let db = pg_database!();
    // another application's tables, with names iozone's tables have too
    db.client()
        .batch_execute(
            "CREATE TABLE public.runs (x int); INSERT INTO public.runs VALUES (42); \
             CREATE TABLE public.schema_version (version int)",
        )
        .unwrap();
    let mut store = PgStore::open(&db.url).unwrap();
    store.save_run(&sample_run("h", 0)).unwrap();
    assert_eq!(store.check().unwrap().runs, 1);
    let x: i32 = db
        .client()
        .query_one("SELECT x FROM public.runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(x, 42);
    // an `iozone` schema made empty by an administrator is taken as new
    let db = pg_database!();
    db.client().batch_execute("CREATE SCHEMA iozone").unwrap();
    assert_eq!(
        PgStore::migrate_only(&db.url).unwrap(),
        (0, PgStore::latest_schema())
    );
}

#[test]
fn pg_migrations_apply_in_order_once_and_roll_back_whole() {
    let db = pg_database!();
    // the real migrations, then test steps after them
    let init = super::migrate::POSTGRES;
    let known = init.len();
    let with = |more: &[&'static str]| [init, more].concat();
    let mut store = PgStore::open_with_steps(&db.url, init).unwrap();
    let run = sample_run("h", 0);
    store.save_run(&run).unwrap();
    drop(store);
    // a later migration: applied once, recorded, the runs kept
    let second =
        "ALTER TABLE iozone.runs ADD COLUMN extra text; CREATE TABLE iozone.extra (x int);";
    for _ in 0..2 {
        let store = PgStore::open_with_steps(&db.url, &with(&[second])).unwrap();
        assert_eq!(store.check().unwrap().runs, 1);
    }
    let versions: Vec<i32> = db
        .client()
        .query("SELECT version FROM iozone.schema_version ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, (1..=known as i32 + 1).collect::<Vec<_>>());
    // this iozone knows one migration fewer: refused
    assert!(matches!(
        PgStore::open_with_steps(&db.url, init),
        Err(StoreError::TooNew { found, known: k, .. }) if found == known + 1 && k == known
    ));
    // a migration that fails leaves nothing of itself behind
    let third = "CREATE TABLE iozone.half (x int); SELECT 1 / 0;";
    let err = PgStore::open_with_steps(&db.url, &with(&[second, third]))
        .err()
        .expect("a failing migration fails the open");
    assert_clear(&err, "division by zero", "iozone-test");
    let half: bool = db
        .client()
        .query_one("SELECT to_regclass('iozone.half') IS NOT NULL", &[])
        .unwrap()
        .get(0);
    assert!(!half);
    let store = PgStore::open_with_steps(&db.url, &with(&[second])).unwrap();
    assert_eq!(store.check().unwrap().schema_version, known + 1);
}

#[test]
fn pg_a_run_from_before_queue_depths_reads_as_depth_one() {
    let db = pg_database!();
    let before_depths = &super::migrate::POSTGRES[..2];
    drop(PgStore::open_with_steps(&db.url, before_depths).unwrap());
    // a run as the schema before depths stored it
    db.client()
        .batch_execute(
            "INSERT INTO iozone.runs (uuid, started_at, status, tool_version, engine, cache, \
             threads, file_size, file_sizes, record_sizes, tests, repeat, seed, auto, verify, \
             read_pct, stride_records, latency, dir) VALUES \
             ('0b8e8f8e-6a0e-4a4c-9b1e-6c3c1c1c1c1c', '2026-01-01T00:00:00Z', 'complete', \
             '0.1.0', 'mmap', 'buffered', 1, 1048576, '[1048576]', '[4096]', '[\"write\"]', 1, 7, \
             false, false, 50, 17, true, '/srv'); \
             INSERT INTO iozone.results (run_id, warmup, test, file_size, record_size, repetition, \
             bytes, elapsed_ns, throughput) SELECT id, false, 'write', 1048576, 4096, 1, 1048576, \
             1000000, 1.048576e9 FROM iozone.runs",
        )
        .unwrap();
    let store = PgStore::open(&db.url).unwrap();
    let runs = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].params.iodepth, 1);
    // its results went through the run's engine and cache mode
    let full = store.load_run(runs[0].id.unwrap()).unwrap().unwrap();
    assert_eq!(
        (full.results[0].engine, full.results[0].cache),
        (EngineKind::Mmap, CacheMode::Buffered)
    );
    assert_eq!(
        store.check().unwrap().schema_version,
        PgStore::latest_schema()
    );
}

#[test]
fn pg_concurrent_first_opens_create_the_schema_once() {
    let db = pg_database!();
    std::thread::scope(|scope| {
        let opens: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| PgStore::open(&db.url).map(|_| ())))
            .collect();
        for open in opens {
            open.join().unwrap().unwrap();
        }
    });
    let applied: i64 = db
        .client()
        .query_one("SELECT count(*) FROM iozone.schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(applied, PgStore::latest_schema() as i64);
}

/// Results refer to their run through a check once a statement (PostgreSQL migration
/// 0009) rather than a foreign key: it must refuse what the key refused, lock what the
/// key locked and delete what the key's cascade deleted.
#[test]
fn pg_results_belong_to_runs_as_through_a_foreign_key() {
    use ::postgres::error::SqlState;
    let db = pg_database!();
    let mut store = PgStore::open(&db.url).unwrap();
    store
        .save_runs(&[sample_run("a", 0), sample_run("b", 1)])
        .unwrap();
    let mut client = db.client();
    let ids: Vec<i64> = (client
        .query("SELECT id FROM iozone.runs ORDER BY id", &[])
        .unwrap())
    .iter()
    .map(|r| r.get(0))
    .collect();
    let (a, b) = (ids[0], ids[1]);
    let columns: String = client
        .query_one(
            "SELECT string_agg(column_name, ', ' ORDER BY column_name) FROM information_schema.columns \
             WHERE table_schema = 'iozone' AND table_name = 'results' AND column_name NOT IN ('run_id', 'repetition')",
            &[],
        )
        .unwrap()
        .get(0);
    // run a's results again, as further repetitions (keys of their own) of run `to`
    let copy = |to: i64| {
        format!(
            "INSERT INTO iozone.results (run_id, repetition, {columns}) \
             SELECT {to}, repetition + 100, {columns} FROM iozone.results WHERE run_id = {a}"
        )
    };
    let count = |client: &mut ::postgres::Client, run: i64| -> i64 {
        client
            .query_one(
                "SELECT count(*) FROM iozone.results WHERE run_id = $1",
                &[&run],
            )
            .unwrap()
            .get(0)
    };
    let each = count(&mut client, a);
    assert!(each > 0);

    // a statement with one result of no run is refused whole, as a foreign key refuses it
    let err = client
        .batch_execute(&format!(
            "{} UNION ALL SELECT {}, repetition, {columns} FROM iozone.results WHERE run_id = {a}",
            copy(b),
            b + 1000
        ))
        .unwrap_err();
    assert_eq!(err.code(), Some(&SqlState::FOREIGN_KEY_VIOLATION), "{err}");
    assert_eq!(count(&mut client, b), each);
    assert_eq!(count(&mut client, b + 1000), 0);

    // a transaction that inserted results of run b holds it: b cannot be deleted under it
    let mut writer = db.client();
    let mut tx = writer.transaction().unwrap();
    tx.batch_execute(&copy(b)).unwrap();
    let err = client
        .batch_execute(&format!(
            "SET lock_timeout = '200ms'; DELETE FROM iozone.runs WHERE id = {b}"
        ))
        .unwrap_err();
    assert_eq!(err.code(), Some(&SqlState::LOCK_NOT_AVAILABLE), "{err}");
    tx.commit().unwrap();
    assert_eq!(count(&mut client, b), 2 * each);

    // deleting runs deletes their results, and no one else's
    client
        .batch_execute(&format!("DELETE FROM iozone.runs WHERE id = {b}"))
        .unwrap();
    assert_eq!(count(&mut client, b), 0);
    assert_eq!(count(&mut client, a), each);
}
