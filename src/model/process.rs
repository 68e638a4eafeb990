//! The process that measured a run, recorded when the run begins: with the host's boot
//! id, what tells a run in progress from one whose process was killed.

use serde::{Deserialize, Serialize};

/// A process, named for the life of a boot: its pid and its start in clock ticks since
/// boot (a later process that takes over the pid starts later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunProcess {
    pub pid: u32,
    pub start_ticks: u64,
}
