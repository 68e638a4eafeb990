//! Processes on this machine, as /proc tells them: when one started, so that a pid a
//! later process took over is told apart from the process that began a run or wrote a
//! test file. Linux only, as the rest of the probing; elsewhere nothing is known.

use std::time::{Duration, SystemTime};

/// This process's id and start, which together name it for the life of the boot.
pub fn this_process() -> Option<(u32, u64)> {
    let pid = std::process::id();
    Some((pid, start_ticks(pid)?))
}

/// When the process `pid` started, in clock ticks since boot (/proc/PID/stat, field
/// 22); `None` when no such process runs: there is none, or it is a zombie waiting for
/// its parent (a killed MPI rank stays one until its launcher, or init, reaps it).
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_start_ticks(&stat)
}

/// Field 22 of a /proc/PID/stat line, unless its state (field 3) is a zombie's or a
/// dead process's. The command name (field 2) is in parentheses and may itself hold
/// spaces and parentheses, so fields are counted after the last.
fn stat_start_ticks(stat: &str) -> Option<u64> {
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    if matches!(fields.next(), Some("Z" | "X") | None) {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// Whether the process `pid` runs: it exists and is not a zombie.
pub fn is_running(pid: u32) -> bool {
    start_ticks(pid).is_some()
}

/// When the process `pid` started, by the wall clock (to a clock tick, rounded down);
/// `None` when no such process runs (as [`start_ticks`]).
pub fn started_at(pid: u32) -> Option<SystemTime> {
    let ticks = start_ticks(pid)?;
    let per_second = rustix::param::clock_ticks_per_second().max(1);
    Some(boot_time()? + Duration::from_secs(ticks / per_second))
}

/// When the machine booted (/proc/stat `btime`, in whole seconds, rounded down).
fn boot_time() -> Option<SystemTime> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let seconds = stat.lines().find_map(|l| l.strip_prefix("btime "))?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_counted_after_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 1000 200";
        assert_eq!(stat_start_ticks(stat), Some(987654));
        assert_eq!(stat_start_ticks("4242 (short) S 1"), None);
        let zombie = stat.replacen(") S ", ") Z ", 1);
        assert_eq!(stat_start_ticks(&zombie), None);
    }

    #[test]
    fn this_process_runs_and_a_reaped_one_does_not() {
        assert!(is_running(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!is_running(pid));
    }

    #[test]
    fn this_process_is_known_and_started_before_now() {
        let (pid, ticks) = this_process().expect("/proc is there");
        assert_eq!(start_ticks(pid), Some(ticks));
        assert!(started_at(pid).unwrap() <= SystemTime::now());
    }
}
