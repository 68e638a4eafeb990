//! The command line around the measurements: usage errors, warnings and counts in
//! messages, output to stdout and to files, units, manual pages and shell completions,
//! and stored text that cannot drive the terminal or stall a table.

mod destinations;
mod iozone3;
mod manual;
mod messages;
mod output;
mod readme;
mod shapes;
mod terminal;
