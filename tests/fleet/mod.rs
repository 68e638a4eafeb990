//! Fleets: the PostgreSQL store driven through the CLI, `sync`, and `compare --by`.

mod hosts;
mod passwords;

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::common::{
    Measure, Mount, PgDb, iozone, iozone_process, json, leftovers, ok, on, planted, require_root,
    spawn_until_measuring,
};

#[test]
fn every_command_works_on_postgresql() {
    let Some(pg) = PgDb::new("run every command against PostgreSQL") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let db = pg.url.as_str();
    let first = Measure::small(db, scratch.path())
        .label("a")
        .args(&["--tag", "os=dr9"])
        .json();
    let second = Measure::small(db, scratch.path()).label("b").json();
    assert_eq!(first["id"], 1);
    assert_eq!(second["id"], 2);
    let history: Vec<Value> =
        serde_json::from_str(&ok(db, &["history", "--format", "json"])).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["labels"], serde_json::json!(["b"]));
    let shown = json(ok(db, &["show", "1", "--format", "json"]).as_bytes());
    assert_eq!(
        shown, first,
        "show on PostgreSQL differs from what run printed"
    );
    let c = json(ok(db, &["compare", "a", "b", "--format", "json"]).as_bytes());
    assert_eq!(c["rows"].as_array().unwrap().len(), 4);
    ok(db, &["trend"]);
    ok(
        db,
        &[
            "history", "--tag", "os=dr9", "--label", "a", "--since", "1d",
        ],
    );
    let report = scratch.path().join("r.html");
    ok(db, &["report", "a", "b", "-o", report.to_str().unwrap()]);
    // export from PostgreSQL, import into SQLite, and back into a fresh PostgreSQL db
    let exported = scratch.path().join("e.json");
    ok(
        db,
        &[
            "export",
            "--format",
            "json",
            "-o",
            exported.to_str().unwrap(),
        ],
    );
    let lite = scratch.path().join("h.db");
    ok(
        lite.to_str().unwrap(),
        &["import", exported.to_str().unwrap()],
    );
    let Some(other) = PgDb::new("import into PostgreSQL") else {
        return;
    };
    ok(&other.url, &["import", exported.to_str().unwrap()]);
    let again = json(ok(&other.url, &["show", "2", "--format", "json"]).as_bytes());
    assert_eq!(again, second);
    let classic =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/classic/bebox-beos-dr8.txt");
    ok(db, &["import", classic.to_str().unwrap(), "-l", "DR8"]);
    // db check, migrate, path — and the password never shows
    let check = ok(db, &["db", "check"]);
    assert!(check.contains("integrity      ok"), "{check}");
    assert!(check.contains("runs           3"), "{check}");
    let (code, _, err) = on(db, &["db", "migrate"]);
    assert_eq!(code, Some(0), "{err}");
    let path = ok(db, &["db", "path"]);
    assert!(
        path.contains("***") && !path.contains("iozone-test"),
        "{path}"
    );
    assert!(!check.contains("iozone-test") && !err.contains("iozone-test"));
}

#[test]
fn sync_moves_each_run_once() {
    let Some(pg) = PgDb::new("sync into PostgreSQL") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let local = scratch.path().join("local.db");
    let local = local.to_str().unwrap();
    for label in ["one", "two", "three"] {
        Measure::small(local, scratch.path()).label(label).json();
    }
    let (code, _, err) = on(local, &["sync", "--to", &pg.url, "--batch", "2"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("Synced 3 runs to") && err.contains("(0 already there)"),
        "{err}"
    );
    assert!(!err.contains("iozone-test"), "the password leaked: {err}");
    let (_, _, err) = on(local, &["sync", "--to", &pg.url]);
    assert!(
        err.contains("Synced 0 runs to") && err.contains("(3 already there)"),
        "{err}"
    );
    // what arrived is what left
    let a: Vec<Value> = serde_json::from_str(&ok(local, &["history", "--format", "json"])).unwrap();
    let b: Vec<Value> =
        serde_json::from_str(&ok(&pg.url, &["history", "--format", "json"])).unwrap();
    let strip = |runs: &[Value]| -> Vec<Value> {
        runs.iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("id");
                r
            })
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
    // and back down into an empty local database
    let down = scratch.path().join("down.db");
    let (code, _, err) = on(down.to_str().unwrap(), &["sync", "--from", &pg.url]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("Synced 3 runs from"), "{err}");
}

/// A target that fills up mid-sync: the sync fails with the target's error, in bounded
/// time (the source is read a batch ahead on a thread of its own, which must stop too),
/// keeping every whole batch it wrote; once there is room, a second sync sends the rest
/// and nothing twice.
#[test]
fn a_sync_into_a_full_disk_keeps_whole_batches_and_resumes() {
    if !require_root("fill a small tmpfs during a sync") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let source = scratch.path().join("source.db");
    let runs: Vec<iozone::model::Run> = (0..3000)
        .map(|i| planted(&format!("h{}", i % 7), i % 90, 300e6 + i as f64))
        .collect();
    iozone::store::open(&source)
        .unwrap()
        .save_runs(&runs)
        .unwrap();
    let source = source.to_str().unwrap();
    let small = Mount::tmpfs("1m", "");
    let target = small.path().join("target.db");
    let target = target.to_str().unwrap();
    let sync = || {
        let out = iozone()
            .args(["--db", source, "sync", "--to", target, "--batch", "100"])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (status, err) = sync();
    assert!(!status.success(), "{err}");
    assert!(err.contains("full"), "{err}");
    let kept = || {
        ok(target, &["history", "--all", "--format", "csv"])
            .lines()
            .count()
            - 1
    };
    let first = kept();
    assert!(
        first > 0 && first < 3000 && first % 100 == 0,
        "{first} runs kept"
    );
    let remounted = std::process::Command::new("mount")
        .args(["-o", "remount,size=64m"])
        .arg(small.path())
        .status()
        .unwrap();
    assert!(remounted.success());
    let (status, err) = sync();
    assert!(status.success(), "{err}");
    let said = format!("Synced {} runs to", 3000 - first);
    assert!(
        err.contains(&said) && err.contains(&format!("({first} already there)")),
        "{err}"
    );
    assert_eq!(kept(), 3000);
}

#[test]
fn sixteen_processes_record_into_postgresql_at_once() {
    let Some(pg) = PgDb::new("record from 16 processes") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..16)
        .map(|i| {
            iozone_process()
                .args([
                    "--db", &pg.url, "run", "-s", "128k", "-r", "64k", "-n", "3", "-q",
                ])
                .args(["--cache", "buffered", "-l", &format!("p{i}"), "-d"])
                .arg(scratch.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs: Vec<Value> =
        serde_json::from_str(&ok(&pg.url, &["history", "--all", "--format", "json"])).unwrap();
    assert_eq!(runs.len(), 16);
    let statuses: Vec<&Value> = runs.iter().map(|r| &r["status"]).collect();
    assert!(
        runs.iter().all(|r| r["status"] == "complete"),
        "{statuses:?}"
    );
    let mut client = pg.client();
    let results: i64 = client
        .query_one("SELECT count(*) FROM iozone.results WHERE NOT warmup", &[])
        .unwrap()
        .get(0);
    assert_eq!(results, 16 * 4 * 3);
}

#[test]
fn a_session_cut_mid_run_is_reconnected_and_the_run_recorded_whole() {
    let Some(pg) = PgDb::new("drop a connection mid-run") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    // long enough that the session is cut before the run can record its results
    let (mut child, mut stderr) = spawn_until_measuring(
        iozone_process()
            .args([
                "--db", &pg.url, "run", "-s", "8M", "-r", "4k", "-n", "30", "--cache", "buffered",
            ])
            .arg("-d")
            .arg(scratch.path()),
    );
    // the server ends the run's session, as a restart or a failover would
    let mut admin = pg.client();
    let db_name = pg.url.rsplit('/').next().unwrap().to_string();
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&db_name],
        )
        .unwrap();
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("trying again for up to 60 s"), "{rest}");
    assert!(rest.contains("Reconnected"), "{rest}");
    assert!(!rest.contains("iozone-test"), "the password leaked: {rest}");
    assert!(leftovers(scratch.path()).is_empty());
    // recorded once, complete, with every result: never with partial figures
    let results: i64 = admin
        .query_one("SELECT count(*) FROM iozone.results WHERE NOT warmup", &[])
        .unwrap()
        .get(0);
    assert_eq!(results, 4 * 30);
    let statuses: Vec<String> = admin
        .query("SELECT status FROM iozone.runs", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(statuses, ["complete"]);
}

#[test]
fn bad_servers_and_urls_are_one_line_without_the_password() {
    let Some(base) = crate::common::pg_base_url("refuse bad servers") else {
        return;
    };
    let wrong_password = base.replace("iozone-test", "not-the-password");
    let unreachable = "postgres://iozone:hunter2@127.0.0.1:1/iozone_test";
    let unparseable = "postgres://iozone:hunter2@[::1/db";
    for (url, needle) in [
        (wrong_password.as_str(), "password authentication failed"),
        (unreachable, "cannot connect"),
        (unparseable, "postgres://iozone:***@"),
    ] {
        for args in [&["history"][..], &["db", "check"]] {
            let (code, out, err) = on(url, args);
            assert_eq!(code, Some(2), "{url} {args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{url}: {err}");
            assert!(err.contains(needle), "{url}: expected '{needle}' in {err}");
            for secret in ["not-the-password", "hunter2", "iozone-test"] {
                assert!(
                    !err.contains(secret) && !out.contains(secret),
                    "{secret} leaked: {err}"
                );
            }
        }
    }
    // a database written by a newer iozone: refused, untouched
    let Some(pg) = PgDb::new("refuse a newer schema") else {
        return;
    };
    ok(&pg.url, &["db", "check"]);
    let mut client = pg.client();
    client
        .batch_execute(
            "INSERT INTO iozone.schema_version (version, applied_at) VALUES (999, now())",
        )
        .unwrap();
    let (code, _, err) = on(&pg.url, &["history"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("newer iozone"), "{err}");
    let (code, _, err) = on(&pg.url, &["run", "-s", "64k", "-d", "/tmp"]);
    assert_eq!(code, Some(2), "{err}");
    let runs: i64 = client
        .query_one("SELECT count(*) FROM iozone.runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(runs, 0);
}
