//! `iozone run` end to end.

mod bad_input;
mod combinations;
mod faults;
mod matrix;
mod output;
mod rounds;
mod swapped;
mod uring;
