//! All end-to-end tests in one binary (one link step), driving the real `iozone`
//! against real files, real filesystems and, where root allows, real mounts.

mod cli;
mod common;
mod compare;
mod engine_identity;
mod fleet;
mod import;
mod layering;
#[cfg(feature = "mpi")]
mod mpi;
mod run;
mod size;
mod store;
