//! PostgreSQL's walk: in one read-only snapshot, a server-side cursor over the runs in
//! the walk's order and, beside it, a cursor per table the walk reads (labels, tags,
//! results, summaries) over that table's rows joined to the same runs in the same
//! order, so that each run's rows come next in each cursor as its turn comes. Rows
//! are fetched many thousands at a time and decoded as they are taken; a cursor is
//! planned to deliver its first rows at once (a nested loop through the keys), never
//! to sort the whole table first.

use std::collections::{BTreeMap, VecDeque};

use postgres::{IsolationLevel, Row, Statement as Prepared, Transaction};

use super::bind::{bound, numbered, params};
use super::errors::Fail;
use super::read::{decode, get};
use crate::model::{Params, RowSummary, Run};
use crate::store::columns::{Column, ResultRow, SUMMARY_COLUMNS, SummaryRow};
use crate::store::statements::{self, Statement};
use crate::store::walk::{Each, Walk, Walked};
use crate::store::{Detail, RunFilter, RunResults};

/// Rows a fetch brings: of runs (a few hundred bytes to kilobytes each), and of the
/// rows beside them (tens of bytes each). A few megabytes a fetch: round trips few,
/// memory small.
const RUNS_FETCH: usize = 2_000;
const ROWS_FETCH: usize = 20_000;

const SCHEMA: &str = "iozone.";

pub(super) fn walk(
    client: &mut postgres::Client,
    filter: &RunFilter,
    walk: Walk,
    each: &mut Each,
) -> Result<(), Fail> {
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let columns = walk.run_columns();
    let statement = statements::walk_runs(SCHEMA, filter, &columns, walk.by_host());
    let mut runs = Cursor::declare(&mut tx, "walk_runs", &statement, RUNS_FETCH)?;
    let mut beside = Beside::declare(&mut tx, filter, walk)?;
    while let Some(row) = runs.next(&mut tx)? {
        let run = decode(&row, columns.iter().copied(), Run::default())?;
        if each(beside.read(&mut tx, run)?).is_break() {
            break;
        }
    }
    // read only: nothing to keep
    tx.rollback()?;
    Ok(())
}

/// The cursors beside the runs', for what a walk reads.
struct Beside {
    labels: Option<(Cursor, Cursor)>,
    /// The results in the walk's detail; or, for a walk of summaries, the figures of
    /// the runs that keep none.
    results: Cursor,
    detail: Detail,
    summaries: Option<Cursor>,
}

impl Beside {
    fn declare(tx: &mut Transaction, filter: &RunFilter, walk: Walk) -> Result<Beside, Fail> {
        let by_host = walk.by_host();
        let cursor = |tx: &mut Transaction, name, table, columns: &str, condition| {
            let statement =
                statements::walk_beside(SCHEMA, filter, by_host, table, columns, condition);
            Cursor::declare(tx, name, &statement, ROWS_FETCH)
        };
        let labels = match walk.labels() {
            true => Some((
                cursor(
                    tx,
                    "walk_labels",
                    "run_labels",
                    "x.run_id, x.label, x.position",
                    "true",
                )?,
                cursor(
                    tx,
                    "walk_tags",
                    "run_tags",
                    "x.run_id, x.key, x.value",
                    "true",
                )?,
            )),
            false => None,
        };
        let (detail, which) = match walk {
            Walk::Results(detail) => (detail, "true"),
            _ => (
                Detail::Figures,
                "NOT EXISTS (SELECT 1 FROM iozone.run_summaries s WHERE s.run_id = r.id)",
            ),
        };
        let results = cursor(
            tx,
            "walk_results",
            "results",
            &prefixed(detail.columns()),
            which,
        )?;
        let summaries = match walk.summaries() {
            true => Some(cursor(
                tx,
                "walk_summaries",
                "run_summaries",
                &prefixed(SUMMARY_COLUMNS),
                "true",
            )?),
            false => None,
        };
        Ok(Beside {
            labels,
            results,
            detail,
            summaries,
        })
    }

    /// `run` with what the walk reads beside it.
    fn read(&mut self, tx: &mut Transaction, mut run: Run) -> Result<Walked, Fail> {
        let id = run.id.unwrap_or_default();
        if let Some((labels, tags)) = &mut self.labels {
            let mut found: Vec<(i64, String)> = Vec::new();
            labels.take_run(tx, id, |row| {
                found.push((get(row, 2)?, get(row, 1)?));
                Ok(())
            })?;
            found.sort_unstable_by_key(|(position, _)| *position);
            run.labels = found.into_iter().map(|(_, label)| label).collect();
            let mut found = BTreeMap::new();
            tags.take_run(tx, id, |row| {
                found.insert(get(row, 1)?, get(row, 2)?);
                Ok(())
            })?;
            run.tags = found;
        }
        let mut results = RunResults::default();
        let columns = self.detail.columns();
        self.results.take_run(tx, id, |row| {
            results.add(decode(row, columns, ResultRow::blank())?);
            Ok(())
        })?;
        results.sort();
        let Some(summaries) = &mut self.summaries else {
            results.fill(&mut run);
            return Ok(Walked {
                run,
                summaries: Vec::new(),
            });
        };
        let mut rows = Vec::new();
        summaries.take_run(tx, id, |row| {
            rows.push(decode(row, SUMMARY_COLUMNS, SummaryRow::blank())?.summary);
            Ok(())
        })?;
        // a run with one figure per key keeps no summaries: they are its figures
        match rows.is_empty() {
            true => rows = RowSummary::of(&results.results),
            // in key order, as those derived come
            false => rows.sort_by_key(|r| r.key(&Params::default())),
        }
        Ok(Walked {
            run,
            summaries: rows,
        })
    }
}

/// `x.name, …` for each of `columns`.
fn prefixed<T>(columns: &[Column<T>]) -> String {
    let names: Vec<String> = columns.iter().map(|c| format!("x.{}", c.name)).collect();
    names.join(", ")
}

/// A server-side cursor of the transaction, read a fetch at a time.
struct Cursor {
    fetch: Prepared,
    size: usize,
    rows: VecDeque<Row>,
    /// Whether the last fetch brought fewer rows than asked: there are no more.
    done: bool,
}

impl Cursor {
    /// Declares cursor `name` over `statement`'s rows, to be fetched `size` at a time.
    fn declare(
        tx: &mut Transaction,
        name: &str,
        statement: &Statement,
        size: usize,
    ) -> Result<Cursor, Fail> {
        let values: Vec<_> = (statement.params.iter())
            .map(|(kind, value)| bound(*kind, value))
            .collect();
        let declare = format!(
            "DECLARE {name} NO SCROLL CURSOR FOR {}",
            numbered(&statement.sql)
        );
        tx.execute(&declare, &params(&values))?;
        Ok(Cursor {
            fetch: tx.prepare(&format!("FETCH {size} FROM {name}"))?,
            size,
            rows: VecDeque::new(),
            done: false,
        })
    }

    /// The next row, fetched with the next ones when none is left.
    fn peek(&mut self, tx: &mut Transaction) -> Result<Option<&Row>, Fail> {
        if self.rows.is_empty() && !self.done {
            self.rows.extend(tx.query(&self.fetch, &[])?);
            self.done = self.rows.len() < self.size;
        }
        Ok(self.rows.front())
    }

    fn next(&mut self, tx: &mut Transaction) -> Result<Option<Row>, Fail> {
        self.peek(tx)?;
        Ok(self.rows.pop_front())
    }

    /// Hands each row of run `id` to `add`: the rows that come next, whose first column
    /// is `id` (a run without any has none next).
    fn take_run(
        &mut self,
        tx: &mut Transaction,
        id: i64,
        mut add: impl FnMut(&Row) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        while let Some(row) = self.peek(tx)? {
            if get::<i64>(row, 0)? != id {
                break;
            }
            add(row)?;
            self.rows.pop_front();
        }
        Ok(())
    }
}
