//! `db check` on a SQLite file, and `db check --repair`: SQLite's integrity and
//! foreign-key checks; every run read back as a command reads it (a value an older
//! iozone wrote that this one cannot read fails every command that meets it); the
//! runs that read back but hold what no run may (`Run::check_storable`); what can be
//! repaired of it; and the mark that keeps writers out of a file found damaged.
//!
//! The mark is the file's `PRAGMA application_id`, 'IOZD' instead of 'IOZN': it lives
//! in the header that every open reads anyway, so a writer learns of damage at no
//! cost, where finding it takes a read of every page (seconds for a large file, on
//! every `run`). An older iozone takes a marked file for no iozone database at all,
//! and so refuses to write to it too.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};

use super::bind::{decode, values};
use super::busy::wait_for_lock;
use super::schema::{marked_damaged, set_damage_mark, user_version};
use super::{SqliteStore, check_wal, files, sql_error};
use crate::model::Run;
use crate::store::columns::RUN_COLUMNS;
use crate::store::{BadRun, CheckReport, Detail, Repaired, StoreError, migrate, statements};

impl SqliteStore {
    pub(super) fn report(&self) -> Result<CheckReport, StoreError> {
        let err = |e| self.err(e);
        let texts = |sql: &str| -> Result<Vec<Vec<String>>, StoreError> {
            let mut stmt = self.conn.prepare(sql).map_err(err)?;
            let width = stmt.column_count();
            stmt.query_map([], |r| {
                (0..width).map(|i| Ok(shown(r.get_ref(i)?))).collect()
            })
            .and_then(|rows| rows.collect())
            .map_err(err)
        };
        let count = |sql: &str| -> Result<u64, StoreError> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(err)
        };
        // SQLite's own words, on one line ("*** in database main ***" heads a list)
        let mut problems: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .map_err(err)?
            .iter()
            .flat_map(|text| text.lines())
            .map(str::trim)
            .filter(|line| !line.is_empty() && *line != "ok" && !line.starts_with("***"))
            .map(str::to_string)
            .collect();
        // table, rowid (null in a table without one), parent, constraint
        problems.extend(texts("PRAGMA foreign_key_check")?.into_iter().map(|row| {
            let table = row.first().map_or("", |t| t.trim_matches('\''));
            let parent = row.get(2).map_or("", |t| t.trim_matches('\''));
            format!("{table} has rows whose row in {parent} is gone")
        }));
        problems.dedup();
        let (unreadable, unstorable) = self.bad_runs().map_err(err)?;
        Ok(CheckReport {
            path: self.path.display().to_string(),
            schema_version: user_version(&self.conn).map_err(err)?,
            latest_schema: migrate::SQLITE.len(),
            runs: count("SELECT count(*) FROM runs")?,
            results: count("SELECT count(*) FROM results")?,
            unfinished_runs: count("SELECT count(*) FROM runs WHERE status = 'running'")?,
            problems,
            unreadable,
            unstorable,
        })
    }

    /// Every run read back as `history` and `show` read it: those that cannot be
    /// (the first column that fails), and those that read back but hold what no run
    /// may (the first field), by id.
    fn bad_runs(&self) -> rusqlite::Result<(Vec<BadRun>, Vec<BadRun>)> {
        let (mut unreadable, mut unstorable) = (Vec::new(), Vec::new());
        let sql = format!("{} ORDER BY id", statements::select_runs(""));
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        // column 0 is the id, 1 the UUID: neither a run's row can lack
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            match decode(row, RUN_COLUMNS, Run::default()) {
                Ok(run) => {
                    if let Err(problem) = run.check_record() {
                        unstorable.push(bad(id, run.uuid.to_string(), problem.to_string()));
                    }
                }
                Err(e) => {
                    let uuid = shown(row.get_ref(1)?).trim_matches('\'').to_string();
                    unreadable.push(bad(id, uuid, unreadable_value(row, &e)));
                }
            }
        }
        // what the runs' rows do not hold: their labels, tags and figures, which the
        // runs found here are read whole for, to name the field
        let mut candidates: Vec<i64> = Vec::new();
        let nul = |column: &str| format!("instr(CAST({column} AS BLOB), x'00') > 0");
        for sql in [
            format!(
                "SELECT DISTINCT run_id FROM run_labels WHERE {}",
                nul("label")
            ),
            format!(
                "SELECT DISTINCT run_id FROM run_tags WHERE {} OR {}",
                nul("key"),
                nul("value")
            ),
        ] {
            let mut stmt = self.conn.prepare(&sql)?;
            let ids = stmt.query_map([], |r| r.get(0))?;
            candidates.extend(ids.collect::<rusqlite::Result<Vec<i64>>>()?);
        }
        let outside = statements::results_outside("");
        let mut stmt = self.conn.prepare(&outside.sql)?;
        let ids = stmt.query_map(values(&outside), |r| r.get(0))?;
        candidates.extend(ids.collect::<rusqlite::Result<Vec<i64>>>()?);
        candidates.sort_unstable();
        candidates.dedup();
        let found: std::collections::HashSet<i64> =
            unreadable.iter().chain(&unstorable).map(|b| b.id).collect();
        for id in candidates {
            if found.contains(&id) {
                continue;
            }
            let Some(run) = self.whole_run(id)? else {
                continue;
            };
            if let Err(problem) = run.check_storable() {
                unstorable.push(bad(id, run.uuid.to_string(), problem.to_string()));
            }
        }
        unstorable.sort_by_key(|b| b.id);
        Ok((unreadable, unstorable))
    }

    /// A run read whole: its row, labels, tags and results.
    fn whole_run(&self, id: i64) -> rusqlite::Result<Option<Run>> {
        let sql = format!("{} WHERE id = ?", statements::select_runs(""));
        let mut runs = match self
            .conn
            .query_row(&sql, [id], |row| decode(row, RUN_COLUMNS, Run::default()))
        {
            Ok(run) => vec![run],
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
            Err(e) => return Err(e),
        };
        self.labels_and_tags(&mut runs)?;
        let mut run = runs.pop().expect("one run");
        let mut results = self.results(&[id], Detail::Full)?;
        results.remove(&id).unwrap_or_default().fill(&mut run);
        Ok(Some(run))
    }

    pub(super) fn repair_found(
        &mut self,
        report: &CheckReport,
    ) -> Result<Vec<Repaired>, StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let mut done = Vec::new();
        let tx = self.conn.transaction().map_err(err)?;
        if !report.problems.is_empty() {
            for table in ["results", "run_labels", "run_tags", "run_summaries"] {
                let gone = tx
                    .execute(
                        &format!("DELETE FROM {table} WHERE run_id NOT IN (SELECT id FROM runs)"),
                        [],
                    )
                    .map_err(err)?;
                if gone > 0 {
                    done.push(Repaired {
                        verb: "Removed",
                        what: format!(
                            "{} of {table} whose run is gone",
                            crate::units::count(gone, "row")
                        ),
                    });
                }
            }
        }
        let delete = statements::delete_runs("", "id = ?");
        for run in report.unreadable.iter().chain(&report.unstorable) {
            if tx.execute(&delete, [run.id]).map_err(err)? > 0 {
                done.push(Repaired {
                    verb: "Removed",
                    what: run.to_string(),
                });
            }
        }
        tx.commit().map_err(err)?;
        // an index that disagrees with its table is built again from the table, on its
        // own: a table's own pages, if damaged, are beyond it, and SQLite may roll back
        // the whole transaction it fails in (the check after says what is left)
        if !report.problems.is_empty() && self.conn.execute_batch("REINDEX").is_ok() {
            done.push(Repaired {
                verb: "Rebuilt",
                what: "the indexes".into(),
            });
        }
        Ok(done)
    }

    /// Sets or clears the mark of damage on the file at `path` (see the module
    /// documentation); whether the file is marked now. A file this process cannot
    /// write keeps its mark, if any (nothing can write to it either).
    pub fn record_damage(path: &Path, damaged: bool) -> Result<bool, StoreError> {
        if !files::exists(path)? || files::unwritable(path).is_some() {
            return Ok(false);
        }
        check_wal(path)?;
        let err = |e| sql_error(path, e);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_handler(Some(wait_for_lock)).map_err(err)?;
        if marked_damaged(&conn).map_err(err)? != damaged {
            set_damage_mark(&conn, damaged).map_err(err)?;
        }
        Ok(damaged)
    }
}

fn bad(id: i64, uuid: String, problem: String) -> BadRun {
    BadRun { id, uuid, problem }
}

/// What a run's row holds that cannot be read, from the error reading it gave.
fn unreadable_value(row: &Row, e: &rusqlite::Error) -> String {
    use rusqlite::Error::*;
    let column = match e {
        FromSqlConversionFailure(idx, ..)
        | InvalidColumnType(idx, ..)
        | Utf8Error(idx, _)
        | IntegralValueOutOfRange(idx, _) => Some(*idx),
        _ => None,
    };
    match column.and_then(|idx| Some((RUN_COLUMNS.get(idx)?.name, row.get_ref(idx).ok()?))) {
        Some((name, value)) => format!(
            "column {name} holds {}, which this iozone cannot read",
            shown(value)
        ),
        None => e.to_string(),
    }
}

/// A stored value as a message shows it: text quoted, cut after 60 characters, with
/// control characters escaped.
fn shown(value: ValueRef) -> String {
    match value {
        ValueRef::Null => "null".into(),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(x) => x.to_string(),
        ValueRef::Text(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            let mut cut: String = text.chars().take(60).collect();
            if cut.len() < text.len() {
                cut.push('…');
            }
            format!("'{}'", cut.escape_debug())
        }
        ValueRef::Blob(bytes) => format!("a blob of {} bytes", bytes.len()),
    }
}
