//! Whether a run still marked `running` is being measured, or its process was killed
//! (`kill -9`, a crash, a power loss) and it will never finish. Only runs of this
//! machine can be told: another host's boot and processes are not visible from here.

use crate::model::{Run, RunStatus};

/// This machine's name and boot, looked up once for many runs.
pub struct ThisBoot {
    hostname: Option<String>,
    boot_id: Option<String>,
}

impl ThisBoot {
    pub fn probe() -> ThisBoot {
        let hostname = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .trim()
            .to_string();
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|id| id.trim().to_string())
            .filter(|id| !id.is_empty());
        ThisBoot {
            hostname: (!hostname.is_empty()).then_some(hostname),
            boot_id,
        }
    }

    /// Whether `run` is marked `running` but its process is gone: the machine booted
    /// since, or its pid no longer runs or was taken by a process started later.
    /// A run of another host, or without the facts to tell, is not called dead.
    pub fn is_dead(&self, run: &Run) -> bool {
        if run.status != RunStatus::Running
            || self.hostname.is_none()
            || run.host.hostname != self.hostname
        {
            return false;
        }
        match (&run.host.boot_id, &self.boot_id) {
            (Some(then), Some(now)) if then != now => true,
            (Some(_), Some(_)) => run
                .process
                .is_some_and(|p| crate::process::start_ticks(p.pid) != Some(p.start_ticks)),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Host, RunProcess};

    fn here() -> ThisBoot {
        ThisBoot {
            hostname: Some("bebox".into()),
            boot_id: Some("boot-2".into()),
        }
    }

    fn running(hostname: &str, boot_id: &str, process: Option<RunProcess>) -> Run {
        Run {
            status: RunStatus::Running,
            host: Host {
                hostname: Some(hostname.into()),
                boot_id: Some(boot_id.into()),
                ..Host::default()
            },
            process,
            ..Run::default()
        }
    }

    #[test]
    fn a_run_of_an_earlier_boot_is_dead() {
        assert!(here().is_dead(&running("bebox", "boot-1", None)));
    }

    #[test]
    fn a_run_whose_process_is_gone_or_replaced_is_dead() {
        let (pid, start_ticks) = crate::process::this_process().unwrap();
        let alive = RunProcess { pid, start_ticks };
        let this_boot = ThisBoot::probe();
        let boot = this_boot.boot_id.clone().unwrap();
        let host = this_boot.hostname.clone().unwrap();
        assert!(!this_boot.is_dead(&running(&host, &boot, Some(alive))));
        // the same pid, started at another tick: a later process took it over
        let reused = RunProcess {
            start_ticks: start_ticks + 1,
            ..alive
        };
        assert!(this_boot.is_dead(&running(&host, &boot, Some(reused))));
        // a pid beyond the kernel's limit runs nothing
        let gone = RunProcess {
            pid: u32::MAX,
            start_ticks,
        };
        assert!(this_boot.is_dead(&running(&host, &boot, Some(gone))));
    }

    #[test]
    fn what_cannot_be_told_is_not_called_dead() {
        // another host; no process recorded; a finished run
        assert!(!here().is_dead(&running("other", "boot-1", None)));
        assert!(!here().is_dead(&running("bebox", "boot-2", None)));
        let mut complete = running("bebox", "boot-1", None);
        complete.status = RunStatus::Complete;
        assert!(!here().is_dead(&complete));
    }
}
