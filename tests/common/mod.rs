//! Helpers shared by the end-to-end tests, one place for each, so that no test area
//! imports from another: the binary and commands on a database ([`command`]: `on` and
//! `ok` run one), databases of a test's own ([`databases`]: `Scene`, `Db`), runs measured
//! for a test ([`runs`]: the `Measure` builder), runs planted straight into a store
//! ([`planted`]), the PostgreSQL test server ([`postgres`]), root and throwaway mounts
//! ([`mounts`]), runs in progress ([`process`]), commands on a pseudo-terminal
//! ([`terminal`]), and the crate's own sources ([`sources`]).

#![allow(dead_code)]

mod command;
mod databases;
mod mounts;
mod planted;
mod postgres;
mod process;
mod runs;
mod sources;
mod terminal;

pub use command::*;
pub use databases::*;
pub use mounts::*;
pub use planted::*;
pub use postgres::*;
pub use process::*;
pub use runs::*;
pub use sources::*;
pub use terminal::*;
