//! How a run is written: its row with labels and tags, its results in the table's key
//! order and in statements of several rows, and the summaries derived from them. A run
//! passed in parts gets its results when it closes ([`Staged`]).

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;

use super::bind::values;
use super::shared::{Inserts, Rows};
use super::staged::{Figures, StageError, Staged};
use super::{SqliteStore, key_order};
use crate::model::{Measurement, RowSummary, Run, RunPart};
use crate::store::columns::{
    self, RESULT_COLUMNS, RUN_COLUMNS, ResultRow, SUMMARY_COLUMNS, SummaryRow,
};
use crate::store::{Detail, statements};

/// Whether a run of `run`'s UUID is recorded already.
fn uuid_known(conn: &Connection, run: &Run) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE uuid = ?)",
        [run.uuid.to_string()],
        |r| r.get(0),
    )
}

/// Inserts a whole run unless its UUID is already recorded (a complete run replaces
/// the empty record a failed final write left under its UUID).
pub(super) fn save_in(conn: &Connection, run: &Run) -> rusqlite::Result<Option<i64>> {
    if let Some(placeholder) = statements::placeholder_ids("", run) {
        let ids: Vec<i64> = conn
            .prepare_cached(&placeholder.sql)?
            .query_map(values(&placeholder), |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for id in ids {
            delete_run(conn, id)?;
        }
    }
    if uuid_known(conn, run)? {
        return Ok(None);
    }
    let id = insert_run(conn, run)?;
    insert_results(conn, id, run)?;
    Ok(Some(id))
}

/// `INSERT INTO table` of `rows` rows of the columns written (`columns::inserted`), a
/// `?` per value.
pub(super) fn insert_sql<T>(
    table: &str,
    columns: &'static [columns::Column<T>],
    rows: usize,
) -> String {
    let names: Vec<&str> = columns::inserted(columns).map(|c| c.name).collect();
    let row = format!("({})", vec!["?"; names.len()].join(", "));
    format!(
        "INSERT INTO {table} ({}) VALUES {}",
        names.join(", "),
        vec![row.as_str(); rows].join(", ")
    )
}

/// Inserts the run row with its labels and tags; returns the new id.
pub(super) fn insert_run(conn: &Connection, run: &Run) -> rusqlite::Result<i64> {
    conn.prepare_cached(&insert_sql("runs", RUN_COLUMNS, 1))?
        .execute(rusqlite::params_from_iter(columns::encode(
            RUN_COLUMNS,
            run,
        )))?;
    let id = conn.last_insert_rowid();
    for (table, rows) in statements::labels_and_tags_rows(id, run) {
        let mut insert = conn.prepare_cached(&table.insert(""))?;
        for row in rows {
            insert.execute(rusqlite::params_from_iter(row))?;
        }
    }
    Ok(id)
}

/// Rows one INSERT statement writes. Several: each statement stepped costs far more
/// than a row. Not hundreds: SQLite copies each bound text into an allocation of its
/// own, served from the connection's small lookaside pool only while a statement
/// binds few of them. Instructions callgrind counted for a 2 MB iozone3 import
/// (186,000 figures): 3.25 G at 1 row, 2.37 G at 8, 2.21 G at 32, 2.27 G at 64,
/// 2.34 G at 256. Binding fewer values since, the storing thread of a 3 MB import
/// (270,842 figures) counted 3.25 G at 32, 3.24 G at 64 and 3.26 G at 128.
const ROWS_PER_INSERT: usize = 32;

/// Inserts a run's measured results and its warm-up rounds' (flagged), and derives
/// its summaries from them.
pub(super) fn insert_results(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    insert_rows(conn, id, run)?;
    write_summaries(conn, id, &run.results)
}

/// `INSERT OR ROLLBACK` of results, up to its values. A statement of several rows that
/// may fail half-way (a constraint, a foreign key) copies each page it changes aside
/// first, to undo its own rows alone: about a sixth of an iozone3 import's time.
/// Rolling the whole transaction back instead needs no copy, and every write of results
/// is its transaction's, which fails whole anyway. Foreign keys need the copy too: an
/// import turns them off.
fn insert_results_head() -> String {
    let names: Vec<&str> = columns::inserted(RESULT_COLUMNS).map(|c| c.name).collect();
    format!(
        "INSERT OR ROLLBACK INTO results ({}) VALUES",
        names.join(", ")
    )
}

/// Inserts a run's measured results and its warm-up rounds' (flagged).
fn insert_rows(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    let mut inserts = Inserts::new(conn, insert_results_head());
    // Rows inserted in the table's key order append to its B-tree (see `key_order`).
    for group in key_order::in_key_order(run) {
        insert_group(&mut inserts, id, &group.rows)?;
    }
    Ok(())
}

/// Inserts `rows`, results of run `id` in key order, a few a statement.
fn insert_group(
    inserts: &mut Inserts,
    id: i64,
    rows: &[key_order::Insert],
) -> rusqlite::Result<()> {
    statements_of(id, rows).try_for_each(|values| inserts.insert(&values))
}

/// The values of `rows`, results of run `id` in key order, a statement's rows each,
/// encoded as they are asked for.
fn statements_of<'r>(
    id: i64,
    rows: &'r [key_order::Insert<'r>],
) -> impl Iterator<Item = Rows> + 'r {
    // each column's encoding, looked up once: a row's values are then written in one go
    let encodings: Vec<_> = columns::inserted(RESULT_COLUMNS)
        .map(|c| c.encode)
        .collect();
    let statement = move |chunk: &[key_order::Insert]| {
        let mut values = Rows::new(encodings.len());
        for &(warmup, m) in chunk {
            let row = ResultRow {
                run_id: id,
                warmup,
                measurement: m.clone(),
            };
            values.push(encodings.iter().map(|encode| encode(&row)));
        }
        values
    };
    rows.chunks(ROWS_PER_INSERT).map(statement)
}

/// The runs passed in parts that are open: the id each was given, by number, and
/// their figures, set aside until they close ([`Staged`]).
pub(super) struct Open {
    ids: HashMap<usize, i64>,
    staged: Staged,
}

impl Open {
    /// None yet, for the database `db`.
    pub(super) fn beside(db: &Path) -> Open {
        Open {
            ids: HashMap::new(),
            staged: Staged::beside(db),
        }
    }

    /// The id of open run `slot`; its parts come between its opening and its closing.
    fn id(&self, slot: usize) -> i64 {
        *self
            .ids
            .get(&slot)
            .expect("a run's parts come between its opening and its closing")
    }
}

/// What writing a part of a run failed at: a statement, or setting its figures aside.
#[derive(Debug, thiserror::Error)]
pub(super) enum PartError {
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    #[error(transparent)]
    Staged(#[from] StageError),
}

/// Writes a part of a run passed in parts; returns how many runs it added (one when
/// a run closes under a UUID not recorded before). Its figures are inserted when it
/// closes ([`Staged`]).
pub(super) fn save_part(
    conn: &Connection,
    open: &mut Open,
    part: RunPart,
) -> Result<usize, PartError> {
    match part {
        RunPart::Open { slot, run } => {
            // under a UUID of its own until its own is known, when it closes
            let placeholder = Run {
                uuid: uuid::Uuid::new_v4(),
                ..*run
            };
            open.ids.insert(slot, insert_run(conn, &placeholder)?);
            Ok(0)
        }
        RunPart::Figures { slot, results } => {
            open.staged.add(slot, results)?;
            Ok(0)
        }
        RunPart::Close { slot, run } => {
            let id = open.id(slot);
            open.ids.remove(&slot);
            if uuid_known(conn, &run)? {
                open.staged.drop_run(slot);
                delete_run(conn, id)?;
                return Ok(0);
            }
            // the figures read back and encoded on a thread of their own, beside this
            // one's inserts: an import's parsing thread is done by now
            let encode = |group: &Figures| {
                let rows = group.figures().iter().map(|m| (group.warmup(), m));
                Vec::from_iter(statements_of(id, &rows.collect::<Vec<_>>()).map(Rows::shaped))
            };
            let mut inserts = Inserts::new(conn, insert_results_head());
            let mut insert = |statements: Vec<Rows>| -> Result<(), PartError> {
                statements
                    .iter()
                    .try_for_each(|values| inserts.insert(values))?;
                Ok(())
            };
            open.staged.take(slot, encode, &mut insert)?;
            let update = statements::update_run("", id, &run);
            conn.execute(&update.sql, values(&update))?;
            Ok(1)
        }
    }
}

/// Deletes run `id` and every row that names it. Foreign keys would cascade the
/// delete, but an import turns them off (`SqliteStore::save_batches`), so the rows of
/// each table that references `runs` are deleted here, found in the schema.
fn delete_run(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    let referencing: Vec<(String, String)> = conn
        .prepare_cached(
            "SELECT m.name, f.\"from\" FROM sqlite_schema m, pragma_foreign_key_list(m.name) f \
             WHERE m.type = 'table' AND f.\"table\" = 'runs' ORDER BY m.name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (table, column) in referencing {
        conn.execute(&format!("DELETE FROM {table} WHERE {column} = ?"), [id])?;
    }
    conn.execute(&statements::delete_runs("", "id = ?"), [id])?;
    Ok(())
}

/// Writes the summaries of run `id`'s measured `results` (`RowSummary::of`), when it
/// keeps any (`RowSummary::kept_for`) and has none.
pub(super) fn write_summaries(
    conn: &Connection,
    id: i64,
    results: &[Measurement],
) -> rusqlite::Result<()> {
    if !RowSummary::kept_for(results) {
        return Ok(());
    }
    let mut insert = conn.prepare_cached(&insert_sql("run_summaries", SUMMARY_COLUMNS, 1))?;
    for summary in RowSummary::of(results) {
        let row = SummaryRow {
            run_id: id,
            summary,
        };
        insert.execute(rusqlite::params_from_iter(columns::encode(
            SUMMARY_COLUMNS,
            &row,
        )))?;
    }
    Ok(())
}

/// Derives again, from their results, the summaries a migration left without a run's
/// whole level (`statements::underived_summaries`), a page of runs per transaction.
pub(super) fn derive_summaries(store: &mut SqliteStore) -> rusqlite::Result<()> {
    loop {
        let ids: Vec<i64> = store
            .conn
            .prepare(&statements::underived_summaries("", crate::store::PAGE))?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if ids.is_empty() {
            return Ok(());
        }
        let results = store.results(&ids, Detail::Figures)?;
        let tx = store.conn.transaction()?;
        for id in ids {
            let measured = results.get(&id).map_or(&[][..], |r| &r.results[..]);
            tx.execute(&statements::delete_summaries("", "run_id = ?"), [id])?;
            write_summaries(&tx, id, measured)?;
        }
        tx.commit()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Batch, Store, StoreError};

    fn foreign_keys(store: &SqliteStore) -> bool {
        (store.conn)
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap()
    }

    /// An import turns foreign keys off for its transaction only: stored, abandoned
    /// or failed, the connection has them on again for whatever comes next.
    #[test]
    fn foreign_keys_are_on_again_after_an_import() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("h.db")).unwrap();
        assert!(foreign_keys(&store));
        let run = crate::store::tests::sample_run("h", 0);
        let mut stored = [Batch::Runs(vec![run.clone()]), Batch::End].into_iter();
        assert!(store.save_batches(&mut || stored.next().unwrap()).is_ok());
        assert!(foreign_keys(&store));
        let mut abandoned = [Batch::Runs(vec![run.clone()]), Batch::Abandon].into_iter();
        let saved = store.save_batches(&mut || abandoned.next().unwrap());
        assert_eq!(saved.unwrap(), None);
        assert!(foreign_keys(&store));
        // a figure given twice: the statement fails, and the transaction with it
        let mut twice = crate::store::tests::sample_run("h", 1);
        twice.results.push(twice.results[0].clone());
        let mut failing = [Batch::Runs(vec![twice]), Batch::End].into_iter();
        let failed = store.save_batches(&mut || failing.next().unwrap());
        assert!(matches!(failed, Err(StoreError::Sql { .. })), "{failed:?}");
        assert!(foreign_keys(&store));
        assert_eq!(store.check().unwrap().runs, 1);
    }
}
