//! `iozone export [filters] --format json|csv`: recorded runs, complete, oldest first,
//! written a page of runs at a time, so memory holds a page, not the database.

use chrono::Utc;

use super::Context;
use crate::cli::{ExportArgs, ExportFormat};
use crate::export::{self, JsonExport};
use crate::store;

pub fn exec(args: ExportArgs, context: &Context) -> anyhow::Result<()> {
    let store = context.read_store()?;
    let mut filter = super::run_filter(&args.filter, None);
    // oldest first: imported in this order, a new database numbers them as here
    filter.oldest_first = true;
    let path = args.output.as_deref().unwrap_or("-".as_ref());
    let mut count = 0;
    let to_file = super::stream_output(path, args.force, context, |out| {
        let (mut json, head) = JsonExport::begin(Utc::now());
        if args.format == ExportFormat::Json {
            out.write(&head)?;
        }
        store::for_each_page(&*store, &filter, |runs| {
            let runs = store::with_results(&*store, runs, store::Detail::Full)?;
            match args.format {
                ExportFormat::Json => {
                    for run in &runs {
                        json.write_run(run, |text| out.write(text))?;
                    }
                }
                ExportFormat::Csv => {
                    let listing = export::csv_listing(&runs);
                    out.write(&match count {
                        0 => listing.to_csv(),
                        _ => listing.to_csv_rows(),
                    })?;
                }
            }
            count += runs.len();
            Ok::<_, anyhow::Error>(())
        })?;
        match args.format {
            ExportFormat::Json => out.write(&json.end())?,
            ExportFormat::Csv if count == 0 => out.write(&export::to_csv(&[]))?,
            ExportFormat::Csv => {}
        }
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
