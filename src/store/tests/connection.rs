//! A PostgreSQL server's credentials, reachability and URLs: every failure one clear
//! line without the password, in bounded time; and listing over a million runs.

use super::server::server_with;
use super::*;

#[test]
fn pg_a_wrong_password_says_so_in_one_line_without_it() {
    let Some(url) = server_with("Wrong-Secret-42", "iozone_test") else {
        return;
    };
    let err = PgStore::open(&url).err().expect("a wrong password fails");
    assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
    assert_clear(
        &err,
        "password authentication failed for user",
        "Wrong-Secret-42",
    );
    assert_clear(&err, "postgres://iozone:***@", "Wrong-Secret-42");
    // the same in a parameter
    let url = url.replace(":Wrong-Secret-42@", "@") + "?password=Wrong-Secret-42";
    let err = PgStore::open(&url).err().expect("a wrong password fails");
    assert_clear(&err, "password=***", "Wrong-Secret-42");
    // a database that does not exist is named
    let Some(url) = server_with("iozone-test", "no_such_db") else {
        return;
    };
    let err = PgStore::open(&url).err().expect("no such database");
    assert_clear(
        &err,
        "database \"no_such_db\" does not exist",
        "iozone-test",
    );
}

#[test]
fn pg_an_unreachable_server_fails_in_bounded_time() {
    if test_server().is_none() {
        return;
    }
    let start = Instant::now();
    let err = PgStore::open("postgres://iozone:x-secret@127.0.0.1:1/db")
        .err()
        .expect("nothing listens on port 1");
    assert!(start.elapsed() < std::time::Duration::from_secs(12));
    assert_clear(&err, "cannot connect", "x-secret");
    assert_clear(&err, "postgres://iozone:***@127.0.0.1:1/db", "x-secret");

    // a port that accepts and then says nothing: the URL's own timeout holds
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let start = Instant::now();
    let err = PgStore::open(&format!(
        "postgres://iozone:x-secret@127.0.0.1:{port}/db?connect_timeout=1"
    ))
    .err()
    .expect("nobody answers");
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    assert_clear(&err, "no answer within 1 s", "x-secret");
}

#[test]
fn pg_a_url_that_does_not_parse_says_what_was_expected() {
    if test_server().is_none() {
        return;
    }
    for url in [
        "postgres://iozone:pw-secret@127.0.0.1:notaport/db",
        "postgres://iozone:pw-secret@127.0.0.1/db?sslmode=sometimes",
        "postgres://iozone:pw-secret@127.0.0.1/db?colour=blue",
    ] {
        let err = PgStore::open(url).err().expect("a bad URL fails");
        assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
        assert_clear(&err, "not a valid PostgreSQL URL", "pw-secret");
        assert_clear(&err, "postgres://USER:PASSWORD@HOST", "pw-secret");
    }
}

#[test]
fn pg_a_connection_cut_mid_run_is_one_clear_line_and_writes_nothing() {
    let db = pg_database!();
    let mut store = PgStore::open(&db.url).unwrap();
    let run = sample_run("h", 0);
    let id = store.begin_run(&run).unwrap();
    // as a restart or a failover would, between begin_run and finish_run
    db.client()
        .execute("SELECT pg_terminate_backend($1)", &[&store.backend_pid()])
        .unwrap();
    let err = store
        .finish_run(id, &run)
        .expect_err("the connection is gone");
    assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
    assert_clear(&err, "the server closed the connection", "iozone-test");
    // and it stays gone, saying so, for reads too
    let err = store
        .list_runs(&RunFilter::default())
        .expect_err("still gone");
    assert_clear(&err, "the server closed the connection", "iozone-test");
    // the run stays as begun: never complete with partial figures
    let again = PgStore::open(&db.url).unwrap();
    let back = again.load_run(id).unwrap().unwrap();
    assert_eq!(back.status, RunStatus::Running);
    assert!(back.results.is_empty());
}

#[test]
fn pg_the_location_never_shows_the_password() {
    let db = pg_database!();
    let store = PgStore::open(&db.url).unwrap();
    assert!(!store.location().contains("iozone-test"));
    assert!(store.location().contains(":***@"));
    assert_eq!(store.check().unwrap().path, store.location());
}

/// Fills `db` with a million runs in SQL, each with labels, a tag and a result, and
/// analyzes the tables.
fn a_million_runs(db: &PgDatabase) {
    let start = Instant::now();
    db.client()
        .batch_execute(
            "INSERT INTO iozone.runs (uuid, started_at, status, tool_version, engine, cache, \
               threads, file_size, file_sizes, record_sizes, tests, repeat, seed, auto, verify, \
               read_pct, stride_records, latency, dir, hostname, fs_type) \
             SELECT gen_random_uuid(), timestamptz '2020-01-01' + g * interval '1 minute', \
               'complete', '0.1.0', 'posix', 'flush', 1, 1048576, '[1048576]', '[4096]', \
               '[\"write\"]', 1, g, false, false, 50, 17, true, '/srv', 'host' || (g % 200), \
               CASE WHEN g % 10 = 0 THEN 'xfs' ELSE 'ext4' END \
             FROM generate_series(1, 1000000) g; \
             INSERT INTO iozone.run_labels SELECT id, 'nightly', 0 FROM iozone.runs; \
             INSERT INTO iozone.run_labels SELECT id, 'rare', 1 FROM iozone.runs WHERE id % 5000 = 0; \
             INSERT INTO iozone.run_tags SELECT id, 'os', 'dr' || (id % 10) FROM iozone.runs; \
             INSERT INTO iozone.results SELECT id, 'write', 1048576, 4096, 1, 1048576, 1000, 1e9, \
               NULL, NULL, NULL, NULL, NULL FROM iozone.runs; \
             ANALYZE iozone.runs; ANALYZE iozone.run_labels; ANALYZE iozone.run_tags; \
             ANALYZE iozone.results;",
        )
        .unwrap();
    eprintln!(
        "built 1,000,000 runs in {:.0} s",
        start.elapsed().as_secs_f64()
    );
}

/// What `list_runs` is asked over a million runs: the newest, by host (and within a
/// window), filesystem, a common and a rare label, a tag and a test.
fn filters_over_a_million_runs() -> Vec<(&'static str, RunFilter)> {
    let t0 = Utc.with_ymd_and_hms(2021, 6, 1, 0, 0, 0).unwrap();
    vec![
        ("newest", RunFilter::default()),
        (
            "host",
            RunFilter {
                host: Some("host7".into()),
                ..Default::default()
            },
        ),
        (
            "host since 30 days",
            RunFilter {
                host: Some("host7".into()),
                since: Some(t0 - Duration::days(30)),
                until: Some(t0),
                ..Default::default()
            },
        ),
        (
            "fs",
            RunFilter {
                fs: Some("xfs".into()),
                ..Default::default()
            },
        ),
        (
            "common label",
            RunFilter {
                labels: vec!["nightly".into()],
                ..Default::default()
            },
        ),
        (
            "rare label",
            RunFilter {
                labels: vec!["rare".into()],
                ..Default::default()
            },
        ),
        (
            "tag",
            RunFilter {
                tags: vec![("os".into(), "dr3".into())],
                ..Default::default()
            },
        ),
        (
            "test",
            RunFilter {
                test: Some(TestKind::Write),
                ..Default::default()
            },
        ),
    ]
}

/// `list_runs` with limit 50 over a million runs, through the indexes.
#[test]
#[ignore = "a measurement: builds a million runs (about a minute)"]
fn pg_list_runs_over_a_million_runs() {
    let db = pg_database!();
    let mut store = PgStore::open(&db.url).unwrap();
    a_million_runs(&db);
    store.save_run(&sample_run("bebox", 0)).unwrap();
    let filters = filters_over_a_million_runs();
    let mut slow = Vec::new();
    for (what, filter) in filters {
        let filter = RunFilter {
            limit: Some(50),
            ..filter
        };
        store.list_runs(&filter).unwrap(); // warm the cache, as a server's is
        let start = Instant::now();
        let listed = store.list_runs(&filter).unwrap();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!(
            "list_runs {what}, limit 50: {} runs in {ms:.1} ms",
            listed.len()
        );
        if ms > 100.0 {
            slow.push(what);
        }
    }
    let start = Instant::now();
    store.resolve(&RunRef::Latest(3)).unwrap();
    let uuid = store
        .list_runs(&RunFilter {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap()[0]
        .uuid;
    store
        .resolve(&RunRef::UuidPrefix(uuid.to_string()[..6].into()))
        .unwrap();
    eprintln!(
        "resolve latest~3 and a UUID prefix: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    assert!(slow.is_empty(), "over 100 ms: {slow:?}");
    drop(store);
}
