//! What `run` says on stderr while it measures: the header of sizes, tests and rounds
//! as interpreted, and the progress bar with a line per measurement under `-v`.

use std::sync::Arc;

use indicatif::ProgressBar;

use crate::bench::{self, Observer, Plan, Rounds, Step};
use crate::model::{CacheMode, EngineKind, Measurement};
use crate::render;
use crate::render::cells::Scale;
use crate::shell::Shell;
use crate::units::{ByteSize, RateUnit, format_nanos};

/// The run header: every size as interpreted, so nobody is fooled by units.
pub(super) fn announce(shell: &Shell, plan: &Plan) {
    let list = |sizes: &[u64]| {
        sizes
            .iter()
            .map(|&s| ByteSize(s).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let files = list(&plan.file_sizes);
    let mut what = Vec::new();
    if !plan.file_sizes.is_empty() {
        what.push(format!(
            "{files} {}, records {}",
            if plan.file_sizes.len() == 1 {
                "file"
            } else {
                "files"
            },
            list(&plan.record_sizes)
        ));
    }
    if let Some(tree) = plan.tree() {
        what.push(format!(
            "a tree of {} per thread{}{}, by plain system calls",
            render::cells::tree(tree.files, tree.dirs, tree.file_bytes),
            if tree.shared_dir {
                " in shared directories"
            } else {
                ""
            },
            if tree.random_order {
                ", in random order"
            } else {
                ""
            },
        ));
    }
    shell.status(
        "Measuring",
        format!("{}: {}", plan.dir.display(), what.join("; ")),
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
pub(super) struct Progress<'a> {
    pub(super) bar: ProgressBar,
    /// What the bar says of the step.
    pub(super) message: crate::shell::Message,
    pub(super) tally: Arc<bench::Tally>,
    pub(super) shell: &'a Shell,
    /// Whether the run measures several (engine, cache mode) combinations, which each
    /// line then names.
    pub(super) combined: bool,
    /// `--units`, for the rate each verbose line gives (`auto` is MiB/s: one figure
    /// has no table to choose a unit for).
    pub(super) unit: RateUnit,
}

impl Progress<'_> {
    /// `write 4 KiB in 32 MiB [2/5]`, `create [2/5]`: what the bar says of a step.
    fn step_message(&self, step: &Step) -> String {
        let round = match step.warmup {
            true => format!("warm-up {}", step.repetition),
            false => format!("{}/{}", step.repetition, step.repeat),
        };
        let sizes = match step.test.is_metadata() {
            true => String::new(),
            false => format!(
                " {} in {}",
                ByteSize(step.record_size),
                ByteSize(step.file_size)
            ),
        };
        format!(
            "{}{sizes}{} [{round}]",
            step.test,
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
        let scale = Scale::for_kind(m.test.rate_kind(), self.unit);
        let sizes = match m.test.is_metadata() {
            true => String::new(),
            false => format!(" {} in {}", m.record_size, m.file_size),
        };
        self.bar.suspend(|| {
            self.shell.verbose_status(
                "Measured",
                format!(
                    "{}{sizes}{} [{}{}]: {} {}{}",
                    m.test,
                    self.mode(m.engine, m.cache),
                    if warmup { "warm-up " } else { "" },
                    m.repetition,
                    scale.format(m.throughput),
                    scale.label(),
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
