//! Databases of a test's own: a [`Scene`] (a scratch directory and a SQLite file in
//! it), or a [`Db`] (a SQLite file, or a database on the PostgreSQL test server) for
//! tests that hold both stores to the same behaviour.

use std::ffi::OsStr;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use super::{Measure, PgDb, iozone, json, ok, on};

/// A scratch directory to measure in and a SQLite database of its own.
pub struct Scene {
    pub dir: TempDir,
    pub db: PathBuf,
}

impl Scene {
    pub fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("history.db");
        Scene { dir, db }
    }

    /// The binary on this scene's database.
    pub fn iozone(&self) -> assert_cmd::Command {
        let mut cmd = iozone();
        cmd.env("IOZONE_DB", &self.db);
        cmd
    }

    /// A recorded run, [`Measure::tiny`] of two repetitions; returns its stdout JSON.
    pub fn run(&self, extra: &[&str]) -> Value {
        Measure::tiny(&self.db, self.dir.path())
            .repeat(2)
            .args(extra)
            .json()
    }

    /// `iozone ARGS`, which must succeed: its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        ok(&self.db, args)
    }

    pub fn history(&self, args: &[&str]) -> Vec<Value> {
        let text = self.ok(&[&["history", "--format", "json"], args].concat());
        serde_json::from_str::<Vec<Value>>(&text).unwrap()
    }
}

/// A database a test imports or records into: a SQLite file, or a database of its own
/// on the PostgreSQL test server.
pub enum Db {
    Sqlite(TempDir),
    Postgres(PgDb),
}

impl Db {
    pub fn sqlite() -> Db {
        Db::Sqlite(tempfile::tempdir().unwrap())
    }

    pub fn postgres(what: &str) -> Option<Db> {
        PgDb::new(what).map(Db::Postgres)
    }

    /// What `IOZONE_DB` says for it.
    pub fn location(&self) -> String {
        match self {
            Db::Sqlite(dir) => dir.path().join("history.db").display().to_string(),
            Db::Postgres(db) => db.url.clone(),
        }
    }

    /// `iozone ARGS` on this database: exit status, stdout, stderr.
    pub fn on<A: AsRef<OsStr> + Debug>(&self, args: &[A]) -> (Option<i32>, String, String) {
        on(self.location(), args)
    }

    /// `iozone ARGS`, which must succeed; its stdout.
    pub fn ok<A: AsRef<OsStr> + Debug>(&self, args: &[A]) -> String {
        ok(self.location(), args)
    }

    /// The UUIDs of every run recorded, as `history --all` lists them.
    pub fn uuids(&self) -> Vec<String> {
        let listed = json(
            self.ok(&["history", "--all", "--format", "json"])
                .as_bytes(),
        );
        let runs = listed.as_array().expect("an array of runs");
        runs.iter()
            .map(|r| r["uuid"].as_str().unwrap().to_string())
            .collect()
    }

    /// Every command that reads runs, each of which must succeed: the listings, each
    /// run shown, the trend, the report, both exports and the check.
    pub fn assert_every_reader_works(&self, scratch: &Path) {
        self.ok(&["history"]);
        self.ok(&["history", "--all", "--format", "csv"]);
        for uuid in self.uuids() {
            self.ok(&["show", &uuid]);
            self.ok(&["show", &uuid, "--format", "json"]);
        }
        self.ok(&["trend"]);
        let report = scratch.join(format!("report-{}.html", rand::random::<u64>()));
        self.ok(&["report", "-o", report.to_str().unwrap()]);
        self.ok(&["export", "--format", "json"]);
        self.ok(&["export", "--format", "csv"]);
        self.ok(&["db", "check"]);
    }
}
