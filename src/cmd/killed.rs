//! Runs whose process was killed (`kill -9`, a crash, a power loss) stay marked
//! `running` in the store. Once that is known (the machine booted since, or the pid no
//! longer runs that process) they are shown as `aborted` by `history` and `db check`,
//! and marked so for good by `db check --repair` and by the next `run` on this host.

use crate::host::ThisBoot;
use crate::model::{Run, RunStatus};
use crate::selector::RunFilter;
use crate::store::{Store, StoreError};

/// The runs of this machine marked `running` whose process is gone.
pub(super) fn dead_runs(store: &dyn Store) -> Result<Vec<Run>, StoreError> {
    let running = RunFilter {
        status: Some(RunStatus::Running),
        ..RunFilter::default()
    };
    let this = ThisBoot::probe();
    let mut runs = store.list_runs(&running)?;
    runs.retain(|run| this.is_dead(run));
    Ok(runs)
}

/// Shows the listed runs whose process is gone as `aborted`, which they are.
pub(super) fn show_as_aborted(runs: &mut [Run]) {
    let this = ThisBoot::probe();
    for run in runs.iter_mut().filter(|run| this.is_dead(run)) {
        run.status = RunStatus::Aborted;
    }
}

/// Marks `runs` (dead, as [`dead_runs`] found them) `aborted` in the store, without
/// results as every aborted run; returns their ids.
pub(super) fn mark_aborted(store: &mut dyn Store, runs: Vec<Run>) -> Result<Vec<i64>, StoreError> {
    let mut marked = Vec::new();
    for run in runs {
        let Some(id) = run.id else { continue };
        let aborted = Run {
            status: RunStatus::Aborted,
            ..run
        };
        store.finish_run(id, &aborted)?;
        marked.push(id);
    }
    Ok(marked)
}

/// "run 4" or "runs 4, 7".
pub(super) fn run_ids(ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    match ids.len() {
        1 => format!("run {}", list[0]),
        _ => format!("runs {}", list.join(", ")),
    }
}
