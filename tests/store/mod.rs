//! Recording end to end: runs land in a real SQLite file and come back through
//! `history`, `show`, `info` and `db`.

mod faults;
mod opening;
pub(crate) mod queries;
mod repair;
mod wal;
