//! Waits for another process's lock: SQLite's busy handler, which counts the waits (a
//! command says it is waiting when they grow) and gives up after the busy timeout.

use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a writer waits for another process's transaction before giving up, unless
/// told otherwise ([`set_busy_timeout`]).
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a writer waits for a lock, in every database this process opens to write:
/// SQLite's busy handler is a plain function (rusqlite takes a `fn`, no closure), so
/// the setting is the process's, as its count of waits is.
static WRITE_BUSY_TIMEOUT: RwLock<Duration> = RwLock::new(BUSY_TIMEOUT);

/// Sets how long a write waits for another process's lock before it fails (the command
/// line's `IOZONE_BUSY_TIMEOUT`), for the databases opened from now on and those open.
pub fn set_busy_timeout(timeout: Duration) {
    *WRITE_BUSY_TIMEOUT
        .write()
        .unwrap_or_else(|e| e.into_inner()) = timeout;
}

/// How often, in this process, SQLite found a database locked by another connection
/// and waited: a command says it is waiting for a lock when this grows, rather than
/// guessing from a slow write.
static LOCK_WAITS: AtomicU64 = AtomicU64::new(0);

/// The number of waits for another connection's lock so far in this process.
pub fn lock_waits() -> u64 {
    LOCK_WAITS.load(Ordering::Relaxed)
}

/// SQLite's busy handler in place of its busy timeout, to count the waits: pauses of
/// 1, 2, 4 … ms up to 100 ms, until the busy timeout is spent.
pub(super) fn wait_for_lock(attempt: i32) -> bool {
    LOCK_WAITS.fetch_add(1, Ordering::Relaxed);
    let pause = |n: i32| Duration::from_millis(1 << n.clamp(0, 7)).min(Duration::from_millis(100));
    let spent: Duration = (0..attempt).map(pause).sum();
    if spent >= busy_timeout() {
        return false;
    }
    std::thread::sleep(pause(attempt));
    true
}

fn busy_timeout() -> Duration {
    *WRITE_BUSY_TIMEOUT.read().unwrap_or_else(|e| e.into_inner())
}
