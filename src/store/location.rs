//! Where the data lives, and how it is named in messages: a SQLite file, or a
//! PostgreSQL server whose URL (or libpq `key=value` string) is printed with its
//! password masked, by one function, [`mask_url`].
//!
//! Text that looks like a connection location is never taken for a file path, since a
//! file would be created under its name and every message would print it: a URL scheme
//! and `:` (`postgres:user:pw@host`, a URL missing its `//`), a password parameter in
//! any spelling, `key=value` words, or `USER:PASSWORD@HOST` naming no existing file.
//! Such text is refused, masked; `--db-file` names a file whatever it looks like. A
//! connection string whose options the client would refuse is refused here too,
//! before connecting, in words that quote nothing the masked location does not show.

mod mask;
mod options;

use std::path::PathBuf;

pub use mask::mask_url;
pub use options::Refusal;
use options::{is_known, is_password_like, word_keys};

/// Where the data lives: a SQLite file, or a PostgreSQL server for a fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `postgres://…`, `postgresql://…` or a libpq `key=value` string (`host=h
    /// dbname=d`) is a server, once its options are ones the client takes; text that
    /// looks like a connection location but is not one (see the module's doc) is
    /// refused, so that it never becomes a file named after it (password and all);
    /// anything else is a file path.
    pub fn parse(text: &str) -> Result<Location, NotALocation> {
        let trimmed = text.trim();
        let refuse = |why: Why| NotALocation {
            shown: mask_url(trimmed),
            why,
        };
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            options::check_url(trimmed, &mask_url(trimmed))
                .map_err(|refusal| refuse(Why::Options(refusal)))?;
            // the client takes the scheme in lower case only (`POSTGRES://` fails to parse)
            let scheme_end = trimmed.find("://").unwrap_or_default();
            let url = format!("{}{}", &lower[..scheme_end], &trimmed[scheme_end..]);
            return Ok(Location::Postgres(url));
        }
        // before looking for "://", which a libpq string's password may hold
        if is_connection_words(trimmed) {
            options::check_words(trimmed, &mask_url(trimmed))
                .map_err(|refusal| refuse(Why::Options(refusal)))?;
            return Ok(Location::Postgres(trimmed.to_string()));
        }
        if let Some(why) = server_look(trimmed) {
            return Err(refuse(why));
        }
        // `user:password@host` naming no file: a URL with its scheme forgotten
        if trimmed.contains('@')
            && trimmed.contains(':')
            && std::fs::symlink_metadata(text).is_err()
        {
            return Err(refuse(Why::LooksLikeServer(
                "there is no such file, and it reads as USER:PASSWORD@HOST",
            )));
        }
        Ok(Location::Sqlite(PathBuf::from(text)))
    }

    /// For messages: never with a password.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => mask_url(url),
        }
    }
}

/// Text refused as a database location, printed masked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{shown}' {why}")]
pub struct NotALocation {
    /// The text, masked.
    shown: String,
    why: Why,
}

impl NotALocation {
    /// Whether the text could be meant as a file's name, which `--db-file` would take.
    pub fn may_be_a_file(&self) -> bool {
        matches!(self.why, Why::MissingSlashes | Why::LooksLikeServer(_))
    }
}

/// Why text is not a database location.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Why {
    /// `scheme://`, not PostgreSQL's (`postgress://`, `mysql://`).
    OtherScheme,
    /// `postgres:…`, `postgres:/…`, `postgres//…`.
    MissingSlashes,
    /// A file name iozone will not take for one: what makes it look like a server.
    LooksLikeServer(&'static str),
    /// A connection string or URL with options the client would refuse.
    Options(Refusal),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SERVER: &str = "postgres://USER:PASSWORD@HOST[:PORT]/DATABASE";
        match self {
            Why::OtherScheme => write!(
                f,
                "is not a database location: a server is {SERVER} (or postgresql://), a \
                 SQLite database a file path"
            ),
            Why::MissingSlashes => write!(
                f,
                "is not a database location: a PostgreSQL URL starts with postgres:// (or \
                 postgresql://), as in {SERVER}"
            ),
            Why::LooksLikeServer(what) => write!(
                f,
                "looks like a connection location ({what}), so it is not taken for a file: \
                 a server is {SERVER}"
            ),
            Why::Options(refusal) => {
                write!(f, "is not a connection location iozone can use: {refusal}")
            }
        }
    }
}

/// Whether `text` is a libpq `key=value` string: it starts with `KEY=`, and that key
/// is one of libpq's, or some key names a password, or there is more than one.
/// (`a=b.db` alone stays a file name.)
fn is_connection_words(text: &str) -> bool {
    if !starts_with_key(text) {
        return false;
    }
    let keys = word_keys(text);
    keys.first().is_some_and(|first| is_known(first))
        || keys.iter().any(|key| is_password_like(key))
        || keys.len() > 1
}

/// Whether text starts with `KEY=` (spaces allowed around `=`), a key holding none of
/// the characters that make a URL or a path.
fn starts_with_key(text: &str) -> bool {
    let text = text.trim_start();
    let key_end = text
        .find(|c: char| c.is_whitespace() || c == '=')
        .unwrap_or(text.len());
    let key = &text[..key_end];
    !key.is_empty()
        && !key.contains([':', '/', '@', '?', '&'])
        && text[key_end..].trim_start().starts_with('=')
}

/// What makes text that is no location iozone connects to look like one.
fn server_look(text: &str) -> Option<Why> {
    let lower = text.to_ascii_lowercase();
    let postgres = ["postgres", "postgresql"].iter().any(|scheme| {
        lower
            .strip_prefix(scheme)
            .is_some_and(|rest| rest.starts_with(':') || rest.starts_with("//"))
    });
    if postgres {
        return Some(Why::MissingSlashes);
    }
    if text.contains("://") {
        return Some(Why::OtherScheme);
    }
    if scheme_end(text).is_some() {
        return Some(Why::LooksLikeServer("it starts with a URL scheme and ':'"));
    }
    if password_at(text).is_some() {
        return Some(Why::LooksLikeServer("it sets a password"));
    }
    None
}

/// Where a URL scheme and its `:` end, when text starts with one (RFC 3986: a letter,
/// then letters, digits, `+`, `-` or `.`).
fn scheme_end(text: &str) -> Option<usize> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(colon + 1)
}

/// Where the value of the first password parameter starts, in any text: just after
/// an `=` whose name (letters, digits, `_`, `%`, `.`, `-` before it) names a password.
fn password_at(text: &str) -> Option<usize> {
    text.match_indices('=')
        .map(|(eq, _)| eq)
        .find(|&eq| {
            let before = text[..eq].trim_end();
            let name_start = before
                .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '%' | '.' | '-')))
                .map_or(0, |i| {
                    i + before[i..].chars().next().map_or(1, char::len_utf8)
                });
            is_password_like(&before[name_start..])
        })
        .map(|eq| eq + 1)
}

impl From<&std::path::Path> for Location {
    fn from(path: &std::path::Path) -> Self {
        Location::Sqlite(path.to_path_buf())
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Self {
        Location::Sqlite(path.clone())
    }
}

impl From<&Location> for Location {
    fn from(location: &Location) -> Self {
        location.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> NotALocation {
        Location::parse(text).expect_err(text)
    }

    #[test]
    fn locations() {
        let parse = |text| Location::parse(text).unwrap();
        assert_eq!(
            parse("postgres://u@h/d"),
            Location::Postgres("postgres://u@h/d".into())
        );
        assert_eq!(
            parse("POSTGRESQL://U@h/d"),
            Location::Postgres("postgresql://U@h/d".into())
        );
        assert_eq!(parse("/tmp/h.db"), Location::Sqlite("/tmp/h.db".into()));
        assert_eq!(parse("a=b.db"), Location::Sqlite("a=b.db".into()));
        assert_eq!(parse("me@work.db"), Location::Sqlite("me@work.db".into()));
        assert_eq!(
            parse("postgres/history.db"),
            Location::Sqlite("postgres/history.db".into())
        );
        assert_eq!(
            parse("postgres://u:pw@h/d").display(),
            "postgres://u:***@h/d"
        );
        // a percent-encoded name is the driver's `password`
        assert_eq!(
            parse("postgres://iozone@h:5432/db?pass%77ord=SECRET").display(),
            "postgres://iozone@h:5432/db?pass%77ord=***"
        );
        // a libpq connection string is a server, never a file named after it
        assert_eq!(
            parse("host=h user=u password=pw dbname=d").display(),
            "host=h user=u password=*** dbname=d"
        );
        assert!(matches!(parse(" host = h"), Location::Postgres(_)));
        // a libpq string whose password holds "://" is still a libpq string
        assert_eq!(
            parse("host=h password='a://b'").display(),
            "host=h password=***"
        );
    }

    #[test]
    fn text_that_looks_like_a_server_is_never_a_file() {
        // a mistyped scheme is refused, masked
        assert_eq!(
            refused("postgress://iozone:Secret@127.0.0.1:5432/x").to_string(),
            "'postgress://iozone:***@127.0.0.1:5432/x' is not a database location: a server \
             is postgres://USER:PASSWORD@HOST[:PORT]/DATABASE (or postgresql://), a SQLite \
             database a file path"
        );
        assert!(!refused("sqlite:///tmp/x.db").may_be_a_file());
        // a URL missing its `//`
        for (text, shown) in [
            ("postgres:iozone:SECRET@host/db", "postgres:***@host/db"),
            ("postgres:/iozone:SECRET@host/db", "postgres:***@host/db"),
            (
                "postgres//iozone:SECRET@host/db",
                "postgres//iozone:***@host/db",
            ),
            ("PostgreSQL:iozone:SECRET@host/db", "PostgreSQL:***@host/db"),
            (
                "postgres:/host/db?password=SECRET",
                "postgres:/host/db?password=***",
            ),
        ] {
            let e = refused(text);
            assert_eq!(e.shown, shown, "{text}");
            assert_eq!(e.why, Why::MissingSlashes, "{text}");
        }
        // a scheme, a password, USER:PASSWORD@HOST naming no file
        for (text, shown) in [
            ("mysql:u:SECRET@h", "mysql:***@h"),
            ("file:x.db", "file:x.db"),
            ("iozone:SECRET@host", "iozone:***@host"),
            ("./iozone:SECRET@host", "./iozone:***@host"),
            ("/tmp/x.db?pwd=SECRET", "/tmp/x.db?pwd=***"),
            ("/tmp/x.db pass%77ord=SECRET", "/tmp/x.db pass%77ord=***"),
        ] {
            let e = refused(text);
            assert_eq!(e.shown, shown, "{text}");
            assert!(matches!(e.why, Why::LooksLikeServer(_)), "{text}");
            assert!(e.may_be_a_file(), "{text}");
        }
        // an existing file with '@' and ':' in its name is that file
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("me@host:1.db");
        std::fs::write(&odd, b"").unwrap();
        let text = odd.to_str().unwrap();
        assert_eq!(Location::parse(text), Ok(Location::Sqlite(odd.clone())));
        assert!(Location::parse(&format!("{text}x")).is_err());
    }

    #[test]
    fn mistyped_options_are_refused_without_their_values() {
        for (text, message) in [
            (
                "host=h passwd=SECRET",
                "'host=h passwd=***' is not a connection location iozone can use: unknown \
                 option `passwd`; did you mean password?",
            ),
            (
                "pass=SECRET host=h",
                "'pass=*** host=h' is not a connection location iozone can use: unknown \
                 option `pass`; did you mean password?",
            ),
            (
                "host=h PWD=SECRET",
                "'host=h PWD=***' is not a connection location iozone can use: unknown option \
                 `PWD`; did you mean password?",
            ),
            (
                " Host = h",
                "'Host = h' is not a connection location iozone can use: unknown option \
                 `Host`; did you mean host?",
            ),
            (
                "host=h password=SEC RET",
                "'host=h password=***' is not a connection location iozone can use: a word \
                 without '=' in the connection string (a value holding spaces is quoted: \
                 password='…')",
            ),
            (
                "host=h password=SEC RET=x",
                "'host=h password=***' is not a connection location iozone can use: an option \
                 after the password is not one PostgreSQL knows (a password holding spaces is \
                 quoted: password='…')",
            ),
            (
                "postgres://h/db?PassWord=SECRET",
                "'postgres://h/db?PassWord=***' is not a connection location iozone can use: \
                 unknown parameter `PassWord`; did you mean password?",
            ),
            (
                "postgres://h/db?password=SEC&RET=x",
                "'postgres://h/db?password=***' is not a connection location iozone can use: \
                 a parameter after the password is not one PostgreSQL knows (an '&' in a \
                 password is written %26)",
            ),
        ] {
            assert_eq!(refused(text).to_string(), message, "{text}");
        }
        // a single option naming no password is a file name
        assert!(Location::parse("sslmdoe=x").is_ok_and(|l| matches!(l, Location::Sqlite(_))));
        assert!(
            refused("hots=h dbname=d")
                .to_string()
                .contains("did you mean host?")
        );
    }

    proptest::proptest! {
        // a failing case is printed, not kept in a file
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Whatever a password holds, no piece of it survives masking, nor a refusal:
        /// each password is built from two marker words and special characters, and
        /// neither word shows, however the location around it is spelt.
        #[test]
        fn no_piece_of_a_password_is_printed(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Zqx", "Wvk", "@", "?", "/", ":", "%", "#", "&", "=", " ", "'", "\\",
                    "%40", "+", ";", "!", "$", "*",
                ]),
                1..12,
            ),
            scheme in proptest::sample::select(vec![
                "postgres://", "postgresql://", "postgress://", "mysql://", "postgres:",
                "postgres:/", "postgres//", "postgresql:", "PostgreSQL:/", "",
            ]),
            query in proptest::sample::select(vec!["", "?sslmode=disable", "?connect_timeout=1&x=a@b"]),
            key in proptest::sample::select(vec![
                "password", "passwd", "pass", "pwd", "PassWord", "PASSWD", "Pwd",
                "pass%77ord", "%70assword", "paswd",
            ]),
        ) {
            let password = format!("Zqx{}Wvk", pieces.concat());
            let url = format!("{scheme}iozone:{password}@127.0.0.1:5432/db{query}");
            let in_query = format!("{scheme}iozone@127.0.0.1/db?sslmode=disable&{key}={password}");
            let quoted = password.replace('\\', "\\\\").replace('\'', "\\'");
            let words = format!("host=127.0.0.1 {key}='{quoted}' dbname=d");
            let unquoted = format!("host=127.0.0.1 {key}={password} dbname=d");
            let first = format!("{key}={password} host=127.0.0.1");
            for text in [url, in_query, words, unquoted, first] {
                let printed = match Location::parse(&text) {
                    Ok(location) => location.display(),
                    Err(refused) => refused.to_string(),
                };
                for printed in [mask_url(&text), printed] {
                    proptest::prop_assert!(
                        !printed.contains("Zqx") && !printed.contains("Wvk"),
                        "{} printed as {}", text, printed
                    );
                }
            }
        }
    }
}
