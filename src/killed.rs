//! Runs whose process ended without ending them in the store stay marked `running`:
//! a run killed outright (`kill -9`, a crash, a power loss), and a run whose final
//! write could not reach the database (a full disk, a lock held too long), which waits
//! in its spool file. Once that is known (the machine booted since, or the pid no
//! longer runs that process) they are shown as what they are — `aborted`, or `failed`
//! when their spool file is there — by `history` and `db check`, and marked so for good
//! by `db check --repair` and by the next `run` on this host.

use std::path::PathBuf;

use crate::host::ThisBoot;
use crate::model::{Run, RunStatus};
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError};

/// A run marked `running` whose process is gone.
pub struct Ended {
    pub run: Run,
    /// Where the run waits when its final write failed (`record`'s spool); `None` for
    /// a run that was killed.
    pub spooled: Option<PathBuf>,
}

impl Ended {
    /// What the run is: `failed` when not recorded (its figures wait in the spool),
    /// `aborted` when killed.
    pub fn status(&self) -> RunStatus {
        match self.spooled {
            Some(_) => RunStatus::Failed,
            None => RunStatus::Aborted,
        }
    }

    /// Why, after "run 4 aborted" or "run 5 failed".
    pub fn why(&self) -> String {
        match &self.spooled {
            Some(file) => format!(
                "not recorded, it waits in {}: `iozone import {}` records it",
                file.display(),
                file.display()
            ),
            None => "killed before it could finish".to_string(),
        }
    }
}

/// The runs of this machine marked `running` whose process is gone.
pub fn dead_runs(store: &dyn Store) -> Result<Vec<Ended>, StoreError> {
    let running = RunFilter {
        status: Some(RunStatus::Running),
        ..RunFilter::default()
    };
    let this = ThisBoot::probe();
    let mut runs = store.list_runs(&running)?;
    runs.retain(|run| this.is_dead(run));
    Ok(runs.into_iter().map(ended).collect())
}

fn ended(run: Run) -> Ended {
    let file = store::spool_file(run.uuid);
    Ended {
        spooled: file.is_file().then_some(file),
        run,
    }
}

/// Shows the listed runs whose process is gone as what they are.
pub fn show_as_ended(runs: &mut [Run]) {
    let this = ThisBoot::probe();
    for run in runs.iter_mut().filter(|run| this.is_dead(run)) {
        run.status = ended(run.clone()).status();
    }
}

/// Marks `runs` (dead, as [`dead_runs`] found them) as what they are in the store,
/// without results as every run that did not complete; returns them, as marked.
pub fn mark_ended(store: &mut dyn Store, runs: Vec<Ended>) -> Result<Vec<Ended>, StoreError> {
    let mut marked = Vec::new();
    for mut ended in runs {
        let Some(id) = ended.run.id else { continue };
        ended.run.status = ended.status();
        store.finish_run(id, &ended.run)?;
        marked.push(ended);
    }
    Ok(marked)
}

/// A line per status and reason: "run 4 aborted: killed before it could finish",
/// "runs 4, 7 aborted: …", "run 5 failed: not recorded, it waits in …".
pub fn said(runs: &[Ended]) -> Vec<String> {
    let mut lines: Vec<(String, Vec<i64>)> = Vec::new();
    for ended in runs {
        let Some(id) = ended.run.id else { continue };
        let line = format!("{}: {}", ended.status(), ended.why());
        match lines.iter_mut().find(|(l, _)| *l == line) {
            Some((_, ids)) => ids.push(id),
            None => lines.push((line, vec![id])),
        }
    }
    lines
        .into_iter()
        .map(|(line, ids)| format!("{} {line}", run_ids(&ids)))
        .collect()
}

/// "run 4" or "runs 4, 7".
fn run_ids(ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    match ids.len() {
        1 => format!("run {}", list[0]),
        _ => format!("runs {}", list.join(", ")),
    }
}
