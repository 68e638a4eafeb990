//! Values as PostgreSQL takes them: each [`Value`] bound as the type of its column
//! (`bigint`, `double precision`, `text`, `boolean`, `timestamptz`, `uuid`), a null
//! included, and a batch's column as one array; and the shared statements' `?`
//! placeholders numbered `$n`.

use chrono::{DateTime, Utc};
use postgres::types::ToSql;
use uuid::Uuid;

use crate::store::columns::{Kind, Value};

/// `value` as a parameter of the type its column, of `kind`, has.
pub(super) fn bound(kind: Kind, value: &Value<'static>) -> Box<dyn ToSql + Sync> {
    match value.clone() {
        Value::Null => match kind {
            Kind::Integer => Box::new(None::<i64>),
            Kind::Real => Box::new(None::<f64>),
            Kind::Text => Box::new(None::<String>),
            Kind::Bool => Box::new(None::<bool>),
            Kind::Time => Box::new(None::<DateTime<Utc>>),
            Kind::Uuid => Box::new(None::<Uuid>),
        },
        Value::Integer(v) => Box::new(v),
        Value::Real(v) => Box::new(v),
        Value::Text(v) => Box::new(v),
        Value::Bool(v) => Box::new(v),
        Value::Time(v) => Box::new(v),
        Value::Uuid(v) => Box::new(v),
    }
}

/// A batch's values of one column, of `kind`, as one array parameter.
pub(super) fn array(
    kind: Kind,
    values: impl Iterator<Item = Value<'static>>,
) -> Box<dyn ToSql + Sync> {
    fn of<T: ToSql + Sync + 'static>(
        kind: Kind,
        values: impl Iterator<Item = Value<'static>>,
        pick: fn(Value<'static>) -> Result<T, Value<'static>>,
    ) -> Box<dyn ToSql + Sync> {
        let picked: Vec<Option<T>> = values
            .map(|v| match v {
                Value::Null => None,
                v => Some(pick(v).unwrap_or_else(|v| panic!("{v:?} in a column of {kind:?}"))),
            })
            .collect();
        Box::new(picked)
    }
    match kind {
        Kind::Integer => of(kind, values, |v| match v {
            Value::Integer(v) => Ok(v),
            other => Err(other),
        }),
        Kind::Real => of(kind, values, |v| match v {
            Value::Real(v) => Ok(v),
            other => Err(other),
        }),
        Kind::Text => of(kind, values, |v| match v {
            Value::Text(v) => Ok(v),
            other => Err(other),
        }),
        Kind::Bool => of(kind, values, |v| match v {
            Value::Bool(v) => Ok(v),
            other => Err(other),
        }),
        Kind::Time => of(kind, values, |v| match v {
            Value::Time(v) => Ok(v),
            other => Err(other),
        }),
        Kind::Uuid => of(kind, values, |v| match v {
            Value::Uuid(v) => Ok(v),
            other => Err(other),
        }),
    }
}

/// Boxed parameters as the driver takes them.
pub(super) fn params(values: &[Box<dyn ToSql + Sync>]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| &**v).collect()
}

/// A shared statement's `?` placeholders as PostgreSQL's `$1`, `$2`, …
pub(super) fn numbered(sql: &str) -> String {
    let mut parts = sql.split('?');
    let mut out = parts.next().unwrap_or_default().to_string();
    for (n, part) in parts.enumerate() {
        out.push_str(&format!("${}{part}", n + 1));
    }
    out
}
