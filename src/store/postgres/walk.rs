//! PostgreSQL's walk: one statement whose rows the server sends as it finds them and
//! which are decoded as they arrive. For each run, in the walk's order, a row of the
//! run (its columns as one record, its labels and tags as arrays), then a row per row
//! of the tables beside it that the walk reads (its results; or its summaries, and the
//! figures of a run that keeps none): a nested loop over the runs' index, through each
//! table's key, so that nothing is sorted or gathered on the server first and the
//! server finds the next rows while these are decoded. Memory holds a run.

use std::error::Error;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{FromSql, Type};
use postgres::{Client, Row};

use super::bind::{bound, numbered};
use super::errors::Fail;
use super::read::get;
use crate::model::{Params, RowSummary, Run};
use crate::store::columns::{self, Column, Kind, ResultRow, SUMMARY_COLUMNS, SummaryRow, Value};
use crate::store::statements::{self, Statement};
use crate::store::walk::{Each, Walk, Walked};
use crate::store::{Detail, RunFilter, RunResults};

/// What a row of the walk holds, in its first column.
const RUN: i32 = 0;
const RESULT: i32 = 1;
const SUMMARY: i32 = 2;

/// Where the rows beside a run begin: after the kind, the run's record, its labels
/// and its tags.
const BESIDE: usize = 4;

pub(super) fn walk(
    client: &mut Client,
    filter: &RunFilter,
    walk: Walk,
    each: &mut Each,
) -> Result<(), Fail> {
    let mut tx = client.build_transaction().read_only(true).start()?;
    // a parallel plan would hand the rows over in no order
    tx.batch_execute("SET LOCAL max_parallel_workers_per_gather = 0")?;
    let shape = Shape::of(walk);
    let statement = shape.statement(filter, walk);
    let values: Vec<_> = (statement.params.iter())
        .map(|(kind, value)| bound(*kind, value))
        .collect();
    let params = values
        .iter()
        .map(|v| &**v as &(dyn postgres::types::ToSql + Sync));
    let cancel = tx.cancel_token();
    let mut rows = tx.query_raw(&numbered(&statement.sql), params)?;
    let mut current: Option<Reading> = None;
    let mut stopped = false;
    while let Some(row) = rows.next()? {
        match get::<i32>(&row, 0)? {
            RUN => {
                let run = shape.run(&row)?;
                if let Some(done) = current.replace(Reading::new(run))
                    && each(done.walked(walk)).is_break()
                {
                    stopped = true;
                    break;
                }
            }
            kind => {
                let reading = current.as_mut().ok_or_else(out_of_order)?;
                shape.add(&row, kind, reading)?;
            }
        }
    }
    if stopped {
        // what the server has still to send is not wanted: it stops, not the reading
        let _ = cancel.cancel_query(super::tls::LazyTls);
        drop(rows);
        let _ = tx.rollback();
        return Ok(());
    }
    drop(rows);
    if let Some(done) = current {
        let _ = each(done.walked(walk));
    }
    tx.rollback()?;
    Ok(())
}

/// The walk's rows came in an order the statement does not give.
fn out_of_order() -> Fail {
    Fail::Bad("the server sent a walk's rows out of their runs' order".into())
}

/// A run being read, with what has come beside it so far.
struct Reading {
    run: Run,
    results: RunResults,
    summaries: Vec<RowSummary>,
}

impl Reading {
    fn new(run: Run) -> Reading {
        Reading {
            run,
            results: RunResults::default(),
            summaries: Vec::new(),
        }
    }

    /// The run as the walk hands it on.
    fn walked(self, walk: Walk) -> Walked {
        let Reading {
            mut run,
            mut results,
            mut summaries,
        } = self;
        results.sort();
        if !walk.summaries() {
            results.fill(&mut run);
            return Walked {
                run,
                summaries: Vec::new(),
            };
        }
        // a run with one figure per key keeps no summaries: they are its figures
        match summaries.is_empty() {
            true => summaries = RowSummary::of(&results.results),
            // in key order, as those derived come
            false => summaries.sort_by_key(|r| r.key(&Params::default())),
        }
        Walked { run, summaries }
    }
}

/// What the walk's rows hold: the run's columns, and the columns of each table beside.
struct Shape {
    run: Vec<&'static Column<Run>>,
    labels: bool,
    detail: Detail,
    summaries: bool,
}

impl Shape {
    fn of(walk: Walk) -> Shape {
        Shape {
            run: walk.run_columns(),
            labels: walk.labels(),
            detail: match walk {
                Walk::Results(detail) => detail,
                _ => Detail::Figures,
            },
            summaries: walk.summaries(),
        }
    }

    /// The walk's statement: the runs `filter` selects, each followed by the rows
    /// beside it. Every row has the same columns: the kind, the run's record, its
    /// labels, its tags (each key then its value), a result's columns and a summary's, those a
    /// row is not null.
    fn statement(&self, filter: &RunFilter, walk: Walk) -> Statement {
        let runs = statements::walk_runs("iozone.", filter, &self.run, walk.by_host());
        let results = names_and_kinds(self.detail.columns());
        let summaries = match self.summaries {
            true => names_and_kinds(SUMMARY_COLUMNS),
            false => Vec::new(),
        };
        let record: Vec<String> = self.run.iter().map(|c| format!("r.{}", c.name)).collect();
        // the tags as one array, each key followed by its value: one look at the
        // tags' key a run, not one for the keys and another for the values
        let (labels, tags) = match self.labels {
            true => (
                "ARRAY(SELECT label FROM iozone.run_labels l WHERE l.run_id = r.id ORDER BY position)",
                "ARRAY(SELECT p.word FROM iozone.run_tags t, \
                 LATERAL (VALUES (1, t.key), (2, t.value)) p (place, word) \
                 WHERE t.run_id = r.id ORDER BY t.key, p.place)",
            ),
            false => ("NULL::text[]", "NULL::text[]"),
        };
        let run_row = [
            vec![
                format!("{RUN} AS kind"),
                format!("ROW({}) AS run", record.join(", ")),
                format!("{labels} AS labels"),
                format!("{tags} AS tags"),
            ],
            nulls(&results),
            nulls(&summaries),
        ];
        let beside = |kind: i32| {
            vec![
                kind.to_string(),
                "NULL".into(),
                "NULL".into(),
                "NULL".into(),
            ]
        };
        let result_row = [beside(RESULT), named(&results, "x"), nulls(&summaries)];
        // the figures of a walk of summaries are those of the runs that keep none
        let which = match self.summaries {
            true => " AND NOT EXISTS (SELECT 1 FROM iozone.run_summaries s WHERE s.run_id = r.id)",
            false => "",
        };
        let mut branches = vec![
            format!("SELECT {}", run_row.concat().join(", ")),
            format!(
                "SELECT {} FROM iozone.results x WHERE x.run_id = r.id{which}",
                result_row.concat().join(", ")
            ),
        ];
        if self.summaries {
            let summary_row = [beside(SUMMARY), nulls(&results), named(&summaries, "s")];
            branches.push(format!(
                "SELECT {} FROM iozone.run_summaries s WHERE s.run_id = r.id",
                summary_row.concat().join(", ")
            ));
        }
        Statement {
            // the runs' order, which the nested loop keeps: each run's rows stay together,
            // its own first
            sql: format!(
                "SELECT y.* FROM ({}) r CROSS JOIN LATERAL ({}) y{}",
                runs.sql,
                branches.join(" UNION ALL "),
                crate::store::filter::order(filter, walk.by_host()),
            ),
            params: runs.params,
        }
    }

    /// The run a row of kind [`RUN`] holds, with its labels and tags.
    fn run(&self, row: &Row) -> Result<Run, Fail> {
        let record: Record = get(row, 1)?;
        let read = |idx: usize, kind: Kind| record.read(idx, kind);
        let mut run = columns::decode(self.run.iter().copied(), Run::default(), read, |_, e| {
            Fail::Bad(e.to_string())
        })?;
        if self.labels {
            run.labels = get(row, 2)?;
            let tags: Vec<String> = get(row, 3)?;
            let mut words = tags.into_iter();
            while let (Some(key), Some(value)) = (words.next(), words.next()) {
                run.tags.insert(key, value);
            }
        }
        Ok(run)
    }

    /// Adds a row beside the run to what is read of it.
    fn add(&self, row: &Row, kind: i32, reading: &mut Reading) -> Result<(), Fail> {
        let id = reading.run.id.unwrap_or_default();
        let results = self.detail.columns();
        match kind {
            RESULT => {
                let result = decode_at(row, BESIDE, results, ResultRow::blank())?;
                if result.run_id != id {
                    return Err(out_of_order());
                }
                reading.results.add(result);
            }
            SUMMARY => {
                let summary = decode_at(
                    row,
                    BESIDE + results.len(),
                    SUMMARY_COLUMNS,
                    SummaryRow::blank(),
                )?;
                if summary.run_id != id {
                    return Err(out_of_order());
                }
                reading.summaries.push(summary.summary);
            }
            other => return Err(Fail::Bad(format!("a walk's row of unknown kind {other}"))),
        }
        Ok(())
    }
}

/// A typed null for each of `columns`.
fn nulls(columns: &[(&str, Kind)]) -> Vec<String> {
    (columns.iter())
        .map(|(_, kind)| format!("NULL::{}", kind.postgres_type()))
        .collect()
}

/// Each of `columns` of `table`.
fn named(columns: &[(&str, Kind)], table: &str) -> Vec<String> {
    (columns.iter())
        .map(|(name, _)| format!("{table}.{name}"))
        .collect()
}

/// Each column's name and kind.
fn names_and_kinds<T>(columns: &[Column<T>]) -> Vec<(&'static str, Kind)> {
    columns.iter().map(|c| (c.name, c.kind)).collect()
}

/// A model value from `columns` of `row`, the first at `offset`.
fn decode_at<T>(row: &Row, offset: usize, columns: &[Column<T>], blank: T) -> Result<T, Fail> {
    let read = |idx: usize, kind: Kind| super::read::read(row, offset + idx, kind);
    columns::decode(columns, blank, read, |_, e| Fail::Bad(e.to_string()))
}

/// A record (`ROW(…)`) as the server sends it: each field's type and value, unread.
struct Record<'a> {
    fields: Vec<(Type, Option<&'a [u8]>)>,
}

impl<'a> FromSql<'a> for Record<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Record<'a>, Box<dyn Error + Sync + Send>> {
        let mut rest = raw;
        let mut take = |n: usize| -> Result<&'a [u8], Box<dyn Error + Sync + Send>> {
            if rest.len() < n {
                return Err("a record cut short".into());
            }
            let (now, later) = rest.split_at(n);
            rest = later;
            Ok(now)
        };
        let int = |bytes: &[u8]| i32::from_be_bytes(bytes.try_into().expect("four bytes"));
        let count = int(take(4)?);
        let mut fields = Vec::with_capacity(count.max(0) as usize);
        for _ in 0..count {
            let oid = int(take(4)?) as u32;
            let ty = Type::from_oid(oid).ok_or_else(|| format!("a field of unknown type {oid}"))?;
            let len = int(take(4)?);
            let value = match len {
                -1 => None,
                len => Some(take(len.max(0) as usize)?),
            };
            fields.push((ty, value));
        }
        Ok(Record { fields })
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::RECORD
    }
}

impl Record<'_> {
    /// Field `idx` as a value of `kind`.
    fn read(&self, idx: usize, kind: Kind) -> Result<Value<'_>, Fail> {
        let (ty, raw) = self
            .fields
            .get(idx)
            .ok_or_else(|| Fail::Bad(format!("a run's record has no field {idx}")))?;
        let raw = *raw;
        let bad = |e: Box<dyn Error + Sync + Send>| {
            Fail::Bad(format!("a run's field {idx} cannot be read: {e}"))
        };
        Ok(match kind {
            Kind::Integer => field::<Option<i64>>(ty, raw).map_err(bad)?.into(),
            Kind::Real => field::<Option<f64>>(ty, raw).map_err(bad)?.into(),
            Kind::Text => field::<Option<&str>>(ty, raw).map_err(bad)?.into(),
            Kind::Bool => field::<Option<bool>>(ty, raw).map_err(bad)?.into(),
            Kind::Time => field::<Option<chrono::DateTime<chrono::Utc>>>(ty, raw)
                .map_err(bad)?
                .into(),
            Kind::Uuid => field::<Option<uuid::Uuid>>(ty, raw).map_err(bad)?.into(),
        })
    }
}

/// A field of type `ty` as a `T`, refused when `T` is not what that type holds.
fn field<'a, T: FromSql<'a>>(
    ty: &Type,
    raw: Option<&'a [u8]>,
) -> Result<T, Box<dyn Error + Sync + Send>> {
    if !T::accepts(ty) {
        return Err(format!("it holds {ty}").into());
    }
    T::from_sql_nullable(ty, raw)
}
