//! The machine's state at a moment: load, dirty page cache and pressure, which shift
//! every result of a run alike (whether that is too busy to measure honestly is
//! `busy.rs`'s). Linux states these in /proc; elsewhere every field stays `None`.

use crate::model::MachineState;

/// What /proc says now; a file it cannot read leaves its fields `None`.
pub fn probe_state() -> MachineState {
    #[cfg(target_os = "linux")]
    let state = read_state(std::path::Path::new("/"));
    #[cfg(not(target_os = "linux"))]
    let state = MachineState::default();
    state
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
}

#[cfg(all(test, target_os = "linux"))]
mod proc_tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::host::busy_reasons;

    const MIB: u64 = 1024 * 1024;

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
