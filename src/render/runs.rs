//! The columns of a table of runs, one line per run, shared by `history` (terminal,
//! Markdown) and the HTML report's runs section: each column's cell text and
//! alignment are written here once; each renderer picks its columns, its header words
//! and its clock (local time in the terminal, UTC in a report read elsewhere), and
//! names where each run measured when one host's runs measured in several places.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::cells;
use crate::facts::Fact;
use crate::model::Run;

/// One column of a runs table.
#[derive(Clone, Copy, Debug)]
pub enum RunColumn {
    Id,
    When,
    Host,
    Kernel,
    Filesystem,
    Labels,
    FileSize,
    Mode,
    Status,
    Repeat,
    Note,
    /// Where it measured: the directory, else the mount point.
    Location,
}

/// How a renderer writes the instant a run started.
pub type Clock = fn(&DateTime<Utc>) -> String;

impl RunColumn {
    /// Numbers align right.
    pub fn numeric(self) -> bool {
        matches!(
            self,
            RunColumn::Id | RunColumn::FileSize | RunColumn::Repeat
        )
    }

    /// The cell of `run` in this column; `-` for a fact the run did not record.
    pub fn cell(self, run: &Run, clock: Clock) -> String {
        let fact = |f: Fact| f.value(&run.host, &run.filesystem).shown();
        match self {
            RunColumn::Id => run.id.map_or("-".into(), |id| id.to_string()),
            RunColumn::When => match (run.stated_start(), &run.source) {
                (Some(at), _) => clock(&at),
                // a file that states no time: when it came in, said as such
                (None, Some(source)) => format!("imported {}", clock(&source.imported_at)),
                (None, None) => "-".into(),
            },
            RunColumn::Host => fact(Fact::Hostname),
            RunColumn::Kernel => fact(Fact::Kernel),
            RunColumn::Filesystem => fact(Fact::FsType),
            RunColumn::Labels => run.labels.join(", "),
            // a run of metadata tests alone measured no file: its tree says what it did
            RunColumn::FileSize => match (&run.params.metadata, run.params.file_sizes.is_empty()) {
                (Some(t), true) => cells::tree(t.files, t.dirs, t.file_bytes),
                _ => run.params.file_size().to_string(),
            },
            RunColumn::Mode => cells::run_mode(&run.params),
            RunColumn::Status => cells::status(run.status),
            RunColumn::Repeat => run.params.repeat.to_string(),
            RunColumn::Note => run.note.clone().unwrap_or_else(|| "-".into()),
            RunColumn::Location => location(run).unwrap_or("-").to_string(),
        }
    }
}

/// Where a run measured: the directory it was given, else its filesystem's mount
/// point (an imported run may know only that, or neither).
fn location(run: &Run) -> Option<&str> {
    (run.params.dir.as_deref()).or(run.filesystem.mount_point.as_deref())
}

/// Whether some host's runs measured in more than one place, learned run by run: a
/// table of runs then names each run's place ([`RunColumn::Location`]), which it
/// otherwise leaves out, since the host says it.
#[derive(Debug, Default)]
pub struct Places {
    /// Each host's first place.
    first: HashMap<Option<String>, Option<String>>,
    differ: bool,
}

impl Places {
    pub fn of(runs: &[Run]) -> Places {
        let mut places = Places::default();
        for run in runs {
            places.add(run);
        }
        places
    }

    pub fn add(&mut self, run: &Run) {
        let place = location(run).map(str::to_string);
        let first = (self.first)
            .entry(run.host.hostname.clone())
            .or_insert_with(|| place.clone());
        self.differ |= *first != place;
    }

    /// Whether the runs of one host were seen in more than one place.
    pub fn differ(&self) -> bool {
        self.differ
    }
}

/// The indices of the numeric columns among `columns`, for [`super::Listing::numeric`].
pub fn numeric_indices(columns: &[(&str, RunColumn)]) -> Vec<usize> {
    columns
        .iter()
        .enumerate()
        .filter(|(_, (_, c))| c.numeric())
        .map(|(i, _)| i)
        .collect()
}
