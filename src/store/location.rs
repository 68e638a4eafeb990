//! Where the data lives, and how it is named in messages: a SQLite file, or a
//! PostgreSQL server whose URL (or libpq `key=value` string) is printed with its
//! password masked, by one function.

use std::path::PathBuf;

/// Where the data lives: a SQLite file, or a PostgreSQL server for a fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `postgres://…`, `postgresql://…` or a libpq `key=value` string (`host=h
    /// dbname=d`) is a server; any other `scheme://` is refused, so that a mistyped
    /// scheme never becomes a file named after the URL (password and all); anything
    /// else is a file path.
    pub fn parse(text: &str) -> Result<Location, NotALocation> {
        let trimmed = text.trim();
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            return Ok(Location::Postgres(trimmed.to_string()));
        }
        // before looking for "://", which a libpq string's password may hold
        if is_libpq_words(trimmed) {
            return Ok(Location::Postgres(trimmed.to_string()));
        }
        if trimmed.contains("://") {
            return Err(NotALocation(mask_url(trimmed)));
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

/// A `scheme://` location that is not PostgreSQL's, printed masked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a database location: a server is postgres://USER:PASSWORD@HOST[:PORT]/DATABASE \
     (or postgresql://), a SQLite database a file path"
)]
pub struct NotALocation(pub String);

/// The keywords a libpq connection string starts with; a path that begins with one of
/// them and `=` is taken for a connection string, not for a file name.
const LIBPQ_KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "connect_timeout",
    "options",
    "application_name",
    "sslmode",
    "sslcert",
    "sslkey",
    "sslrootcert",
    "target_session_attrs",
    "keepalives",
    "keepalives_idle",
    "tcp_user_timeout",
    "channel_binding",
    "load_balance_hosts",
];

/// Whether `text` is a libpq `key=value` string: its first word is `KEYWORD=`.
fn is_libpq_words(text: &str) -> bool {
    let Some((key, _)) = text.split_once('=') else {
        return false;
    };
    LIBPQ_KEYWORDS.contains(&key.trim().to_ascii_lowercase().as_str())
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

/// The one masking of every printed location: the password, in a URL's user-info
/// part or `password=` parameter, or in a libpq `key=value` string, replaced by `***`;
/// a location without one is returned as is.
pub fn mask_url(url: &str) -> String {
    let scheme_end = match url.find("://") {
        Some(at) if !is_libpq_words(url.trim()) => at,
        // a libpq `key=value` string (whose password may hold "://")
        _ => return mask_password_words(url),
    };
    let mut out = url.to_string();
    // The password runs from the first ':' of the user info to an '@'. Which '@' is
    // ambiguous when the password holds '@', '/' or '?', so mask up to the last '@':
    // at worst that hides the host too, it never shows a piece of the password.
    let rest = scheme_end + 3;
    let first_at = out[rest..].find('@').map(|i| rest + i);
    let colon = out[rest..].find(':').map(|i| rest + i);
    let last_at = out[rest..].rfind('@').map(|i| rest + i);
    if let (Some(colon), Some(first_at), Some(last_at)) = (colon, first_at, last_at)
        && colon < first_at
    {
        out.replace_range(colon + 1..last_at, "***");
    }
    if let Some(q) = out.find('?') {
        let (base, query) = out.split_at(q + 1);
        // A password parameter runs to the end: an unencoded '&' or '#' in it would
        // otherwise start what looks like the next parameter.
        let mut masked = Vec::new();
        for pair in query.split('&') {
            match pair.split_once('=') {
                Some((k, _)) if k.trim().eq_ignore_ascii_case("password") => {
                    masked.push(format!("{k}=***"));
                    break;
                }
                _ => masked.push(pair.to_string()),
            }
        }
        out = format!("{base}{}", masked.join("&"));
    }
    out
}

/// `password=VALUE` (or `password='quoted value'`) in a `key=value` connection string.
fn mask_password_words(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let Some(start) = lower.find("password") else {
        return text.to_string();
    };
    let after_key = start + "password".len();
    let Some(eq) = text[after_key..].find(|c: char| !c.is_whitespace()) else {
        return text.to_string();
    };
    if !text[after_key + eq..].starts_with('=') {
        return text.to_string();
    }
    let value_start = after_key + eq + 1;
    let trimmed = text[value_start..].trim_start();
    let value_start = text.len() - trimmed.len();
    let value_end = if let Some(quoted) = trimmed.strip_prefix('\'') {
        // to the closing quote (a backslash escapes one), or the end
        let mut end = text.len();
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '\'' => {
                    end = value_start + 1 + i + 1;
                    break;
                }
                _ => {}
            }
        }
        end
    } else {
        // to the next ` KEYWORD=`: a space in an unquoted password is a typo libpq
        // would take for the start of another option, but it is still the password
        unquoted_end(trimmed).map_or(text.len(), |i| value_start + i)
    };
    format!(
        "{}***{}",
        &text[..value_start],
        mask_password_words(&text[value_end..])
    )
}

/// Where an unquoted value ends: at the whitespace before the next `KEYWORD=`.
fn unquoted_end(value: &str) -> Option<usize> {
    value
        .char_indices()
        .filter(|&(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .find(|&i| is_libpq_words(value[i..].trim_start()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            mask_url("postgres://iozone:s3cret@db.example:5432/fleet"),
            "postgres://iozone:***@db.example:5432/fleet"
        );
        assert_eq!(
            mask_url("postgresql://u:p%40ss@h/d?sslmode=require&password=two"),
            "postgresql://u:***@h/d?sslmode=require&password=***"
        );
        assert_eq!(mask_url("postgres://u@h/d"), "postgres://u@h/d");
        assert_eq!(
            mask_url("postgres://h/d?password=x"),
            "postgres://h/d?password=***"
        );
        assert_eq!(mask_url("postgres://a:b@c:d@h/x"), "postgres://a:***@h/x");
        assert_eq!(mask_url("postgres://u:pa/ss@h/x"), "postgres://u:***@h/x");
        assert_eq!(mask_url("postgres://h:5432/d"), "postgres://h:5432/d");
    }

    #[test]
    fn locations() {
        let parse = |text| Location::parse(text).unwrap();
        assert_eq!(
            parse("postgres://u@h/d"),
            Location::Postgres("postgres://u@h/d".into())
        );
        assert_eq!(
            parse("POSTGRESQL://u@h/d"),
            Location::Postgres("POSTGRESQL://u@h/d".into())
        );
        assert_eq!(parse("/tmp/h.db"), Location::Sqlite("/tmp/h.db".into()));
        assert_eq!(parse("a=b.db"), Location::Sqlite("a=b.db".into()));
        assert_eq!(
            parse("postgres://u:pw@h/d").display(),
            "postgres://u:***@h/d"
        );
        // a libpq connection string is a server, never a file named after it
        assert_eq!(
            parse("host=h user=u password=pw dbname=d").display(),
            "host=h user=u password=*** dbname=d"
        );
        assert!(matches!(parse(" Host = h"), Location::Postgres(_)));
        // a mistyped scheme is refused, masked
        assert_eq!(
            Location::parse("postgress://iozone:Secret@127.0.0.1:5432/x"),
            Err(NotALocation(
                "postgress://iozone:***@127.0.0.1:5432/x".into()
            ))
        );
        assert!(Location::parse("sqlite:///tmp/x.db").is_err());
        // a libpq string whose password holds "://" is still a libpq string
        assert_eq!(
            parse("host=h password='a://b'").display(),
            "host=h password=***"
        );
    }

    #[test]
    fn passwords_are_masked() {
        let cases = [
            (
                "postgres://iozone:s3cret@db.example:5432/fleet",
                "postgres://iozone:***@db.example:5432/fleet",
            ),
            (
                "postgresql://u:p%40ss@h/d?sslmode=require&password=two",
                "postgresql://u:***@h/d?sslmode=require&password=***",
            ),
            ("postgres://u@h/d", "postgres://u@h/d"),
            ("postgres://h/d?password=x", "postgres://h/d?password=***"),
            // unencoded '@', '/' or '?' in the password: nothing of it shows
            ("postgres://a:b@c:d@h/x", "postgres://a:***@h/x"),
            ("postgres://u:pa/ss@h/x", "postgres://u:***@h/x"),
            (
                "postgres://iozone:pa@ss?word@host/db",
                "postgres://iozone:***@host/db",
            ),
            // an '@' in the query may hide the host too: never any of the password
            ("postgres://u:p@ss@h/d?x=a@b", "postgres://u:***@b"),
            (
                "host=h user=u password=s3cret dbname=d",
                "host=h user=u password=*** dbname=d",
            ),
            (
                "host=h password = 'a b\\' c' dbname=d",
                "host=h password = *** dbname=d",
            ),
            // an unquoted space: what follows is the password too, up to an option
            (
                "host=h password=a b=c dbname=d",
                "host=h password=*** dbname=d",
            ),
            ("host=h password=a b", "host=h password=***"),
        ];
        for (url, want) in cases {
            assert_eq!(mask_url(url), want, "{url}");
        }
    }

    proptest::proptest! {
        // a failing case is printed, not kept in a file
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Whatever a password holds, no piece of it survives masking: each password is
        /// built from two marker words and special characters, and neither word shows.
        #[test]
        fn no_piece_of_a_password_is_printed(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Zqx", "Wvk", "@", "?", "/", ":", "%", "#", "&", "=", " ", "'", "\\",
                    "%40", "+", ";", "!", "$", "*",
                ]),
                1..12,
            ),
            scheme in proptest::sample::select(vec!["postgres", "postgresql", "postgress", "mysql"]),
            query in proptest::sample::select(vec!["", "?sslmode=disable", "?connect_timeout=1&x=a@b"]),
        ) {
            let password = format!("Zqx{}Wvk", pieces.concat());
            let url = format!("{scheme}://iozone:{password}@127.0.0.1:5432/db{query}");
            let in_query = format!("{scheme}://iozone@127.0.0.1/db?sslmode=disable&password={password}");
            let quoted = password.replace('\\', "\\\\").replace('\'', "\\'");
            let words = format!("host=127.0.0.1 password='{quoted}' dbname=d");
            let unquoted = format!("host=127.0.0.1 password={password} dbname=d");
            for text in [url, in_query, words, unquoted] {
                let masked = mask_url(&text);
                proptest::prop_assert!(
                    !masked.contains("Zqx") && !masked.contains("Wvk"),
                    "{} masked as {}", text, masked
                );
            }
        }
    }
}
