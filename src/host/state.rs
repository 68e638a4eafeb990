//! The machine's state at a moment: load, dirty page cache and pressure, which shift
//! every result of a run alike, and whether it is too busy to measure honestly.
//! Linux states these in /proc; elsewhere every field stays `None`.

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

/// What /proc says now; a file it cannot read leaves its fields `None`.
pub fn probe_state() -> MachineState {
    #[cfg(target_os = "linux")]
    let state = read_state(std::path::Path::new("/"));
    #[cfg(not(target_os = "linux"))]
    let state = MachineState::default();
    state
}

/// Why the machine is too busy to measure honestly, one short line each; empty when
/// it is quiet or nothing is known. `cpus` is the count of online CPUs, if known.
pub fn busy_reasons(state: &MachineState, cpus: Option<u32>) -> Vec<String> {
    [
        writeback_reason(state),
        load_reason(state, cpus),
        pressure_reason("I/O", state.io_pressure_pct, IO_PRESSURE_BUSY_PCT),
        pressure_reason("CPU", state.cpu_pressure_pct, CPU_PRESSURE_BUSY_PCT),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn writeback_reason(state: &MachineState) -> Option<String> {
    let writeback = state.writeback_bytes.unwrap_or(0);
    let dirty = state.dirty_bytes.unwrap_or(0);
    if writeback <= WRITEBACK_BUSY_BYTES && dirty <= DIRTY_BUSY_BYTES {
        return None;
    }
    if writeback == 0 {
        return Some(format!("writeback pending ({} dirty)", ByteSize(dirty)));
    }
    let dirty = state
        .dirty_bytes
        .map(|d| format!(", {} dirty", ByteSize(d)))
        .unwrap_or_default();
    Some(format!(
        "writeback in progress ({} being written{dirty})",
        ByteSize(writeback)
    ))
}

/// Linux counts tasks waiting for a disk in the load too, so a load above the CPU
/// count means queueing for CPUs, for the device, or both.
fn load_reason(state: &MachineState, cpus: Option<u32>) -> Option<String> {
    let (load, cpus) = (state.load_1m?, cpus.filter(|&n| n > 0)?);
    (load > f64::from(cpus)).then(|| {
        let noun = if cpus == 1 { "CPU" } else { "CPUs" };
        format!("load average {} is above the {cpus} {noun}", number(load))
    })
}

fn pressure_reason(what: &str, pct: Option<f64>, limit: f64) -> Option<String> {
    let pct = pct.filter(|&p| p > limit)?;
    Some(format!("{what} pressure {}% (some avg10)", number(pct)))
}

/// /proc gives two decimals; trailing zeros say nothing, so `3.40` reads `3.4`.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The state as the /proc under `root` tells it; tests point `root` at a fake tree.
#[cfg(target_os = "linux")]
fn read_state(root: &std::path::Path) -> MachineState {
    let read = |abs: &str| std::fs::read_to_string(super::at(root, abs)).ok();
    let (load_1m, load_5m) = read("/proc/loadavg").map_or((None, None), |t| loadavg(&t));
    let meminfo = read("/proc/meminfo").unwrap_or_default();
    let mem = |key: &str| meminfo_bytes(&meminfo, key);
    let pressure = |abs: &str| read(abs).and_then(|t| pressure_some_avg10(&t));
    MachineState {
        load_1m,
        load_5m,
        dirty_bytes: mem("Dirty"),
        writeback_bytes: mem("Writeback"),
        mem_free_bytes: mem("MemFree"),
        mem_available_bytes: mem("MemAvailable"),
        // kernels built without PSI, or booted with psi=0, have no readable file
        io_pressure_pct: pressure("/proc/pressure/io"),
        cpu_pressure_pct: pressure("/proc/pressure/cpu"),
    }
}

/// The 1- and 5-minute load averages, the first two fields of /proc/loadavg.
#[cfg(target_os = "linux")]
fn loadavg(text: &str) -> (Option<f64>, Option<f64>) {
    let mut fields = text
        .split_whitespace()
        .map(|f| f.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0));
    (fields.next().flatten(), fields.next().flatten())
}

/// A /proc/meminfo field in bytes. These fields are always in kB; any other unit
/// is a format this parser does not know, so it gives `None` rather than a guess.
#[cfg(target_os = "linux")]
fn meminfo_bytes(text: &str, key: &str) -> Option<u64> {
    let value = text
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| *k == key)?
        .1;
    match value.split_whitespace().collect::<Vec<_>>()[..] {
        [kb, "kB"] => kb.parse::<u64>().ok()?.checked_mul(1024),
        _ => None,
    }
}

/// The `some avg10=` percentage of a /proc/pressure file.
#[cfg(target_os = "linux")]
fn pressure_some_avg10(text: &str) -> Option<f64> {
    let mut words = text
        .lines()
        .map(str::split_whitespace)
        .find_map(|mut words| (words.next() == Some("some")).then_some(words))?;
    let avg10 = words.find_map(|w| w.strip_prefix("avg10="))?;
    let pct: f64 = avg10.parse().ok()?;
    (0.0..=100.0).contains(&pct).then_some(pct)
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

    #[test]
    fn the_live_state_answers() {
        let state = probe_state();
        println!("{state:#?}");
        if cfg!(target_os = "linux") {
            assert!(state.load_1m.is_some() && state.load_5m.is_some());
            assert!(state.dirty_bytes.is_some() && state.writeback_bytes.is_some());
            assert!(state.mem_free_bytes.is_some_and(|n| n > 0));
            assert!(state.mem_available_bytes.is_some_and(|n| n > 0));
        } else {
            assert_eq!(state, MachineState::default());
        }
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

#[cfg(all(test, target_os = "linux"))]
mod proc_tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/host/testdata/state")
            .join(name)
    }

    #[test]
    fn loadavg_first_two_fields() {
        assert_eq!(
            loadavg("0.70 0.19 0.06 3/102 3183\n"),
            (Some(0.70), Some(0.19))
        );
        assert_eq!(
            loadavg("12.50 8.00 4.00 9/900 1\n"),
            (Some(12.5), Some(8.0))
        );
    }

    #[test]
    fn loadavg_malformed_fields_are_none() {
        assert_eq!(loadavg(""), (None, None));
        assert_eq!(loadavg("0.70\n"), (Some(0.70), None));
        assert_eq!(loadavg("x 0.19 0.06"), (None, Some(0.19)));
        assert_eq!(loadavg("NaN -1 0.06"), (None, None));
    }

    #[test]
    fn meminfo_fields_in_bytes() {
        let text = include_str!("testdata/state/busy/proc/meminfo");
        assert_eq!(meminfo_bytes(text, "Dirty"), Some(800 * MIB));
        // not WritebackTmp, which comes later with another value
        assert_eq!(meminfo_bytes(text, "Writeback"), Some(120 * MIB));
        assert_eq!(meminfo_bytes(text, "MemFree"), Some(1024 * MIB));
        assert_eq!(meminfo_bytes(text, "MemAvailable"), Some(2048 * MIB));
    }

    #[test]
    fn meminfo_missing_or_malformed_fields_are_none() {
        let text = include_str!("testdata/state/busy/proc/meminfo");
        assert_eq!(meminfo_bytes(text, "Nope"), None);
        assert_eq!(meminfo_bytes(text, "HugePages_Total"), None);
        assert_eq!(meminfo_bytes("Dirty: 12 MB\n", "Dirty"), None);
        assert_eq!(meminfo_bytes("Dirty: lots kB\n", "Dirty"), None);
        assert_eq!(meminfo_bytes("Dirty:\n", "Dirty"), None);
        let huge = format!("Dirty: {} kB\n", u64::MAX);
        assert_eq!(meminfo_bytes(&huge, "Dirty"), None);
        assert_eq!(meminfo_bytes("", "Dirty"), None);
    }

    #[test]
    fn pressure_some_avg10_percent() {
        let io = include_str!("testdata/state/busy/proc/pressure/io");
        assert_eq!(pressure_some_avg10(io), Some(35.0));
        // the full line comes first here; `some` is still the one read
        let swapped = "full avg10=9.00 avg60=0 avg300=0 total=1\n\
                       some avg10=11.56 avg60=3.86 avg300=1.41 total=6722747\n";
        assert_eq!(pressure_some_avg10(swapped), Some(11.56));
    }

    #[test]
    fn pressure_malformed_is_none() {
        assert_eq!(pressure_some_avg10(""), None);
        assert_eq!(pressure_some_avg10("full avg10=1.00 total=3\n"), None);
        assert_eq!(pressure_some_avg10("some avg60=1.00 total=3\n"), None);
        assert_eq!(pressure_some_avg10("some avg10=x avg60=1.00\n"), None);
        assert_eq!(pressure_some_avg10("some avg10=250.00\n"), None);
    }

    #[test]
    fn a_busy_proc_tree_gives_every_reason() {
        let state = read_state(&fixture("busy"));
        assert_eq!(state.load_5m, Some(2.1));
        assert_eq!(state.cpu_pressure_pct, Some(40.0));
        assert_eq!(
            busy_reasons(&state, Some(2)),
            [
                "writeback in progress (120 MiB being written, 800 MiB dirty)",
                "load average 3.4 is above the 2 CPUs",
                "I/O pressure 35% (some avg10)",
                "CPU pressure 40% (some avg10)",
            ]
        );
    }

    #[test]
    fn a_kernel_without_pressure_files_leaves_them_none() {
        let state = read_state(&fixture("quiet"));
        assert_eq!(state.load_1m, Some(0.08));
        assert_eq!(state.writeback_bytes, Some(0));
        assert_eq!(state.io_pressure_pct, None);
        assert_eq!(state.cpu_pressure_pct, None);
        assert!(busy_reasons(&state, Some(2)).is_empty());
    }

    #[test]
    fn a_missing_proc_is_all_none() {
        let state = read_state(Path::new("/no/such/root"));
        assert_eq!(state, MachineState::default());
    }
}
