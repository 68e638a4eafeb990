//! Listings of every run a filter selects, written a page of runs at a time, so that
//! memory holds a page, not the database: `history --all` and `export` as CSV or JSON
//! through one driver (`write`), and `history --all` as a table, whose columns must
//! see every line before the first is written (`table.rs`, through a `Spool`).

mod pipeline;
mod spool;
mod table;

use std::io::Write;

use chrono::{DateTime, Utc};

use crate::export::{self, JsonExport};
use crate::model::{Run, RunStatus, Summaries};
use crate::output::{Output, OutputError};
use crate::render::{self, Listing};
use crate::selector::RunFilter;
use crate::store::{self, Pending, Rest, Store, StoreError, Walk, Walked};

use pipeline::{Pieces, Stop, Threads};
use spool::Spool;
pub use table::HistoryTable;

/// The two documents a listing of runs streams as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// A document written a page of runs at a time, each page read as `P` and printed on
/// a thread of its own (`pipeline.rs`) while the next is read.
trait Document<P>: Send {
    /// The text before the first page.
    fn head(&mut self) -> String {
        String::new()
    }

    /// Prints a page's text to `out` as it is made.
    fn page(&mut self, page: &mut P, out: &mut Pieces) -> Result<(), Stop>;

    /// The text after the last page.
    fn end(self) -> String;
}

impl<P, D: Document<P>> pipeline::Printer<P> for D {
    fn print(&mut self, page: &mut P, out: &mut Pieces) -> Result<(), Stop> {
        self.page(page, out)
    }
}

/// Writes every run `filter` selects to `out` as `document`, in one walk that reads
/// what `walk` says, each page of runs made ready by `read` first and printed while
/// the next is read; returns how many runs the store listed.
fn write<P: Send, E>(
    store: &dyn Store,
    filter: &RunFilter,
    walk: Walk,
    mut read: impl FnMut(Vec<Walked>) -> P,
    mut document: impl Document<P>,
    out: &mut Output,
) -> Result<usize, E>
where
    E: From<StoreError> + From<OutputError>,
{
    out.write(&document.head())?;
    let threads = Threads::for_cores(store.cores_serving());
    let (count, document) = pipeline::print_pages(out, document, threads, |pages| {
        send_pages::<_, E>(store, filter, walk, &mut read, pages)
    })?;
    out.write(&document.end())?;
    Ok(count)
}

/// Every run `filter` selects, read as `walk` says and sent to the printer a page of
/// [`store::PAGE`] at a time, each made ready by `read`; returns how many runs were
/// sent.
fn send_pages<P, E>(
    store: &dyn Store,
    filter: &RunFilter,
    walk: Walk,
    read: &mut impl FnMut(Vec<Walked>) -> P,
    pages: &mut pipeline::Pages<'_, P>,
) -> Result<usize, E>
where
    E: From<StoreError> + From<OutputError>,
{
    let mut count = 0;
    let mut pager = store::Pager::default();
    let mut send = |page: Vec<Walked>, pages: &mut pipeline::Pages<'_, P>| {
        count += page.len();
        pages.send::<E>(read(page))
    };
    let walked = store::walk_pending(store, filter, walk, |run| {
        // what the printer printed meanwhile, written as it comes: a page's text is
        // more pieces than their queue holds, and the printer must not wait for the
        // next page to be read before it prints the rest of this one
        pages.write_printed()?;
        if let Some(full) = pager.add(run) {
            send(full, pages)?;
        }
        Ok::<_, E>(())
    });
    if let Err(e) = walked {
        return Err(first_unreadable(pager).map_or(e, E::from));
    }
    if let Some(last) = pager.rest() {
        send(last, pages)?;
    }
    Ok(count)
}

/// The error of the first run whose results cannot be read among those a walk that
/// failed read last, not sent yet: they came before whatever it failed on.
fn first_unreadable(pager: store::Pager) -> Option<StoreError> {
    let page = pager.rest()?;
    page.into_iter().find_map(|mut run| run.decode().err())
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
    let read = |runs| ListedPage::of(filter, runs);
    let walk = Walk::Headlines;
    match format {
        Format::Csv => {
            let listing = |page: &ListedPage| render::history_csv(&page.runs, &page.summaries);
            write::<_, E>(store, filter, walk, read, Csv::new(listing), out)?
        }
        Format::Json => write::<_, E>(store, filter, walk, read, HistoryJson::new(), out)?,
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
    let read = ExportPage::of;
    let walk = Walk::Results(store::Detail::Full);
    match format {
        Format::Csv => write(store, filter, walk, read, ExportCsv { pages: 0 }, out),
        Format::Json => write(store, filter, walk, read, ExportJson::new(exported_at), out),
    }
}

/// A page of runs as `history` lists them, with the summaries of their measured
/// rounds its headline figures are read from.
#[derive(Default)]
struct ListedPage {
    runs: Vec<Run>,
    summaries: Summaries,
}

impl ListedPage {
    fn of(filter: &RunFilter, walked: Vec<Walked>) -> ListedPage {
        let mut page = ListedPage {
            runs: Vec::with_capacity(walked.len()),
            summaries: Summaries::with_capacity(walked.len()),
        };
        for Walked { run, summaries, .. } in walked {
            page.summaries.insert(run.id.unwrap_or_default(), summaries);
            page.runs.push(run);
        }
        as_listed(filter, &mut page.runs);
        page
    }
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

impl<F: Fn(&ListedPage) -> Listing + Send> Document<ListedPage> for Csv<F> {
    fn page(&mut self, page: &mut ListedPage, out: &mut Pieces) -> Result<(), Stop> {
        let listing = (self.listing)(page);
        self.pages += 1;
        out.write_all(
            match self.pages {
                1 => listing.to_csv(),
                _ => listing.to_csv_rows(),
            }
            .as_bytes(),
        )?;
        Ok(())
    }

    fn end(self) -> String {
        match self.pages {
            // the header alone, when no run matched
            0 => (self.listing)(&ListedPage::default()).to_csv(),
            _ => String::new(),
        }
    }
}

/// The CSV export: its header with the first page, or alone when there was none.
struct ExportCsv {
    pages: usize,
}

impl Document<ExportPage> for ExportCsv {
    fn page(&mut self, page: &mut ExportPage, out: &mut Pieces) -> Result<(), Stop> {
        page.decode()?;
        self.pages += 1;
        export::write_csv(&page.runs, self.pages == 1, out)?;
        page.forget_runs();
        Ok(())
    }

    fn end(self) -> String {
        match self.pages {
            0 => export::to_csv(&[]),
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

impl Document<ListedPage> for HistoryJson {
    fn page(&mut self, page: &mut ListedPage, out: &mut Pieces) -> Result<(), Stop> {
        for run in &page.runs {
            let of_run = page.summaries.get(&run.id.unwrap_or_default());
            let element = render::HistoryElement::new(run, of_run.map_or(&[], Vec::as_slice));
            self.array.write_element(&element, out)?;
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

impl Document<ExportPage> for ExportJson {
    fn head(&mut self) -> String {
        std::mem::take(&mut self.head)
    }

    fn page(&mut self, page: &mut ExportPage, out: &mut Pieces) -> Result<(), Stop> {
        page.decode()?;
        (page.runs.iter_mut()).try_for_each(|run| self.export.write_run(run, out))?;
        page.forget_runs();
        Ok(())
    }

    fn end(self) -> String {
        self.export.end()
    }
}

/// A page of whole runs as the export's walk hands them on: what the store left to
/// decode (their results, perhaps their records) decoded by the printer, on its
/// thread, which has the time (`store::Pending`).
#[derive(Default)]
struct ExportPage {
    runs: Vec<Run>,
    /// What the store left of each run to decode: its results, perhaps its record.
    pending: Vec<Option<Pending<Rest>>>,
}

impl ExportPage {
    fn of(walked: Vec<Walked>) -> ExportPage {
        let (runs, pending) = walked.into_iter().map(|w| (w.run, w.pending)).unzip();
        ExportPage { runs, pending }
    }

    /// Decodes every run's pending results into it.
    fn decode(&mut self) -> Result<(), StoreError> {
        for (run, pending) in self.runs.iter_mut().zip(&mut self.pending) {
            if let Some(pending) = pending.take() {
                pending.decode()?.fill(run);
            }
        }
        Ok(())
    }

    /// Frees the runs on this thread, which allocated most of what they hold when the
    /// store left it to decode (their results, with SQLite their records too): the page
    /// goes back to the walk's thread to be freed, and what a thread allocated is
    /// cheapest freed by it.
    fn forget_runs(&mut self) {
        self.runs.clear();
    }
}
