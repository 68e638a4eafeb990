//! One INSERT of several rows, with what the rows share said once: a value every row of
//! the statement has (a run's id, an imported figure's test, engine, cache mode and
//! repetition) is bound once and named by its number in each row, and a null they all
//! have is written `NULL`; a value the same as an earlier column's in every row (an
//! iozone3 figure's bytes, its file size) is named by that column's number. Binding is
//! about a fifth of a large import's time, and SQLite copies each bound text: an iozone3
//! figure binds 4 values this way instead of 17.

use rusqlite::{CachedStatement, Connection, Statement};

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
    /// In every row, the same as the earlier column numbered here, which each row binds:
    /// named by that column's number.
    Like(usize),
}

/// What a statement's text depends on: how many rows, and how each column goes in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Shape {
    rows: usize,
    columns: Vec<Sharing>,
}

/// The rows of one INSERT, each its values in the order of the columns named.
pub(super) struct Rows {
    width: usize,
    values: Vec<Value<'static>>,
    /// Their shape, when found before they are inserted ([`Rows::shaped`]).
    shape: Option<Shape>,
}

impl Rows {
    /// No rows yet, each to have `width` values.
    pub(super) fn new(width: usize) -> Rows {
        Rows {
            width,
            values: Vec::new(),
            shape: None,
        }
    }

    /// These rows with their shape found now: on a thread other than the inserting
    /// one, which then has less to do.
    pub(super) fn shaped(mut self) -> Rows {
        let mut shape = Shape::default();
        self.shape_into(&mut shape);
        self.shape = Some(shape);
        self
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

    /// Each row's values, in order.
    fn each_row(&self) -> std::slice::ChunksExact<'_, Value<'static>> {
        self.values.chunks_exact(self.width)
    }

    /// Puts the shape of these rows in `shape`, whose columns are reused: a statement's
    /// shape is found for every statement, and a vector allocated each time cost more
    /// than the comparisons.
    fn shape_into(&self, shape: &mut Shape) {
        let (first, rest) = self.values.split_at(self.width);
        shape.rows = self.len();
        shape.columns.clear();
        for (column, value) in first.iter().enumerate() {
            let shared = all_same(rest.chunks_exact(self.width).map(|row| &row[column]), value);
            let sharing = if shared {
                match value {
                    Value::Null => Sharing::Null,
                    _ => Sharing::Bound,
                }
            } else {
                let like = (0..column).find(|&earlier| {
                    shape.columns[earlier] == Sharing::Each
                        && self.each_row().all(|row| same(&row[column], &row[earlier]))
                });
                like.map_or(Sharing::Each, Sharing::Like)
            };
            shape.columns.push(sharing);
        }
    }

    #[cfg(test)]
    fn shape(&self) -> Shape {
        let mut shape = Shape::default();
        self.shape_into(&mut shape);
        shape
    }
}

/// Whether each of `values` is the same as `first` ([`same`]): what `first` is, is
/// looked at once, for the rows of every statement of an import.
fn all_same<'v>(mut values: impl Iterator<Item = &'v Value<'static>>, first: &Value) -> bool {
    match first {
        Value::Integer(a) => values.all(|v| matches!(v, Value::Integer(b) if b == a)),
        Value::Real(a) => values.all(|v| matches!(v, Value::Real(b) if b.to_bits() == a.to_bits())),
        _ => values.all(|v| same(v, first)),
    }
}

/// The same value, to the bit: a shared figure must store what each row holds (0.0 and
/// -0.0 are equal numbers but not the same value).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
        (Value::Integer(a), Value::Integer(b)) => a == b,
        // an enum's name is the same static text in every row: no need to read it
        (Value::Text(a), Value::Text(b)) => std::ptr::eq::<str>(&**a, &**b) || a == b,
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
            let mut values: Vec<String> = Vec::with_capacity(self.columns.len());
            for sharing in &self.columns {
                let value = match *sharing {
                    Sharing::Null => "NULL".to_string(),
                    Sharing::Bound => {
                        number_shared += 1;
                        format!("?{number_shared}")
                    }
                    Sharing::Each => {
                        next += 1;
                        format!("?{next}")
                    }
                    Sharing::Like(earlier) => values[earlier].clone(),
                };
                values.push(value);
            }
            rows.push(format!("({})", values.join(", ")));
        }
        format!("{head} {}", rows.join(", "))
    }
}

/// A statement prepared for one shape, with the columns it binds.
struct Prepared<'c> {
    shape: Shape,
    /// The columns bound once, from the first row: numbered first.
    bound: Vec<usize>,
    /// The columns each row binds: numbered next, row by row.
    each: Vec<usize>,
    statement: CachedStatement<'c>,
}

impl Prepared<'_> {
    fn new<'c>(shape: Shape, statement: CachedStatement<'c>) -> Prepared<'c> {
        let of = |sharing| {
            (shape.columns.iter().enumerate())
                .filter(|&(_, &s)| s == sharing)
                .map(|(column, _)| column)
                .collect()
        };
        Prepared {
            bound: of(Sharing::Bound),
            each: of(Sharing::Each),
            shape,
            statement,
        }
    }

    /// Binds `rows`, of this statement's shape, and runs the statement. Each value is
    /// bound by its number, in plain loops: the rows are some millions in a large
    /// import, and binding through a chain of iterators cost a tenth of its time.
    fn execute(&mut self, rows: &Rows) -> rusqlite::Result<()> {
        let mut number = 0;
        let first = rows.each_row().next().expect("at least one row");
        for &column in &self.bound {
            number += 1;
            bind(&mut self.statement, number, &first[column])?;
        }
        for row in rows.each_row() {
            for &column in &self.each {
                number += 1;
                bind(&mut self.statement, number, &row[column])?;
            }
        }
        // every number the statement names is bound again: none keeps an older value
        debug_assert_eq!(number, self.statement.parameter_count());
        self.statement.raw_execute()?;
        Ok(())
    }
}

/// Binds `value` as parameter `number`. A number is bound as what it is: the driver
/// then binds it directly, where a [`Value`] goes through its conversion first (a
/// tenth of the binding's instructions, some millions of times in a large import).
fn bind(statement: &mut Statement, number: usize, value: &Value) -> rusqlite::Result<()> {
    match *value {
        Value::Integer(v) => statement.raw_bind_parameter(number, v),
        Value::Real(v) => statement.raw_bind_parameter(number, v),
        ref other => statement.raw_bind_parameter(number, other),
    }
}

/// Inserts through statements of one head, prepared once per shape met.
pub(super) struct Inserts<'c> {
    conn: &'c Connection,
    head: String,
    prepared: Vec<Prepared<'c>>,
    /// The shape of the rows being inserted, found in the same place each time.
    shape: Shape,
    /// Where in `prepared` the last statement was: the next is most often the same.
    last: usize,
}

impl<'c> Inserts<'c> {
    /// `head` is the statement up to its values: `INSERT … INTO table (columns) VALUES`.
    pub(super) fn new(conn: &'c Connection, head: String) -> Inserts<'c> {
        Inserts {
            conn,
            head,
            prepared: Vec::new(),
            shape: Shape::default(),
            last: 0,
        }
    }

    /// Inserts `rows` (at least one) in one statement.
    pub(super) fn insert(&mut self, rows: &Rows) -> rusqlite::Result<()> {
        let shape = match &rows.shape {
            Some(shape) => shape,
            None => {
                rows.shape_into(&mut self.shape);
                &self.shape
            }
        };
        let last_is_it = (self.prepared.get(self.last)).is_some_and(|p| p.shape == *shape);
        if !last_is_it {
            self.last = match self.prepared.iter().position(|p| p.shape == *shape) {
                Some(at) => at,
                None => {
                    let statement = self.conn.prepare_cached(&shape.sql(&self.head))?;
                    self.prepared.push(Prepared::new(shape.clone(), statement));
                    self.prepared.len() - 1
                }
            };
        }
        self.prepared[self.last].execute(rows)
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
    }

    /// A column the same as an earlier one in every row is named by that one's number,
    /// and stores its own value.
    #[test]
    fn a_column_like_an_earlier_one_names_its_number() {
        let written = [
            [Value::Integer(1), Value::Integer(5), Value::Integer(5)],
            [Value::Integer(2), Value::Integer(6), Value::Integer(6)],
        ];
        let like = rows(&written);
        assert_eq!(
            like.shape().sql("INSERT INTO t (a, b, c) VALUES"),
            "INSERT INTO t (a, b, c) VALUES (?1, ?2, ?2), (?3, ?4, ?4)"
        );
        // the same number, not the same value: 6.0 is not 6
        let unlike = rows(&[
            [Value::Integer(1), Value::Integer(5), Value::Integer(5)],
            [Value::Integer(2), Value::Integer(6), Value::Real(6.0)],
        ]);
        assert_eq!(
            unlike.shape().sql("INSERT INTO t (a, b, c) VALUES"),
            "INSERT INTO t (a, b, c) VALUES (?1, ?2, ?3), (?4, ?5, ?6)"
        );
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (a, b, c)").unwrap();
        let mut inserts = Inserts::new(&conn, "INSERT INTO t (a, b, c) VALUES".into());
        inserts.insert(&like).unwrap();
        inserts.insert(&unlike).unwrap();
        let read: Vec<(i64, i64, String)> = conn
            .prepare("SELECT a, b, typeof(c) || ' ' || c FROM t ORDER BY rowid")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let row = |a, b, c: &str| (a, b, c.to_string());
        assert_eq!(
            read,
            [
                row(1, 5, "integer 5"),
                row(2, 6, "integer 6"),
                row(1, 5, "integer 5"),
                row(2, 6, "real 6.0"),
            ]
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
