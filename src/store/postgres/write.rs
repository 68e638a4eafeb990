//! Writing to PostgreSQL: one transaction per call, and batches as arrays
//! (`INSERT ... SELECT * FROM unnest($1::bigint[], ...)`), a round trip per table and
//! batch, never one per row, so an import of thousands of runs takes seconds over a
//! network.

use std::collections::{HashMap, HashSet};

use postgres::types::ToSql;
use postgres::{Client, Transaction};
use uuid::Uuid;

use super::PgStore;
use super::bind::{array, params};
use super::errors::{Fail, is_lost};
use super::read::known;
use crate::model::{Measurement, RowSummary, Run, RunPart};
use crate::store::columns::{
    self, Column, Kind, RESULT_COLUMNS, RUN_COLUMNS, ResultRow, SUMMARY_COLUMNS, SummaryRow, Value,
};
use crate::store::statements::{self, LABELS, TAGS, Table};
use crate::store::{Detail, StoreError};

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
        let value = self.write_unless_abandoned(|tx| work(tx).map(Some))?;
        Ok(value.expect("work that cannot abandon commits"))
    }

    /// [`PgStore::write`] of `work` that may give up (`Ok(None)`): its transaction is
    /// then rolled back, as on an error, and nothing it wrote stays.
    pub(super) fn write_unless_abandoned<T>(
        &self,
        work: impl FnOnce(&mut Transaction<'_>) -> Result<Option<T>, Fail>,
    ) -> Result<Option<T>, StoreError> {
        let mut client = self.client.borrow_mut();
        let attempt = (|| {
            let mut tx = client.transaction().map_err(Fail::Pg)?;
            let Some(value) = work(&mut tx)? else {
                tx.rollback().map_err(Fail::Pg)?;
                return Ok(None);
            };
            tx.commit().map_err(|e| match is_lost(&e) {
                true => Fail::CommitLost(e),
                false => Fail::Pg(e),
            })?;
            Ok(Some(value))
        })();
        attempt.map_err(|f| self.error(f))
    }
}

/// Saves whole runs, skipping those whose UUID is recorded (or came earlier in the
/// batch), except the empty record a failed final write left, which a complete run
/// replaces. Returns each run's new id, `None` for a skipped one.
pub(super) fn save_in(tx: &mut Transaction<'_>, runs: &[&Run]) -> Result<Vec<Option<i64>>, Fail> {
    // asked once per batch: a placeholder is rare, a round trip per run is not
    let uuids: Vec<Uuid> = runs.iter().map(|r| r.uuid).collect();
    let known = known(tx, &uuids)?;
    for run in runs.iter().filter(|r| known.contains(&r.uuid)) {
        if let Some(placeholder) = statements::drop_placeholder("iozone.", run) {
            super::read::query(tx, &placeholder)?;
        }
    }
    let ids = insert_runs(tx, runs, true)?;
    let saved: Vec<(i64, &Run)> = runs
        .iter()
        .zip(&ids)
        .filter_map(|(run, id)| id.map(|id| (id, *run)))
        .collect();
    insert_results(tx, &saved)?;
    Ok(ids)
}

/// `INSERT ... SELECT * FROM unnest($1::type[], ...)` into `table`, one array
/// parameter per column, and what follows (`tail`: a conflict clause, a RETURNING).
fn unnest_insert(table: &str, columns: &[(&str, Kind)], tail: &str) -> String {
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    let arrays: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, (_, kind))| format!("${}::{}[]", i + 1, kind.postgres_type()))
        .collect();
    format!(
        "INSERT INTO iozone.{table} ({}) SELECT * FROM unnest({}) {tail}",
        names.join(", "),
        arrays.join(", ")
    )
}

/// A batch insert of model values into the table of `columns`.
fn batch<T>(
    table: &str,
    columns: &'static [Column<T>],
    rows: &[&T],
    tail: &str,
) -> (String, Vec<Box<dyn ToSql + Sync>>) {
    let written: Vec<&Column<T>> = columns::inserted(columns).collect();
    let kinds: Vec<(&str, Kind)> = written.iter().map(|c| (c.name, c.kind)).collect();
    let values = written
        .iter()
        .map(|c| array(c.kind, rows.iter().map(|row| (c.encode)(row))))
        .collect();
    (unnest_insert(table, &kinds, tail), values)
}

/// A batch insert of plain rows (labels, tags) into `table`.
fn batch_rows(
    table: &Table,
    rows: Vec<Vec<Value<'static>>>,
) -> (String, Vec<Box<dyn ToSql + Sync>>) {
    let values = (table.columns.iter().enumerate())
        .map(|(i, (_, kind))| array(*kind, rows.iter().map(|row| row[i].clone())))
        .collect();
    (unnest_insert(table.name, table.columns, ""), values)
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
    // every added run's labels in one statement, and its tags in another
    let mut tables: [(&Table, Vec<Vec<Value<'static>>>); 2] =
        [(&LABELS, Vec::new()), (&TAGS, Vec::new())];
    for (id, run) in added() {
        let rows = statements::labels_and_tags_rows(id, run);
        for ((_, all), (_, rows)) in tables.iter_mut().zip(rows) {
            all.extend(rows);
        }
    }
    for (table, rows) in tables {
        if !rows.is_empty() {
            let (sql, values) = batch_rows(table, rows);
            tx.execute(&sql, &params(&values))?;
        }
    }
    Ok(ids)
}

/// Inserts the results of runs, each with its new id, in batches, and derives their
/// summaries from them.
pub(super) fn insert_results(tx: &mut Transaction<'_>, runs: &[(i64, &Run)]) -> Result<(), Fail> {
    let rows: Vec<ResultRow> = runs
        .iter()
        .flat_map(|&(id, run)| ResultRow::of_run(id, run))
        .collect();
    for chunk in rows.chunks(CHUNK * 20) {
        let chunk: Vec<&ResultRow> = chunk.iter().collect();
        let (sql, values) = batch("results", RESULT_COLUMNS, &chunk, "");
        tx.execute(&sql, &params(&values))?;
    }
    let measured: Vec<(i64, &[Measurement])> = runs
        .iter()
        .map(|&(id, run)| (id, &run.results[..]))
        .collect();
    write_summaries(tx, &measured)
}

/// The runs passed in parts that are open, by number: the id each was given.
pub(super) type Open = HashMap<usize, i64>;

/// Writes a part of a run passed in parts; returns how many runs it added (one when
/// a run closes under a UUID not recorded before).
pub(super) fn save_part(
    tx: &mut Transaction<'_>,
    open: &mut Open,
    part: RunPart,
) -> Result<usize, Fail> {
    match part {
        RunPart::Open { slot, run } => {
            // under a UUID of its own until its own is known, when it closes
            let placeholder = Run {
                uuid: Uuid::new_v4(),
                ..*run
            };
            let id = insert_runs(tx, &[&placeholder], false)?[0];
            open.insert(
                slot,
                id.ok_or_else(|| Fail::Bad("a run opened got no id".into()))?,
            );
            Ok(0)
        }
        RunPart::Figures { slot, results } => {
            let run_id = opened(open, slot);
            for chunk in results.chunks(CHUNK * 20) {
                let rows: Vec<ResultRow> = (chunk.iter())
                    .map(|m| ResultRow {
                        run_id,
                        warmup: false,
                        measurement: m.clone(),
                    })
                    .collect();
                let rows: Vec<&ResultRow> = rows.iter().collect();
                let (sql, values) = batch("results", RESULT_COLUMNS, &rows, "");
                tx.execute(&sql, &params(&values))?;
            }
            Ok(0)
        }
        RunPart::Close { slot, run } => {
            let id = opened(open, slot);
            open.remove(&slot);
            if known(tx, &[run.uuid])?.contains(&run.uuid) {
                // everything of it goes with its row
                tx.execute(&statements::delete_runs("iozone.", "id = $1"), &[&id])?;
                return Ok(0);
            }
            super::read::query(tx, &statements::update_run("iozone.", id, &run))?;
            Ok(1)
        }
    }
}

/// The id of open run `slot`; its parts come between its opening and its closing.
fn opened(open: &Open, slot: usize) -> i64 {
    *open
        .get(&slot)
        .expect("a run's parts come between its opening and its closing")
}

/// Writes the summaries of runs' measured results (`RowSummary::of`), for the runs
/// that keep any (`RowSummary::kept_for`) and have none.
fn write_summaries(tx: &mut Transaction<'_>, runs: &[(i64, &[Measurement])]) -> Result<(), Fail> {
    let rows: Vec<SummaryRow> = runs
        .iter()
        .filter(|(_, results)| RowSummary::kept_for(*results))
        .flat_map(|&(run_id, results)| {
            RowSummary::of(results)
                .into_iter()
                .map(move |summary| SummaryRow { run_id, summary })
        })
        .collect();
    for chunk in rows.chunks(CHUNK * 20) {
        let chunk: Vec<&SummaryRow> = chunk.iter().collect();
        let (sql, values) = batch("run_summaries", SUMMARY_COLUMNS, &chunk, "");
        tx.execute(&sql, &params(&values))?;
    }
    Ok(())
}

/// Derives again, from their results, the summaries a migration left without a run's
/// whole level (`statements::underived_summaries`), a page of runs per transaction.
pub(super) fn derive_summaries(client: &mut Client) -> Result<(), Fail> {
    loop {
        let ids = super::read::underived(client)?;
        if ids.is_empty() {
            return Ok(());
        }
        let results = super::read::results(client, &ids, Detail::Figures)?;
        let measured: Vec<(i64, &[Measurement])> = ids
            .iter()
            .map(|&id| (id, results.get(&id).map_or(&[][..], |r| &r.results[..])))
            .collect();
        let mut tx = client.transaction()?;
        tx.execute(
            &statements::delete_summaries("iozone.", "run_id = ANY($1)"),
            &[&ids],
        )?;
        write_summaries(&mut tx, &measured)?;
        tx.commit()?;
    }
}
