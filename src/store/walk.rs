//! Walks: every run a filter selects, read in one pass as the database hands its rows
//! over, each run passed on with what the walk reads beside its record. SQLite steps
//! one ordered scan of the runs and finds each run's rows through their keys, in one
//! read transaction; PostgreSQL sends one statement's rows, a row per run with the rows
//! beside it as arrays, as it finds them, and they are decoded as they arrive. Neither
//! restarts a query per page of runs, and memory holds a run, not the database. What
//! must finish with a page before the next is read (`sync`, which writes each page
//! elsewhere) lists the runs a page at a time instead ([`for_each_page`]).

use std::ops::ControlFlow;

use super::columns::{Column, RUN_COLUMNS};
use super::{Detail, RunFilter, RunResults, Store, StoreError};
#[cfg(doc)]
use crate::model::{HEADLINE_TESTS, headline};
use crate::model::{RowSummary, Run};

/// What a walk reads of each run beside its record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// The whole record, labels and tags, and the results in `Detail` (`export`).
    Results(Detail),
    /// The whole record, labels and tags, and the summaries a listing's headlines are
    /// read from (`history`, [`headline`]): those a run keeps, or, of a run that keeps
    /// none, those of the rows its headlines are made of ([`HEADLINE_TESTS`] at the
    /// largest sizes through the first engine and cache), not every row's.
    Headlines,
    /// Only what a series is made of (the run's id and start, where it ran, its depth
    /// and workers: [`SERIES_COLUMNS`]) and the summaries (`trend`, `report`). With
    /// `by_host`, the runs come host by host, every run of a host together (in no
    /// order of hosts or of the runs within one): for a walk without a limit.
    Series { by_host: bool },
}

impl Walk {
    /// Whether each run's summaries are read (the results of a run that keeps none).
    pub fn summaries(self) -> bool {
        !matches!(self, Walk::Results(_))
    }

    /// Whether the runs' labels and tags are read.
    pub fn labels(self) -> bool {
        !matches!(self, Walk::Series { .. })
    }

    /// The columns of `runs` read.
    pub(super) fn run_columns(self) -> Vec<&'static Column<Run>> {
        match self {
            Walk::Series { .. } => SERIES_COLUMNS
                .iter()
                .map(|name| super::columns::named(RUN_COLUMNS, name))
                .collect(),
            _ => RUN_COLUMNS.iter().collect(),
        }
    }

    /// The columns of `runs` that a walk of whole runs (an export's) copies as the store
    /// holds them, for the printer to decode: the very columns [`Walk::run_columns`]
    /// reads, in its order. None where the record is decoded as it is read.
    pub(super) fn copied_columns(self) -> Option<&'static [Column<Run>]> {
        match self {
            Walk::Results(_) => Some(RUN_COLUMNS),
            _ => None,
        }
    }

    /// Whether the runs come host by host rather than in the filter's order.
    pub(super) fn by_host(self) -> bool {
        matches!(self, Walk::Series { by_host: true })
    }
}

/// The columns of `runs` a series reads: `trend::Series::add_run`'s, and the row
/// key's depth and workers.
pub const SERIES_COLUMNS: &[&str] = &[
    "id",
    "started_at",
    "hostname",
    "fs_type",
    "mount_point",
    "iodepth",
    "threads",
];

/// A run as a walk reads it: its record (with its results when the walk reads them),
/// and its summaries when the walk reads those.
#[derive(Debug, Default)]
pub struct Walked {
    pub run: Run,
    pub summaries: Vec<RowSummary>,
    /// What a backend read of the run but left to whoever takes it to decode
    /// ([`walk_pending`]): its results, and with them perhaps its record; `run` holds
    /// none of that until then (but its id, labels and tags).
    pub pending: Option<Pending<Rest>>,
}

impl Walked {
    /// Decodes what is pending into the run.
    pub fn decode(&mut self) -> Result<(), StoreError> {
        if let Some(rest) = self.pending.take() {
            rest.decode()?.fill(&mut self.run);
        }
        Ok(())
    }
}

/// What a walk leaves of a run to decode: its results, and its record when the
/// backend copied that out too (SQLite's walk of whole runs, whose thread is an
/// export's critical path).
#[derive(Debug, Default)]
pub struct Rest {
    pub record: Option<Run>,
    pub results: RunResults,
}

impl Rest {
    /// Fills `run`, which holds what the walk decoded itself: its record (but for
    /// labels and tags, which come from tables of their own) when that was left too,
    /// and its results.
    pub fn fill(self, run: &mut Run) {
        if let Some(mut record) = self.record {
            record.labels = std::mem::take(&mut run.labels);
            record.tags = std::mem::take(&mut run.tags);
            *run = record;
        }
        self.results.fill(run);
    }
}

/// Rows as read, and how they become a `T`: SQLite's walk copies them out as SQLite
/// holds them, which is a fraction of decoding them, so that a walk whose runs are
/// printed on another thread decodes them there (`paged.rs`).
pub struct Pending<T>(Box<dyn FnOnce() -> Result<T, StoreError> + Send>);

impl<T> Pending<T> {
    /// Rows that `decode` makes a `T` of.
    pub fn new(decode: impl FnOnce() -> Result<T, StoreError> + Send + 'static) -> Pending<T> {
        Pending(Box::new(decode))
    }

    /// The `T` the rows make; the error is the store's for a value this iozone cannot
    /// read, as a walk that decodes them itself would fail.
    pub fn decode(self) -> Result<T, StoreError> {
        (self.0)()
    }
}

impl<T> std::fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pending")
    }
}

/// What a backend's walk hands each run to: whether to go on.
pub type Each<'a> = dyn FnMut(Walked) -> ControlFlow<()> + 'a;

/// Every run `filter` selects (up to its limit), in its order (or host by host, as
/// `walk` says), each handed to `each` with what `walk` reads, as it is read; the
/// first error of `each` stops the walk and is returned.
pub fn walk<E: From<StoreError>>(
    store: &dyn Store,
    filter: &RunFilter,
    walk: Walk,
    mut each: impl FnMut(Walked) -> Result<(), E>,
) -> Result<(), E> {
    walk_pending(store, filter, walk, |mut run| {
        run.decode()?;
        each(run)
    })
}

/// [`walk`], each run handed on with what the backend left pending ([`Walked::decode`]):
/// for a walk that decodes on another thread.
pub fn walk_pending<E: From<StoreError>>(
    store: &dyn Store,
    filter: &RunFilter,
    walk: Walk,
    mut each: impl FnMut(Walked) -> Result<(), E>,
) -> Result<(), E> {
    debug_assert!(
        !walk.by_host() || filter.limit.is_none(),
        "a walk host by host has no limit"
    );
    let mut failed = None;
    store.walk(filter, walk, &mut |run| match each(run) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            failed = Some(e);
            ControlFlow::Break(())
        }
    })?;
    failed.map_or(Ok(()), Err)
}

/// [`walk`], the runs handed to `each` a page of [`PAGE`] at a time (the last
/// page may be shorter; none when no run matched): for what is written a page at a
/// time.
pub fn walk_pages<E: From<StoreError>>(
    store: &dyn Store,
    filter: &RunFilter,
    read: Walk,
    mut each: impl FnMut(Vec<Walked>) -> Result<(), E>,
) -> Result<(), E> {
    let mut pager = Pager::default();
    walk(store, filter, read, |run| {
        pager.add(run).map_or(Ok(()), &mut each)
    })?;
    pager.rest().map_or(Ok(()), each)
}

/// Walked runs gathered into pages of [`PAGE`], for a walk that does more with each
/// run than [`walk_pages`] lets it.
#[derive(Default)]
pub struct Pager {
    page: Vec<Walked>,
}

impl Pager {
    /// Adds `run`; the page it filled, if it did.
    pub fn add(&mut self, run: Walked) -> Option<Vec<Walked>> {
        if self.page.capacity() == 0 {
            self.page.reserve_exact(PAGE);
        }
        self.page.push(run);
        (self.page.len() == PAGE).then(|| std::mem::take(&mut self.page))
    }

    /// The last page, shorter than the others, if runs are left.
    pub fn rest(self) -> Option<Vec<Walked>> {
        (!self.page.is_empty()).then_some(self.page)
    }
}

/// Runs a page of a listing holds when it walks every run a filter selects: memory
/// holds a page, never the whole database, and the round trips stay few.
pub const PAGE: usize = 500;

/// The runs `filter` selects (up to its limit), in its order, a page at a time: each
/// page is read once `each` has done with the last one, after the last run seen (by
/// start and id, through the index), so memory holds one page whatever the database.
pub fn for_each_page<E: From<StoreError>>(
    store: &dyn Store,
    filter: &RunFilter,
    mut each: impl FnMut(Vec<Run>) -> Result<(), E>,
) -> Result<(), E> {
    let mut page = filter.clone();
    let mut left = filter.limit;
    loop {
        page.limit = Some(left.map_or(PAGE, |l| l.min(PAGE)));
        let runs = store.list_runs(&page)?;
        let full = runs.len() == PAGE;
        let Some(last) = runs.last() else {
            return Ok(());
        };
        page.after = Some((last.started_at, last.id.unwrap_or_default()));
        left = left.map(|l| l - runs.len());
        each(runs)?;
        if !full || left == Some(0) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_record_is_the_columns_the_walk_reads_in_their_order() {
        let walks = [
            Walk::Results(Detail::Full),
            Walk::Results(Detail::Figures),
            Walk::Headlines,
            Walk::Series { by_host: false },
            Walk::Series { by_host: true },
        ];
        for walk in walks {
            let Some(copied) = walk.copied_columns() else {
                continue;
            };
            let read: Vec<&str> = walk.run_columns().iter().map(|c| c.name).collect();
            let copied: Vec<&str> = copied.iter().map(|c| c.name).collect();
            assert_eq!(read, copied, "{walk:?}");
        }
        assert!(Walk::Results(Detail::Full).copied_columns().is_some());
    }
}
