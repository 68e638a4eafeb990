//! `run` as one client of many: started by an MPI launcher (`mpirun -np 4 iozone run
//! …`), every rank runs this command, and rank 0 alone speaks, opens the database and
//! records. The steps only rank 0 takes are settled with the others before any goes
//! on ([`settle`]), and the last meeting keeps every rank until rank 0 has recorded.
//! A build without the feature `mpi` has no clients: [`Clients`] is then a type with
//! no value, and a launcher of several ranks is refused.

use crate::bench::{self, Peers, Preflight, Standing};
use crate::cluster::{self, ClusterError, Gathered};
use crate::model::{ClientHost, Cluster, Filesystem, Params, RankFailure, Run};

use super::Context;

#[cfg(feature = "mpi")]
pub(super) struct Clients {
    session: cluster::Session,
    ending: Option<std::sync::Arc<cluster::Ending>>,
}

/// No clients without MPI: a type with no value.
#[cfg(not(feature = "mpi"))]
pub(super) enum Clients {}

#[cfg(feature = "mpi")]
impl Clients {
    /// MPI, when a launcher started this process.
    pub(super) fn join(context: &Context) -> anyhow::Result<Option<Clients>> {
        let Some(launched) = context.launched_ranks else {
            return Ok(None);
        };
        let session = cluster::Session::start()?;
        let world = session.peers().size();
        if world != launched {
            return Err(ClusterError::Unjoined { launched, world }.into());
        }
        Ok(Some(Clients {
            session,
            ending: None,
        }))
    }

    pub(super) fn peers(&self) -> &dyn Peers {
        self.session.peers()
    }

    /// Starts the watcher of alarms and of the launcher's signals.
    pub(super) fn watch(&mut self, plan: &bench::Plan, signals: &super::Signals) {
        let ending = self.session.watch(
            &plan.dir,
            std::sync::Arc::clone(&signals.stop),
            std::sync::Arc::clone(&signals.caught),
            plan.stonewall,
        );
        self.ending = Some(ending);
    }

    pub(super) fn stage(&self, stage: cluster::Stage) {
        if let Some(ending) = &self.ending {
            ending.stage(stage);
        }
    }

    /// What rank 0 writes to the store if the ranks cannot end together: the run,
    /// failed, with the reason the watcher found (`None` once it is recorded).
    pub(super) fn last_word(&self, word: Option<cluster::LastWord>) {
        if let Some(ending) = &self.ending {
            ending.last_word(word);
        }
    }

    /// The last meeting: no rank leaves before rank 0 has recorded; then MPI ends.
    pub(super) fn close(self) {
        self.stage(cluster::Stage::Closing);
        self.peers().meet(Standing::Ready);
    }
}

#[cfg(not(feature = "mpi"))]
impl Clients {
    /// Never clients: a launcher of several ranks is refused, one rank is a run.
    pub(super) fn join(context: &Context) -> anyhow::Result<Option<Clients>> {
        cluster::refuse_without_mpi(context.launched_ranks)?;
        Ok(None)
    }

    pub(super) fn peers(&self) -> &dyn Peers {
        match *self {}
    }

    pub(super) fn watch(&mut self, _plan: &bench::Plan, _signals: &super::Signals) {
        match *self {}
    }

    pub(super) fn stage(&self, _stage: cluster::Stage) {
        match *self {}
    }

    pub(super) fn last_word(&self, _word: Option<cluster::LastWord>) {
        match *self {}
    }

    pub(super) fn close(self) {
        match self {}
    }
}

impl Clients {
    /// Whether this is rank 0, which speaks, opens the database and records.
    pub(super) fn leads(&self) -> bool {
        self.peers().rank() == 0
    }

    /// Every rank's checks of the directory (this one's: `local`) and facts, judged by
    /// rank 0, and with `--shared-file` whether every rank sees rank 0's directory.
    /// Rank 0 gets what it learnt of every rank.
    pub(super) fn check(
        &self,
        plan: &bench::Plan,
        local: Result<Preflight, bench::BenchError>,
    ) -> anyhow::Result<(Preflight, Option<Gathered>)> {
        let peers = self.peers();
        let facts = local
            .as_ref()
            .map_err(ToString::to_string)
            .map(|checks| ClientHost {
                host: crate::host::probe_host(),
                filesystem: filesystem(plan, checks),
            });
        let gathered = cluster::checks(peers, &plan.dir, facts)?;
        if plan.shared_file {
            cluster::shared_dir(peers, &plan.dir)?;
        }
        Ok((local?, gathered))
    }

    /// A step only rank 0 took (`step`: its outcome there, `Ok` on the others), settled
    /// with every rank: all go on, or all stop.
    pub(super) fn settle<T>(&self, step: anyhow::Result<T>) -> anyhow::Result<T> {
        let mine = match step {
            Ok(_) => Standing::Ready,
            Err(_) => Standing::Failed,
        };
        match (self.peers().meet(mine), step) {
            (Standing::Ready, step) => step,
            (_, Err(e)) => Err(e),
            (_, Ok(_)) => Err(ClusterError::Refused {
                rank: 0,
                host: self.peers().host(0).to_string(),
                reason: "rank 0 could not begin the run".into(),
            }
            .into()),
        }
    }
}

/// The filesystem under the plan's directory, with what the checks learnt of it.
pub(super) fn filesystem(plan: &bench::Plan, checks: &Preflight) -> Filesystem {
    let mut filesystem = crate::host::probe_filesystem(&plan.dir);
    filesystem.block_size = filesystem.block_size.or(checks.block_size);
    filesystem.total_bytes = filesystem.total_bytes.or(checks.total_bytes);
    filesystem.free_bytes = filesystem.free_bytes.or(checks.free_bytes);
    filesystem
}

/// The run of many clients as rank 0 begins it: their number and hosts among its
/// parameters, every host's facts; a run of one client is left as any run.
pub(super) fn of_many(run: &mut Run, gathered: &Gathered) {
    let clients = gathered.rank_hosts.len() as u32;
    if clients <= 1 {
        return;
    }
    run.params.clients = clients;
    run.params.hosts = gathered.rank_hosts.clone();
    run.cluster = Some(Cluster {
        hosts: gathered.hosts.clone(),
        ..Cluster::default()
    });
}

/// The rank whose failure stopped the run, as the run keeps it and the error says it.
pub(super) fn failure(params: &Params, rank: u32, error: &str) -> RankFailure {
    RankFailure {
        rank: Some(rank),
        host: params.hosts.get(rank as usize).cloned(),
        error: error.to_string(),
    }
}

/// The one line that names a failed rank and its host.
#[derive(Debug, thiserror::Error)]
#[error("rank {rank} on {host} failed: {error}")]
pub struct RankFailed {
    pub rank: u32,
    pub host: String,
    pub error: String,
}

/// "4 clients on 2 hosts (vm-a ×3, vm-b), each its own files": how the ranks are laid
/// out, for the run's header.
pub(super) fn layout(gathered: &Gathered, shared_file: bool) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for host in &gathered.rank_hosts {
        match counts.iter_mut().find(|(h, _)| h == host) {
            Some((_, n)) => *n += 1,
            None => counts.push((host, 1)),
        }
    }
    let hosts: Vec<String> = (counts.iter())
        .map(|(h, n)| match n {
            1 => h.to_string(),
            n => format!("{h} ×{n}"),
        })
        .collect();
    format!(
        "{} on {} ({}), {}",
        crate::units::count(gathered.rank_hosts.len(), "client"),
        crate::units::count(counts.len(), "host"),
        hosts.join(", "),
        match shared_file {
            true => "one file shared, each its region",
            false => "each its own files",
        }
    )
}
