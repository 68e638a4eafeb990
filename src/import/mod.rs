//! Importing results from elsewhere: iozone3's text output, fio's JSON, the classic
//! IOzone table, and our own JSON and CSV exports. Each parser turns a file's text
//! into complete runs (our exports, of any size, a run at a time as they are read:
//! [`runs`]); the `import` command records each file in one transaction. Runs of other
//! tools get UUIDs derived from the file's bytes, ours keep theirs, so importing a
//! file twice adds nothing.

use chrono::{DateTime, Utc};

mod batches;
mod bonnie;
mod classic;
mod fileop;
mod fio;
mod formats;
mod fs_mark;
mod input;
mod iozone3;
mod json_stream;
mod mdtest;
mod ops;
mod own;
mod stream;
mod text;

pub use batches::{BatchError, Next, Stated, next_batch};
pub use formats::{Format, detect, parse};
pub use input::{Input, InputError, open};
pub use stream::{Piece, Runs, runs};

/// Where an import's text came from; every parser gets this.
pub struct Origin {
    /// The file name as given to `import` (for messages and `Source.file`).
    pub file: String,
    /// When the import happens: `started_at` for sources that state no time, and `Source.imported_at`.
    pub imported_at: chrono::DateTime<chrono::Utc>,
    /// A name-based UUID of the file's bytes: the same content, the same key.
    pub content_key: uuid::Uuid,
}

/// A parsed run that no store could keep as it is (`Run::check_storable`): the
/// file, the run (its place in the file, from 1, and its UUID) and the field.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{file}: run {number} ({uuid}): {problem}; nothing was imported from {file}")]
pub struct UnstorableRun {
    pub file: String,
    pub number: usize,
    pub uuid: uuid::Uuid,
    pub problem: crate::model::Unstorable,
}

/// Checks the `index`-th run (from 0) parsed from `file` before it is stored: every
/// importer's runs go through here, so a file can never put into a database what a
/// command could not read back.
pub fn check_storable(
    run: &crate::model::Run,
    file: &str,
    index: usize,
) -> Result<(), UnstorableRun> {
    run.check_storable().map_err(|problem| UnstorableRun {
        file: file.to_string(),
        number: index + 1,
        uuid: run.uuid,
        problem,
    })
}

/// A parse failure: the line (1-based) where it was noticed, when that helps.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct ParseError {
    pub line: Option<usize>,
    pub message: String,
}

/// The namespace of content keys. Fixed forever: changing it would give every file
/// imported again new run UUIDs, and the store would take them for new runs.
pub const NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x14b4_c3c8_1b6d_4238_842b_dbd0_edb8_75df);

impl Origin {
    /// The origin of `bytes` read from `file`; the content key depends on the bytes only,
    /// so the same file imported twice (or under another name) keys the same runs.
    pub fn new(file: &str, bytes: &[u8], imported_at: DateTime<Utc>) -> Origin {
        Origin {
            file: file.to_string(),
            imported_at,
            content_key: uuid::Uuid::new_v5(&NAMESPACE, bytes),
        }
    }

    /// The UUID of the `index`-th run of the file: stable across imports of the same bytes.
    pub fn run_uuid(&self, index: usize) -> uuid::Uuid {
        uuid::Uuid::new_v5(&self.content_key, index.to_string().as_bytes())
    }
}
