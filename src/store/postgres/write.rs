//! Writing to PostgreSQL: one transaction per call, and batches as arrays
//! (`INSERT ... SELECT * FROM unnest($1::bigint[], ...)`), a round trip per table and
//! batch, never one per row, so an import of thousands of runs takes seconds over a
//! network.

use std::collections::{HashMap, HashSet};

use postgres::Transaction;
use postgres::types::ToSql;
use uuid::Uuid;

use super::PgStore;
use super::bind::{array, bound, numbered};
use super::errors::{Fail, is_lost};
use super::read::known;
use crate::model::Run;
use crate::store::StoreError;
use crate::store::columns::{self, Column, Kind, RESULT_COLUMNS, RUN_COLUMNS, ResultRow, Value};
use crate::store::statements::{self, Statement};

/// Runs per batch statement: bounds the size of one message (a chunk's results are
/// about a megabyte) while keeping the round trips per run negligible.
pub(super) const CHUNK: usize = 500;

impl PgStore {
    /// Runs `work` in one transaction, committed when it succeeds. A connection lost
    /// before the commit is an error and nothing was written (the server rolls the
    /// transaction back); one lost during the commit leaves the outcome unknown, and
    /// the message says so.
    pub(super) fn write<T>(
        &self,
        work: impl FnOnce(&mut Transaction<'_>) -> Result<T, Fail>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        let attempt = (|| {
            let mut tx = client.transaction().map_err(Fail::Pg)?;
            let value = work(&mut tx)?;
            tx.commit().map_err(|e| match is_lost(&e) {
                true => Fail::CommitLost(e),
                false => Fail::Pg(e),
            })?;
            Ok(value)
        })();
        attempt.map_err(|f| self.error(f))
    }
}

/// Saves whole runs, skipping those whose UUID is recorded (or came earlier in the
/// batch). Returns each run's new id, `None` for a skipped one.
pub(super) fn save_in(tx: &mut Transaction<'_>, runs: &[&Run]) -> Result<Vec<Option<i64>>, Fail> {
    let ids = insert_runs(tx, runs, true)?;
    let rows = runs
        .iter()
        .zip(&ids)
        .filter_map(|(run, id)| id.map(|id| (id, *run)))
        .flat_map(|(id, run)| ResultRow::of_run(id, run));
    insert_results(tx, rows)?;
    Ok(ids)
}

/// Runs a shared statement (`?` placeholders) that returns no rows.
pub(super) fn execute(tx: &mut Transaction<'_>, statement: &Statement) -> Result<u64, Fail> {
    let params: Vec<Box<dyn ToSql + Sync>> = statement
        .params
        .iter()
        .map(|(kind, value)| bound(*kind, value))
        .collect();
    let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| &**p).collect();
    Ok(tx.execute(&numbered(&statement.sql), &params)?)
}

/// A batch insert of `rows` into `table`, one array parameter per column, and what
/// follows the SELECT (`tail`: a conflict clause, a RETURNING).
fn batch<T>(
    table: &str,
    columns: &'static [Column<T>],
    rows: &[&T],
    tail: &str,
) -> (String, Vec<Box<dyn ToSql + Sync>>) {
    let written: Vec<&Column<T>> = columns::inserted(columns).collect();
    let names: Vec<&str> = written.iter().map(|c| c.name).collect();
    let arrays: Vec<String> = written
        .iter()
        .enumerate()
        .map(|(i, c)| format!("${}::{}[]", i + 1, c.kind.postgres_type()))
        .collect();
    let values = written
        .iter()
        .map(|c| array(c.kind, rows.iter().map(|row| (c.encode)(row))))
        .collect();
    let sql = format!(
        "INSERT INTO iozone.{table} ({}) SELECT * FROM unnest({}) {tail}",
        names.join(", "),
        arrays.join(", ")
    );
    (sql, values)
}

/// A batch insert of plain rows (labels, tags): each row's values in `kinds`' order.
fn batch_rows(
    table: &str,
    names: &[&str],
    kinds: &[Kind],
    rows: Vec<Vec<Value>>,
    tail: &str,
) -> (String, Vec<Box<dyn ToSql + Sync>>) {
    let arrays: Vec<String> = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| format!("${}::{}[]", i + 1, kind.postgres_type()))
        .collect();
    let values = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| array(*kind, rows.iter().map(|row| row[i].clone())))
        .collect();
    let sql = format!(
        "INSERT INTO iozone.{table} ({}) SELECT * FROM unnest({}) {tail}",
        names.join(", "),
        arrays.join(", ")
    );
    (sql, values)
}

fn params(values: &[Box<dyn ToSql + Sync>]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| &**v).collect()
}

/// Inserts run rows with their labels and tags. With `skip_known`, runs whose UUID is
/// recorded, or repeats one earlier in `runs`, are left out (`None`); without it, a
/// known UUID is an error, as SQLite's is.
pub(super) fn insert_runs(
    tx: &mut Transaction<'_>,
    runs: &[&Run],
    skip_known: bool,
) -> Result<Vec<Option<i64>>, Fail> {
    let mut ids = vec![None; runs.len()];
    let mut todo: Vec<usize> = (0..runs.len()).collect();
    if skip_known {
        // Asked first rather than left to ON CONFLICT alone, which would still draw
        // (and so skip) an id for every known run: ids are what users type.
        let uuids: Vec<Uuid> = runs.iter().map(|r| r.uuid).collect();
        let known = known(tx, &uuids)?;
        let mut seen = HashSet::new();
        todo.retain(|&i| !known.contains(&runs[i].uuid) && seen.insert(runs[i].uuid));
    }
    if todo.is_empty() {
        return Ok(ids);
    }
    // ON CONFLICT still: another process may record the same UUID meanwhile
    let tail = if skip_known {
        "ON CONFLICT (uuid) DO NOTHING RETURNING id, uuid"
    } else {
        "RETURNING id, uuid"
    };
    let batch_runs: Vec<&Run> = todo.iter().map(|&i| runs[i]).collect();
    let (sql, values) = batch("runs", RUN_COLUMNS, &batch_runs, tail);
    let new: HashMap<Uuid, i64> = tx
        .query(&sql, &params(&values))?
        .iter()
        .map(|r| (r.get(1), r.get(0)))
        .collect();
    for &i in &todo {
        ids[i] = new.get(&runs[i].uuid).copied();
    }

    let added = || {
        runs.iter()
            .zip(&ids)
            .filter_map(|(run, id)| id.map(|id| (id, *run)))
    };
    let labels: Vec<Vec<Value>> = added()
        .flat_map(|(id, run)| statements::label_rows(id, run))
        .map(|(id, label, position)| vec![id.into(), label.into(), position.into()])
        .collect();
    if !labels.is_empty() {
        let (sql, values) = batch_rows(
            "run_labels",
            &["run_id", "label", "position"],
            &[Kind::Integer, Kind::Text, Kind::Integer],
            labels,
            "",
        );
        tx.execute(&sql, &params(&values))?;
    }
    let tags: Vec<Vec<Value>> = added()
        .flat_map(|(id, run)| statements::tag_rows(id, run))
        .map(|(id, key, value)| vec![id.into(), key.into(), value.into()])
        .collect();
    if !tags.is_empty() {
        let (sql, values) = batch_rows(
            "run_tags",
            &["run_id", "key", "value"],
            &[Kind::Integer, Kind::Text, Kind::Text],
            tags,
            "",
        );
        tx.execute(&sql, &params(&values))?;
    }
    Ok(ids)
}

/// Inserts results, each with its run's id, in batches.
pub(super) fn insert_results(
    tx: &mut Transaction<'_>,
    rows: impl Iterator<Item = ResultRow>,
) -> Result<(), Fail> {
    let rows: Vec<ResultRow> = rows.collect();
    for chunk in rows.chunks(CHUNK * 20) {
        let chunk: Vec<&ResultRow> = chunk.iter().collect();
        let (sql, values) = batch("results", RESULT_COLUMNS, &chunk, "");
        tx.execute(&sql, &params(&values))?;
    }
    Ok(())
}
