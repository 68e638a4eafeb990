//! `iozone run`: arguments → plan → preflight → measure → run value → output.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use chrono::Utc;
use indicatif::ProgressBar;
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::bench::Rounds;
use crate::bench::{self, Observer, Plan, PlanError, Step};
use crate::cli::{Repeat, RunArgs, RunFormat};
use crate::host;
use crate::model::{
    self, AUTO_RECORD_SIZES, AutoRepeat, CacheMode, EngineKind, Measurement, Params, Run,
    RunStatus, TestKind,
};
use crate::render;
use crate::shell::Shell;

use super::Context;
use crate::units::{ByteSize, RateUnit, format_nanos};

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

/// A plan the engine refused, in the words of `run`'s flags.
pub(crate) fn plan_message(error: &PlanError) -> String {
    match error {
        PlanError::NoThreads => "--threads must be at least 1".into(),
        PlanError::TooManyThreads => format!("--threads must be at most {}", bench::MAX_THREADS),
        PlanError::NoRounds => "--repeat must be at least 1".into(),
        PlanError::AutoBounds => {
            "--precision must be above 0 and below 100 (percent), --max-time above 0".into()
        }
        PlanError::ReadShare(pct) => format!("--read-pct must be 0..100, not {pct}"),
        PlanError::NeedsPageCache(engine) => format!(
            "--engine {} goes through the page cache and cannot do --cache direct; \
             use --engine {}",
            engine.name(),
            bench::engine::names_where(|e| !e.uses_page_cache())
        ),
        PlanError::DepthRange(depth) => {
            format!("--iodepth must be 1..={}, not {depth}", bench::MAX_IODEPTH)
        }
        PlanError::DepthNeedsQueue { engine, depth } => format!(
            "--iodepth {depth} needs --engine {}: --engine {} keeps one operation in flight",
            bench::engine::names_where(|e| e.queues()),
            engine.name()
        ),
        PlanError::QueueTooLarge { .. } => format!("{error}; use a smaller --iodepth or --record"),
        PlanError::RecordLargerThanFile { .. } => {
            format!("{error}; use a smaller --record or a larger --size")
        }
        PlanError::RecordTooLarge(_)
        | PlanError::NotOurs(_)
        | PlanError::NothingToMeasure
        | PlanError::FileNotWhole { .. } => error.to_string(),
    }
}

pub fn exec(args: RunArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let plan = plan_from(&args)?;
    plan.validate()?;
    let signals = Signals::install()?;
    let checks = bench::preflight(&plan)?;
    // a bad database is found before the measuring, not after
    let mut store = match args.no_record {
        true => None,
        false => Some(super::record::waiting(shell, || context.open_store())?),
    };
    announce(shell, &plan);
    for warning in &checks.warnings {
        shell.warn(warning);
    }
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

    let mut run = new_run(&args, &plan, &checks);
    warn_if_busy(shell, &run);
    if let Some(store) = &mut store {
        run.id = Some(super::record::waiting(shell, || store.begin_run(&run))?);
        mark_killed_runs(shell, store.as_mut());
    }
    // the run starts when the measuring does: a wait for the database is not part of it
    run.started_at = now();
    let clock = Instant::now();
    let tally = Arc::new(bench::Tally::for_plan(&plan));
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
    let outcome = bench::execute(&plan, &progress, &signals.stop);
    progress.bar.finish_and_clear();
    let measured = clock.elapsed();
    run.finished_at = Some(now());
    run.state_at_end = Some(host::probe_state());
    // a failed or aborted run is recorded as such, without partial figures
    let error: anyhow::Error = match outcome {
        Ok(outcome) => {
            run.status = RunStatus::Complete;
            run.params.repeat = outcome.rounds;
            run.results = outcome.results;
            run.warmup = outcome.warmup;
            return complete(run, store, measured, &args, context);
        }
        Err(bench::BenchError::Interrupted) => {
            run.status = RunStatus::Aborted;
            signals.interrupted().into()
        }
        Err(e) => {
            run.status = RunStatus::Failed;
            e.into()
        }
    };
    if let (Some(store), Some(id)) = (&mut store, run.id)
        && let Err(e) = super::record::waiting(shell, || store.finish_run(id, &run))
    {
        shell.warn(format!(
            "the run could not be marked {:?}: {e}{}",
            run.status,
            super::way_out(&e)
        ));
    }
    Err(error)
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
        Some(store) => super::record::finish(context, store, &run),
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
    let mut filesystem = host::probe_filesystem(&plan.dir);
    filesystem.block_size = filesystem.block_size.or(checks.block_size);
    filesystem.total_bytes = filesystem.total_bytes.or(checks.total_bytes);
    filesystem.free_bytes = filesystem.free_bytes.or(checks.free_bytes);
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
    }
}

/// Marks this machine's runs whose process is gone as what they are (`aborted` when
/// killed, `failed` when spooled), as the next write is the time to; a failure here is
/// said and does not stop the run.
fn mark_killed_runs(shell: &Shell, store: &mut dyn crate::store::Store) {
    let marked =
        super::killed::dead_runs(store).and_then(|dead| super::killed::mark_ended(store, dead));
    match marked {
        Ok(runs) => {
            for line in super::killed::said(&runs) {
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

fn plan_from(args: &RunArgs) -> anyhow::Result<Plan> {
    let file_sizes = if args.auto {
        doubling(args.min_size.bytes(), args.max_size.bytes())
    } else {
        let size = args
            .size_mb
            .or(args.size)
            .map_or(model::DEFAULT_FILE_SIZE, ByteSize::bytes);
        vec![size]
    };
    if file_sizes.is_empty() {
        anyhow::bail!(
            "--min-size {} is larger than --max-size {}",
            args.min_size,
            args.max_size
        );
    }
    let mut record_sizes: Vec<u64> = match (&args.record_bytes, args.records.is_empty()) {
        (Some(r), _) => vec![r.bytes()],
        (None, false) => args.records.iter().map(|r| r.bytes()).collect(),
        (None, true) if args.auto => doubling(AUTO_RECORD_SIZES.0, AUTO_RECORD_SIZES.1),
        (None, true) => model::DEFAULT_RECORD_SIZES.to_vec(),
    };
    record_sizes.sort_unstable();
    record_sizes.dedup();
    let mut tests: Vec<TestKind> = args.tests.iter().flatten().copied().collect();
    if tests.is_empty() {
        tests = model::DEFAULT_TESTS.to_vec();
    }
    tests.sort_unstable();
    tests.dedup();
    // the absolute path says which filesystem was measured; a missing directory is
    // left as given for preflight to report
    let dir = std::fs::canonicalize(&args.dir).unwrap_or_else(|_| args.dir.clone());
    Ok(Plan {
        dir,
        file_sizes,
        record_sizes,
        tests,
        engines: model::first_seen(args.engine.iter().copied()),
        caches: model::first_seen(args.cache.iter().copied()),
        iodepth: args.iodepth,
        threads: args.threads,
        rounds: match args.repeat {
            Repeat::Rounds(n) => Rounds::Fixed(n),
            Repeat::Auto => Rounds::Auto {
                precision: args.precision / 100.0,
                max_time: std::time::Duration::try_from_secs_f64(args.max_time).map_err(|_| {
                    anyhow::anyhow!("--max-time must be a number of seconds above 0")
                })?,
            },
        },
        warmup: args.warmup,
        order: args.order,
        seed: args
            .seed
            .unwrap_or_else(|| rand::random::<u64>() & model::MAX_SEED),
        verify: args.verify,
        read_pct: args.read_pct,
        stride_records: args.stride,
        latency: !args.no_latency,
        auto: args.auto,
    })
}

/// `from`, `2·from`, … up to and including `to`.
fn doubling(from: u64, to: u64) -> Vec<u64> {
    std::iter::successors(Some(from), |&s| s.checked_mul(2))
        .take_while(|&s| s <= to)
        .collect()
}

fn params(plan: &Plan) -> Params {
    Params {
        engines: plan.engines.clone(),
        caches: plan.caches.clone(),
        iodepth: plan.iodepth,
        threads: plan.threads,
        file_sizes: plan.file_sizes.iter().copied().map(ByteSize).collect(),
        record_sizes: plan.record_sizes.iter().copied().map(ByteSize).collect(),
        tests: plan.tests.clone(),
        repeat: plan.rounds.planned(),
        warmup: plan.warmup,
        order: plan.order,
        repeat_auto: match plan.rounds {
            Rounds::Fixed(_) => None,
            Rounds::Auto {
                precision,
                max_time,
            } => Some(AutoRepeat {
                precision_pct: precision * 100.0,
                max_time_s: max_time.as_secs_f64(),
            }),
        },
        seed: Some(plan.seed),
        auto: plan.auto,
        verify: plan.verify,
        read_pct: Some(plan.read_pct),
        stride_records: Some(plan.stride_records),
        latency: plan.latency,
        dir: Some(plan.dir.display().to_string()),
    }
}

/// The run header: every size as interpreted, so nobody is fooled by units.
fn announce(shell: &Shell, plan: &Plan) {
    let list = |sizes: &[u64]| {
        sizes
            .iter()
            .map(|&s| ByteSize(s).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let files = list(&plan.file_sizes);
    shell.status(
        "Measuring",
        format!(
            "{}: {files} {}, records {}",
            plan.dir.display(),
            if plan.file_sizes.len() == 1 {
                "file"
            } else {
                "files"
            },
            list(&plan.record_sizes)
        ),
    );
    let tests: Vec<&str> = plan.tests.iter().map(|t| t.name()).collect();
    shell.status(
        "",
        format!(
            "tests {}; cache {}; engine {}{}; {} thread{}; seed {}",
            tests.join(", "),
            names(&plan.caches, |c| c.name()),
            names(&plan.engines, |e| e.name()),
            match plan.iodepth {
                1 => String::new(),
                n => format!(", queue depth {n}"),
            },
            plan.threads,
            if plan.threads == 1 { "" } else { "s" },
            plan.seed
        ),
    );
    shell.status("", rounds_line(plan));
}

/// "posix,pread": a list's names, joined as the command line takes them.
fn names<T: Copy>(list: &[T], name: fn(T) -> &'static str) -> String {
    list.iter().map(|&v| name(v)).collect::<Vec<_>>().join(",")
}

/// "1 warm-up round, then 5 rounds, interleaved".
fn rounds_line(plan: &Plan) -> String {
    let warmup = match plan.warmup {
        0 => "no warm-up".to_string(),
        w => format!(
            "{} (left out)",
            crate::units::count(w as usize, "warm-up round")
        ),
    };
    let rounds = match plan.rounds {
        Rounds::Fixed(n) => crate::units::count(n as usize, "round"),
        Rounds::Auto {
            precision,
            max_time,
        } => format!(
            "rounds until every median is within ±{}% (95%), {} to {}, at most {:.0} s",
            precision * 100.0,
            bench::AUTO_MIN_ROUNDS,
            bench::AUTO_MAX_ROUNDS,
            max_time.as_secs_f64()
        ),
    };
    format!("{warmup}, then {rounds}, {}", plan.order.name())
}

/// Progress on stderr: the step and its message set by the engine between timed
/// regions, the share of the step done read from the tally by the bar's ticker.
struct Progress<'a> {
    bar: ProgressBar,
    /// What the bar says of the step.
    message: crate::shell::Message,
    tally: Arc<bench::Tally>,
    shell: &'a Shell,
    /// Whether the run measures several (engine, cache mode) combinations, which each
    /// line then names.
    combined: bool,
    /// `--units`, for the rate each verbose line gives (`auto` is MiB/s: one figure
    /// has no table to choose a unit for).
    unit: RateUnit,
}

impl Progress<'_> {
    /// `write 4 KiB in 32 MiB [2/5]`: what the bar says of a step.
    fn step_message(&self, step: &Step) -> String {
        let round = match step.warmup {
            true => format!("warm-up {}", step.repetition),
            false => format!("{}/{}", step.repetition, step.repeat),
        };
        format!(
            "{} {} in {}{} [{round}]",
            step.test,
            ByteSize(step.record_size),
            ByteSize(step.file_size),
            self.mode(step.engine, step.cache),
        )
    }

    /// " flush/posix" when the run has several combinations; nothing otherwise.
    fn mode(&self, engine: EngineKind, cache: CacheMode) -> String {
        match self.combined {
            true => format!(" {}/{}", cache.name(), engine.name()),
            false => String::new(),
        }
    }
}

impl Observer for Progress<'_> {
    fn tally(&self) -> Option<&bench::Tally> {
        Some(&self.tally)
    }

    fn step(&self, step: &Step) {
        self.message.set(self.step_message(step));
        self.bar.set_length(step.total);
        self.bar.set_position(step.index - 1);
    }

    fn measured(&self, m: &Measurement, warmup: bool) {
        self.bar.suspend(|| {
            self.shell.verbose_status(
                "Measured",
                format!(
                    "{} {} in {}{} [{}{}]: {} {}{}",
                    m.test,
                    m.record_size,
                    m.file_size,
                    self.mode(m.engine, m.cache),
                    if warmup { "warm-up " } else { "" },
                    m.repetition,
                    self.unit.format(m.throughput),
                    self.unit.label(),
                    m.latency_ns.as_deref().map_or(String::new(), |l| format!(
                        ", latency p50 {} p99 {} max {}",
                        format_nanos(l.p50),
                        format_nanos(l.p99),
                        format_nanos(l.max)
                    ))
                ),
            )
        });
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

    #[test]
    fn doubling_includes_both_ends() {
        assert_eq!(doubling(4, 32), [4, 8, 16, 32]);
        assert_eq!(doubling(4, 31), [4, 8, 16]);
        assert!(doubling(8, 4).is_empty());
    }
}
