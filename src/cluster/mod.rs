//! Many clients measuring together: one process per MPI rank, started by `mpirun` or
//! `srun`, every cell begun on a barrier of all ranks, rank 0 deciding, gathering and
//! recording. The engine knows the other ranks only as [`bench::Peers`]; MPI itself is
//! behind the cargo feature `mpi`, off by default, so a build without an MPI library
//! still finds a launcher and refuses to run as N processes racing on one file.

mod agree;
#[cfg(test)]
mod fake;
#[cfg(feature = "mpi")]
mod mpi;

pub use agree::{Gathered, checks, shared_dir};
#[cfg(feature = "mpi")]
pub use mpi::{Ending, GRACE, MpiPeers, Session};

/// What rank 0 does when the ranks cannot end together: mark the run failed in the
/// store, given the rank found dead (rank, host), if one was, and the reason.
pub type LastWord = Box<dyn FnOnce(Option<(u32, String)>, &str) + Send>;

/// The variables a launcher sets to the number of ranks: Open MPI's `mpirun`, the PMI
/// of MPICH's `mpiexec` and others, and Slurm's `srun` (its step's tasks, whichever
/// `--mpi` plugin: PMIx sets no size of its own; a batch script, not a step, has none).
pub const LAUNCHER_VARIABLES: [&str; 3] =
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"];

/// The variables a launcher sets to a process's rank, in the order of
/// [`LAUNCHER_VARIABLES`].
pub const RANK_VARIABLES: [&str; 3] = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"];

/// The ranks the launcher started, from the values of [`LAUNCHER_VARIABLES`] in their
/// order: the first that is a number; `None` when the process was not launched so.
pub fn launched_ranks<'a>(values: impl IntoIterator<Item = Option<&'a str>>) -> Option<u32> {
    values
        .into_iter()
        .flatten()
        .find_map(|value| value.trim().parse().ok())
}

/// Whether a process the launcher started (`rank`, from [`RANK_VARIABLES`] read as
/// [`launched_ranks`] reads its) leaves the talking to rank 0: its status lines,
/// warnings and errors would say what rank 0 says, once per rank.
pub fn speaks(rank: Option<u32>) -> bool {
    rank.is_none_or(|rank| rank == 0)
}

/// Why the ranks could not measure together.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(
        "started by an MPI launcher as one of {ranks} ranks, but this iozone was built \
         without the `mpi` feature: build it with `cargo install --path . --features mpi`, \
         or start one process without the launcher"
    )]
    NoMpi { ranks: u32 },
    #[error("MPI could not be started: {0}")]
    Start(String),
    /// The launcher started processes that MPI does not join into one world: each
    /// would measure alone, racing the others on one directory.
    #[error(
        "the launcher started {launched} ranks but MPI sees {world}: they do not share a \
         process manager (under srun give --mpi=pmix, or the plugin this MPI library was \
         built for; under mpirun, use the mpirun of that library)"
    )]
    Unjoined { launched: u32, world: u32 },
    /// Rank 0 refused the run for every rank, for this rank's reason.
    #[error("rank {rank} on {host}: {reason}")]
    Refused {
        rank: u32,
        host: String,
        reason: String,
    },
}

/// Where a run of many clients is, for what ends a rank alone when the ranks cannot
/// end together (`mpi`'s watcher): while measuring, it removes the files and has rank
/// 0 mark the run; while rank 0 records, it waits longer; at the last meeting, nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stage {
    Measuring = 0,
    Recording = 1,
    Closing = 2,
}

/// What a build without MPI does under a launcher: one rank is one run as always;
/// more would be independent runs racing on one directory, refused.
pub fn refuse_without_mpi(ranks: Option<u32>) -> Result<(), ClusterError> {
    match ranks {
        Some(ranks) if ranks > 1 => Err(ClusterError::NoMpi { ranks }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_number_a_launcher_set_is_the_ranks() {
        assert_eq!(launched_ranks([None, None]), None);
        assert_eq!(launched_ranks([Some("4"), None]), Some(4));
        assert_eq!(launched_ranks([None, Some("2")]), Some(2));
        assert_eq!(launched_ranks([Some("x"), Some("3")]), Some(3));
        assert_eq!(launched_ranks([Some(" 1 ")]), Some(1));
    }

    #[test]
    fn without_mpi_one_rank_runs_and_more_are_refused_naming_the_feature() {
        assert!(refuse_without_mpi(None).is_ok());
        assert!(refuse_without_mpi(Some(1)).is_ok());
        let refused = refuse_without_mpi(Some(4)).unwrap_err().to_string();
        assert!(refused.contains("4 ranks") && refused.contains("`mpi` feature"));
        assert!(!refused.contains('\n'));
    }
}
