//! One INSERT of several rows, with what the rows share said once: a value every row of
//! the statement has (a run's id, an imported figure's test, engine, cache mode and
//! repetition) is bound once and named by its number in each row, and a null they all
//! have is written `NULL`. Binding is about a fifth of a large import's time, and SQLite
//! copies each bound text: an iozone3 figure binds 5 values this way instead of 17.

use rusqlite::{CachedStatement, Connection};

use crate::store::columns::Value;

/// How a column's values go into a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sharing {
    /// Each row binds its own.
    Each,
    /// Bound once, the same in every row.
    Bound,
    /// Null in every row: written as `NULL`, bound nowhere.
    Null,
}

/// What a statement's text depends on: how many rows, and how each column goes in.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    rows: usize,
    columns: Vec<Sharing>,
}

/// The rows of one INSERT, each its values in the order of the columns named.
pub(super) struct Rows {
    width: usize,
    values: Vec<Value<'static>>,
}

impl Rows {
    /// No rows yet, each to have `width` values.
    pub(super) fn new(width: usize) -> Rows {
        Rows {
            width,
            values: Vec::new(),
        }
    }

    pub(super) fn clear(&mut self) {
        self.values.clear();
    }

    /// Adds a row: exactly `width` values.
    pub(super) fn push(&mut self, row: impl IntoIterator<Item = Value<'static>>) {
        let before = self.values.len();
        self.values.extend(row);
        debug_assert_eq!(self.values.len() - before, self.width, "a row's width");
    }

    fn len(&self) -> usize {
        self.values.len() / self.width
    }

    fn value(&self, row: usize, column: usize) -> &Value<'static> {
        &self.values[row * self.width + column]
    }

    fn shape(&self) -> Shape {
        let columns = (0..self.width)
            .map(|column| {
                let first = self.value(0, column);
                let shared = (1..self.len()).all(|row| same(self.value(row, column), first));
                match (shared, first) {
                    (false, _) => Sharing::Each,
                    (true, Value::Null) => Sharing::Null,
                    (true, _) => Sharing::Bound,
                }
            })
            .collect();
        Shape {
            rows: self.len(),
            columns,
        }
    }

    /// The values `shape`'s statement binds, in the order of their numbers: the shared
    /// ones, then each row's own.
    fn bound<'a>(&'a self, shape: &'a Shape) -> impl Iterator<Item = &'a Value<'static>> + 'a {
        let of = move |sharing| {
            (shape.columns.iter().enumerate())
                .filter(move |&(_, &s)| s == sharing)
                .map(|(column, _)| column)
        };
        let shared = of(Sharing::Bound).map(|column| self.value(0, column));
        let own =
            (0..self.len()).flat_map(move |row| of(Sharing::Each).map(move |c| self.value(row, c)));
        shared.chain(own)
    }
}

/// The same value, to the bit: a shared figure must store what each row holds (0.0 and
/// -0.0 are equal numbers but not the same value).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
        _ => a == b,
    }
}

impl Shape {
    /// The VALUES of `head` (`INSERT … INTO table (columns) VALUES`) for this shape:
    /// the shared values numbered first, then each row's own.
    fn sql(&self, head: &str) -> String {
        let shared = self
            .columns
            .iter()
            .filter(|&&s| s == Sharing::Bound)
            .count();
        let mut next = shared;
        let mut rows = Vec::with_capacity(self.rows);
        for _ in 0..self.rows {
            let mut number_shared = 0;
            let values: Vec<String> = (self.columns.iter())
                .map(|sharing| match sharing {
                    Sharing::Null => "NULL".to_string(),
                    Sharing::Bound => {
                        number_shared += 1;
                        format!("?{number_shared}")
                    }
                    Sharing::Each => {
                        next += 1;
                        format!("?{next}")
                    }
                })
                .collect();
            rows.push(format!("({})", values.join(", ")));
        }
        format!("{head} {}", rows.join(", "))
    }
}

/// Inserts through statements of one head, prepared once per shape met.
pub(super) struct Inserts<'c> {
    conn: &'c Connection,
    head: String,
    prepared: Vec<(Shape, CachedStatement<'c>)>,
}

impl<'c> Inserts<'c> {
    /// `head` is the statement up to its values: `INSERT … INTO table (columns) VALUES`.
    pub(super) fn new(conn: &'c Connection, head: String) -> Inserts<'c> {
        Inserts {
            conn,
            head,
            prepared: Vec::new(),
        }
    }

    /// Inserts `rows` (at least one) in one statement.
    pub(super) fn insert(&mut self, rows: &Rows) -> rusqlite::Result<()> {
        let shape = rows.shape();
        let at = match self.prepared.iter().position(|(s, _)| *s == shape) {
            Some(at) => at,
            None => {
                let statement = self.conn.prepare_cached(&shape.sql(&self.head))?;
                self.prepared.push((shape, statement));
                self.prepared.len() - 1
            }
        };
        let (shape, statement) = &mut self.prepared[at];
        statement.execute(rusqlite::params_from_iter(rows.bound(shape)))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[[Value<'static>; 3]]) -> Rows {
        let mut rows = Rows::new(3);
        for row in values {
            rows.push(row.iter().cloned());
        }
        rows
    }

    /// Shared values are numbered first and named in every row; nulls shared are
    /// written, not bound; the rest numbered row by row.
    #[test]
    fn a_statement_names_shared_values_once() {
        let two = rows(&[
            [Value::Integer(7), Value::Null, Value::Real(1.0)],
            [Value::Integer(7), Value::Null, Value::Real(2.0)],
        ]);
        assert_eq!(
            two.shape().sql("INSERT INTO t (a, b, c) VALUES"),
            "INSERT INTO t (a, b, c) VALUES (?1, NULL, ?2), (?1, NULL, ?3)"
        );
        let bound: Vec<_> = two.bound(&two.shape()).cloned().collect();
        assert_eq!(
            bound,
            [Value::Integer(7), Value::Real(1.0), Value::Real(2.0)]
        );
    }

    /// Every row stores its own values, whatever they share: 0.0 and -0.0 are equal
    /// numbers, so only their bits tell them apart.
    #[test]
    fn every_row_stores_its_own_values() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a, b, c)").unwrap();
        let mut inserts = Inserts::new(&conn, "INSERT INTO t (a, b, c) VALUES".into());
        let written = [
            [Value::Integer(1), Value::Null, Value::Real(0.0)],
            [
                Value::Integer(1),
                Value::Text("x".into()),
                Value::Real(-0.0),
            ],
            [Value::Integer(1), Value::Null, Value::Real(0.0)],
        ];
        inserts.insert(&rows(&written)).unwrap();
        inserts.insert(&rows(&written[..1])).unwrap();
        let read: Vec<(i64, Option<String>, u64)> = conn
            .prepare("SELECT a, b, c FROM t ORDER BY rowid")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, f64>(2)?.to_bits()))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let zero = 0.0f64.to_bits();
        assert_eq!(
            read,
            [
                (1, None, zero),
                (1, Some("x".into()), (-0.0f64).to_bits()),
                (1, None, zero),
                (1, None, zero),
            ]
        );
    }
}
