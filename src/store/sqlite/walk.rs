//! SQLite's walk: one statement steps through the runs in the walk's order (through
//! the index of that order), and each run's labels, tags, results or summaries are
//! found through their tables' keys as it comes, by statements prepared once; all in
//! one read transaction, so the walk sees one state of the database and takes its
//! read lock once.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rusqlite::{CachedStatement, Connection};

use super::bind::{decode, values};
use super::copied::{CopiedRow, CopiedRows};
use super::{SqliteStore, sql_error};
#[cfg(doc)]
use crate::model::headline;
use crate::model::{HEADLINE_TESTS, Measurement, Params, RowSummary, Run};
use crate::store::columns::{Column, ResultRow, SUMMARY_COLUMNS, SummaryRow};
use crate::store::walk::{Each, Pending, Rest, Walk, Walked};
use crate::store::{Detail, RunFilter, RunResults, statements};

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
        let mut beside = Beside::prepare(&self.conn, walk, &self.path)?;
        // A walk of whole runs (an export's) leaves their records to whoever takes them,
        // as it leaves their results: it reads only the id it needs for the rest.
        let copied = walk.copied_columns();
        let id_at = columns.iter().position(|c| c.name == "id");
        let mut rows = runs.query(values(&statement))?;
        while let Some(row) = rows.next()? {
            let (run, record) = match (copied, id_at) {
                (Some(copied), Some(at)) => {
                    let run = Run {
                        id: Some(row.get(at)?),
                        ..Run::default()
                    };
                    (run, Some(CopiedRow::copy(copied, row)?))
                }
                _ => (decode(row, columns.iter().copied(), Run::default())?, None),
            };
            if each(beside.read(run, record)?).is_break() {
                break;
            }
        }
        drop(rows);
        if let Some(read) = read {
            read.commit()?;
        }
        Ok(())
    }
}

/// The statements that read what a walk reads beside each run, by its id.
struct Beside<'c> {
    labels: Option<(CachedStatement<'c>, CachedStatement<'c>)>,
    /// The results in the walk's detail, or the figures a run without summaries reads.
    results: CachedStatement<'c>,
    detail: Detail,
    summaries: Option<CachedStatement<'c>>,
    /// A test's measured figures, largest sizes first, for the headlines of a run that
    /// keeps no summaries ([`Beside::headline_figures`]), when the walk reads only those.
    headlines: Option<CachedStatement<'c>>,
    /// How many measured and warm-up rounds the last run had: the next run's lists are
    /// made that large at once, since a history's runs are mostly alike, rather than
    /// grown (and copied) four times each for 20 rounds. A large run leaves the one
    /// after it that much room, no more.
    rounds: (usize, usize),
    /// The room the last run's results took copied ([`Beside::pending`]), as `rounds`.
    copied: (usize, usize),
    /// The database's path, for the error of results decoded after the walk.
    path: Arc<Path>,
}

impl<'c> Beside<'c> {
    fn prepare(conn: &'c Connection, walk: Walk, path: &Path) -> rusqlite::Result<Beside<'c>> {
        let one = "run_id = ?";
        let labels = match walk.labels() {
            true => Some((
                conn.prepare_cached(&statements::select_labels("", one))?,
                conn.prepare_cached(&statements::select_tags("", one))?,
            )),
            false => None,
        };
        let detail = match walk {
            Walk::Results(detail) => detail,
            _ => Detail::Figures,
        };
        let summaries = match walk.summaries() {
            true => Some(conn.prepare_cached(&statements::select_summaries("", one))?),
            false => None,
        };
        let headlines = match walk {
            Walk::Headlines => Some(conn.prepare_cached(&statements::select_largest_first(
                "",
                "run_id = ?1 AND warmup = 0 AND test = ?2",
                detail.of_one_run(),
            ))?),
            _ => None,
        };
        Ok(Beside {
            labels,
            results: conn.prepare_cached(&statements::select_results(
                "",
                one,
                detail.of_one_run(),
            ))?,
            detail,
            summaries,
            headlines,
            rounds: (0, 0),
            copied: (0, 0),
            path: path.into(),
        })
    }

    /// `run` with what the walk reads beside it; `record`, its record copied out when
    /// the walk leaves that to decode too.
    fn read(&mut self, mut run: Run, record: Option<CopiedRow<Run>>) -> rusqlite::Result<Walked> {
        let id = run.id.unwrap_or_default();
        if let Some((labels, tags)) = &mut self.labels {
            let mut found = labels.query([id])?;
            while let Some(row) = found.next()? {
                run.labels.push(row.get(1)?);
            }
            let mut found = tags.query([id])?;
            let mut tags = BTreeMap::new();
            while let Some(row) = found.next()? {
                tags.insert(row.get(1)?, row.get(2)?);
            }
            run.tags = tags;
        }
        let Some(summaries) = &mut self.summaries else {
            let pending = Some(self.pending(id, record)?);
            return Ok(Walked {
                run,
                summaries: Vec::new(),
                pending,
            });
        };
        let mut rows = Vec::new();
        each(summaries, id, SUMMARY_COLUMNS, SummaryRow::blank(), |row| {
            rows.push(row.summary)
        })?;
        // a run with one figure per key keeps no summaries: they are its figures
        match (rows.is_empty(), self.headlines.is_some()) {
            (true, true) => rows = RowSummary::of(&self.headline_figures(id, &run.params)?),
            (true, false) => rows = RowSummary::of(&self.figures(id)?.results),
            // in key order, as those derived come
            (false, _) => rows.sort_by_key(|r| r.key(&Params::default())),
        }
        Ok(Walked {
            run,
            summaries: rows,
            pending: None,
        })
    }

    /// The measured figures of run `id` that its headlines are summarized from: of each
    /// headline test, those at the largest file and record size through the run's
    /// first engine and cache ([`headline`]'s row). SQLite hands a test's figures over
    /// largest sizes first, so the walk reads a row or two a test rather than every
    /// row of the run: its slowest part when it read them all.
    fn headline_figures(&mut self, id: i64, params: &Params) -> rusqlite::Result<Vec<Measurement>> {
        let statement = self.headlines.as_mut().expect("a walk of headlines");
        let columns = self.detail.of_one_run();
        let first = (params.engine(), params.cache());
        let mut figures = Vec::new();
        for test in HEADLINE_TESTS {
            let mut rows = statement.query(rusqlite::params![id, test.name()])?;
            let mut largest = None;
            while let Some(row) = rows.next()? {
                let m = decode(row, columns, ResultRow::blank())?.measurement;
                let sizes = (m.file_size, m.record_size);
                if largest.is_some_and(|l| l != sizes) {
                    break;
                }
                if (m.engine, m.cache) == first {
                    largest = Some(sizes);
                    figures.push(m);
                }
            }
        }
        Ok(figures)
    }

    /// The results of run `id` copied out as SQLite holds them, and its `record` if
    /// copied too, to be decoded by whoever takes the run: a walk of whole runs is an
    /// export's, which prints them on another thread.
    fn pending(
        &mut self,
        id: i64,
        record: Option<CopiedRow<Run>>,
    ) -> rusqlite::Result<Pending<Rest>> {
        let mut copied = CopiedRows::new(self.detail.of_one_run(), self.copied);
        let mut rows = self.results.query([id])?;
        while let Some(row) = rows.next()? {
            copied.copy(row)?;
        }
        self.copied = copied.room();
        let path = Arc::clone(&self.path);
        Ok(Pending::new(move || {
            let decoded =
                (record.map(|r| r.decode(Run::default())).transpose()).and_then(|record| {
                    Ok(Rest {
                        record,
                        results: copied.decode()?,
                    })
                });
            decoded.map_err(|e| sql_error(&path, e))
        }))
    }

    /// The results of run `id`, in the order SQLite finds them: for
    /// [`RowSummary::of`], which sorts them by row and repetition itself, and whose
    /// order then depends on nothing else (the table's key makes a measured figure's
    /// row and repetition unique), so a sort into the listing order first was
    /// a second sort of every run's figures for nothing.
    fn figures(&mut self, id: i64) -> rusqlite::Result<RunResults> {
        let mut results = RunResults {
            results: Vec::with_capacity(self.rounds.0),
            warmup: Vec::with_capacity(self.rounds.1),
        };
        let columns = self.detail.of_one_run();
        each(&mut self.results, id, columns, ResultRow::blank(), |row| {
            results.add(row)
        })?;
        self.rounds = (results.results.len(), results.warmup.len());
        Ok(results)
    }
}

/// The rows `statement` (a SELECT of `columns` for one `run_id = ?`) finds for `id`,
/// each handed to `add` as it is decoded.
fn each<T: Clone>(
    statement: &mut CachedStatement,
    id: i64,
    columns: &[Column<T>],
    blank: T,
    mut add: impl FnMut(T),
) -> rusqlite::Result<()> {
    let mut rows = statement.query([id])?;
    while let Some(row) = rows.next()? {
        add(decode(row, columns, blank.clone())?);
    }
    Ok(())
}
