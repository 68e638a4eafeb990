//! A measured run is never lost to the database: a lock held past the busy timeout, a
//! full disk, a PostgreSQL server restarted or stopped at the final write. Each run is
//! frozen (SIGSTOP) after its first measurement, so it has begun in the store and has
//! measuring ahead; the fault is set up; the run goes on (SIGCONT) to its final write.

use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};

use rustix::process::{Pid, Signal, kill_process};
use serde_json::Value;

use crate::common::{self, Mount, iozone, iozone_process, json, require_root, spawn_until};

/// A run long enough that measuring is still ahead after its first measurement.
const RUN: &[&str] = &[
    "run", "-s", "1M", "-r", "4k,64k", "-n", "3", "--warmup", "0", "-v", "--format", "json",
];

/// A run spawned against `db`, frozen right after its first measurement.
struct Frozen {
    child: Child,
    stderr: BufReader<ChildStderr>,
}

impl Frozen {
    fn start(db: &str, dir: &Path, env: &[(&str, &str)]) -> Frozen {
        let mut cmd = iozone_process();
        cmd.env("IOZONE_DB", db).args(RUN).arg("-d").arg(dir);
        for (key, value) in env {
            cmd.env(key, value);
        }
        let (child, stderr, _) = spawn_until(cmd.stdout(Stdio::piped()), "Measured");
        kill_process(Pid::from_child(&child), Signal::STOP).unwrap();
        Frozen { child, stderr }
    }

    /// Lets the run go on to its end: its exit status, stdout and the rest of stderr.
    fn finish(mut self) -> (Option<i32>, Vec<u8>, String) {
        kill_process(Pid::from_child(&self.child), Signal::CONT).unwrap();
        // stderr is read on a thread, so neither pipe fills while the other is read
        let reader = std::thread::spawn(move || {
            let mut rest = String::new();
            self.stderr.read_to_string(&mut rest).unwrap();
            rest
        });
        let mut stdout = Vec::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_end(&mut stdout)
            .unwrap();
        let status = self.child.wait().unwrap();
        (status.code(), stdout, reader.join().unwrap())
    }
}

/// The spool file a "measured but not recorded" message names.
fn spooled_file(stderr: &str) -> PathBuf {
    let line = stderr
        .lines()
        .find(|l| l.contains("measured but not recorded"))
        .unwrap_or_else(|| panic!("no 'not recorded' message in {stderr}"));
    let start = line.find("saved in ").expect("names the file") + "saved in ".len();
    let end = line[start..]
        .find(": `iozone import")
        .expect("names the command")
        + start;
    PathBuf::from(&line[start..end])
}

/// Asserts a run was printed but not recorded, and spooled in `data`; returns the
/// printed run and the spool file.
fn assert_spooled(outcome: (Option<i32>, Vec<u8>, String), data: &Path) -> (Value, PathBuf) {
    let (code, stdout, stderr) = outcome;
    assert_eq!(
        code,
        Some(3),
        "exit 3 for measured but not recorded: {stderr}"
    );
    let printed = json(&stdout);
    assert_eq!(printed["status"], "complete");
    assert_eq!(printed["id"], Value::Null, "no id: it is not recorded");
    assert_eq!(printed["results"].as_array().unwrap().len(), 24);
    let file = spooled_file(&stderr);
    assert!(file.starts_with(data.join("iozone/spool")), "{file:?}");
    assert!(file.is_file(), "{file:?} is not there");
    (printed, file)
}

/// Imports `file` into `db` and asserts the run recorded there is the one printed.
fn assert_imports_whole(db: &str, file: &Path, printed: &Value) {
    iozone()
        .env("IOZONE_DB", db)
        .arg("import")
        .arg(file)
        .assert()
        .success();
    let uuid = printed["uuid"].as_str().unwrap();
    let shown = iozone()
        .env("IOZONE_DB", db)
        .args(["show", uuid, "--format", "json"])
        .output()
        .unwrap();
    assert!(shown.status.success(), "{shown:?}");
    let shown = json(&shown.stdout);
    assert_eq!(shown["status"], "complete");
    assert_eq!(shown["results"], printed["results"]);
    assert_eq!(shown["started_at"], printed["started_at"]);
    let history = iozone()
        .env("IOZONE_DB", db)
        .args(["history", "--format", "json"])
        .output()
        .unwrap();
    let runs = json(&history.stdout);
    let same: Vec<&Value> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["uuid"] == uuid)
        .collect();
    assert_eq!(same.len(), 1, "one run of that UUID: {runs}");
}

/// Asserts the record a spooled run left `running` (the store could not take even the
/// mark of failure) reads as what it is: `failed`, waiting in `file`, never "killed";
/// and that `db check` counts it as it warns about it.
fn assert_listed_as_spooled(db: &str, data: &Path, file: &Path, printed: &Value) {
    let with_data = |args: &[&str]| {
        iozone()
            .env("IOZONE_DB", db)
            .env("XDG_DATA_HOME", data)
            .args(args)
            .output()
            .unwrap()
    };
    let listed = with_data(&["history", "--format", "json"]);
    let listed = json(&listed.stdout);
    let run = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uuid"] == printed["uuid"])
        .unwrap_or_else(|| panic!("the run's record in {listed}"));
    assert_eq!(run["status"], "failed", "{run}");
    let check = with_data(&["db", "check"]);
    assert!(check.status.success(), "{check:?}");
    let (out, err) = (
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr),
    );
    assert!(
        out.contains("unfinished     1 (1 not recorded, spooled)"),
        "{out}"
    );
    let warned = format!("failed: not recorded, it waits in {}", file.display());
    assert_eq!(err.matches(&warned).count(), 1, "{err}");
    assert!(!err.contains("killed"), "{err}");
}

/// A SQLite database with its schema, made by a command that creates it.
fn new_sqlite(dir: &Path) -> String {
    let db = dir.join("history.db").display().to_string();
    iozone()
        .env("IOZONE_DB", &db)
        .args(["db", "migrate"])
        .assert()
        .success();
    db
}

#[test]
fn a_lock_wait_is_said_and_left_out_of_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let db = new_sqlite(tmp.path());
    let mut holder = rusqlite::Connection::open(&db).unwrap();
    let lock = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let (child, _stderr, line) = spawn_until(
        iozone_process()
            .env("IOZONE_DB", &db)
            .args([
                "run", "-s", "64k", "-r", "4k", "-n", "1", "--format", "json",
            ])
            .arg("-d")
            .arg(tmp.path())
            .stdout(Stdio::piped()),
        "Waiting",
    );
    assert!(
        line.contains("for the database, locked by another process"),
        "{line}"
    );
    let released = chrono::Utc::now();
    lock.rollback().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let run = json(&out.stdout);
    let started: chrono::DateTime<chrono::Utc> =
        run["started_at"].as_str().unwrap().parse().unwrap();
    assert!(
        started >= released,
        "started_at {started} counts the wait for the lock, released at {released}"
    );
    drop(holder);
}

#[test]
fn a_lock_held_past_the_busy_timeout_spools_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let db = new_sqlite(tmp.path());
    let env = [
        ("IOZONE_BUSY_TIMEOUT", "1"),
        ("XDG_DATA_HOME", data.path().to_str().unwrap()),
    ];
    let run = Frozen::start(&db, tmp.path(), &env);
    let mut holder = rusqlite::Connection::open(&db).unwrap();
    let lock = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let (printed, file) = assert_spooled(run.finish(), data.path());
    lock.rollback().unwrap();
    common::assert_no_leftovers(tmp.path());
    assert_listed_as_spooled(&db, data.path(), &file, &printed);
    assert_imports_whole(&db, &file, &printed);
}

#[test]
fn a_full_disk_at_the_final_write_spools_the_run() {
    if !require_root("mount a small tmpfs for the database and fill it") {
        return;
    }
    let measured = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mount = Mount::tmpfs("2m", "");
    let db = new_sqlite(mount.path());
    let env = [
        ("IOZONE_RECORD_RETRY", "1"),
        ("XDG_DATA_HOME", data.path().to_str().unwrap()),
    ];
    let run = Frozen::start(&db, measured.path(), &env);
    let filler = mount.path().join("filler");
    fill(&filler);
    let outcome = run.finish();
    let last = outcome.2.lines().find(|l| l.contains("not recorded"));
    assert_eq!(
        last.map(|l| l.matches("database or disk is full").count()),
        Some(1),
        "the cause, once: {}",
        outcome.2
    );
    let (printed, file) = assert_spooled(outcome, data.path());
    std::fs::remove_file(&filler).unwrap();
    assert_listed_as_spooled(&db, data.path(), &file, &printed);
    assert_imports_whole(&db, &file, &printed);
}

/// Writes `file` until its filesystem has no room left.
fn fill(file: &Path) {
    let mut out = std::fs::File::create(file).unwrap();
    let block = vec![0x5a_u8; 64 << 10];
    loop {
        match out.write(&block) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("filling {file:?}: {e}"),
        }
    }
    // the last partial block, byte by byte
    while out.write(&block[..1]).is_ok_and(|n| n == 1) {}
}

#[test]
fn a_restarted_server_gets_the_run_and_a_stopped_one_leaves_it_in_the_spool() {
    if !require_root("start a PostgreSQL server of its own, to restart and stop") {
        return;
    }
    let server = PrivateServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().to_str().unwrap();

    // restarted while the run measures: recorded after reconnecting
    let run = Frozen::start(&server.url, tmp.path(), &[("XDG_DATA_HOME", data_home)]);
    server.pg_ctl(&["-m", "fast", "restart"]);
    let (code, stdout, stderr) = run.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("trying again for up to 60 s"), "{stderr}");
    assert!(stderr.contains("Reconnected"), "{stderr}");
    let printed = json(&stdout);
    let shown = iozone()
        .env("IOZONE_DB", &server.url)
        .args([
            "show",
            printed["uuid"].as_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let shown = json(&shown.stdout);
    assert_eq!(shown["status"], "complete");
    assert_eq!(shown["results"], printed["results"]);

    // stopped for good: printed, spooled, and imported whole once it is back
    let env = [("XDG_DATA_HOME", data_home), ("IOZONE_RECORD_RETRY", "2")];
    let run = Frozen::start(&server.url, tmp.path(), &env);
    server.pg_ctl(&["-m", "fast", "stop"]);
    let (printed, file) = assert_spooled(run.finish(), data.path());
    server.pg_ctl(&["-o", &server.options(), "start"]);
    assert_imports_whole(&server.url, &file, &printed);
    // and into another store as well: the spool is an export document
    let other = new_sqlite(tmp.path());
    assert_imports_whole(&other, &file, &printed);
    common::assert_no_leftovers(tmp.path());
}

/// A PostgreSQL cluster of this test's own (scripts/pg-test-server.sh on another port
/// and directory), to restart and stop without touching the shared test server.
struct PrivateServer {
    url: String,
    dir: PathBuf,
    port: u16,
}

impl PrivateServer {
    fn start() -> PrivateServer {
        let port = 55000 + rand::random::<u16>() % 5000;
        let dir = PathBuf::from(format!("/tmp/iozone-pg-private-{port}"));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server.sh");
        let out = Command::new("bash")
            .arg(script)
            .env("IOZONE_PG_PORT", port.to_string())
            .env("IOZONE_PG_DIR", &dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("export IOZONE_TEST_PG="))
            .expect("the script prints the URL")
            .to_string();
        PrivateServer { url, dir, port }
    }

    /// The server's options as the script started it (a restart reuses them, a start
    /// after a stop needs them again).
    fn options(&self) -> String {
        format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        )
    }

    /// `pg_ctl ARGS` on this cluster, as the postgres user, waiting for it to finish.
    fn pg_ctl(&self, args: &[&str]) {
        let status = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_ctl_binary())
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .arg("-w")
            .args(args)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl {args:?}");
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_ctl_binary())
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest installed PostgreSQL's pg_ctl (the script installs it when missing).
fn pg_ctl_binary() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().join("bin/pg_ctl"))
        .filter(|p| p.exists())
        .collect();
    versions.sort_by_key(|p| {
        p.iter()
            .nth(4)
            .and_then(|v| v.to_str()?.parse::<u32>().ok())
    });
    versions.pop().expect("PostgreSQL is installed")
}
