//! One value of one column, as both stores exchange it with their driver, and how a
//! model value becomes one and comes back: integers with a u64's bits, enums under
//! their JSON names, lists and machine states as JSON text.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

/// What a column holds, whatever the backend calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Integer,
    Real,
    Text,
    Bool,
    Time,
    Uuid,
}

impl Kind {
    /// The PostgreSQL type, for the casts of a batch insert's arrays.
    pub fn postgres_type(self) -> &'static str {
        match self {
            Kind::Integer => "bigint",
            Kind::Real => "double precision",
            Kind::Text => "text",
            Kind::Bool => "boolean",
            Kind::Time => "timestamptz",
            Kind::Uuid => "uuid",
        }
    }
}

/// One value of one column, as both backends exchange it with their driver.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Integer(i64),
    Real(f64),
    /// Borrowed for the names of enums, which a million-row insert would otherwise
    /// copy three times a row, and for text read, borrowed from the driver's row until
    /// decoded (a fleet comparison reads three names a row, 200,000 rows).
    Text(Cow<'a, str>),
    Bool(bool),
    Time(DateTime<Utc>),
    Uuid(Uuid),
}

// ---- encoding ----

/// Puts a decoded value in its field: the body of every column's `decode`.
#[inline]
pub(super) fn set<T>(slot: &mut T, value: Result<T, String>) -> Result<(), String> {
    *slot = value?;
    Ok(())
}

/// A u64 as the i64 with the same bits: seeds use all 64.
pub(super) fn bits(v: u64) -> Value<'static> {
    Value::Integer(v as i64)
}

pub(super) fn opt_bits(v: Option<u64>) -> Value<'static> {
    v.map_or(Value::Null, bits)
}

/// An enum under its JSON name: how every store keeps enums.
pub(super) fn name_of<T: Serialize>(value: &T) -> Value<'static> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => Value::Text(s.into()),
        other => panic!("enum serializes to a string, got {other:?}"),
    }
}

/// A list or a machine state under its JSON form.
pub(super) fn json_of<T: Serialize>(value: &T) -> Value<'static> {
    Value::Text(
        serde_json::to_string(value)
            .expect("model values serialize")
            .into(),
    )
}

impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::Integer(v)
    }
}

impl From<u32> for Value<'_> {
    fn from(v: u32) -> Self {
        Value::Integer(v.into())
    }
}

impl From<u8> for Value<'_> {
    fn from(v: u8) -> Self {
        Value::Integer(v.into())
    }
}

impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Real(v)
    }
}

impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<String> for Value<'_> {
    fn from(v: String) -> Self {
        Value::Text(v.into())
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(v.into())
    }
}

impl From<DateTime<Utc>> for Value<'_> {
    fn from(v: DateTime<Utc>) -> Self {
        Value::Time(v)
    }
}

impl From<Uuid> for Value<'_> {
    fn from(v: Uuid) -> Self {
        Value::Uuid(v)
    }
}

impl<'a, T: Into<Value<'a>>> From<Option<T>> for Value<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

// ---- decoding ----

// The readers of a value, inlined into each column's `decode`: a walk of the whole
// history decodes some fifty million values, and a profile of `export` showed each
// reader called apart.
impl Value<'_> {
    fn unexpected(&self, wanted: &str) -> String {
        match self {
            Value::Null => format!("is null where {wanted} is required"),
            other => format!("holds {other:?} where {wanted} is expected"),
        }
    }

    #[inline]
    pub(super) fn opt_int(self) -> Result<Option<i64>, String> {
        match self {
            Value::Null => Ok(None),
            Value::Integer(v) => Ok(Some(v)),
            other => Err(other.unexpected("an integer")),
        }
    }

    #[inline]
    pub(super) fn int(self) -> Result<i64, String> {
        match self {
            Value::Integer(v) => Ok(v),
            other => Err(other.unexpected("an integer")),
        }
    }

    /// The u64 with the integer's bits (see [`bits`]).
    #[inline]
    pub(super) fn bits(self) -> Result<u64, String> {
        self.int().map(|v| v as u64)
    }

    /// A count or size that may be unknown; a negative one reads as 0.
    #[inline]
    pub(super) fn unsigned(self) -> Result<Option<u64>, String> {
        Ok(self.opt_int()?.map(|v| v.max(0) as u64))
    }

    /// An integer that must fit a narrower field.
    #[inline]
    pub(super) fn narrow<T: TryFrom<i64>>(self) -> Result<T, String> {
        let v = self.int()?;
        T::try_from(v).map_err(|_| format!("holds {v}, out of range"))
    }

    #[inline]
    pub(super) fn opt_narrow<T: TryFrom<i64>>(self) -> Result<Option<T>, String> {
        match self {
            Value::Null => Ok(None),
            other => other.narrow().map(Some),
        }
    }

    #[inline]
    pub(super) fn opt_real(self) -> Result<Option<f64>, String> {
        match self {
            Value::Null => Ok(None),
            Value::Real(v) => Ok(Some(v)),
            Value::Integer(v) => Ok(Some(v as f64)),
            other => Err(other.unexpected("a number")),
        }
    }

    #[inline]
    pub(super) fn real(self) -> Result<f64, String> {
        match self {
            Value::Null => Err(self.unexpected("a number")),
            other => other.opt_real().map(|v| v.unwrap_or_default()),
        }
    }

    #[inline]
    pub(super) fn opt_bool(self) -> Result<Option<bool>, String> {
        match self {
            Value::Null => Ok(None),
            Value::Bool(v) => Ok(Some(v)),
            other => Err(other.unexpected("a boolean")),
        }
    }

    #[inline]
    pub(super) fn bool(self) -> Result<bool, String> {
        match self {
            Value::Bool(v) => Ok(v),
            other => Err(other.unexpected("a boolean")),
        }
    }

    #[inline]
    pub(super) fn opt_text(self) -> Result<Option<String>, String> {
        match self {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.into_owned())),
            other => Err(other.unexpected("text")),
        }
    }

    #[inline]
    pub(super) fn text(self) -> Result<String, String> {
        match self {
            Value::Text(v) => Ok(v.into_owned()),
            other => Err(other.unexpected("text")),
        }
    }

    #[inline]
    pub(super) fn opt_time(self) -> Result<Option<DateTime<Utc>>, String> {
        match self {
            Value::Null => Ok(None),
            Value::Time(v) => Ok(Some(v)),
            other => Err(other.unexpected("an instant")),
        }
    }

    #[inline]
    pub(super) fn time(self) -> Result<DateTime<Utc>, String> {
        match self {
            Value::Time(v) => Ok(v),
            other => Err(other.unexpected("an instant")),
        }
    }

    #[inline]
    pub(super) fn uuid(self) -> Result<Uuid, String> {
        match self {
            Value::Uuid(v) => Ok(v),
            other => Err(other.unexpected("a UUID")),
        }
    }

    /// An enum stored under its JSON name.
    #[inline]
    pub(super) fn name<T: DeserializeOwned>(self) -> Result<T, String> {
        let Value::Text(text) = self else {
            return Err(self.unexpected("text"));
        };
        // straight from the (borrowed) name, not through JSON text: a read of a million
        // results decodes three names a row
        let name = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(&text);
        T::deserialize(name).map_err(|_| unreadable(&text))
    }

    /// A value stored as JSON text.
    pub(super) fn json<T: DeserializeOwned>(self) -> Result<T, String> {
        let text = self.text()?;
        serde_json::from_str(&text).map_err(|_| unreadable(&text))
    }

    pub(super) fn opt_json<T: DeserializeOwned>(self) -> Result<Option<T>, String> {
        match self {
            Value::Null => Ok(None),
            other => other.json().map(Some),
        }
    }
}

fn unreadable(text: &str) -> String {
    format!("holds '{text}', which this iozone cannot read")
}
