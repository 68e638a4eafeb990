//! The command line around the measurements: usage errors, warnings and counts in
//! messages, output to stdout and to files, units, manual pages and shell completions.

mod destinations;
mod manual;
mod messages;
mod output;
mod readme;
mod shapes;
