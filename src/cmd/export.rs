//! `iozone export [filters] --format json|csv`: recorded runs, complete, oldest first.

use chrono::Utc;

use super::Context;
use crate::cli::{ExportArgs, ExportFormat};
use crate::export;
use crate::store;

pub fn exec(args: ExportArgs, context: &Context) -> anyhow::Result<()> {
    let store = context.read_store()?;
    let mut runs = store.list_runs(&super::run_filter(&args.filter, None))?;
    // oldest first: imported in this order, a new database numbers them as here
    runs.reverse();
    let runs = store::with_results(&*store, runs)?;
    let count = runs.len();
    let text = match args.format {
        ExportFormat::Json => export::to_json(runs, Utc::now()),
        ExportFormat::Csv => export::to_csv(&runs),
    };
    let path = args.output.as_deref().unwrap_or("-".as_ref());
    if super::write_output(path, &text)? {
        let runs = crate::units::count(count, "run");
        context
            .shell
            .status("Exported", format!("{runs} to {}", path.display()));
    }
    Ok(())
}
