//! SQLite's walk: one statement steps through the runs in the walk's order (through
//! the index of that order), and beside it one statement per table of what the walk
//! reads beside a run (labels, tags, results, summaries) steps through that table's
//! rows of the same runs in the same order, each run's together: the runs joined with
//! the table through its key, in one scan, so no statement is restarted per run. A
//! run's rows are taken as the run comes. All in one read transaction, so the
//! statements see one state of the database and the walk takes its read lock once.

use std::collections::BTreeMap;

use rusqlite::{Connection, Row, Rows};

use super::SqliteStore;
use super::bind::{decode, values};
use crate::model::{Params, RowSummary, Run};
use crate::store::columns::{Column, ResultRow, SUMMARY_COLUMNS, SummaryRow};
use crate::store::statements::{self, Statement};
use crate::store::walk::{Each, Walk, Walked};
use crate::store::{Detail, RunFilter, RunResults};

impl SqliteStore {
    pub(super) fn walk_runs(
        &self,
        filter: &RunFilter,
        walk: Walk,
        each: &mut Each,
    ) -> rusqlite::Result<()> {
        let read = self.reading()?;
        let columns = walk.run_columns();
        let statement = statements::walk_runs("", filter, &columns, walk.by_host());
        let mut runs = self.conn.prepare(&statement.sql)?;
        let mut prepared = Prepared::new(&self.conn, filter, walk)?;
        let mut beside = prepared.query()?;
        let mut rows = runs.query(values(&statement))?;
        while let Some(row) = rows.next()? {
            let run = decode(row, columns.iter().copied(), Run::default())?;
            if each(beside.read(run)?).is_break() {
                break;
            }
        }
        drop((rows, beside));
        if let Some(read) = read {
            read.commit()?;
        }
        Ok(())
    }
}

/// A statement of the rows beside the runs, prepared, with its parameters.
struct Side<'c> {
    prepared: rusqlite::Statement<'c>,
    statement: Statement,
}

impl<'c> Side<'c> {
    fn prepare(
        conn: &'c Connection,
        filter: &RunFilter,
        walk: Walk,
        beside: &statements::Beside,
    ) -> rusqlite::Result<Side<'c>> {
        let statement = statements::walk_beside("", filter, walk.by_host(), beside);
        Ok(Side {
            prepared: conn.prepare(&statement.sql)?,
            statement,
        })
    }

    /// Its rows, each read by `read` into its run's id and a value.
    fn rows<T>(&mut self, read: Read<T>) -> rusqlite::Result<Following<'_, T>> {
        Following::new(self.prepared.query(values(&self.statement))?, read)
    }
}

/// The statements of what a walk reads beside its runs.
struct Prepared<'c> {
    /// The labels and tags, when the walk reads them.
    labels: Option<Side<'c>>,
    tags: Option<Side<'c>>,
    /// The results in the walk's detail, or the figures of the runs that keep no
    /// summaries, when the walk reads summaries.
    results: Side<'c>,
    detail: Detail,
    summaries: Option<Side<'c>>,
}

/// A run keeps no summaries when it measured one figure per key: its figures are its
/// summaries, read from its results instead.
const KEEPS_NO_SUMMARIES: &str = "NOT EXISTS (SELECT 1 FROM run_summaries s WHERE s.run_id = r.id)";

impl<'c> Prepared<'c> {
    fn new(conn: &'c Connection, filter: &RunFilter, walk: Walk) -> rusqlite::Result<Self> {
        let side = |table, columns: &[&str], only, then_by| {
            let beside = statements::Beside {
                table,
                columns,
                only,
                then_by,
            };
            Side::prepare(conn, filter, walk, &beside)
        };
        let (labels, tags) = match walk.labels() {
            true => (
                Some(side(
                    "run_labels",
                    &["run_id", "label"],
                    None,
                    Some("position"),
                )?),
                Some(side("run_tags", &["run_id", "key", "value"], None, None)?),
            ),
            false => (None, None),
        };
        let (detail, only) = match walk {
            Walk::Results(detail) => (detail, None),
            _ => (Detail::Figures, Some(KEEPS_NO_SUMMARIES)),
        };
        let summaries = match walk.summaries() {
            true => Some(side("run_summaries", &names(SUMMARY_COLUMNS), None, None)?),
            false => None,
        };
        Ok(Prepared {
            labels,
            tags,
            results: side("results", &names(detail.columns()), only, None)?,
            detail,
            summaries,
        })
    }

    /// The rows of each statement, read along with the runs.
    fn query(&mut self) -> rusqlite::Result<Beside<'_>> {
        let labels = (self.labels.as_mut())
            .map(|side| side.rows(Box::new(|row| Ok((row.get(0)?, row.get(1)?)))))
            .transpose()?;
        let tags = (self.tags.as_mut())
            .map(|side| {
                side.rows(Box::new(|row| {
                    Ok((row.get(0)?, (row.get(1)?, row.get(2)?)))
                }))
            })
            .transpose()?;
        let columns = self.detail.columns();
        let results = self.results.rows(Box::new(move |row| {
            let read = decode(row, columns, ResultRow::blank())?;
            Ok((read.run_id, read))
        }))?;
        let summaries = (self.summaries.as_mut())
            .map(|side| {
                side.rows(Box::new(|row| {
                    let read = decode(row, SUMMARY_COLUMNS, SummaryRow::blank())?;
                    Ok((read.run_id, read.summary))
                }))
            })
            .transpose()?;
        Ok(Beside {
            labels,
            tags,
            results,
            summaries,
        })
    }
}

fn names<T>(columns: &[Column<T>]) -> Vec<&'static str> {
    columns.iter().map(|c| c.name).collect()
}

/// How a row beside the runs is read: its run's id, and what the walk keeps of it.
type Read<T> = Box<dyn FnMut(&Row) -> rusqlite::Result<(i64, T)>>;

/// A statement's rows beside the runs, in the runs' order: the next row is read
/// ahead, and taken when its run comes.
struct Following<'s, T> {
    rows: Rows<'s>,
    read: Read<T>,
    next: Option<(i64, T)>,
}

impl<'s, T> Following<'s, T> {
    fn new(rows: Rows<'s>, read: Read<T>) -> rusqlite::Result<Self> {
        let mut following = Following {
            rows,
            read,
            next: None,
        };
        following.step()?;
        Ok(following)
    }

    fn step(&mut self) -> rusqlite::Result<()> {
        self.next = match self.rows.next()? {
            Some(row) => Some((self.read)(row)?),
            None => None,
        };
        Ok(())
    }

    /// The rows of run `id`, each handed to `add`: the rows up to the next of a run
    /// after it (its statement reads the same runs in the same order, so none of an
    /// earlier run is left).
    fn take(&mut self, id: i64, mut add: impl FnMut(T)) -> rusqlite::Result<()> {
        while let Some((_, value)) = self.next.take_if(|(of, _)| *of == id) {
            add(value);
            self.step()?;
        }
        Ok(())
    }
}

/// What a walk reads beside its runs, read along with them.
struct Beside<'s> {
    labels: Option<Following<'s, String>>,
    tags: Option<Following<'s, (String, String)>>,
    results: Following<'s, ResultRow>,
    summaries: Option<Following<'s, RowSummary>>,
}

impl Beside<'_> {
    /// `run` with what the walk reads beside it.
    fn read(&mut self, mut run: Run) -> rusqlite::Result<Walked> {
        let id = run.id.unwrap_or_default();
        if let Some(labels) = &mut self.labels {
            labels.take(id, |label| run.labels.push(label))?;
        }
        if let Some(tags) = &mut self.tags {
            let mut found = BTreeMap::new();
            tags.take(id, |(key, value)| {
                found.insert(key, value);
            })?;
            run.tags = found;
        }
        let Some(summaries) = &mut self.summaries else {
            self.results(id)?.fill(&mut run);
            return Ok(Walked {
                run,
                summaries: Vec::new(),
            });
        };
        let mut rows = Vec::new();
        summaries.take(id, |summary| rows.push(summary))?;
        // a run with one figure per key keeps no summaries: they are its figures
        match rows.is_empty() {
            true => rows = RowSummary::of(&self.results(id)?.results),
            // in key order, as those derived come
            false => rows.sort_by_key(|r| r.key(&Params::default())),
        }
        Ok(Walked {
            run,
            summaries: rows,
        })
    }

    /// The results of run `id`, in the listing order.
    fn results(&mut self, id: i64) -> rusqlite::Result<RunResults> {
        let mut results = RunResults::default();
        self.results.take(id, |row| results.add(row))?;
        results.sort();
        Ok(results)
    }
}
