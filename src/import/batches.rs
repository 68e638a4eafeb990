//! The runs of one file on their way to the store, in batches: every run passes here,
//! and only here, between its parser and the store, completed with what the user
//! states, then checked.

use super::{ParseError, Piece, Runs, UnstorableRun, check_storable};
use crate::model::{Run, RunPart};

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

/// What comes next of a file's runs: a batch of whole runs, or a part of a run too
/// large to hold whole.
#[derive(Debug)]
pub enum Next {
    Runs(Vec<Run>),
    Part(RunPart),
}

/// The next batch of the runs of the file `name` (`before` of them already taken), or
/// the next part of one, `None` after the last. An error ends the file, and nothing
/// of it is stored.
pub fn next_batch(
    runs: &mut Runs,
    stated: &Stated,
    name: &str,
    before: usize,
) -> Result<Option<Next>, BatchError> {
    let mut batch = Vec::new();
    let mut figures = 0;
    while batch.len() < BATCH_RUNS && figures < BATCH_FIGURES {
        let Some(piece) = runs.next() else {
            break;
        };
        let mut run = match piece? {
            Piece::Run(run) => *run,
            // a part goes on alone, after the runs before it
            Piece::Part(part) if !batch.is_empty() => {
                runs.put_back(part);
                break;
            }
            Piece::Part(part) => return stated.part(part, name).map(|p| Some(Next::Part(p))),
        };
        stated.decorate(&mut run);
        check_storable(&run, name, before + batch.len())?;
        figures += run.results.len() + run.warmup.len();
        batch.push(run);
    }
    Ok((!batch.is_empty()).then_some(Next::Runs(batch)))
}

impl Stated {
    /// A part of a run of the file `name` on its way: its record completed and checked
    /// as a whole run's is (when it opens, and with its UUID when it closes), its
    /// figures checked. A run in parts is the file's run numbered by its slot.
    fn part(&self, mut part: RunPart, name: &str) -> Result<RunPart, BatchError> {
        match &mut part {
            RunPart::Open { slot, run } => {
                self.decorate(run);
                // its UUID is not known before it closes
                (check_storable(run, name, *slot)).map_err(|e| UnstorableRun {
                    uuid: uuid::Uuid::nil(),
                    ..e
                })?;
            }
            RunPart::Close { slot, run } => {
                self.decorate(run);
                check_storable(run, name, *slot)?;
            }
            RunPart::Figures { slot, results } => {
                for m in results.iter() {
                    // the run's UUID is not known before it closes
                    m.check_storable().map_err(|problem| UnstorableRun {
                        file: name.to_string(),
                        number: *slot + 1,
                        uuid: uuid::Uuid::nil(),
                        problem: problem.within("results"),
                    })?;
                }
            }
        }
        Ok(part)
    }

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
