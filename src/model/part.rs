//! A run too large to hold whole (an iozone3 auto-mode table of millions of figures),
//! passed from its parser to the store in parts as its figures are read, so that
//! memory holds a part, not the run.

use super::{Measurement, Run};

/// A part of a run passed on as it is read. Each run so passed is opened once, given
/// its figures in any number of parts, and closed once; several may be open at a time
/// (iozone3's table holds two runs, its own columns and the stdio ones, row by row),
/// each known by the number it was opened with.
#[derive(Clone, Debug, PartialEq)]
pub enum RunPart {
    /// A run begins: its record as known so far, without figures. Its UUID and the
    /// parameters its figures decide (sizes, tests) are settled when it closes.
    Open { slot: usize, run: Box<Run> },
    /// Measured figures of open run `slot`, each for a (test, file size, record size)
    /// none of its other figures has, with one repetition each: a run passed in parts
    /// keeps no summaries.
    Figures {
        slot: usize,
        results: Vec<Measurement>,
    },
    /// Run `slot` is complete: its whole record but for the figures, which were passed
    /// before. It is kept unless its UUID is recorded already.
    Close { slot: usize, run: Box<Run> },
}
