//! The runs of one file on their way to the store, in batches: every run passes here,
//! and only here, between its parser and the store, completed with what the user
//! states, then checked.

use super::{ParseError, Runs, UnstorableRun, check_storable};
use crate::model::Run;

/// What the user states about a file's runs: labels and tags for each, and the host
/// for those whose file does not name one.
#[derive(Clone, Debug, Default)]
pub struct Stated {
    pub labels: Vec<String>,
    pub tags: Vec<(String, String)>,
    pub host: Option<String>,
}

/// Why a file's runs stopped: one did not parse, or could not be stored.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Unstorable(#[from] UnstorableRun),
}

/// Runs a batch holds at most, and figures (results and warm-up rounds): memory holds
/// the batch being stored and the runs the parser has read ahead, a few megabytes
/// whatever the file's size, and a transaction's round trips stay few.
const BATCH_RUNS: usize = 500;
const BATCH_FIGURES: usize = 100_000;

/// The next batch of the runs of the file `name` (`before` of them already taken),
/// `None` after the last. An error ends the file, and nothing of it is stored.
pub fn next_batch(
    runs: &mut Runs,
    stated: &Stated,
    name: &str,
    before: usize,
) -> Result<Option<Vec<Run>>, BatchError> {
    let mut batch = Vec::new();
    let mut figures = 0;
    while batch.len() < BATCH_RUNS && figures < BATCH_FIGURES {
        let Some(run) = runs.next() else {
            break;
        };
        let mut run = run?;
        stated.decorate(&mut run);
        check_storable(&run, name, before + batch.len())?;
        figures += run.results.len() + run.warmup.len();
        batch.push(run);
    }
    Ok((!batch.is_empty()).then_some(batch))
}

impl Stated {
    fn decorate(&self, run: &mut Run) {
        for label in &self.labels {
            if !run.labels.contains(label) {
                run.labels.push(label.clone());
            }
        }
        for (k, v) in &self.tags {
            run.tags.insert(k.clone(), v.clone());
        }
        if run.host.hostname.is_none() {
            run.host.hostname = self.host.clone();
        }
    }
}
