//! `iozone report [BASELINE [CANDIDATE]] [filters] -o report.html`: runs, their
//! comparison and their history, drawn into one self-contained HTML file.

use chrono::Utc;

use super::Context;
use crate::cli::ReportArgs;
use crate::compare::{self, Comparison, Options, RunsRead};
use crate::model::{self, Run, RunStatus};
use crate::render::{self, ReportInput, SideInfo};
use crate::report::{self, History};
use crate::shell::Shell;
use crate::store::{self, Detail, Store};

pub fn exec(args: ReportArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let (base, cand) = sides(shell, &*store, &args)?;
    let runs = charted_runs(&*store, &args, base.as_deref(), cand.as_deref())?;
    let comparison = match (&base, &cand) {
        (Some(b), Some(c)) => comparison(shell, &*store, b, c, &options(&args))?,
        _ => None,
    };
    let sides = match (&args.baseline, &args.candidate, &base, &cand) {
        (Some(bs), Some(cs), Some(b), Some(c)) => {
            Some((SideInfo::new(bs, b), SideInfo::new(cs, c)))
        }
        _ => None,
    };
    // trend's window and defaults: the report has no flags for them but --all
    let mut filter = super::run_filter(
        &args.filter,
        (!args.all).then_some(model::DEFAULT_TREND_LIMIT),
    );
    filter.status.get_or_insert(RunStatus::Complete);
    let History {
        steps,
        shown,
        left_out,
    } = History::read(&*store, &filter, args.all)?;
    let input = ReportInput {
        title: args.title.clone().unwrap_or_else(|| title(&args)),
        generated_at: Utc::now(),
        runs: &runs,
        comparison: match (&sides, &comparison) {
            (Some((b, c)), Some(cmp)) => Some((b, c, cmp)),
            _ => None,
        },
        sides: sides.as_ref().map(|(b, c)| (b, c)),
        series: report::with_steps(shown, &steps),
        series_left_out: left_out,
        unit: args.units,
    };
    let html = render::report_html(&input);
    let to_file = super::write_output(&args.output, args.force, context, &html)?;
    shell.status("Wrote", wrote(&args, to_file, &input));
    Ok(())
}

/// The runs of the baseline and the candidate, when given.
type Sides = (Option<Vec<Run>>, Option<Vec<Run>>);

/// The runs of each side given, read whole, with how they were read said as `compare`
/// says it, and a run on both sides said once.
fn sides(shell: &Shell, store: &dyn Store, args: &ReportArgs) -> anyhow::Result<Sides> {
    let read = |selector: &Option<_>| {
        selector
            .as_ref()
            .map(|s| store::select_runs(store, s, Detail::Full))
            .transpose()
    };
    let (base, cand) = (read(&args.baseline)?, read(&args.candidate)?);
    let sides_read = [(&args.baseline, &base), (&args.candidate, &cand)];
    for (name, (selector, runs)) in ["baseline", "candidate"].iter().zip(sides_read) {
        if let (Some(selector), Some(runs)) = (selector, runs) {
            // one selector is the report's runs, not a side of a comparison
            let name = if cand.is_some() { name } else { &"runs" };
            super::say_selection(shell, store, name, selector, runs, shell.verbose())?;
        }
    }
    if let (Some(b), Some(c)) = (&base, &cand) {
        super::warn_overlap(
            shell,
            &RunsRead::with_results(b),
            &RunsRead::with_results(c),
        );
    }
    Ok((base, cand))
}

/// The comparison of the two sides; one that cannot be made is said, and the report
/// goes on without it.
fn comparison(
    shell: &Shell,
    store: &dyn Store,
    base: &[Run],
    cand: &[Run],
    options: &Options,
) -> anyhow::Result<Option<Comparison>> {
    Ok(
        match compare::read::with_history(store, base, cand, options)? {
            Ok(comparison) => Some(comparison),
            Err(e) => {
                shell.warn(format!(
                    "no comparison in the report: {}",
                    super::error_message(&e.into())
                ));
                None
            }
        },
    )
}

/// What the status line says was written: where, and what it holds.
fn wrote(args: &ReportArgs, to_file: bool, input: &ReportInput) -> String {
    format!(
        "{} ({}{}, {} series{})",
        match to_file {
            true => args.output.display().to_string(),
            false => "the report to stdout".into(),
        },
        crate::units::count(input.runs.len(), "run"),
        if input.comparison.is_some() {
            ", a comparison"
        } else {
            ""
        },
        input.series.len() + input.series_left_out.len(),
        match input.series_left_out.len() {
            0 => String::new(),
            n => format!(", {n} not shown for want of room"),
        }
    )
}

/// compare's defaults, with the parameters the user drops from the match.
fn options(args: &ReportArgs) -> Options {
    Options {
        threshold: model::DEFAULT_THRESHOLD_PCT / 100.0,
        alpha: model::DEFAULT_ALPHA,
        ignore: super::ignored(&args.ignore),
    }
}

fn title(args: &ReportArgs) -> String {
    match (&args.baseline, &args.candidate) {
        (Some(b), Some(c)) => format!("iozone: {} against {}", c.text, b.text),
        (Some(b), None) => format!("iozone: {}", b.text),
        _ => "iozone: recent runs".into(),
    }
}

/// The runs whose throughput is charted: the selected ones, else the newest.
fn charted_runs(
    store: &dyn Store,
    args: &ReportArgs,
    base: Option<&[Run]>,
    cand: Option<&[Run]>,
) -> anyhow::Result<Vec<Run>> {
    let mut filter = super::run_filter(&args.filter, Some(args.limit));
    filter.status.get_or_insert(RunStatus::Complete);
    let runs = report::charted_runs(store, &filter, base.map(|b| (b, cand)))?;
    // as `report NOSUCH` is refused, so are filters that leave nothing to chart
    if base.is_none() && runs.is_empty() {
        anyhow::bail!(
            "no complete run in {} matches the filters; `iozone history` with the same \
             filters lists what is recorded",
            store.location()
        );
    }
    Ok(runs)
}
