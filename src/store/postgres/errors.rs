//! Why a PostgreSQL operation failed, in words a user acts on: the driver's errors
//! become one line each, the password never shows, and a [`Fail`] becomes a
//! [`StoreError`](super::super::StoreError) with the location once, in
//! [`PgStore::error`](super::PgStore).

use std::time::Duration;

use postgres::error::SqlState;

/// Whether the error is the connection's end rather than the command's: the server
/// went away (restarted, failed over, or an administrator ended the session).
pub(super) fn is_lost(e: &postgres::Error) -> bool {
    e.is_closed()
        || e.to_string()
            .starts_with("error communicating with the server")
        || e.code().is_some_and(|c| {
            c == &SqlState::ADMIN_SHUTDOWN
                || c == &SqlState::CRASH_SHUTDOWN
                || c == &SqlState::CANNOT_CONNECT_NOW
        })
}

/// Why an operation failed, before it becomes a [`StoreError`] with the location.
pub(in crate::store) enum Fail {
    Pg(postgres::Error),
    /// The connection ended during the commit: whether it took effect is unknown.
    CommitLost(postgres::Error),
    /// A value the schema allows but this iozone cannot read: the data is damaged.
    Bad(String),
    NotIozone,
    TooNew {
        found: usize,
        known: usize,
    },
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Pg(e)
    }
}

/// The message with the password, should it appear, replaced (a short password would
/// match ordinary words, and no server message contains it anyway: this is a belt).
pub(super) fn scrub(message: String, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 4 && message.contains(s) => message.replace(s, "***"),
        _ => message,
    }
}

/// The driver's words about a connection string it could not parse, with every
/// `quoted` name it echoes that the masked location does not show replaced by `***`:
/// an "unknown option `…`" may be a piece of a password the masking hid.
pub(super) fn unechoed(detail: &str, shown: &str) -> String {
    detail
        .split('`')
        .enumerate()
        .map(|(i, part)| match i % 2 == 1 && !shown.contains(part) {
            true => "***",
            false => part,
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// One line: newlines and runs of spaces become single spaces.
pub(super) fn flatten(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The error and its causes on one line ("error connecting to server: Connection
/// refused (os error 111)"); a server's error is its message alone.
pub(super) fn one_line(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => flatten(db.message()),
        None => flatten(&chain(e)),
    }
}

/// The causes alone, without the driver's own prefix.
pub(super) fn causes(e: &postgres::Error) -> Option<String> {
    std::error::Error::source(e).map(|cause| flatten(&chain(cause)))
}

/// An error and its sources joined by ": ", each left out that the text says already.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Why a connection could not be made, in the words a user acts on.
pub(super) fn connect_reason(e: &postgres::Error, timeout: Duration) -> String {
    if let Some(db) = e.as_db_error() {
        // "password authentication failed for user "iozone"", "database "x" does not
        // exist", "too many clients already": the server's own words say it best
        return flatten(db.message());
    }
    let text = e.to_string();
    let detail = causes(e).unwrap_or_default();
    if text.starts_with("timeout") {
        format!("cannot connect: no answer within {} s", timeout.as_secs())
    } else if text.starts_with("error performing TLS handshake") {
        format!("cannot connect: the TLS handshake failed: {detail}")
    } else if text.starts_with("invalid configuration") {
        format!("not a valid PostgreSQL URL: {detail}")
    } else if detail.is_empty() {
        format!("cannot connect: {text}")
    } else {
        format!("cannot connect: {detail}")
    }
}

/// Why a command on an open connection failed, and whether it says the data is damaged.
pub(super) fn use_reason(e: &postgres::Error) -> (bool, String) {
    if let Some(db) = e.as_db_error() {
        let message = flatten(db.message());
        let code = db.code();
        return if code == &SqlState::DATA_CORRUPTED || code == &SqlState::INDEX_CORRUPTED {
            (true, message)
        } else if code == &SqlState::UNDEFINED_TABLE || code == &SqlState::UNDEFINED_COLUMN {
            (
                true,
                format!("the iozone schema lacks what this iozone expects: {message}"),
            )
        } else if code.code().starts_with("57P") || code == &SqlState::ADMIN_SHUTDOWN {
            (false, format!("the server ended the session: {message}"))
        } else {
            (false, message)
        };
    }
    let text = e.to_string();
    if e.is_closed() || text.starts_with("error communicating with the server") {
        let detail = causes(e).map(|d| format!(": {d}")).unwrap_or_default();
        (
            false,
            format!(
                "the server closed the connection{detail} (it restarted, or an administrator \
                 ended the session); try again"
            ),
        )
    } else if text.starts_with("error deserializing") || text.starts_with("invalid column") {
        (true, one_line(e))
    } else {
        (false, one_line(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_names_the_location_hides_are_hidden_too() {
        let shown = "host=h password=***";
        assert_eq!(
            unechoed("invalid connection string: unknown option `Wvk`", shown),
            "invalid connection string: unknown option `***`"
        );
        assert_eq!(
            unechoed("invalid value for option `host`", shown),
            "invalid value for option `host`"
        );
    }
}
