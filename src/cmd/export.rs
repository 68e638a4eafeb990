//! `iozone export [filters] --format json|csv`: recorded runs, complete, oldest first,
//! written a page of runs at a time (`paged`), so memory holds a page, not the
//! database.

use chrono::Utc;

use super::Context;
use crate::cli::{ExportArgs, ExportFormat};
use crate::paged;

pub fn exec(args: ExportArgs, context: &Context) -> anyhow::Result<()> {
    let store = context.read_store()?;
    let mut filter = super::run_filter(&args.filter, None);
    // oldest first: imported in this order, a new database numbers them as here
    filter.oldest_first = true;
    let format = match args.format {
        ExportFormat::Json => paged::Format::Json,
        ExportFormat::Csv => paged::Format::Csv,
    };
    let path = args.output.as_deref().unwrap_or("-".as_ref());
    let mut count = 0;
    let to_file = super::stream_output(path, args.force, context, |out| {
        count = paged::export::<anyhow::Error>(&*store, &filter, format, Utc::now(), out)?;
        Ok(())
    })?;
    if to_file {
        let runs = crate::units::count(count, "run");
        context
            .shell
            .status("Exported", format!("{runs} to {}", path.display()));
    }
    Ok(())
}
