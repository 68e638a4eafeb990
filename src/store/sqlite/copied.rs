//! A run's result rows copied out of SQLite as SQLite holds them, to be decoded later,
//! on another thread: an export's walk steps SQLite on one thread and prints on a
//! second, and decoding its twenty million values on the walk's thread made that
//! thread the slower one. Copying a value is a move of its number or of its bytes into
//! one buffer of the run's texts, nothing allocated for it; decoding it later goes
//! through the same reading ([`read_value`]) and the same column table as a row read as
//! it comes, so a value this iozone cannot read fails with the same error.

use rusqlite::Row;
use rusqlite::types::ValueRef;

use super::bind::{read_value, undecodable};
use crate::store::RunResults;
use crate::store::columns::{self, Column, ResultRow};

/// A value as SQLite holds it, its text or bytes a span of the copied texts.
#[derive(Clone, Copy, Debug)]
enum Copied {
    Null,
    Integer(i64),
    Real(f64),
    Text { start: u32, end: u32 },
    Blob { start: u32, end: u32 },
}

/// Values copied before those so far are decoded where they were copied: a run of
/// millions of results is then held decoded, as a read that decodes as it goes holds
/// it, plus at most this many values copied (a few MiB), never twice over. It also
/// keeps every span of the texts within a `u32` (SQLite's texts are under 1 GB).
const COPIED_AT_MOST: usize = 1 << 16;

/// The result rows of one run, copied in the order SQLite handed them over.
pub(super) struct CopiedRows {
    columns: &'static [Column<ResultRow>],
    /// The rows' values, a row after another, `columns.len()` each.
    values: Vec<Copied>,
    texts: Vec<u8>,
    /// The rows decoded already, when there were too many to hold copied.
    decoded: RunResults,
}

impl CopiedRows {
    /// Room for rows of `columns`, as much as `like` (the last run's) took.
    pub fn new(columns: &'static [Column<ResultRow>], like: (usize, usize)) -> CopiedRows {
        CopiedRows {
            columns,
            values: Vec::with_capacity(like.0),
            texts: Vec::with_capacity(like.1),
            decoded: RunResults::default(),
        }
    }

    /// How much room the rows took: the next run's room ([`CopiedRows::new`]).
    pub fn room(&self) -> (usize, usize) {
        (self.values.len(), self.texts.len())
    }

    /// Copies `row`, a SELECT of the columns in order.
    pub fn copy(&mut self, row: &Row) -> rusqlite::Result<()> {
        copy_values(row, self.columns.len(), &mut self.values, &mut self.texts)?;
        if self.values.len() >= COPIED_AT_MOST {
            self.decode_copied()?;
        }
        Ok(())
    }

    /// The run's results, in the listing order: SQLite's error for the first value
    /// this iozone cannot read, as a read that decodes as it goes fails.
    pub fn decode(mut self) -> rusqlite::Result<RunResults> {
        self.decode_copied()?;
        self.decoded.sort();
        Ok(self.decoded)
    }

    /// Decodes the rows copied so far among those decoded, and forgets them.
    fn decode_copied(&mut self) -> rusqlite::Result<()> {
        if self.values.is_empty() {
            return Ok(());
        }
        let rows = self.values.len() / self.columns.len();
        self.decoded.results.reserve(rows);
        for row in self.values.chunks_exact(self.columns.len()) {
            let row = decode_values(self.columns, row, &self.texts, ResultRow::blank())?;
            self.decoded.add(row);
        }
        self.values.clear();
        self.texts.clear();
        Ok(())
    }
}

/// One row copied out as SQLite holds it, as [`CopiedRows`] copies results: a run's
/// record, which an export's walk leaves to the printer's thread too, since in time
/// the walk is the export's critical path (SQLite's pages cost it more time an
/// instruction than printing costs the printer).
pub(super) struct CopiedRow<T: 'static> {
    columns: &'static [Column<T>],
    values: Vec<Copied>,
    texts: Vec<u8>,
}

impl<T> CopiedRow<T> {
    /// `row`'s values, of `columns` in order.
    pub fn copy(columns: &'static [Column<T>], row: &Row) -> rusqlite::Result<CopiedRow<T>> {
        let mut copied = CopiedRow {
            columns,
            values: Vec::with_capacity(columns.len()),
            texts: Vec::new(),
        };
        copy_values(row, columns.len(), &mut copied.values, &mut copied.texts)?;
        Ok(copied)
    }

    /// The row decoded into `blank`, as a row read as it comes would be.
    pub fn decode(self, blank: T) -> rusqlite::Result<T> {
        decode_values(self.columns, &self.values, &self.texts, blank)
    }
}

/// Copies the first `width` values of `row` onto `values`, their texts and bytes onto
/// `texts`.
fn copy_values(
    row: &Row,
    width: usize,
    values: &mut Vec<Copied>,
    texts: &mut Vec<u8>,
) -> rusqlite::Result<()> {
    let mut keep = |bytes: &[u8]| {
        let start = texts.len();
        texts.extend_from_slice(bytes);
        let offset = |at: usize| u32::try_from(at).expect("a run's copied texts stay under 4 GiB");
        (offset(start), offset(texts.len()))
    };
    for idx in 0..width {
        let value = match row.get_ref(idx)? {
            ValueRef::Null => Copied::Null,
            ValueRef::Integer(v) => Copied::Integer(v),
            ValueRef::Real(v) => Copied::Real(v),
            ValueRef::Text(text) => {
                let (start, end) = keep(text);
                Copied::Text { start, end }
            }
            ValueRef::Blob(bytes) => {
                let (start, end) = keep(bytes);
                Copied::Blob { start, end }
            }
        };
        values.push(value);
    }
    Ok(())
}

/// The row of `columns` copied as `row` (its texts in `texts`), decoded into `blank`.
fn decode_values<T>(
    columns: &'static [Column<T>],
    row: &[Copied],
    texts: &[u8],
    blank: T,
) -> rusqlite::Result<T> {
    let read = |idx: usize, kind| {
        let value = match row[idx] {
            Copied::Null => ValueRef::Null,
            Copied::Integer(v) => ValueRef::Integer(v),
            Copied::Real(v) => ValueRef::Real(v),
            Copied::Text { start, end } => ValueRef::Text(&texts[start as usize..end as usize]),
            Copied::Blob { start, end } => ValueRef::Blob(&texts[start as usize..end as usize]),
        };
        read_value(value, idx, kind, || columns[idx].name)
    };
    columns::decode(columns, blank, read, undecodable)
}
