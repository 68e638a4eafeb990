//! PostgreSQL's walk: one statement whose rows the server sends as it finds them and
//! which are decoded as they arrive, a row per run, in the walk's order: the run's
//! columns as one record, then its labels, its tags, its results (or its summaries,
//! and the figures of a run that keeps none) each as an array of records. A row per
//! run, not one per result: the driver's cost of a row (a message handed over through
//! its runtime, the row's offsets gathered) was about a third of the reading thread's
//! time when each result came as one (21 rows a run). The runs come through their index and each
//! run's rows through their tables' keys, so that nothing is sorted or gathered on the
//! server first and the server finds the next run while this one is decoded. Memory
//! holds a run.

use std::error::Error;
use std::sync::LazyLock;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{FromSql, Type};
use postgres::{Client, Row};
use postgres_protocol::types;

use super::bind::{bound, numbered};
use super::errors::Fail;
use super::read::get;
use crate::model::{HEADLINE_TESTS, Params, RowSummary, Run};
use crate::store::columns::{self, Column, Kind, ResultRow, SUMMARY_COLUMNS, SummaryRow, Value};
use crate::store::statements::{self, Statement};
use crate::store::walk::{Each, Walk, Walked};
use crate::store::{Detail, RunFilter, RunResults};

/// The columns of a walk's row.
const RUN: usize = 0;
const LABELS: usize = 1;
const TAGS: usize = 2;
const RESULTS: usize = 3;
const SUMMARIES: usize = 4;

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
    let params: Vec<_> = (values.iter())
        .map(|v| &**v as &(dyn postgres::types::ToSql + Sync))
        .collect();
    let portal = tx.bind(&numbered(&statement.sql), &params)?;
    'batches: loop {
        let mut rows = tx.query_portal_raw(&portal, BATCH)?;
        while let Some(row) = rows.next()? {
            if each(shape.walked(&row, walk)?).is_break() {
                // the rest of this batch is dropped as it arrives, and the portal
                // with the transaction
                break 'batches;
            }
        }
        // a batch the statement's end completed, not one the limit suspended
        if rows.rows_affected().is_some() {
            break;
        }
    }
    tx.rollback()?;
    Ok(())
}

/// The runs a walk asks the server for at a time. The statement's rows come through a
/// portal, a batch at a time, rather than as one query's: a walk that stops half-way
/// then leaves at most one batch unread, which it drops, where a query's rest had to be
/// cancelled, and PostgreSQL acts on a cancel request when it gets to it: once, under
/// load, after the next statement on the connection had begun, which failed with
/// "canceling statement due to user request". Large enough that the server's pause
/// between two batches, a round trip, is a small part of a batch's time. The tests' walks
/// meet a few dozen runs: in batches of three, each crosses batches.
const BATCH: i32 = if cfg!(test) { 3 } else { 4096 };

/// The figures `x` of run `r` its headlines are made of (`model::headline`): of each
/// headline test, the measured figures at the largest sizes through the run's first
/// engine and cache (its `engine` and `cache` columns), those sizes found through the
/// results' key, largest first, once a test.
fn headline_figures() -> String {
    let tests: Vec<String> = (HEADLINE_TESTS.iter())
        .map(|t| format!("'{}'", t.name()))
        .collect();
    format!(
        "unnest(ARRAY[{}]) h (test) CROSS JOIN LATERAL (SELECT y.file_size, y.record_size \
         FROM iozone.results y WHERE y.run_id = r.id AND NOT y.warmup AND y.test = h.test \
         AND y.engine = r.engine AND y.cache = r.cache \
         ORDER BY y.file_size DESC, y.record_size DESC LIMIT 1) m \
         JOIN iozone.results x ON x.run_id = r.id AND NOT x.warmup AND x.test = h.test \
         AND x.file_size = m.file_size AND x.record_size = m.record_size \
         AND x.engine = r.engine AND x.cache = r.cache",
        tests.join(", ")
    )
}

/// What the walk's rows hold: the run's columns, and the columns of each table beside.
struct Shape {
    run: Vec<&'static Column<Run>>,
    labels: bool,
    detail: Detail,
    summaries: bool,
    /// Whether a run that keeps no summaries sends only the figures its headlines are
    /// made of ([`Walk::Headlines`]).
    headlines: bool,
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
            headlines: walk == Walk::Headlines,
        }
    }

    /// The walk's statement: a row for each run `filter` selects, in its order, with
    /// the columns [`RUN`], [`LABELS`], [`TAGS`], [`RESULTS`] and [`SUMMARIES`] (those
    /// the walk does not read null). The arrays are in no order: the run's labels
    /// carry their positions, and the rest is put in order here, as a sort on the
    /// server for each run cost more than the rows it sorted.
    fn statement(&self, filter: &RunFilter, walk: Walk) -> Statement {
        let runs = statements::walk_runs("iozone.", filter, &self.run, walk.by_host());
        let record: Vec<String> = self.run.iter().map(|c| format!("r.{}", c.name)).collect();
        let (labels, tags) = match self.labels {
            true => (
                "ARRAY(SELECT ROW(l.position, l.label) FROM iozone.run_labels l WHERE l.run_id = r.id)",
                "ARRAY(SELECT ROW(t.key, t.value) FROM iozone.run_tags t WHERE t.run_id = r.id)",
            ),
            false => ("NULL", "NULL"),
        };
        // the figures of a walk of summaries are those of the runs that keep none
        let which = match self.summaries {
            true => " AND NOT EXISTS (SELECT 1 FROM iozone.run_summaries s WHERE s.run_id = r.id)",
            false => "",
        };
        let from = match self.headlines {
            true => headline_figures(),
            false => "iozone.results x".into(),
        };
        let results = format!(
            "ARRAY(SELECT ROW({}) FROM {from} WHERE x.run_id = r.id{which})",
            named(beside(self.detail.columns()), "x")
        );
        let summaries = match self.summaries {
            true => format!(
                "ARRAY(SELECT ROW({}) FROM iozone.run_summaries s WHERE s.run_id = r.id)",
                named(beside(SUMMARY_COLUMNS), "s")
            ),
            false => "NULL".into(),
        };
        Statement {
            // the runs' order, which the rows keep as the runs come
            sql: format!(
                "SELECT ROW({}), {labels}, {tags}, {results}, {summaries} FROM ({}) r{}",
                record.join(", "),
                runs.sql,
                crate::store::filter::order(filter, walk.by_host()),
            ),
            params: runs.params,
        }
    }

    /// The run a row holds, as the walk hands it on.
    fn walked(&self, row: &Row, walk: Walk) -> Result<Walked, Fail> {
        let mut run = self.run(row)?;
        let mut results = RunResults::default();
        let columns = beside(self.detail.columns());
        for record in get::<Records>(row, RESULTS)?.0 {
            results.add(record.decode(columns, ResultRow::blank())?);
        }
        results.sort();
        if !walk.summaries() {
            results.fill(&mut run);
            return Ok(Walked {
                run,
                ..Walked::default()
            });
        }
        let kept = get::<Records>(row, SUMMARIES)?.0;
        // a run with one figure per key keeps no summaries: they are its figures
        let summaries = match kept.is_empty() {
            true => RowSummary::of(&results.results),
            false => {
                let mut summaries = (kept.into_iter())
                    .map(|r| {
                        Ok(r.decode(beside(SUMMARY_COLUMNS), SummaryRow::blank())?
                            .summary)
                    })
                    .collect::<Result<Vec<_>, Fail>>()?;
                // in key order, as those derived come
                summaries.sort_by_key(|r| r.key(&Params::default()));
                summaries
            }
        };
        Ok(Walked {
            run,
            summaries,
            ..Walked::default()
        })
    }

    /// The run a row holds, with its labels and tags.
    fn run(&self, row: &Row) -> Result<Run, Fail> {
        let record: Record = get(row, RUN)?;
        let mut run = record.decode(self.run.iter().copied(), Run::default())?;
        if self.labels {
            let mut labels = (get::<Records>(row, LABELS)?.0.into_iter())
                .map(|r| {
                    let (position, label) = r.pair(Kind::Integer, Kind::Text)?;
                    Ok((
                        position.int().map_err(Fail::Bad)?,
                        label.text().map_err(Fail::Bad)?,
                    ))
                })
                .collect::<Result<Vec<_>, Fail>>()?;
            // labels keep the order they were given in
            labels.sort_by_key(|(position, _)| *position);
            run.labels = labels.into_iter().map(|(_, label)| label).collect();
            for tag in get::<Records>(row, TAGS)?.0 {
                let (key, value) = tag.pair(Kind::Text, Kind::Text)?;
                let text = |v: Value| v.text().map_err(Fail::Bad);
                run.tags.insert(text(key)?, text(value)?);
            }
        }
        Ok(run)
    }
}

/// The columns of a table beside the runs but its first, the run's id: the rows of a
/// run come with it.
fn beside<T>(columns: &'static [Column<T>]) -> &'static [Column<T>] {
    debug_assert_eq!(columns[0].name, "run_id");
    &columns[1..]
}

/// Each of `columns` of `table`, as a list.
fn named<T>(columns: &[Column<T>], table: &str) -> String {
    (columns.iter())
        .map(|c| format!("{table}.{}", c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A record (`ROW(…)`) as the server sends it: its number of fields, then each field's
/// type, length and bytes. Read in order as they come, each checked against the kind
/// the column is of, with nothing gathered first: a walk reads 20 records a run.
struct Record<'a> {
    raw: &'a [u8],
}

impl<'a> FromSql<'a> for Record<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Record<'a>, Box<dyn Error + Sync + Send>> {
        Ok(Record { raw })
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::RECORD
    }
}

/// An array of records (`ARRAY(SELECT ROW(…) …)`) as the server sends it.
struct Records<'a>(Vec<Record<'a>>);

impl<'a> FromSql<'a> for Records<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Records<'a>, Box<dyn Error + Sync + Send>> {
        let array = postgres_protocol::types::array_from_sql(raw)?;
        if array.dimensions().count()? > 1 {
            return Err("an array of more than one dimension".into());
        }
        let records = array.values().map(|value| match value {
            Some(raw) => Ok(Record { raw }),
            None => Err("a null record".into()),
        });
        Ok(Records(records.collect()?))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::RECORD_ARRAY
    }
}

impl<'a> Record<'a> {
    /// A model value from the record's fields, one for each of `columns` in order.
    fn decode<'c, T: 'c>(
        &self,
        columns: impl IntoIterator<Item = &'c Column<T>>,
        blank: T,
    ) -> Result<T, Fail> {
        let mut fields = Fields::of(self.raw)?;
        let read = |idx: usize, kind: Kind| fields.next(idx, kind);
        columns::decode(columns, blank, read, |_, e| Fail::Bad(e.to_string()))
    }

    /// The record's two fields, of the kinds given.
    fn pair(&self, first: Kind, second: Kind) -> Result<(Value<'a>, Value<'a>), Fail> {
        let mut fields = Fields::of(self.raw)?;
        Ok((fields.next(0, first)?, fields.next(1, second)?))
    }
}

/// The fields of a record not read yet.
struct Fields<'a> {
    rest: &'a [u8],
    left: i32,
}

impl<'a> Fields<'a> {
    fn of(raw: &'a [u8]) -> Result<Fields<'a>, Fail> {
        let mut fields = Fields { rest: raw, left: 0 };
        fields.left = fields.int()?;
        Ok(fields)
    }

    /// The next field, number `idx`, as a value of `kind`.
    #[inline]
    fn next(&mut self, idx: usize, kind: Kind) -> Result<Value<'a>, Fail> {
        if self.left <= 0 {
            return Err(Fail::Bad(format!("a record has no field {idx}")));
        }
        self.left -= 1;
        let oid = self.int()? as u32;
        let raw = match self.int()? {
            -1 => None,
            len => Some(self.take(len.max(0) as usize)?),
        };
        let bad = |e: Box<dyn Error + Sync + Send>| {
            Fail::Bad(format!("a record's field {idx} cannot be read: {e}"))
        };
        match oid == expected_oid(kind) {
            // the type iozone wrote: read straight, as 20 fields of each result are
            true => plain(kind, raw).map_err(bad),
            false => converted(kind, oid, raw).map_err(bad),
        }
    }

    fn int(&mut self) -> Result<i32, Fail> {
        let bytes = self.take(4)?;
        Ok(i32::from_be_bytes(bytes.try_into().expect("four bytes")))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Fail> {
        if self.rest.len() < n {
            return Err(Fail::Bad("a record cut short".into()));
        }
        let (now, later) = self.rest.split_at(n);
        self.rest = later;
        Ok(now)
    }
}

/// The type iozone's columns of `kind` are of.
fn expected(kind: Kind) -> Type {
    match kind {
        Kind::Integer => Type::INT8,
        Kind::Real => Type::FLOAT8,
        Kind::Text => Type::TEXT,
        Kind::Bool => Type::BOOL,
        Kind::Time => Type::TIMESTAMPTZ,
        Kind::Uuid => Type::UUID,
    }
}

/// Every kind, in the order they are declared in.
const KINDS: [Kind; 6] = [
    Kind::Integer,
    Kind::Real,
    Kind::Text,
    Kind::Bool,
    Kind::Time,
    Kind::Uuid,
];

/// [`expected`]'s oid, looked up once rather than for each field read.
fn expected_oid(kind: Kind) -> u32 {
    static OIDS: LazyLock<[u32; KINDS.len()]> =
        LazyLock::new(|| KINDS.map(|kind| expected(kind).oid()));
    OIDS[kind as usize]
}

/// A field of the type iozone's columns of `kind` are of ([`expected`]).
#[inline]
fn plain(kind: Kind, raw: Option<&[u8]>) -> Result<Value<'_>, Box<dyn Error + Sync + Send>> {
    let Some(raw) = raw else {
        return Ok(Value::Null);
    };
    Ok(match kind {
        Kind::Integer => Value::Integer(types::int8_from_sql(raw)?),
        Kind::Real => Value::Real(types::float8_from_sql(raw)?),
        Kind::Text => Value::Text(types::text_from_sql(raw)?.into()),
        Kind::Bool => Value::Bool(types::bool_from_sql(raw)?),
        Kind::Time => Value::Time(FromSql::from_sql(&Type::TIMESTAMPTZ, raw)?),
        Kind::Uuid => Value::Uuid(FromSql::from_sql(&Type::UUID, raw)?),
    })
}

/// A field of the type `oid` as a value of `kind`, where that type holds one (text in
/// a `varchar`), else the error that says what it holds.
fn converted(
    kind: Kind,
    oid: u32,
    raw: Option<&[u8]>,
) -> Result<Value<'_>, Box<dyn Error + Sync + Send>> {
    let ty = Type::from_oid(oid).unwrap_or(Type::UNKNOWN);
    Ok(match kind {
        Kind::Integer => field::<Option<i64>>(&ty, raw)?.into(),
        Kind::Real => field::<Option<f64>>(&ty, raw)?.into(),
        Kind::Text => field::<Option<&str>>(&ty, raw)?.into(),
        Kind::Bool => field::<Option<bool>>(&ty, raw)?.into(),
        Kind::Time => field::<Option<chrono::DateTime<chrono::Utc>>>(&ty, raw)?.into(),
        Kind::Uuid => field::<Option<uuid::Uuid>>(&ty, raw)?.into(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_checked_against_the_oid_of_its_type() {
        for kind in KINDS {
            assert_eq!(expected_oid(kind), expected(kind).oid(), "{kind:?}");
        }
    }
}
