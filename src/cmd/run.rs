//! `iozone run`: arguments → plan → preflight → measure → run value → output.

mod clients;
mod plan;
mod progress;
mod record;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use chrono::Utc;
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::bench::{self, Plan};
use crate::cli::{RunArgs, RunFormat};
use crate::host;
use crate::killed;
use crate::model::{self, Run, RunStatus};
use crate::render;
use crate::shell::Shell;

use super::Context;
use super::context::waiting;
use clients::Clients;
pub(crate) use plan::plan_message;
use plan::{params, plan_from};
use progress::{Progress, announce};
pub use record::NotRecorded;

/// A run stopped by a signal; main turns it into exit status 128 + signal.
#[derive(Debug, thiserror::Error)]
#[error("interrupted by {}; the test files were removed", signal_name(*.0))]
pub struct Interrupted(pub i32);

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "Ctrl-C (SIGINT)",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

pub fn exec(args: RunArgs, context: &Context) -> anyhow::Result<()> {
    let mut clients = Clients::join(context)?;
    let outcome = prepare(&args, clients.as_mut()).and_then(|(mut plan, signals)| {
        measure(&args, context, &mut plan, &signals, clients.as_ref())
    });
    // every rank waits here until rank 0 has recorded; then MPI ends
    if let Some(clients) = clients {
        clients.close();
    }
    outcome
}

/// Metadata tests measure one client's tree: their phases have no meetings of ranks.
#[derive(Debug, thiserror::Error)]
#[error(
    "the metadata tests ({tests}) measure one client: run them without the launcher, or \
     with one rank"
)]
struct MetadataOfMany {
    tests: String,
}

/// The plan, checked, with the signals caught; a client of many takes rank 0's seed
/// (every rank then visits the cells in one order) and starts its watcher.
fn prepare(args: &RunArgs, clients: Option<&mut Clients>) -> anyhow::Result<(Plan, Signals)> {
    let mut plan = plan_from(args)?;
    if let Some(clients) = &clients {
        plan.seed = clients.peers().share(plan.seed);
    }
    plan.validate()?;
    if plan.metadata.is_some() && clients.as_ref().is_some_and(|c| c.peers().size() > 1) {
        let tests: Vec<&str> = (plan.tests.iter())
            .filter(|t| t.is_metadata())
            .map(|t| t.name())
            .collect();
        let tests = tests.join(", ");
        return Err(MetadataOfMany { tests }.into());
    }
    let signals = Signals::install()?;
    if let Some(clients) = clients {
        clients.watch(&plan, &signals);
    }
    Ok((plan, signals))
}

/// A run begun: checked, announced, and recorded as running where it is recorded.
struct Begun {
    run: Run,
    store: Option<Box<dyn crate::store::Store>>,
}

/// Everything before the measuring: every rank's checks, the database (rank 0's), the
/// header and warnings, the run begun in the store. A client of many goes on only with
/// all the others. The checks say whether the metadata tests' phases can be warm.
fn begin(
    args: &RunArgs,
    context: &Context,
    plan: &mut Plan,
    clients: Option<&Clients>,
) -> anyhow::Result<Begun> {
    let shell = &context.shell;
    let local = bench::preflight(plan);
    let (checks, gathered) = match clients {
        Some(clients) => clients.check(plan, local)?,
        None => (local?, None),
    };
    // what the machine allows: the run measures, and records, warm phases
    if let Some(tree) = &mut plan.metadata {
        tree.warm = checks.metadata_warm;
    }
    let plan = &*plan;
    let leads = clients.is_none_or(Clients::leads);
    // a bad database is found before the measuring, not after
    let opened = match args.no_record || !leads {
        true => Ok(None),
        false => context.open_store().map(Some),
    };
    let mut store = settle(clients, opened)?;
    announce(shell, plan);
    if let Some(gathered) = &gathered {
        shell.status("", clients::layout(gathered, plan.shared_file));
        let differ = crate::facts::host_differences(&gathered.hosts);
        if !differ.is_empty() {
            shell.warn(format!(
                "the hosts differ: {} (each host's facts are recorded, and show lists them)",
                differ.join("; ")
            ));
        }
    }
    for warning in &checks.warnings {
        shell.warn(warning);
    }
    remove_stale(shell, plan);
    let mut run = new_run(args, plan, &checks);
    if let Some(gathered) = &gathered {
        clients::of_many(&mut run, gathered);
    }
    warn_if_busy(shell, &run);
    let begun = match &mut store {
        Some(store) => waiting(shell, || store.begin_run(&run)).map(|id| {
            run.id = Some(id);
            mark_killed_runs(shell, store.as_mut());
        }),
        None => Ok(()),
    };
    // from now on the run is in the store: if the ranks cannot end together, rank 0
    // marks it there on its way out
    if let (Some(clients), Some(id)) = (clients, run.id) {
        clients.last_word(Some(last_word(context, &run, id)?));
    }
    settle(clients, begun.map_err(Into::into))?;
    Ok(Begun { run, store })
}

/// `step`, which only rank 0 took, settled with the other clients, if any.
fn settle<T>(clients: Option<&Clients>, step: anyhow::Result<T>) -> anyhow::Result<T> {
    match clients {
        Some(clients) => clients.settle(step),
        None => step,
    }
}

/// Test files killed runs left in the directory, removed and said.
fn remove_stale(shell: &Shell, plan: &Plan) {
    let stale = bench::remove_stale_files(&plan.dir);
    if !stale.is_empty() {
        let names: Vec<String> = stale
            .iter()
            .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
            .collect();
        shell.status(
            "Removed",
            format!("test files of killed runs: {}", names.join(", ")),
        );
    }
}

/// Begins, measures and records the run (rank 0's record of every client's figures).
fn measure(
    args: &RunArgs,
    context: &Context,
    plan: &mut Plan,
    signals: &Signals,
    clients: Option<&Clients>,
) -> anyhow::Result<()> {
    let shell = &context.shell;
    let Begun { mut run, mut store } = begin(args, context, plan, clients)?;
    let plan = &*plan;
    // the run starts when the measuring does: a wait for the database is not part of it
    run.started_at = now();
    let clock = Instant::now();
    let tally = Arc::new(bench::Tally::for_plan(plan));
    let within = Arc::clone(&tally);
    let (bar, message) = shell.progress(plan.phase_count(), Arc::new(move || within.phase_done()));
    let progress = Progress {
        bar,
        message,
        tally,
        shell,
        combined: plan.combined(),
        unit: args.units,
    };
    let peers = clients.map(Clients::peers);
    let outcome = bench::execute(plan, &progress, &signals.stop, peers);
    progress.bar.finish_and_clear();
    if let Some(clients) = clients {
        clients.stage(crate::cluster::Stage::Recording);
    }
    let measured = clock.elapsed();
    run.finished_at = Some(now());
    run.state_at_end = Some(host::probe_state());
    if clients.is_some_and(|c| !c.leads()) {
        // rank 0 records and prints every rank's figures
        return outcome.map(drop).map_err(Into::into);
    }
    // a failed or aborted run is recorded as such, without partial figures
    let error: anyhow::Error = match outcome {
        Ok(outcome) => {
            run.status = RunStatus::Complete;
            run.params.repeat = outcome.rounds;
            run.results = outcome.results;
            run.warmup = outcome.warmup;
            if let Some(cluster) = &mut run.cluster {
                cluster.figures = outcome.ranks;
            }
            let recorded = complete(run, store, measured, args, context);
            if let Some(clients) = clients {
                clients.last_word(None);
            }
            return recorded;
        }
        Err(bench::BenchError::Interrupted) => {
            run.status = RunStatus::Aborted;
            signals.interrupted().into()
        }
        Err(e) => {
            run.status = RunStatus::Failed;
            failed(&mut run, e)
        }
    };
    if let (Some(store), Some(id)) = (&mut store, run.id)
        && let Err(e) = waiting(shell, || store.finish_run(id, &run))
    {
        shell.warn(format!(
            "the run could not be marked {:?}: {e}{}",
            run.status,
            super::way_out(&e)
        ));
    }
    if let Some(clients) = clients {
        clients.last_word(None);
    }
    Err(error)
}

/// The error of a failed run; a rank's failure, in a run of many clients, is kept
/// with the run and named with its host.
fn failed(run: &mut Run, error: bench::BenchError) -> anyhow::Error {
    let bench::BenchError::Client { rank, error } = error else {
        return error.into();
    };
    let failure = clients::failure(&run.params, rank, &error);
    let said = clients::RankFailed {
        rank,
        host: failure.host.clone().unwrap_or_else(|| "?".into()),
        error,
    };
    if let Some(cluster) = &mut run.cluster {
        cluster.failure = Some(failure);
    }
    said.into()
}

/// What rank 0 writes if the ranks cannot end together: the run `id`, failed, with
/// the reason the watcher found; on a connection of its own.
fn last_word(context: &Context, run: &Run, id: i64) -> anyhow::Result<crate::cluster::LastWord> {
    let (location, _) = context.location()?;
    let mut failed = run.clone();
    failed.status = RunStatus::Failed;
    Ok(Box::new(move |dead: Option<(u32, String)>, why: &str| {
        failed.finished_at = Some(now());
        if let Some(cluster) = &mut failed.cluster {
            cluster.failure = Some(crate::model::RankFailure {
                rank: dead.as_ref().map(|d| d.0),
                host: dead.map(|d| d.1),
                error: why.to_string(),
            });
        }
        if let Ok(mut store) = crate::store::open(&location) {
            let _ = store.finish_run(id, &failed);
        }
    }))
}

/// A complete run: recorded (or spooled, as `record` says), and printed whatever
/// became of it in the database.
fn complete(
    mut run: Run,
    mut store: Option<Box<dyn crate::store::Store>>,
    measured: std::time::Duration,
    args: &RunArgs,
    context: &Context,
) -> anyhow::Result<()> {
    let shell = &context.shell;
    // as many as the progress bar counted: the warm-up's too
    let warmup = match run.warmup.len() {
        0 => String::new(),
        n => format!(" ({n} of them warm-up, left out of every figure)"),
    };
    shell.status(
        "Finished",
        format!(
            "{} in {:.1} s{warmup}",
            crate::units::count(run.results.len() + run.warmup.len(), "measurement"),
            measured.as_secs_f64()
        ),
    );
    let recorded = match &mut store {
        Some(store) => record::finish(context, store, &run),
        None => Ok(()),
    };
    match (&recorded, run.id) {
        (Ok(()), Some(id)) => {
            let labels = match run.labels.is_empty() {
                true => String::new(),
                false => format!(" (label {})", run.labels.join(", ")),
            };
            shell.status("Recorded", format!("run {id}{labels}"));
        }
        // the id named a record that is not this run
        (Err(_), _) => run.id = None,
        (Ok(()), None) => {}
    }
    let text = match args.format {
        RunFormat::Table => render::run_table(&run, args.units, shell.table_style()),
        RunFormat::Json => render::json(&run),
    };
    super::print_stdout(&text)?;
    Ok(recorded?)
}

/// The time, to the microsecond: what every store keeps (PostgreSQL's timestamps
/// have microseconds), so a run reads back from any store exactly as it was printed.
fn now() -> chrono::DateTime<Utc> {
    use chrono::SubsecRound;
    Utc::now().trunc_subsecs(6)
}

/// The run as it starts: everything but its results, its end and its id.
fn new_run(args: &RunArgs, plan: &Plan, checks: &bench::Preflight) -> Run {
    let filesystem = clients::filesystem(plan, checks);
    Run {
        id: None,
        uuid: uuid::Uuid::new_v4(),
        started_at: now(),
        finished_at: None,
        status: RunStatus::Running,
        labels: args.labels.clone(),
        tags: args.tags.iter().cloned().collect(),
        note: args.note.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        params: params(plan),
        host: host::probe_host(),
        filesystem,
        source: None,
        state_at_start: Some(host::probe_state()),
        state_at_end: None,
        process: crate::process::this_process()
            .map(|(pid, start_ticks)| model::RunProcess { pid, start_ticks }),
        results: Vec::new(),
        warmup: Vec::new(),
        cluster: None,
    }
}

/// Marks this machine's runs whose process is gone as what they are (`aborted` when
/// killed, `failed` when spooled), as the next write is the time to; a failure here is
/// said and does not stop the run.
fn mark_killed_runs(shell: &Shell, store: &mut dyn crate::store::Store) {
    let marked = killed::dead_runs(store).and_then(|dead| killed::mark_ended(store, dead));
    match marked {
        Ok(runs) => {
            for line in killed::said(&runs) {
                shell.status("Marked", line);
            }
        }
        Err(e) => shell.warn(format!(
            "runs killed earlier could not be marked aborted: {e}"
        )),
    }
}

/// A busy machine shifts a whole run; say so before measuring, not after comparing.
fn warn_if_busy(shell: &Shell, run: &Run) {
    let Some(state) = &run.state_at_start else {
        return;
    };
    if let Some(warning) = busy_warning(state, run.host.cpus) {
        shell.warn(warning);
    }
}

/// One warning for every sign that the machine is busy, or none when it is quiet.
fn busy_warning(state: &model::MachineState, cpus: Option<u32>) -> Option<String> {
    let reasons = host::busy_reasons(state, cpus);
    (!reasons.is_empty()).then(|| {
        format!(
            "the machine is busy: {}. This run's figures may all be off together (the \
             state is recorded, and compare lists it)",
            reasons.join("; ")
        )
    })
}

/// SIGINT and SIGTERM set a flag the engine checks at every operation.
struct Signals {
    stop: Arc<AtomicBool>,
    caught: Arc<AtomicUsize>,
}

impl Signals {
    fn install() -> anyhow::Result<Signals> {
        let signals = Signals {
            stop: Arc::new(AtomicBool::new(false)),
            caught: Arc::new(AtomicUsize::new(0)),
        };
        for signal in [SIGINT, SIGTERM] {
            signal_hook::flag::register(signal, Arc::clone(&signals.stop))
                .context("installing the signal handler")?;
            signal_hook::flag::register_usize(signal, Arc::clone(&signals.caught), signal as usize)
                .context("installing the signal handler")?;
        }
        Ok(signals)
    }

    fn interrupted(&self) -> Interrupted {
        Interrupted(self.caught.load(Ordering::Relaxed) as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_machine_is_one_warning_naming_every_sign() {
        let busy = model::MachineState {
            load_1m: Some(7.96),
            dirty_bytes: Some(600 << 20),
            writeback_bytes: Some(0),
            io_pressure_pct: Some(18.92),
            cpu_pressure_pct: Some(93.74),
            ..Default::default()
        };
        assert_eq!(
            busy_warning(&busy, Some(2)).as_deref(),
            Some(
                "the machine is busy: writeback pending (600 MiB dirty); load average 7.96 \
                 is above the 2 CPUs; I/O pressure 18.92% (some avg10); CPU pressure 93.74% \
                 (some avg10). This run's figures may all be off together (the state is \
                 recorded, and compare lists it)"
            )
        );
        assert_eq!(busy_warning(&model::MachineState::default(), Some(2)), None);
    }
}
