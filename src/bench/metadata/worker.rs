//! One thread of a metadata round: its share of the tree, taken through every metadata
//! test of the run in lockstep with the other threads. Before each phase, untimed, the
//! tree is brought to what the test needs (directories before `create`, files before
//! `stat`, no files before `rmdir`), the cache mode does its part, and every thread
//! waits for the others; so the tests asked for need not include the ones that make
//! their preconditions.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::Mode;

use super::ops::{Failed, Phase, Timed};
use super::tree::{Name, Share, TreeRoot, open_dir};
use crate::bench::cache::CachePolicy;
use crate::bench::latency::Sampler;
use crate::bench::order::Permutation;
use crate::bench::{BenchError, Cancel, CellRound, Observer, Plan, Step, Tally};
use crate::model::TestKind;

/// Latency is sampled on one operation in this many on average: two clock reads per
/// 16 operations of a microsecond or less stay well under 1% of the phase.
const SAMPLE_EVERY: u32 = 16;

pub(super) struct MetaWorker<'a> {
    pub plan: &'a Plan,
    pub share: Share,
    pub cache: CachePolicy,
    /// Whether caches are dropped before each phase (`--cache flush` as root).
    pub drops_caches: bool,
    pub root: &'a TreeRoot,
    pub cell: &'a CellRound<'a>,
    pub cancel: &'a Cancel<'a>,
    pub barrier: &'a Barrier,
    /// Only worker 0 reports progress and drops caches, while the others wait.
    pub observer: Option<&'a dyn Observer>,
    pub tally: Option<&'a Tally>,
}

/// Where the thread's share of the tree is.
#[derive(Default)]
struct State {
    /// The thread's subtree (or the shared root, not owned: `None`).
    subtree: Option<OwnedFd>,
    dirs_made: bool,
    /// The directories it has files in, open while they exist.
    dirs: Vec<OwnedFd>,
    files: bool,
    renamed: bool,
}

/// What a test needs of the tree before its clock starts.
struct Needs {
    dirs: bool,
    files: Option<bool>,
}

fn needs(test: TestKind) -> Needs {
    match test {
        TestKind::Mkdir => Needs {
            dirs: false,
            files: Some(false),
        },
        TestKind::Create | TestKind::Rmdir => Needs {
            dirs: true,
            files: Some(false),
        },
        _ => Needs {
            dirs: true,
            files: Some(true),
        },
    }
}

impl MetaWorker<'_> {
    pub(super) fn run(self) -> Result<Vec<Timed>, BenchError> {
        crate::bench::worker::private_fd_table();
        let mut state = State::default();
        let mut timings = Vec::new();
        let mut error: Option<BenchError> = None;
        let unread = AtomicU64::new(0);
        let done = (self.tally)
            .and_then(|t| t.counter(self.share.worker))
            .unwrap_or(&unread);
        let data = self.data();
        let mut buf = vec![0u8; data.len() + 4096];
        if let Err(e) = self.make_subtree(&mut state) {
            self.cancel.fail();
            error = Some(e);
        }
        let tests: Vec<TestKind> = self.plan.tests_of(&self.cell.cell).collect();
        for (step, &test) in (self.cell.first_step..).zip(&tests) {
            // every worker reaches every barrier, failed or not, so none waits forever
            self.untimed(&mut error, || self.make_dirs(test, &mut state));
            self.barrier.wait();
            self.untimed(&mut error, || self.ready_files(test, &mut state));
            self.barrier.wait();
            if self.share.worker == 0 {
                self.untimed(&mut error, || self.between_phases());
                self.report(step, test, &state);
            }
            done.store(0, Ordering::Relaxed);
            self.barrier.wait();
            let timed = (error.is_none() && !self.cancel.is_set())
                .then(|| self.phase(test, &state, done, &data, &mut buf).run());
            self.barrier.wait();
            match timed {
                Some(Ok(t)) => {
                    timings.push(t);
                    state.after(test);
                }
                Some(Err(e)) => {
                    self.cancel.fail();
                    error.get_or_insert(self.error(test, e));
                }
                None => {}
            }
        }
        match error {
            Some(e) => Err(e),
            None if self.cancel.is_set() => Err(BenchError::Interrupted),
            None => Ok(timings),
        }
    }

    /// Runs `work` unless the round already failed; its failure stops the others.
    fn untimed(
        &self,
        error: &mut Option<BenchError>,
        work: impl FnOnce() -> Result<(), BenchError>,
    ) {
        if error.is_some() || self.cancel.is_set() {
            return;
        }
        if let Err(e) = work() {
            self.cancel.fail();
            *error = Some(e);
        }
    }

    /// A created file's content: seeded bytes, `--file-bytes` of them.
    fn data(&self) -> Vec<u8> {
        use rand::{Rng, SeedableRng};
        let seed = self.plan.seed.wrapping_add(u64::from(self.share.worker));
        let mut data = vec![0u8; self.share.tree.file_bytes as usize];
        rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed).fill_bytes(&mut data);
        data
    }

    fn base<'s>(&'s self, state: &'s State) -> BorrowedFd<'s> {
        state
            .subtree
            .as_ref()
            .map_or(self.root.fd(), |fd| fd.as_fd())
    }

    fn make_subtree(&self, state: &mut State) -> Result<(), BenchError> {
        if self.share.tree.shared_dir {
            return Ok(());
        }
        let name = Name::subtree(self.share.worker);
        let made = rustix::fs::mkdirat(self.root.fd(), name.as_cstr(), Mode::from_raw_mode(0o755))
            .map_err(std::io::Error::from)
            .and_then(|()| open_dir(self.root.fd(), name.as_cstr()));
        state.subtree = Some(made.map_err(|e| self.io_error("making", name.text(), None, e))?);
        Ok(())
    }

    /// Before the barrier: the thread's directories made when the test needs them,
    /// its files removed when it needs none (`rmdir`: every thread's must be gone).
    fn make_dirs(&self, test: TestKind, state: &mut State) -> Result<(), BenchError> {
        let needs = needs(test);
        if needs.dirs && !state.dirs_made {
            self.untimed_phase(TestKind::Mkdir, state)?;
            state.dirs_made = true;
        }
        if needs.files == Some(false) && state.files {
            self.untimed_phase(TestKind::Unlink, state)?;
            state.after(TestKind::Unlink);
        }
        if test == TestKind::Rmdir {
            // no descriptor holds a directory about to be removed
            state.dirs.clear();
        }
        Ok(())
    }

    /// After the barrier (every thread's directories exist): the directories opened,
    /// the thread's files made when the test needs them.
    fn ready_files(&self, test: TestKind, state: &mut State) -> Result<(), BenchError> {
        if state.dirs_made && state.dirs.is_empty() && test != TestKind::Rmdir {
            for j in 0..self.share.tree.dirs {
                let name = Name::dir(j);
                let fd = open_dir(self.base(state), name.as_cstr())
                    .map_err(|e| self.io_error("opening directory", name.text(), Some(test), e))?;
                state.dirs.push(fd);
            }
        }
        if needs(test).files == Some(true) && !state.files {
            self.untimed_phase(TestKind::Create, state)?;
            state.after(TestKind::Create);
        }
        Ok(())
    }

    /// What a test's phase does, done untimed to make another's precondition.
    fn untimed_phase(&self, test: TestKind, state: &State) -> Result<(), BenchError> {
        let unread = AtomicU64::new(0);
        let data = self.data();
        let mut buf = [0u8; 1];
        let mut phase = self.phase(test, state, &unread, &data, &mut buf);
        phase.sampler = Sampler::every(false, 1, 0);
        phase.order = None;
        phase.durable = false;
        phase.run().map(drop).map_err(|e| self.error(test, e))
    }

    fn phase<'p>(
        &'p self,
        test: TestKind,
        state: &'p State,
        done: &'p AtomicU64,
        data: &'p [u8],
        buf: &'p mut [u8],
    ) -> Phase<'p> {
        // every round (warm-up included) visits the entries in orders of its own
        let seed = self.plan.seed
            ^ (u64::from(self.cell.round) << 40
                | (test as u64) << 32
                | u64::from(self.share.worker));
        let mut phase = Phase {
            test,
            share: self.share,
            base: self.base(state),
            dirs: &state.dirs,
            renamed: state.renamed,
            durable: self.cache.syncs_each_metadata_change(),
            order: None,
            sampler: Sampler::every(self.plan.latency, SAMPLE_EVERY, seed),
            cancel: self.cancel,
            done,
            data,
            buf,
        };
        if test == TestKind::Readdir {
            // a listing is long: each one timed
            phase.sampler = Sampler::every(self.plan.latency, 1, seed);
        }
        if self.share.tree.random_order {
            phase.order = Some(Permutation::new(phase.count(), seed));
        }
        phase
    }

    /// Worker 0, while the others wait: what `--cache flush` does before a phase.
    fn between_phases(&self) -> Result<(), BenchError> {
        if !self.cache.drops_metadata_caches() {
            return Ok(());
        }
        rustix::fs::sync();
        match self.drops_caches {
            true => super::caches::drop_dentries_and_inodes()
                .map_err(|e| BenchError::io("dropping the dentry and inode caches", e)),
            false => Ok(()),
        }
    }

    fn report(&self, index: u64, test: TestKind, state: &State) {
        let Some(observer) = self.observer else {
            return;
        };
        if let Some(tally) = self.tally {
            let unread = AtomicU64::new(0);
            let (data, mut buf) = (Vec::new(), [0u8; 1]);
            let count = self.phase(test, state, &unread, &data, &mut buf).count();
            tally.start_phase(count);
        }
        observer.step(&Step {
            index,
            total: self.cell.total,
            test,
            file_size: 0,
            record_size: 0,
            engine: self.cell.cell.engine,
            cache: self.cell.cell.cache,
            repetition: self.cell.repetition,
            warmup: self.cell.warmup,
            repeat: self.cell.repeat,
        });
    }

    fn error(&self, test: TestKind, e: Result<Failed, BenchError>) -> BenchError {
        match e {
            Ok(f) => self.io_error(f.doing, &f.name, Some(test), f.error),
            Err(e) => e,
        }
    }

    /// An operation's failure, naming the entry under the tree; out of inodes said as
    /// such (the usual end of a tree too large for its filesystem).
    fn io_error(
        &self,
        doing: &str,
        name: &str,
        test: Option<TestKind>,
        e: std::io::Error,
    ) -> BenchError {
        let path = self.root.path().display();
        let context = match test {
            Some(test) => format!("{doing} {name} under {path} ({test} test)"),
            None => format!("{doing} {name} under {path}"),
        };
        super::caches::out_of_space(self.root.path(), context, e)
    }
}

impl State {
    /// The tree after `test`'s phase.
    fn after(&mut self, test: TestKind) {
        match test {
            TestKind::Mkdir => self.dirs_made = true,
            TestKind::Create => (self.files, self.renamed) = (true, false),
            TestKind::Rename => self.renamed = true,
            TestKind::Unlink => (self.files, self.renamed) = (false, false),
            TestKind::Rmdir => self.dirs_made = false,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_test_finds_the_tree_its_phase_needs() {
        let mut state = State::default();
        for test in TestKind::METADATA {
            let needs = needs(test);
            state.dirs_made |= needs.dirs;
            if let Some(files) = needs.files {
                state.files = files;
            }
            state.after(test);
        }
        // the canonical order ends with nothing made
        assert!(!state.dirs_made && !state.files);
        assert!(needs(TestKind::Stat).files == Some(true));
        assert!(needs(TestKind::Rmdir).files == Some(false) && needs(TestKind::Rmdir).dirs);
    }
}
