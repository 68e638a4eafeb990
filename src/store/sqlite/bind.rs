//! Values as SQLite keeps them: instants as fixed-width RFC 3339 UTC text with
//! nanoseconds (so text order is time order), UUIDs as text, booleans as 0/1.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::Row;
use rusqlite::types::{FromSql, FromSqlError, ToSqlOutput, Type, ValueRef};

use crate::store::columns::{self, Column, Kind, Value};
use crate::store::statements::Statement;

/// A shared statement's parameters, bound in order.
pub(super) fn values(
    statement: &Statement,
) -> rusqlite::ParamsFromIter<impl Iterator<Item = &Value<'static>>> {
    rusqlite::params_from_iter(statement.params.iter().map(|(_, v)| v))
}

/// An instant as SQLite keeps it.
fn timestamp(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        use rusqlite::types::Value as Sql;
        // numbers as borrowed values: an owned one is dropped again after each of the
        // millions of binds of a large import
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Integer(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Value::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*v))),
            Value::Time(v) => ToSqlOutput::Owned(Sql::Text(timestamp(v))),
            Value::Uuid(v) => ToSqlOutput::Owned(Sql::Text(v.to_string())),
        })
    }
}

/// Column `idx` of `row` as a value of `kind`; text borrowed from the row.
#[inline]
fn read<'r>(row: &'r Row, idx: usize, kind: Kind) -> rusqlite::Result<Value<'r>> {
    let name = || row.as_ref().column_name(idx).unwrap_or_default();
    read_value(row.get_ref(idx)?, idx, kind, name)
}

/// `value`, column `idx` (called `name()`) of a row, as a value of `kind`; text
/// borrowed from `value`. A row's values are read as they come or once copied out of
/// it ([`super::copied`]) alike, so both fail with the same error.
#[inline]
pub(super) fn read_value<'v, 'n>(
    value: ValueRef<'v>,
    idx: usize,
    kind: Kind,
    name: impl Fn() -> &'n str,
) -> rusqlite::Result<Value<'v>> {
    // what SQLite holds, when it is what the column's kind reads, taken as it is: a
    // walk of the history reads some fifty million values; anything else is converted
    // (or refused, naming the column) below
    match (kind, value) {
        (_, ValueRef::Null) => return Ok(Value::Null),
        (Kind::Integer, ValueRef::Integer(v)) => return Ok(Value::Integer(v)),
        (Kind::Real, ValueRef::Real(v)) => return Ok(Value::Real(v)),
        (Kind::Bool, ValueRef::Integer(v)) => return Ok(Value::Bool(v != 0)),
        (Kind::Text, ValueRef::Text(bytes)) => {
            if let Ok(text) = std::str::from_utf8(bytes) {
                return Ok(text.into());
            }
        }
        _ => {}
    }
    converted(value, idx, kind, name)
}

/// [`read_value`] of a value SQLite holds as another type than the column's kind reads:
/// three values of a run's (its start, end and UUID), none of a result's.
#[cold]
#[inline(never)]
fn converted<'v, 'n>(
    value: ValueRef<'v>,
    idx: usize,
    kind: Kind,
    name: impl Fn() -> &'n str,
) -> rusqlite::Result<Value<'v>> {
    // names the column and the value, as a decoding error does: a run an older iozone
    // wrote with a value this one cannot read (`db check` finds them)
    let conversion = |text: &str| {
        let message = format!(
            "column {} holds '{text}', which this iozone cannot read",
            name()
        );
        rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, message.into())
    };
    Ok(match kind {
        Kind::Integer => get::<Option<i64>>(value, idx, &name)?.into(),
        Kind::Real => get::<Option<f64>>(value, idx, &name)?.into(),
        Kind::Text => text(value, idx, &name)?.into(),
        Kind::Bool => get::<Option<bool>>(value, idx, &name)?.into(),
        Kind::Time => match text(value, idx, &name)? {
            None => Value::Null,
            Some(text) => DateTime::parse_from_rfc3339(text)
                .map(|t| Value::Time(t.with_timezone(&Utc)))
                .map_err(|_| conversion(text))?,
        },
        Kind::Uuid => match text(value, idx, &name)? {
            None => Value::Null,
            Some(text) => uuid::Uuid::parse_str(text)
                .map(Value::Uuid)
                .map_err(|_| conversion(text))?,
        },
    })
}

/// `value` as a `T`, failing as `Row::get` fails for column `idx`.
fn get<'n, T: FromSql>(
    value: ValueRef,
    idx: usize,
    name: &impl Fn() -> &'n str,
) -> rusqlite::Result<T> {
    T::column_result(value).map_err(|e| match e {
        FromSqlError::InvalidType => {
            rusqlite::Error::InvalidColumnType(idx, name().into(), value.data_type())
        }
        FromSqlError::OutOfRange(v) => rusqlite::Error::IntegralValueOutOfRange(idx, v),
        FromSqlError::Utf8Error(e) => rusqlite::Error::Utf8Error(idx, e),
        FromSqlError::Other(e) => {
            rusqlite::Error::FromSqlConversionFailure(idx, value.data_type(), e)
        }
        other => rusqlite::Error::FromSqlConversionFailure(idx, value.data_type(), Box::new(other)),
    })
}

/// Text `value` of column `idx`, borrowed (null as `None`); a value that is not text
/// is the error `row.get` would give, naming the column.
fn text<'v, 'n>(
    value: ValueRef<'v>,
    idx: usize,
    name: &impl Fn() -> &'n str,
) -> rusqlite::Result<Option<&'v str>> {
    value.as_str_or_null().map_err(|e| match e {
        FromSqlError::Utf8Error(e) => rusqlite::Error::Utf8Error(idx, e),
        _ => rusqlite::Error::InvalidColumnType(idx, name().into(), value.data_type()),
    })
}

/// A model value from a row that selected every one of `columns`, in order.
pub(super) fn decode<'c, T: 'c>(
    row: &Row,
    columns: impl IntoIterator<Item = &'c Column<T>>,
    blank: T,
) -> rusqlite::Result<T> {
    let read = |idx, kind| read(row, idx, kind);
    columns::decode(columns, blank, read, undecodable)
}

/// The error of column `idx`'s value that cannot become the model's.
pub(super) fn undecodable(idx: usize, e: columns::DecodeError) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e))
}
