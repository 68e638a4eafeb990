//! `history --all` as a table or Markdown, in the memory of a page of runs: the columns
//! are as wide as their widest cell and the rates' unit suits their least figure, so
//! the runs' lines are set aside in a temporary file, measured, then written.

use super::{ListedPage, Spool};
use crate::output::Output;
use crate::render::{self, HistoryLine, Places, TextStyle};
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError, Walk};
use crate::units::RateUnit;

/// The lines of every run a filter selects, set aside, with the least of their
/// figures (all the rate unit depends on) and where their hosts measured.
pub struct HistoryTable {
    lines: Spool<HistoryLine>,
    least: f64,
    places: Places,
}

impl HistoryTable {
    /// The lines of every run `filter` selects, read a page at a time.
    pub fn read<E>(store: &dyn Store, filter: &RunFilter) -> Result<HistoryTable, E>
    where
        E: From<StoreError> + From<std::io::Error>,
    {
        let mut table = HistoryTable {
            lines: Spool::new()?,
            least: f64::INFINITY,
            places: Places::default(),
        };
        store::walk_pages(store, filter, Walk::Headlines, |runs| {
            // decoded as they were walked (`walk_pages`): nothing left pending
            let page = ListedPage::of(filter, runs);
            page.runs.iter().for_each(|run| table.places.add(run));
            for line in HistoryLine::of_runs(&page.runs, &page.summaries) {
                table.least = table.least.min(RateUnit::least_shown(line.figures()));
                table.lines.push(&line)?;
            }
            Ok::<_, E>(())
        })?;
        Ok(table)
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The lines as one table in `style`, rates in `units` (resolved against the least
    /// figure), with where each run measured when their places differ: measured in a
    /// first reading of the spool, written a page at a time in a second.
    pub fn write<E>(mut self, units: RateUnit, style: TextStyle, out: &mut Output) -> Result<(), E>
    where
        E: From<std::io::Error> + From<crate::output::OutputError>,
    {
        let unit = units.resolve([self.least]);
        let places = self.places.differ();
        let frame = render::history_frame(unit, places);
        let mut layout = frame.layout(style);
        for line in self.lines.replay()? {
            layout.add(&line?.into_row(unit, places));
        }
        let mut table = layout.writer();
        let mut chunk = frame.clone();
        for line in self.lines.replay()? {
            chunk.push(line?.into_row(unit, places));
            if chunk.rows.len() == store::PAGE {
                out.write(&table.chunk(&chunk))?;
                chunk = frame.clone();
            }
        }
        out.write(&table.chunk(&chunk))?;
        out.write(&table.end())?;
        Ok(())
    }
}
