//! `iozone`: measure file I/O throughput, record every run with its environment, and
//! tell what got slower. The binary is a thin shell over this library; benchmarks and
//! tests use the same modules.
//!
//! Data flows one way: [`bench`](mod@bench) measures, [`store`] records and queries, [`stats`]
//! and comparison judge, [`render`] prints.

pub mod bench;
pub mod cli;
pub mod cluster;
pub mod cmd;
pub mod compare;
pub mod export;
pub mod facts;
pub mod host;
pub mod import;
pub mod killed;
pub mod model;
pub mod output;
pub mod paged;
pub mod process;
pub mod render;
pub mod report;
pub mod selector;
pub mod shell;
pub mod stats;
pub mod store;
pub mod trend;
pub mod units;
