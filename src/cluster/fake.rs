//! Ranks as threads of one process, for tests of what the ranks agree on: the meetings,
//! gathers and shares of [`Peers`] on a barrier and a board of slots.

use std::sync::{Barrier, Mutex};

use crate::bench::{Peers, Standing, Stonewall};

/// One rank of [`together`]'s.
pub struct Fake<'a> {
    rank: u32,
    hosts: &'a [&'a str],
    board: &'a Board,
}

/// What the ranks write and read at each meeting, one slot each.
pub struct Board {
    barrier: Barrier,
    slots: Mutex<Vec<Vec<u64>>>,
    wall: Stonewall,
}

impl Fake<'_> {
    /// Writes this rank's words, waits for all, reads what `read` makes of every slot,
    /// and waits again before any slot is written anew.
    fn round<T>(&self, mine: &[u64], read: impl FnOnce(&[Vec<u64>]) -> T) -> T {
        self.board.slots.lock().unwrap()[self.rank as usize] = mine.to_vec();
        self.board.barrier.wait();
        let value = read(&self.board.slots.lock().unwrap());
        self.board.barrier.wait();
        value
    }
}

impl Peers for Fake<'_> {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn size(&self) -> u32 {
        self.hosts.len() as u32
    }

    fn host(&self, rank: u32) -> &str {
        self.hosts[rank as usize]
    }

    fn pid(&self, _rank: u32) -> u32 {
        std::process::id()
    }

    fn meet(&self, mine: Standing) -> Standing {
        let worst = self.round(&[mine as u64], |all| all.iter().map(|w| w[0]).max());
        Standing::of(worst.unwrap_or(0) as u8)
    }

    fn gather(&self, mine: &[u64]) -> Option<Vec<Vec<u64>>> {
        let all = self.round(mine, <[Vec<u64>]>::to_vec);
        (self.rank == 0).then_some(all)
    }

    fn share(&self, value: u64) -> u64 {
        self.round(&[value], |all| all[0][0])
    }

    fn alarm(&self) {}

    fn stonewall(&self) -> &Stonewall {
        &self.board.wall
    }

    fn wall(&self, _step: u64) {}
}

/// Runs `each` as every rank of `hosts` (rank r on `hosts[r]`), each on a thread of its
/// own; what each returned, in rank order.
pub fn together<T: Send>(hosts: &[&str], each: impl Fn(&Fake) -> T + Sync) -> Vec<T> {
    let board = Board {
        barrier: Barrier::new(hosts.len()),
        slots: Mutex::new(vec![Vec::new(); hosts.len()]),
        wall: Stonewall::default(),
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..hosts.len() as u32)
            .map(|rank| {
                let (board, each) = (&board, &each);
                scope.spawn(move || each(&Fake { rank, hosts, board }))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}
