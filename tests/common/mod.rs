//! Helpers shared by the end-to-end tests, one place for each: the binary and commands
//! on a database ([`command`]), runs planted straight into a store ([`planted`]), the
//! PostgreSQL test server ([`postgres`]), root and throwaway mounts ([`mounts`]), and
//! runs in progress ([`process`]).

#![allow(dead_code)]

mod command;
mod mounts;
mod planted;
mod postgres;
mod process;

pub use command::*;
pub use mounts::*;
pub use planted::*;
pub use postgres::*;
pub use process::*;
