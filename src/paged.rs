//! Listings of every run a filter selects, written a page of runs at a time, so that
//! memory holds a page, not the database: `history --all` and `export` as CSV or JSON
//! through one driver (`write`), and `history --all` as a table, whose columns must
//! see every line before the first is written (`table.rs`, through a `Spool`).

mod spool;
mod table;

use chrono::{DateTime, Utc};

use crate::export::{self, JsonExport};
use crate::model::{Run, RunStatus, Summaries};
use crate::output::{Output, OutputError};
use crate::render::{self, Listing};
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError};

use spool::Spool;
pub use table::HistoryTable;

/// The two documents a listing of runs streams as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// A document written a page of runs at a time, each page read as `P`.
trait Document<P> {
    /// The text before the first page.
    fn head(&mut self) -> String {
        String::new()
    }

    /// Hands a page's text to `out` as it is made.
    fn page(&mut self, page: &P, out: &mut Output) -> Result<(), OutputError>;

    /// The text after the last page.
    fn end(self) -> String;
}

/// Writes every run `filter` selects to `out` as `document`, each page of runs read by
/// `read` first; returns how many runs the store listed.
fn write<P, E>(
    store: &dyn Store,
    filter: &RunFilter,
    mut read: impl FnMut(Vec<Run>) -> Result<P, StoreError>,
    mut document: impl Document<P>,
    out: &mut Output,
) -> Result<usize, E>
where
    E: From<StoreError> + From<OutputError>,
{
    out.write(&document.head())?;
    let mut count = 0;
    store::for_each_page(store, filter, |runs| {
        count += runs.len();
        document.page(&read(runs)?, out)?;
        Ok::<_, E>(())
    })?;
    out.write(&document.end())?;
    Ok(count)
}

/// `history --all --format csv|json`: every run as `history` lists it.
pub fn history<E>(
    store: &dyn Store,
    filter: &RunFilter,
    format: Format,
    out: &mut Output,
) -> Result<(), E>
where
    E: From<StoreError> + From<OutputError>,
{
    let read = |runs| listed_page(store, filter, runs);
    match format {
        Format::Csv => {
            let listing =
                |(runs, summaries): &(Vec<Run>, Summaries)| render::history_csv(runs, summaries);
            write::<_, E>(store, filter, read, Csv::new(listing), out)?
        }
        Format::Json => write::<_, E>(store, filter, read, HistoryJson::new(), out)?,
    };
    Ok(())
}

/// `export`: every run whole, as our JSON document or as CSV with a line per result;
/// returns how many runs were written.
pub fn export<E>(
    store: &dyn Store,
    filter: &RunFilter,
    format: Format,
    exported_at: DateTime<Utc>,
    out: &mut Output,
) -> Result<usize, E>
where
    E: From<StoreError> + From<OutputError>,
{
    let read = |runs| store::with_results(store, runs, store::Detail::Full);
    match format {
        Format::Csv => {
            let listing = |runs: &Vec<Run>| export::csv_listing(runs);
            write(store, filter, read, Csv::new(listing), out)
        }
        Format::Json => write(store, filter, read, ExportJson::new(exported_at), out),
    }
}

/// A page of runs as `history` lists them, with the summaries of their measured
/// rounds (the listing's headline figures).
fn listed_page(
    store: &dyn Store,
    filter: &RunFilter,
    mut runs: Vec<Run>,
) -> Result<(Vec<Run>, Summaries), StoreError> {
    as_listed(filter, &mut runs);
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    let summaries = store.summaries_of(&ids)?;
    Ok((runs, summaries))
}

/// Runs as `history` shows them: a run whose process was killed is aborted (failed,
/// when it waits in the spool), and so no longer among those `--status running` asks
/// for.
pub fn as_listed(filter: &RunFilter, runs: &mut Vec<Run>) {
    crate::killed::show_as_ended(runs);
    if filter.status == Some(RunStatus::Running) {
        runs.retain(|r| r.status == RunStatus::Running);
    }
}

/// CSV: a listing per page, whose header is written once, with the first page, or
/// alone when there was no page.
struct Csv<F> {
    listing: F,
    pages: usize,
}

impl<F> Csv<F> {
    fn new(listing: F) -> Csv<F> {
        Csv { listing, pages: 0 }
    }
}

impl<P: Default, F: Fn(&P) -> Listing> Document<P> for Csv<F> {
    fn page(&mut self, page: &P, out: &mut Output) -> Result<(), OutputError> {
        let listing = (self.listing)(page);
        self.pages += 1;
        out.write(&match self.pages {
            1 => listing.to_csv(),
            _ => listing.to_csv_rows(),
        })
    }

    fn end(self) -> String {
        match self.pages {
            // the header alone, when no run matched
            0 => (self.listing)(&P::default()).to_csv(),
            _ => String::new(),
        }
    }
}

/// `history`'s JSON: an array of an element per run.
struct HistoryJson {
    array: render::JsonArray,
}

impl HistoryJson {
    fn new() -> HistoryJson {
        HistoryJson {
            array: render::JsonArray::new(0),
        }
    }
}

impl Document<(Vec<Run>, Summaries)> for HistoryJson {
    fn page(
        &mut self,
        (runs, summaries): &(Vec<Run>, Summaries),
        out: &mut Output,
    ) -> Result<(), OutputError> {
        for run in runs {
            let of_run = summaries.get(&run.id.unwrap_or_default());
            let element = render::history_json_element(run, of_run.map_or(&[], Vec::as_slice));
            out.write(&self.array.element(&element))?;
        }
        Ok(())
    }

    fn end(self) -> String {
        self.array.end() + "\n"
    }
}

/// The JSON export, a run at a time ([`JsonExport`]).
struct ExportJson {
    export: JsonExport,
    head: String,
}

impl ExportJson {
    fn new(exported_at: DateTime<Utc>) -> ExportJson {
        let (export, head) = JsonExport::begin(exported_at);
        ExportJson { export, head }
    }
}

impl Document<Vec<Run>> for ExportJson {
    fn head(&mut self) -> String {
        std::mem::take(&mut self.head)
    }

    fn page(&mut self, runs: &Vec<Run>, out: &mut Output) -> Result<(), OutputError> {
        for run in runs {
            self.export.write_run(run, |text| out.write(text))?;
        }
        Ok(())
    }

    fn end(self) -> String {
        self.export.end()
    }
}
