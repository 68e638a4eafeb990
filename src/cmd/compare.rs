//! `iozone compare BASELINE CANDIDATE`: selectors → runs → comparison → report.

use super::Context;
use crate::cli::{CompareArgs, ListFormat};
use crate::compare::{self, Options, RunsRead};
use crate::model::Run;
use crate::model::Summaries;
use crate::render::{self, SideInfo, TextStyle};
use crate::selector::Selector;
use crate::shell::Shell;
use crate::store::Store;

/// `--fail-on-regression` and something regressed: main exits 1, quietly.
#[derive(Debug, thiserror::Error)]
#[error("{} regressed", crate::units::count(*.0, "row"))]
pub struct RegressionsFound(pub usize);

pub fn exec(args: CompareArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let options = Options {
        threshold: args.threshold / 100.0,
        alpha: args.alpha,
        ignore: super::ignored(&args.ignore),
    };
    options.validate()?;
    let store = context.read_store()?;
    if let Some(by) = args.by {
        let ((mut base_runs, base_summaries, base), (mut cand_runs, cand_summaries, cand)) =
            both_sides(&*store, &args, &options, context)?;
        if !args.with_clients {
            let left_out = compare::leave_out_many_clients(by, &mut base_runs)
                + compare::leave_out_many_clients(by, &mut cand_runs);
            if left_out > 0 {
                shell.warn(format!(
                    "left out {} of many clients, which measured their hosts together, not                      one host (--with-clients compares them, by their set of hosts)",
                    crate::units::count(left_out, "run")
                ));
            }
        }
        say_sides(shell, &*store, &args, &base_runs, &cand_runs)?;
        super::warn_overlap(
            shell,
            &RunsRead {
                runs: &base_runs,
                summaries: Some(&base_summaries),
            },
            &RunsRead {
                runs: &cand_runs,
                summaries: Some(&cand_summaries),
            },
        );
        let summaries = [Some(&base_summaries), Some(&cand_summaries)];
        let fleet = compare::compare_by(base_runs, cand_runs, summaries, &options, by)?;
        let text = match args.format {
            ListFormat::Json => render::fleet_json(&base, &cand, &fleet),
            ListFormat::Csv => render::fleet_csv(&fleet),
            ListFormat::Markdown => render::fleet_text(&base, &cand, &fleet, TextStyle::Markdown),
            ListFormat::Table => render::fleet_text(&base, &cand, &fleet, shell.table_style()),
        };
        super::print_stdout(&text)?;
        let regressions: usize = fleet.groups.iter().map(|g| g.regressions).sum();
        if args.fail_on_regression && regressions > 0 {
            return Err(RegressionsFound(regressions).into());
        }
        return Ok(());
    }
    let (base_runs, base) = side(&*store, &args.baseline)?;
    let (cand_runs, cand) = side(&*store, &args.candidate)?;
    say_sides(shell, &*store, &args, &base_runs, &cand_runs)?;
    super::warn_overlap(
        shell,
        &RunsRead::with_results(&base_runs),
        &RunsRead::with_results(&cand_runs),
    );
    let comparison = compare::read::with_history(&*store, &base_runs, &cand_runs, &options)??;
    let text = match args.format {
        ListFormat::Json => render::compare_json(&base, &cand, &comparison),
        ListFormat::Csv => render::compare_csv(&comparison),
        ListFormat::Markdown => {
            render::compare_text(&base, &cand, &comparison, args.units, TextStyle::Markdown)
        }
        ListFormat::Table => {
            render::compare_text(&base, &cand, &comparison, args.units, shell.table_style())
        }
    };
    super::print_stdout(&text)?;
    let regressions = comparison.regressions();
    if args.fail_on_regression && regressions > 0 {
        return Err(RegressionsFound(regressions).into());
    }
    Ok(())
}

/// The two sides of a fleet comparison, read at once: the candidate on a connection of
/// its own. Each may be thousands of runs (`--by host`), and a server, or SQLite's
/// readers, serve two readers in parallel; for a few runs the second connection would
/// cost more than it saves. The baseline's error is told first, as when they are read
/// one after the other.
fn both_sides(
    store: &dyn Store,
    args: &CompareArgs,
    options: &Options,
    context: &Context,
) -> anyhow::Result<(FleetSide, FleetSide)> {
    std::thread::scope(|scope| {
        let candidate = scope.spawn(|| {
            let store = context.read_store()?;
            fleet_side(&*store, &args.candidate, options)
        });
        let baseline = fleet_side(store, &args.baseline, options);
        let candidate = candidate.join().expect("reading a side does not panic");
        Ok((baseline?, candidate?))
    })
}

/// A side's runs, with what the output says of it.
type Side = (Vec<Run>, SideInfo);

/// A side of a fleet comparison: its runs, with their summaries by run id.
type FleetSide = (Vec<Run>, Summaries, SideInfo);

fn side(store: &dyn Store, selector: &Selector) -> anyhow::Result<Side> {
    let runs = compare::read::side(store, selector)?;
    let info = SideInfo::new(selector, &runs);
    Ok((runs, info))
}

fn fleet_side(
    store: &dyn Store,
    selector: &Selector,
    options: &Options,
) -> anyhow::Result<FleetSide> {
    let (runs, summaries) = compare::read::fleet_side(store, selector, options)?;
    let info = SideInfo::new(selector, &runs);
    Ok((runs, summaries, info))
}

/// How each side's selector was read, when it mixes run terms with conditions, or
/// every side's runs with `--explain` (or `-v`).
fn say_sides(
    shell: &Shell,
    store: &dyn Store,
    args: &CompareArgs,
    base_runs: &[Run],
    cand_runs: &[Run],
) -> anyhow::Result<()> {
    let explain = args.explain || shell.verbose();
    super::say_selection(shell, store, "baseline", &args.baseline, base_runs, explain)?;
    super::say_selection(
        shell,
        store,
        "candidate",
        &args.candidate,
        cand_runs,
        explain,
    )
}
