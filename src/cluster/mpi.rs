//! MPI itself, behind [`Peers`]: started with `MPI_THREAD_MULTIPLE` (the worker that
//! meets the others, a failing worker's alarm and the watcher are different threads),
//! every rank's host, pid and boot learnt at the start, meetings as a reduction of
//! standings, figures gathered with `MPI_Gatherv`.
//!
//! The watcher, a thread of each rank, takes the other ranks' alarms (a failed rank
//! asks the others to stop the phase they time), and acts when the launcher ends the
//! job: `mpirun` sends SIGTERM to every rank when one dies or the user presses Ctrl-C,
//! and SIGKILL about a second later. Ranks that are all alive stop together as any run
//! does on a signal; ranks waiting at a meeting for one that died never would, so
//! after [`GRACE`] the watcher removes the files (rank 0: those of every rank, the dead
//! one's too), rank 0 records the run failed, and the process exits.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{ClusterError, LastWord, Stage};
use crate::bench::{self, Peers, Standing, Stonewall};

/// The tag of an alarm: a failed rank asks the others to stop now.
const ALARM: mpi::Tag = 7001;
/// The tag of a stonewall: a rank's worker finished the phase (its step, the message)
/// first, and the others' stop.
const WALL: mpi::Tag = 7002;
/// Room for a host name and a boot id in the exchange at the start.
const NAME_BYTES: usize = 256;
/// How often the watcher looks for alarms and signals.
const WATCH_EVERY: Duration = Duration::from_millis(10);
/// How often it looks with `--stonewall`, where how soon the ranks stop after the first
/// finished is part of the figures.
const WATCH_WALLS_EVERY: Duration = Duration::from_millis(1);
/// How long ranks stopped by a signal have to end together before the watcher ends
/// this one alone: `mpirun` kills every rank about a second after its SIGTERM.
pub const GRACE: Duration = Duration::from_millis(400);

/// This rank's MPI: the universe (finalized when dropped, on the thread that started
/// it) and the ranks it knows.
pub struct Session {
    peers: MpiPeers,
    watcher: Option<Watcher>,
    /// Dropped last: `MPI_Finalize`.
    _universe: Universe,
}

/// Every rank, as this one knows them.
pub struct MpiPeers {
    rank: u32,
    size: u32,
    /// Raised by this rank's workers and, through the watcher, by the others'.
    wall: Arc<Stonewall>,
    hosts: Vec<String>,
    pids: Vec<u32>,
    boots: Vec<String>,
}

impl Session {
    /// Starts MPI and learns every rank's host, pid and boot.
    pub fn start() -> Result<Session, ClusterError> {
        let (universe, threading) = mpi::initialize_with_threading(Threading::Multiple)
            .ok_or_else(|| ClusterError::Start("MPI was started already".into()))?;
        if threading != Threading::Multiple {
            return Err(ClusterError::Start(format!(
                "the MPI library gives threads {threading:?} support, and the ranks' \
                 workers need Multiple (MPI_THREAD_MULTIPLE)"
            )));
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as u32, world.size() as u32);
        let uname = rustix::system::uname();
        let host = uname.nodename().to_string_lossy().into_owned();
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
        let hosts = all_names(&world, &host, size);
        let boots = all_names(&world, boot.trim(), size);
        let mut pids = vec![0u32; size as usize];
        world.all_gather_into(&std::process::id(), &mut pids[..]);
        Ok(Session {
            peers: MpiPeers {
                rank,
                size,
                wall: Arc::default(),
                hosts,
                pids,
                boots,
            },
            watcher: None,
            _universe: universe,
        })
    }

    pub fn peers(&self) -> &MpiPeers {
        &self.peers
    }

    /// Starts the watcher: alarms set `stop`; a signal (`caught`, its number) that the
    /// ranks do not answer together within [`GRACE`] while they measure in `dir` ends
    /// this one alone, after `last_word` where one is given.
    pub fn watch(
        &mut self,
        dir: &Path,
        stop: Arc<AtomicBool>,
        caught: Arc<AtomicUsize>,
        walls: bool,
    ) -> Arc<Ending> {
        let ending = Arc::new(Ending {
            stage: AtomicU8::new(Stage::Measuring as u8),
            last_word: Mutex::new(None),
        });
        let done = Arc::new(AtomicBool::new(false));
        let files = self.files_to_remove(dir);
        let watched = Watched {
            stop,
            caught,
            ending: Arc::clone(&ending),
            done: Arc::clone(&done),
            files,
            dead: self.dead_ranks_finder(),
            leads: self.peers.rank == 0,
            wall: Arc::clone(&self.peers.wall),
            every: match walls {
                true => WATCH_WALLS_EVERY,
                false => WATCH_EVERY,
            },
        };
        let handle = std::thread::spawn(move || watched.run());
        self.watcher = Some(Watcher { done, handle });
        ending
    }

    /// The files the watcher removes when this rank ends alone: its own; on rank 0
    /// every rank's, and on the others those of dead ranks on this machine (rank 0 may
    /// be the one that died: a dead rank's files are left to no one else).
    fn files_to_remove(&self, dir: &Path) -> FilesOf {
        let p = &self.peers;
        let own_boot = &p.boots[p.rank as usize];
        FilesOf {
            dir: dir.to_path_buf(),
            owners: (0..p.size)
                .map(|r| {
                    let r = r as usize;
                    let mine = r == p.rank as usize || p.rank == 0;
                    let here = !own_boot.is_empty() && p.boots[r] == *own_boot;
                    (p.pids[r], p.hosts[r].clone(), mine, here)
                })
                .filter(|&(_, _, mine, here)| mine || here)
                .map(|(pid, host, mine, _)| Owner {
                    pid,
                    host,
                    always: mine,
                })
                .collect(),
        }
    }

    /// Finds which ranks on this machine (the same boot) have died: the only ones rank
    /// 0 can name when the launcher ends the job.
    fn dead_ranks_finder(&self) -> DeadRanks {
        let p = &self.peers;
        let own_boot = &p.boots[p.rank as usize];
        DeadRanks {
            local: (0..p.size)
                .filter(|&r| !own_boot.is_empty() && p.boots[r as usize] == *own_boot)
                .map(|r| (r, p.pids[r as usize], p.hosts[r as usize].clone()))
                .collect(),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(watcher) = self.watcher.take() {
            watcher.done.store(true, Ordering::Relaxed);
            let _ = watcher.handle.join();
        }
    }
}

/// Tests before a rank waiting for the others naps.
const SPINS: u32 = 200;
/// How long it naps between tests.
const NAP: Duration = Duration::from_micros(50);

/// Waits for `request` without holding a core: MPI's own waits spin, which takes the
/// CPU from the ranks (or this rank's workers) still measuring on the same cores, and
/// more ranks than cores is how a node is often shared. A short spin, then naps: a
/// meeting ends for each rank at most a nap after the last one came.
fn gently<'a, D: ?Sized, S: mpi::request::Scope<'a>>(mut request: mpi::request::Request<'a, D, S>) {
    let mut tries = 0u32;
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        tries += 1;
        match tries > SPINS {
            true => std::thread::sleep(NAP),
            false => std::hint::spin_loop(),
        }
    }
}

/// Every rank's `name` (at most [`NAME_BYTES`] of it), in rank order.
fn all_names(world: &SimpleCommunicator, name: &str, size: u32) -> Vec<String> {
    let mut mine = [0u8; NAME_BYTES];
    let bytes = &name.as_bytes()[..name.len().min(NAME_BYTES)];
    mine[..bytes.len()].copy_from_slice(bytes);
    let mut all = vec![0u8; NAME_BYTES * size as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    all.chunks(NAME_BYTES)
        .map(|c| {
            let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
            String::from_utf8_lossy(&c[..end]).into_owned()
        })
        .collect()
}

impl Peers for MpiPeers {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn host(&self, rank: u32) -> &str {
        &self.hosts[rank as usize]
    }

    fn pid(&self, rank: u32) -> u32 {
        self.pids[rank as usize]
    }

    fn meet(&self, mine: Standing) -> Standing {
        let world = SimpleCommunicator::world();
        let mut worst = 0u8;
        let mine = mine as u8;
        mpi::request::scope(|scope| {
            gently(world.immediate_all_reduce_into(
                scope,
                &mine,
                &mut worst,
                SystemOperation::max(),
            ));
        });
        Standing::of(worst)
    }

    fn gather(&self, mine: &[u64]) -> Option<Vec<Vec<u64>>> {
        let world = SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        let count = mine.len() as mpi::Count;
        if self.rank != 0 {
            mpi::request::scope(|scope| {
                gently(root.immediate_gather_into(scope, &count));
                gently(root.immediate_gather_varcount_into(scope, mine));
            });
            return None;
        }
        let mut counts = vec![0 as mpi::Count; self.size as usize];
        mpi::request::scope(|scope| {
            gently(root.immediate_gather_into_root(scope, &count, &mut counts[..]));
        });
        let displs: Vec<mpi::Count> = (counts.iter())
            .scan(0, |at, &n| {
                let here = *at;
                *at += n;
                Some(here)
            })
            .collect();
        let total: usize = counts.iter().map(|&n| n as usize).sum();
        let mut all = vec![0u64; total];
        {
            let mut parts = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            mpi::request::scope(|scope| {
                gently(root.immediate_gather_varcount_into_root(scope, mine, &mut parts));
            });
        }
        let mut rest = &all[..];
        Some(
            (counts.iter())
                .map(|&n| {
                    let (one, after) = rest.split_at(n as usize);
                    rest = after;
                    one.to_vec()
                })
                .collect(),
        )
    }

    fn share(&self, value: u64) -> u64 {
        let world = SimpleCommunicator::world();
        let mut value = value;
        mpi::request::scope(|scope| {
            gently(
                world
                    .process_at_rank(0)
                    .immediate_broadcast_into(scope, &mut value),
            );
        });
        value
    }

    fn alarm(&self) {
        let world = SimpleCommunicator::world();
        for other in (0..self.size).filter(|&r| r != self.rank) {
            world
                .process_at_rank(other as mpi::Rank)
                .send_with_tag(&1u8, ALARM);
        }
    }

    fn stonewall(&self) -> &Stonewall {
        &self.wall
    }

    fn wall(&self, step: u64) {
        let world = SimpleCommunicator::world();
        for other in (0..self.size).filter(|&r| r != self.rank) {
            world
                .process_at_rank(other as mpi::Rank)
                .send_with_tag(&step, WALL);
        }
    }
}

/// Where the command is, and what rank 0 says in the store if this rank must end alone.
pub struct Ending {
    stage: AtomicU8,
    last_word: Mutex<Option<LastWord>>,
}

impl Ending {
    pub fn stage(&self, stage: Stage) {
        self.stage.store(stage as u8, Ordering::Relaxed);
    }

    /// Gives what to do with the store if the ranks cannot end together (rank 0), or
    /// takes it back (`None`) once the run is recorded.
    pub fn last_word(&self, word: Option<LastWord>) {
        *self.last_word.lock().unwrap_or_else(|p| p.into_inner()) = word;
    }
}

struct Watcher {
    done: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

/// The test files of some ranks, by their pid and host.
struct FilesOf {
    dir: PathBuf,
    owners: Vec<Owner>,
}

/// A rank whose files may be removed: always (this rank's own, or rank 0's charge of
/// every rank), or when its process here is gone.
struct Owner {
    pid: u32,
    host: String,
    always: bool,
}

/// The ranks on this machine: (rank, pid, host).
struct DeadRanks {
    local: Vec<(u32, u32, String)>,
}

/// The first rank found dead here, and what is said of the dead.
type Dead = (Option<(u32, String)>, String);

impl DeadRanks {
    /// The first rank found dead here, and "rank 2 (pid 4242 on vm) died", or what can
    /// be said when none here did.
    fn said(&self) -> Dead {
        let gone: Vec<&(u32, u32, String)> = (self.local.iter())
            .filter(|(_, pid, _)| !crate::process::is_running(*pid))
            .collect();
        let first = gone.first().map(|(rank, _, host)| (*rank, host.clone()));
        let said: Vec<String> = (gone.iter())
            .map(|(rank, pid, host)| format!("rank {rank} (pid {pid} on {host})"))
            .collect();
        match said.is_empty() {
            true => (
                first,
                "a rank on another host died, or the job was cancelled".into(),
            ),
            false => (first, format!("{} died", said.join(", "))),
        }
    }
}

/// The watcher's thread.
struct Watched {
    stop: Arc<AtomicBool>,
    caught: Arc<AtomicUsize>,
    ending: Arc<Ending>,
    done: Arc<AtomicBool>,
    files: FilesOf,
    dead: DeadRanks,
    /// Whether this is rank 0.
    leads: bool,
    /// This rank's stonewall, which the others' walls raise.
    wall: Arc<Stonewall>,
    /// How often to look.
    every: Duration,
}

impl Watched {
    fn run(self) {
        let world = SimpleCommunicator::world();
        // when the signal came, and who was dead then: the launcher's signal follows a
        // death, and once the ranks end alone each one that has is gone too
        let mut signalled: Option<(Instant, Dead)> = None;
        while !self.done.load(Ordering::Relaxed) {
            if let Some(status) = world.any_process().immediate_probe_with_tag(ALARM) {
                let _ = world
                    .process_at_rank(status.source_rank())
                    .receive_with_tag::<u8>(ALARM);
                self.stop.store(true, Ordering::Relaxed);
            }
            while let Some(status) = world.any_process().immediate_probe_with_tag(WALL) {
                let (step, _) = world
                    .process_at_rank(status.source_rank())
                    .receive_with_tag::<u64>(WALL);
                self.wall.fall(step);
            }
            let signal = self.caught.load(Ordering::Relaxed);
            if signal != 0 {
                let (since, dead) =
                    signalled.get_or_insert_with(|| (Instant::now(), self.dead.said()));
                self.end_alone_after(*since, signal, dead);
            }
            std::thread::sleep(self.every);
        }
    }

    /// Ends this rank alone once the ranks have had their time to end together; the
    /// run's record, being written, is given its time too.
    fn end_alone_after(&self, since: Instant, signal: usize, (dead, said): &Dead) {
        let stage = self.ending.stage.load(Ordering::Relaxed);
        let waited = since.elapsed();
        // a rank found dead will never come to a meeting: rank 0 has nothing to wait
        // for, and the launcher kills the living about a second after its signal; the
        // others wait, so that rank 0 does not take them for dead too
        let due = match stage {
            s if s == Stage::Recording as u8 => waited >= 2 * GRACE,
            s if s == Stage::Measuring as u8 && dead.is_some() && self.leads => true,
            _ => waited >= GRACE,
        };
        if !due {
            return;
        }
        if stage == Stage::Measuring as u8 {
            for owner in &self.files.owners {
                if owner.always || !crate::process::is_running(owner.pid) {
                    bench::remove_client_files(&self.files.dir, owner.pid, &owner.host);
                }
            }
            let why = format!(
                "the launcher stopped the job (signal {signal}) while the ranks measured: {said}"
            );
            let word = (self.ending.last_word.lock().ok()).and_then(|mut w| w.take());
            if let Some(word) = word {
                // rank 0, which speaks for all, and records
                eprintln!("error: {why}; the test files were removed, the run is recorded failed");
                word(dead.clone(), &why);
            }
        }
        std::process::exit(128 + signal as i32);
    }
}
