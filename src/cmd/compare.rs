//! `iozone compare BASELINE CANDIDATE`: selectors → runs → comparison → report.

use super::Context;
use crate::cli::{CompareArgs, IgnoreParam, ListFormat};
use crate::compare::{self, Ignored, Options, RunsRead};
use crate::model::Run;
use crate::model::Summaries;
use crate::render::{self, SideInfo, TextStyle};
use crate::selector::Selector;
use crate::shell::Shell;
use crate::store::{self, Detail, Store};

/// `--fail-on-regression` and something regressed: main exits 1, quietly.
#[derive(Debug, thiserror::Error)]
#[error("{} regressed", crate::units::count(*.0, "row"))]
pub struct RegressionsFound(pub usize);

pub fn exec(args: CompareArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let options = Options {
        threshold: args.threshold / 100.0,
        alpha: args.alpha,
        ignore: ignored(&args.ignore),
    };
    options.validate()?;
    let store = context.read_store()?;
    if let Some(by) = args.by {
        let ((base_runs, base_summaries, base), (cand_runs, cand_summaries, cand)) =
            both_sides(&*store, &args, &options, context)?;
        say_sides(shell, &*store, &args, &base_runs, &cand_runs)?;
        warn_overlap(
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
    warn_overlap(
        shell,
        &RunsRead::with_results(&base_runs),
        &RunsRead::with_results(&cand_runs),
    );
    let comparison = with_history(&*store, &base_runs, &cand_runs, &options)??;
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

/// The comparison of `cand` against `base`, with the history of their series (the
/// comparison's own error apart from the store's: `report` goes on without it).
pub(super) fn with_history(
    store: &dyn Store,
    base: &[Run],
    cand: &[Run],
    options: &Options,
) -> anyhow::Result<Result<compare::Comparison, compare::CompareError>> {
    let compared = [base, cand].concat();
    let (history, summaries) =
        store::series_history(store, &compared, options.ignore.pools_rows())?;
    let past = RunsRead {
        runs: &history,
        summaries: Some(&summaries),
    };
    Ok(compare::compare(base, cand, past, options))
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
    // a comparison reads figures, never latency, bytes or time
    let mut runs = store::select_runs(store, selector, Detail::Figures)?;
    narrow(&mut runs, &mut Summaries::new(), selector);
    let info = side_info(&runs, selector);
    Ok((runs, info))
}

/// A fleet's side is thousands of runs: each run's level under each row is read from
/// its summaries, not from every repetition, unless a dropped parameter pools several
/// of a run's summaries into one row.
fn fleet_side(
    store: &dyn Store,
    selector: &Selector,
    options: &Options,
) -> anyhow::Result<FleetSide> {
    let (mut runs, mut summaries) = match options.ignore.pools_rows() {
        true => (
            store::select_runs(store, selector, Detail::Figures)?,
            Summaries::new(),
        ),
        false => store::select_summarized(store, selector)?,
    };
    narrow(&mut runs, &mut summaries, selector);
    let info = side_info(&runs, selector);
    Ok((runs, summaries, info))
}

/// `engine:` and `cache:` pick measurements too, so one side can be one part of a run
/// that measured several: `compare 42,engine:posix 42,engine:pread`.
fn narrow(runs: &mut [Run], summaries: &mut Summaries, selector: &Selector) {
    let part = (selector.filter.engine, selector.filter.cache);
    for run in runs {
        run.narrow_to(part.0, part.1);
    }
    for rows in summaries.values_mut() {
        rows.retain(|s| crate::model::in_part(part, s.engine, s.cache));
    }
}

fn side_info(runs: &[Run], selector: &Selector) -> SideInfo {
    SideInfo {
        selector: selector.text.clone(),
        runs: runs.iter().filter_map(|r| r.id).collect(),
    }
}

/// Runs `--explain` lists a side's, newest first.
const EXPLAINED_RUNS: usize = 20;

/// How a side's selector was read and what it selected, on stderr: always for a
/// selector that names runs and sets conditions too (its conditions narrow the runs
/// named, which a reader may not expect), for every side when `explain`, then with a
/// line per run.
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
    say_selection(shell, store, "baseline", &args.baseline, base_runs, explain)?;
    say_selection(
        shell,
        store,
        "candidate",
        &args.candidate,
        cand_runs,
        explain,
    )
}

pub(super) fn say_selection(
    shell: &Shell,
    store: &dyn Store,
    side: &str,
    selector: &Selector,
    runs: &[Run],
    explain: bool,
) -> anyhow::Result<()> {
    if !(explain || selector.mixes()) {
        return Ok(());
    }
    // a bare word is a label or a UUID prefix, as the store read it
    let read = store::read_selector(store, selector)?;
    if !(explain || read.mixes()) {
        return Ok(());
    }
    shell.status(
        "Selected",
        render::selection_line(side, &selector.text, &read.reading(), runs),
    );
    if explain {
        // a fleet's side may be thousands of runs: the newest are enough to check it by
        for line in render::selected_runs(&runs[..runs.len().min(EXPLAINED_RUNS)]) {
            shell.continued(line);
        }
        if runs.len() > EXPLAINED_RUNS {
            shell.continued(format!(
                "… and {}; `iozone history` lists them",
                crate::units::count(runs.len() - EXPLAINED_RUNS, "older run")
            ));
        }
    }
    Ok(())
}

/// A run on both sides is compared with itself: said once, on stderr, since nothing in
/// the comparison would show it (`compare 1 1`, `compare DR9 latest`). Two parts of
/// one run (`compare 42,engine:posix 42,engine:pread`) are not the run twice.
pub(super) fn warn_overlap(shell: &Shell, base_read: &RunsRead, cand_read: &RunsRead) {
    use std::collections::BTreeSet;
    type Parts = BTreeSet<(crate::model::EngineKind, crate::model::CacheMode)>;
    let (base, cand) = (base_read.runs, cand_read.runs);
    let parts =
        |run: &Run, read| -> Parts { compare::combinations(run, read).into_iter().collect() };
    let ids = |runs: &[Run]| -> Vec<i64> {
        let mut ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
        ids.sort_unstable();
        ids
    };
    let shares_a_part = |run: &Run| {
        cand.iter()
            .filter(|c| c.id.is_some() && c.id == run.id)
            .any(|c| {
                let mine = parts(run, base_read);
                mine.is_empty() || !mine.is_disjoint(&parts(c, cand_read))
            })
    };
    let mut both: Vec<i64> = base
        .iter()
        .filter(|r| shares_a_part(r))
        .filter_map(|r| r.id)
        .collect();
    both.sort_unstable();
    if both.is_empty() {
        return;
    }
    let which = both
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let same = ids(base) == ids(cand) && ids(base) == both;
    shell.warn(match (same, both.len()) {
        (true, _) => {
            format!("both sides select the same runs ({which}): each is compared with itself")
        }
        (false, 1) => format!("run {which} is on both sides: it is compared with itself"),
        (false, _) => format!("runs {which} are on both sides: each is compared with itself"),
    });
}

pub(super) fn ignored(params: &[IgnoreParam]) -> Ignored {
    Ignored {
        engine: params.contains(&IgnoreParam::Engine),
        cache: params.contains(&IgnoreParam::Cache),
        iodepth: params.contains(&IgnoreParam::Iodepth),
        threads: params.contains(&IgnoreParam::Threads),
        file_size: params.contains(&IgnoreParam::FileSize),
    }
}
