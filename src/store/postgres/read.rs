//! Reading from PostgreSQL: the `history` query, runs with their labels and tags, and
//! results, many runs a statement (`run_id = ANY($1)`); columns decode through the
//! shared table, a value the driver cannot read being damaged data.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{FromSql, ToSql};
use postgres::{Client, GenericClient, Row};
use uuid::Uuid;

use super::PgStore;
use super::bind::{bound, numbered, params};
use super::errors::{Fail, causes, one_line};
use crate::model::{RowSummary, Run};
use crate::store::columns::{
    self, Column, Kind, RUN_COLUMNS, ResultRow, SUMMARY_COLUMNS, SummaryRow, Value,
};
use crate::store::statements::{self, Statement};
use crate::store::{Detail, RunFilter, RunResults, StoreError};

impl PgStore {
    /// Runs `work` with the client, outside any explicit transaction.
    pub(super) fn read<T>(
        &self,
        work: impl FnOnce(&mut Client) -> Result<T, Fail>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        work(&mut client).map_err(|f| self.error(f))
    }
}

/// Which of `uuids` are recorded.
pub(super) fn known(
    client: &mut impl GenericClient,
    uuids: &[Uuid],
) -> Result<HashSet<Uuid>, Fail> {
    if uuids.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(client
        .query(
            "SELECT uuid FROM iozone.runs WHERE uuid = ANY($1)",
            &[&uuids],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Fills in the labels and tags of listed runs: two queries for all of them.
pub(super) fn labels_and_tags(client: &mut Client, runs: &mut [Run]) -> Result<(), Fail> {
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let which = "run_id = ANY($1)";
    let labels = client
        .query(&statements::select_labels("iozone.", which), &[&ids])?
        .iter()
        .map(|row| Ok((get(row, 0)?, get(row, 1)?)))
        .collect::<Result<Vec<_>, Fail>>()?;
    let tags = client
        .query(&statements::select_tags("iozone.", which), &[&ids])?
        .iter()
        .map(|row| Ok((get(row, 0)?, get(row, 1)?, get(row, 2)?)))
        .collect::<Result<Vec<_>, Fail>>()?;
    statements::attach_labels_and_tags(runs, labels, tags);
    Ok(())
}

/// The results of the runs `ids`; every id asked for has an entry.
pub(super) fn results(
    client: &mut Client,
    ids: &[i64],
    detail: Detail,
) -> Result<HashMap<i64, RunResults>, Fail> {
    let sql = statements::select_results("iozone.", "run_id = ANY($1)", detail.columns());
    statements::group_results(ids, |add| {
        each_row(client, ids, &sql, detail.columns(), ResultRow::blank(), add)
    })
}

/// Runs whose summaries a migration left without a run's whole level, a page at most.
pub(super) fn underived(client: &mut Client) -> Result<Vec<i64>, Fail> {
    let sql = statements::underived_summaries("iozone.", crate::store::PAGE);
    client
        .query(&sql, &[])?
        .iter()
        .map(|row| get(row, 0))
        .collect()
}

/// The summaries of the runs `ids`; every id asked for has an entry.
pub(super) fn summaries(
    client: &mut Client,
    ids: &[i64],
) -> Result<HashMap<i64, Vec<RowSummary>>, Fail> {
    let sql = statements::select_summaries("iozone.", "run_id = ANY($1)");
    let rows = rows_of(client, ids, &sql, SUMMARY_COLUMNS, SummaryRow::blank())?;
    let mut summaries = statements::group_summaries(ids, rows);
    statements::summarize_unkept(&mut summaries, |unkept, detail| {
        results(client, unkept, detail)
    })?;
    Ok(summaries)
}

/// The rows `sql` (a SELECT of `columns` for `run_id = ANY($1)`) finds for `ids`.
fn rows_of<T: Clone>(
    client: &mut Client,
    ids: &[i64],
    sql: &str,
    columns: &[Column<T>],
    blank: T,
) -> Result<Vec<T>, Fail> {
    let mut rows = Vec::new();
    each_row(client, ids, sql, columns, blank, &mut |row| rows.push(row))?;
    Ok(rows)
}

/// [`rows_of`], each row handed to `each` as it is decoded.
fn each_row<T: Clone>(
    client: &mut Client,
    ids: &[i64],
    sql: &str,
    columns: &[Column<T>],
    blank: T,
    each: &mut dyn FnMut(T),
) -> Result<(), Fail> {
    if ids.is_empty() {
        return Ok(());
    }
    // decoded as they arrive: collecting the rows first held every one of them at once
    // (a fleet comparison's side is 100,000 rows, and faulting in their memory was
    // a third of its time)
    let mut rows = client.query_raw(sql, [&ids])?;
    while let Some(row) = rows.next()? {
        each(decode(&row, columns, blank.clone())?);
    }
    Ok(())
}

/// Runs a shared statement (`?` placeholders); the rows it returns, if any.
pub(super) fn query(
    client: &mut impl GenericClient,
    statement: &Statement,
) -> Result<Vec<Row>, Fail> {
    let values: Vec<Box<dyn ToSql + Sync>> = statement
        .params
        .iter()
        .map(|(kind, value)| bound(*kind, value))
        .collect();
    Ok(client.query(&numbered(&statement.sql), &params(&values))?)
}

/// The ids a shared statement finds, in its first column.
pub(super) fn ids(client: &mut Client, statement: &Statement) -> Result<Vec<i64>, Fail> {
    query(client, statement)?
        .iter()
        .map(|row| get(row, 0))
        .collect()
}

/// The runs `filter` selects, newest first, with their labels and tags.
pub(super) fn list_runs(client: &mut Client, filter: &RunFilter) -> Result<Vec<Run>, Fail> {
    let mut runs = query(client, &statements::list_runs("iozone.", filter))?
        .iter()
        .map(|row| decode(row, RUN_COLUMNS, Run::default()))
        .collect::<Result<Vec<_>, _>>()?;
    labels_and_tags(client, &mut runs)?;
    Ok(runs)
}

/// One run with its labels, tags and results.
pub(super) fn load_run(client: &mut Client, id: i64) -> Result<Option<Run>, Fail> {
    let sql = format!("{} WHERE id = $1", statements::select_runs("iozone."));
    let Some(row) = client.query_opt(&sql, &[&id])? else {
        return Ok(None);
    };
    let mut runs = vec![decode(&row, RUN_COLUMNS, Run::default())?];
    labels_and_tags(client, &mut runs)?;
    let mut run = runs.pop().expect("one run");
    results(client, &[id], Detail::Full)?
        .remove(&id)
        .unwrap_or_default()
        .fill(&mut run);
    Ok(Some(run))
}

/// Column `idx`, or why it cannot be read (the data is not what iozone wrote).
pub(super) fn get<'a, T: FromSql<'a>>(row: &'a Row, idx: usize) -> Result<T, Fail> {
    row.try_get(idx).map_err(|e| {
        Fail::Bad(format!(
            "column {} cannot be read: {}",
            row.columns()[idx].name(),
            causes(&e).unwrap_or_else(|| one_line(&e))
        ))
    })
}

/// Column `idx` as a value of `kind`; text borrowed from the row.
pub(super) fn read(row: &Row, idx: usize, kind: Kind) -> Result<Value<'_>, Fail> {
    Ok(match kind {
        Kind::Integer => get::<Option<i64>>(row, idx)?.into(),
        Kind::Real => get::<Option<f64>>(row, idx)?.into(),
        Kind::Text => get::<Option<&str>>(row, idx)?.into(),
        Kind::Bool => get::<Option<bool>>(row, idx)?.into(),
        Kind::Time => get::<Option<DateTime<Utc>>>(row, idx)?.into(),
        Kind::Uuid => get::<Option<Uuid>>(row, idx)?.into(),
    })
}

/// A model value from a row that selected every one of `columns`, in order.
pub(super) fn decode<'c, T: 'c>(
    row: &Row,
    columns: impl IntoIterator<Item = &'c Column<T>>,
    blank: T,
) -> Result<T, Fail> {
    let read = |idx, kind| read(row, idx, kind);
    columns::decode(columns, blank, read, |_, e| Fail::Bad(e.to_string()))
}
