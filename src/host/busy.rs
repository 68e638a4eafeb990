//! Whether the machine was too busy to measure honestly, and why: the signs a state
//! shows (writeback, load, pressure), one run's in a sentence each, and the runs of a
//! side together in a few words (`busy in 2 of 3 runs: writeback 1–1.8 GiB`).

use crate::model::MachineState;
use crate::units::ByteSize;

const MIB: u64 = 1024 * 1024;
/// Journal commits and logs keep a few MiB in flight on an idle machine; more means
/// a real flush that shares the device with the benchmark's own I/O.
const WRITEBACK_BUSY_BYTES: u64 = 16 * MIB;
/// Dirty pages expire (30 s by default) and get flushed during the run, so a run
/// started now pays for someone else's writes; an idle machine holds far less.
const DIRTY_BUSY_BYTES: u64 = 256 * MIB;
/// An idle device stalls nobody; a tenth of the time means it is already shared.
const IO_PRESSURE_BUSY_PCT: f64 = 10.0;
/// Short waits for a CPU are common and cost an I/O benchmark little; a quarter of
/// the time means the benchmark's own threads will queue too.
const CPU_PRESSURE_BUSY_PCT: f64 = 25.0;

/// One sign that the machine was busy, with its figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BusySignal {
    /// Pages being written back, in bytes, and the dirty pages waiting, if known.
    Writeback { writing: u64, dirty: Option<u64> },
    /// Dirty pages waiting, in bytes, none being written yet.
    Dirty(u64),
    /// The 1-minute load average above the count of online CPUs.
    Load { load: f64, cpus: u32 },
    /// Share of time some task waited for I/O, in percent.
    IoPressure(f64),
    /// Share of time some task waited for a CPU, in percent.
    CpuPressure(f64),
}

/// The signs that the machine is too busy to measure honestly; empty when it is quiet
/// or nothing is known. `cpus` is the count of online CPUs, if known.
pub fn busy_signals(state: &MachineState, cpus: Option<u32>) -> Vec<BusySignal> {
    let pressure = |pct: Option<f64>, limit: f64| pct.filter(|&p| p > limit);
    [
        writeback(state),
        load(state, cpus),
        pressure(state.io_pressure_pct, IO_PRESSURE_BUSY_PCT).map(BusySignal::IoPressure),
        pressure(state.cpu_pressure_pct, CPU_PRESSURE_BUSY_PCT).map(BusySignal::CpuPressure),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Why the machine is too busy to measure honestly, one short line each (see
/// [`busy_signals`]).
pub fn busy_reasons(state: &MachineState, cpus: Option<u32>) -> Vec<String> {
    (busy_signals(state, cpus).iter())
        .map(BusySignal::reason)
        .collect()
}

fn writeback(state: &MachineState) -> Option<BusySignal> {
    let writing = state.writeback_bytes.unwrap_or(0);
    let dirty = state.dirty_bytes.unwrap_or(0);
    if writing <= WRITEBACK_BUSY_BYTES && dirty <= DIRTY_BUSY_BYTES {
        return None;
    }
    Some(match writing {
        0 => BusySignal::Dirty(dirty),
        _ => BusySignal::Writeback {
            writing,
            dirty: state.dirty_bytes,
        },
    })
}

/// Linux counts tasks waiting for a disk in the load too, so a load above the CPU
/// count means queueing for CPUs, for the device, or both.
fn load(state: &MachineState, cpus: Option<u32>) -> Option<BusySignal> {
    let (load, cpus) = (state.load_1m?, cpus.filter(|&n| n > 0)?);
    (load > f64::from(cpus)).then_some(BusySignal::Load { load, cpus })
}

impl BusySignal {
    /// The sign in a few words, for one run.
    pub fn reason(&self) -> String {
        match *self {
            BusySignal::Writeback { writing, dirty } => {
                let dirty = dirty.map_or(String::new(), |d| format!(", {} dirty", ByteSize(d)));
                format!(
                    "writeback in progress ({} being written{dirty})",
                    ByteSize(writing)
                )
            }
            BusySignal::Dirty(dirty) => {
                format!("writeback pending ({} dirty)", ByteSize(dirty))
            }
            BusySignal::Load { load, cpus } => {
                let noun = if cpus == 1 { "CPU" } else { "CPUs" };
                format!("load average {} is above the {cpus} {noun}", number(load))
            }
            BusySignal::IoPressure(pct) => format!("I/O pressure {}% (some avg10)", number(pct)),
            BusySignal::CpuPressure(pct) => format!("CPU pressure {}% (some avg10)", number(pct)),
        }
    }

    /// Which sign it is (the order the summary names them in), and its figure.
    fn kind(&self) -> (usize, f64) {
        match *self {
            BusySignal::Writeback { writing, .. } => (0, writing as f64),
            BusySignal::Dirty(dirty) => (1, dirty as f64),
            BusySignal::Load { load, .. } => (2, load),
            BusySignal::IoPressure(pct) => (3, pct),
            BusySignal::CpuPressure(pct) => (4, pct),
        }
    }
}

/// Several runs' states in a few words: `quiet`; `busy: writeback 1.8 GiB, load 3.4`
/// for one run; `busy in 2 of 3 runs: writeback 1–1.8 GiB` for several, each sign
/// with the range of its figure over the busy runs; `None` when no run recorded its
/// state. Each run's `signals`, `None` for a run that recorded none.
pub fn busy_summary(runs: &[Option<Vec<BusySignal>>]) -> Option<String> {
    let known: Vec<&Vec<BusySignal>> = runs.iter().flatten().collect();
    let unknown = runs.len() - known.len();
    let busy: Vec<&&Vec<BusySignal>> = known.iter().filter(|s| !s.is_empty()).collect();
    let not_recorded = match unknown {
        0 => String::new(),
        n => format!(" ({n} not recorded)"),
    };
    if known.is_empty() {
        return None;
    }
    if busy.is_empty() {
        return Some(match unknown {
            0 => "quiet".into(),
            _ => format!(
                "quiet in {} of {}{not_recorded}",
                known.len(),
                runs_of(runs.len())
            ),
        });
    }
    let signals = busy.iter().flat_map(|s| s.iter());
    let mut ranges: [Option<(f64, f64)>; 5] = [None; 5];
    for (kind, figure) in signals.map(BusySignal::kind) {
        let range = ranges[kind].get_or_insert((figure, figure));
        *range = (range.0.min(figure), range.1.max(figure));
    }
    let said: Vec<String> = (ranges.iter().enumerate())
        .filter_map(|(kind, range)| Some(sign(kind, (*range)?)))
        .collect();
    Some(match runs.len() {
        1 => format!("busy: {}", said.join(", ")),
        n => format!(
            "busy in {} of {}{not_recorded}: {}",
            busy.len(),
            runs_of(n),
            said.join(", ")
        ),
    })
}

/// `3 runs`.
fn runs_of(n: usize) -> String {
    crate::units::count(n, "run")
}

/// A sign of [`BusySignal::kind`] `kind`, its figure from `low` to `high`.
fn sign(kind: usize, (low, high): (f64, f64)) -> String {
    let numbers = |unit: &str| match number(low) == number(high) {
        true => format!("{}{unit}", number(high)),
        false => format!("{}–{}{unit}", number(low), number(high)),
    };
    match kind {
        0 => format!("writeback {}", bytes(low, high)),
        1 => format!("{} dirty", bytes(low, high)),
        2 => format!("load {}", numbers("")),
        3 => format!("I/O pressure {}", numbers("%")),
        _ => format!("CPU pressure {}", numbers("%")),
    }
}

/// `1.8 GiB`, `1–1.8 GiB` (in the unit of the larger, where the smaller shows in it),
/// `20 MiB–1.8 GiB`.
fn bytes(low: f64, high: f64) -> String {
    let (low, high) = (ByteSize(low as u64), ByteSize(high as u64));
    let (low_text, high_text) = (low.to_string(), high.to_string());
    if low_text == high_text {
        return high_text;
    }
    match (low_text.split_once(' '), high_text.split_once(' ')) {
        (Some((figure, unit)), Some((_, same))) if unit == same => {
            format!("{figure}–{high_text}")
        }
        _ => format!("{low_text}–{high_text}"),
    }
}

/// /proc gives two decimals; trailing zeros say nothing, so `3.40` reads `3.4`.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> MachineState {
        MachineState {
            load_1m: Some(0.5),
            load_5m: Some(0.4),
            dirty_bytes: Some(2 * MIB),
            writeback_bytes: Some(0),
            mem_free_bytes: Some(1 << 30),
            mem_available_bytes: Some(2 << 30),
            io_pressure_pct: Some(1.5),
            cpu_pressure_pct: Some(3.0),
        }
    }

    /// A state with `writeback` MiB being written and a load of `load` on 2 CPUs.
    fn busy(writeback: u64, load: f64) -> Option<Vec<BusySignal>> {
        let state = MachineState {
            writeback_bytes: Some(writeback * MIB),
            dirty_bytes: Some(900 * MIB),
            load_1m: Some(load),
            ..quiet()
        };
        Some(busy_signals(&state, Some(2)))
    }

    #[test]
    fn a_side_of_runs_is_summed_up_in_a_few_words() {
        let quiet_run = Some(Vec::new());
        assert_eq!(
            busy_summary(&[quiet_run.clone(), quiet_run.clone()]).as_deref(),
            Some("quiet")
        );
        assert_eq!(busy_summary(&[None, None]), None);
        assert_eq!(busy_summary(&[]), None);
        assert_eq!(
            busy_summary(&[quiet_run.clone(), None, quiet_run.clone()]).as_deref(),
            Some("quiet in 2 of 3 runs (1 not recorded)")
        );
        assert_eq!(
            busy_summary(&[busy(1843, 3.4)]).as_deref(),
            Some("busy: writeback 1.8 GiB, load 3.4")
        );
        assert_eq!(
            busy_summary(&[busy(1024, 0.2), quiet_run.clone(), busy(1843, 3.4)]).as_deref(),
            Some("busy in 2 of 3 runs: writeback 1–1.8 GiB, load 3.4")
        );
        assert_eq!(
            busy_summary(&[busy(20, 2.5), None, busy(1843, 3.4)]).as_deref(),
            Some("busy in 2 of 3 runs (1 not recorded): writeback 20 MiB–1.8 GiB, load 2.5–3.4")
        );
        let pending = MachineState {
            dirty_bytes: Some(300 * MIB),
            io_pressure_pct: Some(35.0),
            cpu_pressure_pct: Some(40.25),
            ..quiet()
        };
        assert_eq!(
            busy_summary(&[Some(busy_signals(&pending, Some(4))), quiet_run]).as_deref(),
            Some("busy in 1 of 2 runs: 300 MiB dirty, I/O pressure 35%, CPU pressure 40.25%")
        );
    }

    #[test]
    fn a_quiet_machine_is_not_busy() {
        assert_eq!(busy_reasons(&quiet(), Some(4)), Vec::<String>::new());
    }

    #[test]
    fn an_unknown_state_is_not_busy() {
        assert!(busy_reasons(&MachineState::default(), None).is_empty());
    }

    #[test]
    fn writeback_in_progress_is_busy() {
        let state = MachineState {
            writeback_bytes: Some(120 * MIB),
            dirty_bytes: Some(800 * MIB),
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&state, Some(4)),
            ["writeback in progress (120 MiB being written, 800 MiB dirty)"]
        );
        let small = MachineState {
            writeback_bytes: Some(WRITEBACK_BUSY_BYTES),
            ..quiet()
        };
        assert!(busy_reasons(&small, Some(4)).is_empty());
        let no_dirty = MachineState {
            writeback_bytes: Some(20 * MIB),
            dirty_bytes: None,
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&no_dirty, Some(4)),
            ["writeback in progress (20 MiB being written)"]
        );
    }

    #[test]
    fn many_dirty_pages_are_busy() {
        let state = MachineState {
            dirty_bytes: Some(300 * MIB),
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&state, Some(4)),
            ["writeback pending (300 MiB dirty)"]
        );
        let at_limit = MachineState {
            dirty_bytes: Some(DIRTY_BUSY_BYTES),
            ..quiet()
        };
        assert!(busy_reasons(&at_limit, Some(4)).is_empty());
    }

    #[test]
    fn load_above_the_cpus_is_busy() {
        let state = MachineState {
            load_1m: Some(3.4),
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&state, Some(2)),
            ["load average 3.4 is above the 2 CPUs"]
        );
        assert_eq!(
            busy_reasons(&state, Some(1)),
            ["load average 3.4 is above the 1 CPU"]
        );
        assert!(busy_reasons(&state, Some(4)).is_empty());
        // without a CPU count there is nothing to judge the load against
        assert!(busy_reasons(&state, None).is_empty());
        assert!(busy_reasons(&state, Some(0)).is_empty());
    }

    #[test]
    fn io_pressure_is_busy() {
        let state = MachineState {
            io_pressure_pct: Some(35.0),
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&state, Some(4)),
            ["I/O pressure 35% (some avg10)"]
        );
        let at_limit = MachineState {
            io_pressure_pct: Some(IO_PRESSURE_BUSY_PCT),
            ..quiet()
        };
        assert!(busy_reasons(&at_limit, Some(4)).is_empty());
    }

    #[test]
    fn cpu_pressure_is_busy() {
        let state = MachineState {
            cpu_pressure_pct: Some(40.25),
            ..quiet()
        };
        assert_eq!(
            busy_reasons(&state, Some(4)),
            ["CPU pressure 40.25% (some avg10)"]
        );
        let below = MachineState {
            cpu_pressure_pct: Some(24.9),
            ..quiet()
        };
        assert!(busy_reasons(&below, Some(4)).is_empty());
    }

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(3.40), "3.4");
        assert_eq!(number(10.0), "10");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(11.56), "11.56");
    }
}
