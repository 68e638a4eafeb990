//! `iozone run` end to end.

mod bad_input;
mod combinations;
mod faults;
mod killed;
mod matrix;
mod metadata;
mod output;
mod progress;
mod record;
mod rounds;
mod swapped;
mod uring;
