//! The options of a PostgreSQL connection location, as iozone's client (the `postgres`
//! crate) reads them: which names it takes, which values may be shown, how a libpq
//! `key=value` string and a URL's query split into options, and why one it would
//! refuse is refused — checked before connecting, so that no message of the driver's
//! ("unknown option `…`") quotes a piece of a mistyped password.

use std::ops::Range;

/// The options the client takes, in a URL's query or a libpq string, exactly so
/// spelled (tokio-postgres `Config::param`, case-sensitive as libpq is).
const SUPPORTED: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "options",
    "application_name",
    "sslmode",
    "sslnegotiation",
    "connect_timeout",
    "tcp_user_timeout",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
];

/// libpq's options the client does not take: words of a connection string all the same.
const LIBPQ_ONLY: &[&str] = &[
    "passfile",
    "service",
    "sslcert",
    "sslkey",
    "sslrootcert",
    "sslcrl",
    "sslpassword",
    "sslcompression",
    "requiressl",
    "requirepeer",
    "gssencmode",
    "krbsrvname",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
];

/// What names a password in any spelling people type: password, passwd, pass, pwd,
/// pw, pasword, Passwort…, compared lower-case and percent-decoded.
const PASSWORD_PARTS: &[&str] = &["pass", "pw", "word", "swd", "psw", "secret"];

/// An option name percent-decoded (a URL's `pass%77ord` is `password` to the driver).
fn decoded(name: &str) -> String {
    percent_encoding::percent_decode_str(name)
        .decode_utf8_lossy()
        .into_owned()
}

/// Whether an option name (any case, percent-encoded or not) may name a password.
pub(super) fn is_password_like(name: &str) -> bool {
    let name = decoded(name).to_ascii_lowercase();
    PASSWORD_PARTS.iter().any(|part| name.contains(part))
}

/// Whether a name, in any case, is one of libpq's options.
pub(super) fn is_known(name: &str) -> bool {
    let name = decoded(name.trim()).to_ascii_lowercase();
    SUPPORTED.contains(&name.as_str()) || LIBPQ_ONLY.contains(&name.as_str())
}

/// Whether an option's value may be printed: the option is known and names no secret.
/// An unknown one's is not: it may be a password under a misspelt name.
pub(super) fn shows_value(name: &str) -> bool {
    is_known(name) && !is_password_like(name)
}

/// One option of a libpq string, as byte ranges of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    pub key: Range<usize>,
    /// The value as written, quotes included.
    pub value: Range<usize>,
    pub quoted: bool,
}

/// What starts at a position of a libpq string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Next {
    End,
    Option(Word),
    /// A word without `=`: not an option.
    Stray(usize),
    /// A quote opened at the value's start is never closed.
    Unclosed {
        key: Range<usize>,
        value_start: usize,
    },
    /// `key=` and nothing after it.
    NoValue(Range<usize>),
}

/// The option at `from` (after any whitespace), split as the client splits it: a key
/// runs to whitespace or `=`; a value is quoted (`\` escapes) or runs to whitespace
/// (`\` escapes there too, a space included).
pub(super) fn word_at(text: &str, from: usize) -> Next {
    let start = skip_space(text, from);
    if start == text.len() {
        return Next::End;
    }
    let key_end = text[start..]
        .find(|c: char| c.is_whitespace() || c == '=')
        .map_or(text.len(), |i| start + i);
    let eq = skip_space(text, key_end);
    if key_end == start || !text[eq..].starts_with('=') {
        return Next::Stray(start);
    }
    let value_start = skip_space(text, eq + 1);
    let key = start..key_end;
    let rest = &text[value_start..];
    if rest.starts_with('\'') {
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '\'' => {
                    return Next::Option(Word {
                        key,
                        value: value_start..value_start + i + 1,
                        quoted: true,
                    });
                }
                _ => {}
            }
        }
        return Next::Unclosed { key, value_start };
    }
    let mut end = text.len();
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c.is_whitespace() => {
                end = value_start + i;
                break;
            }
            _ => {}
        }
    }
    if end == value_start {
        return Next::NoValue(key);
    }
    Next::Option(Word {
        key,
        value: value_start..end,
        quoted: false,
    })
}

fn skip_space(text: &str, from: usize) -> usize {
    text[from..]
        .find(|c: char| !c.is_whitespace())
        .map_or(text.len(), |i| from + i)
}

/// The keys of a libpq string's options, up to the first word that is not one.
pub(super) fn word_keys(text: &str) -> Vec<&str> {
    let mut keys = Vec::new();
    let mut at = 0;
    while let Next::Option(word) = word_at(text, at) {
        keys.push(&text[word.key.clone()]);
        at = word.value.end;
    }
    keys
}

/// A URL's query split as the client splits it: a name runs to the next `=` (so it
/// may hold an `&`), a value to the next `&`. `None` for the value of a name
/// without `=`, which ends the query.
pub(super) fn query_pairs(query: &str) -> Vec<(Range<usize>, Option<Range<usize>>)> {
    let mut pairs = Vec::new();
    let mut at = 0;
    while at < query.len() {
        let Some(eq) = query[at..].find('=').map(|i| at + i) else {
            pairs.push((at..query.len(), None));
            break;
        };
        let end = query[eq + 1..]
            .find('&')
            .map_or(query.len(), |i| eq + 1 + i);
        pairs.push((at..eq, Some(eq + 1..end)));
        at = (end + 1).min(query.len());
        if end == query.len() {
            break;
        }
    }
    pairs
}

/// Why the client would refuse a connection location, in words that show nothing the
/// masked location does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A name the client does not take; `name` only when the masked location shows
    /// it (an option after an unquoted password may be a piece of it).
    Unknown {
        name: Option<String>,
        suggestion: Option<&'static str>,
        url: bool,
    },
    /// One of libpq's options that the client does not implement.
    Unsupported(String),
    /// Not options at all: why, in a few words.
    Malformed(&'static str),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unknown {
                name,
                suggestion,
                url,
            } => {
                let what = if *url { "parameter" } else { "option" };
                match name {
                    Some(name) => write!(f, "unknown {what} `{name}`")?,
                    None if *url => write!(
                        f,
                        "a parameter after the password is not one PostgreSQL knows (an '&' \
                         in a password is written %26)"
                    )?,
                    None => write!(
                        f,
                        "an option after the password is not one PostgreSQL knows (a password \
                         holding spaces is quoted: password='…')"
                    )?,
                }
                if let Some(suggestion) = suggestion {
                    write!(f, "; did you mean {suggestion}?")?;
                }
                Ok(())
            }
            Refusal::Unsupported(name) => write!(
                f,
                "option `{name}` is libpq's, and iozone's PostgreSQL client does not take it"
            ),
            Refusal::Malformed(why) => write!(f, "{why}"),
        }
    }
}

/// Checks a libpq string's options as the client will; `shown` is the string masked,
/// whose keys alone a message may name.
pub(super) fn check_words(text: &str, shown: &str) -> Result<(), Refusal> {
    let shown_keys = word_keys(shown);
    let mut at = 0;
    loop {
        match word_at(text, at) {
            Next::End => return Ok(()),
            Next::Option(word) => {
                check_name(&text[word.key.clone()], &shown_keys, false)?;
                at = word.value.end;
            }
            Next::Stray(_) => {
                return Err(Refusal::Malformed(
                    "a word without '=' in the connection string (a value holding spaces is \
                     quoted: password='…')",
                ));
            }
            Next::Unclosed { .. } => {
                return Err(Refusal::Malformed(
                    "a quote in the connection string is not closed",
                ));
            }
            Next::NoValue(_) => {
                return Err(Refusal::Malformed(
                    "an option without a value in the connection string",
                ));
            }
        }
    }
}

/// Checks the query of a `postgres://` URL as the client will; `shown` is the URL
/// masked.
pub(super) fn check_url(url: &str, shown: &str) -> Result<(), Refusal> {
    let Some(query) = url_query(url) else {
        return Ok(());
    };
    let shown_names: Vec<&str> = url_query(shown)
        .map(|q| {
            query_pairs(q)
                .into_iter()
                .filter(|(_, value)| value.is_some())
                .map(|(name, _)| &q[name])
                .collect()
        })
        .unwrap_or_default();
    for (name, value) in query_pairs(query) {
        let raw = &query[name];
        if value.is_none() {
            return Err(Refusal::Malformed("a parameter without '=' in the URL"));
        }
        if percent_encoding::percent_decode_str(raw)
            .decode_utf8()
            .is_err()
        {
            return Err(Refusal::Malformed(
                "a parameter name in the URL is not UTF-8 once decoded",
            ));
        }
        check_name(raw, &shown_names, true)?;
    }
    Ok(())
}

/// The query of a `postgres://` URL as the client finds it: after the first `?` that
/// follows the user-info part (which ends at the first `@`).
fn url_query(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let after_user = rest.find('@').map_or(rest, |at| &rest[at + 1..]);
    after_user.find('?').map(|q| &after_user[q + 1..])
}

/// Refuses a name the client does not take; names it when `shown` holds it.
fn check_name(raw: &str, shown: &[&str], url: bool) -> Result<(), Refusal> {
    let name = if url { decoded(raw) } else { raw.to_string() };
    if SUPPORTED.contains(&name.as_str()) {
        return Ok(());
    }
    let visible = shown.contains(&raw);
    if visible && LIBPQ_ONLY.contains(&name.as_str()) {
        return Err(Refusal::Unsupported(name));
    }
    Err(Refusal::Unknown {
        suggestion: visible.then(|| suggestion(&name)).flatten(),
        name: visible.then_some(name),
        url,
    })
}

/// The option a mistyped name most likely meant.
fn suggestion(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if is_password_like(&lower) {
        return Some("password");
    }
    SUPPORTED
        .iter()
        .map(|&known| (strsim::jaro_winkler(&lower, known), known))
        .filter(|&(score, _)| score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, known)| known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_the_client_splits_them() {
        let text = "host = h password='a b\\' c' port=5\\ 4 x";
        let Next::Option(host) = word_at(text, 0) else {
            panic!()
        };
        assert_eq!(&text[host.key.clone()], "host");
        assert_eq!(&text[host.value.clone()], "h");
        let Next::Option(password) = word_at(text, host.value.end) else {
            panic!()
        };
        assert_eq!(&text[password.value.clone()], "'a b\\' c'");
        assert!(password.quoted);
        let Next::Option(port) = word_at(text, password.value.end) else {
            panic!()
        };
        assert_eq!(&text[port.value.clone()], "5\\ 4");
        assert_eq!(word_at(text, port.value.end), Next::Stray(text.len() - 1));
        assert!(matches!(
            word_at("password='open", 0),
            Next::Unclosed { .. }
        ));
        assert!(matches!(word_at("password=", 0), Next::NoValue(_)));
        assert_eq!(word_keys("a=1 b = '2' c"), ["a", "b"]);
    }

    #[test]
    fn queries_split_as_the_client_splits_them() {
        let query = "a=1&b&c=2&d";
        let pairs: Vec<_> = query_pairs(query)
            .into_iter()
            .map(|(name, value)| (&query[name], value.map(|v| &query[v])))
            .collect();
        assert_eq!(pairs, [("a", Some("1")), ("b&c", Some("2")), ("d", None)]);
    }

    #[test]
    fn password_names_in_any_spelling() {
        for name in [
            "password",
            "PassWord",
            "passwd",
            "pass",
            "PWD",
            "pw",
            "pasword",
            "paswd",
            "pass%77ord",
            "%70assword",
            "sslpassword",
        ] {
            assert!(is_password_like(name), "{name}");
            assert!(!shows_value(name), "{name}");
        }
        for name in ["host", "dbname", "Host", "sslmode", "user", "port"] {
            assert!(shows_value(name), "{name}");
        }
        assert!(
            !shows_value("hots"),
            "an unknown name may be a misspelt password's"
        );
    }

    #[test]
    fn mistyped_options_are_named_only_when_shown() {
        let unknown = |name: Option<&str>, suggestion, url| {
            Err(Refusal::Unknown {
                name: name.map(str::to_string),
                suggestion,
                url,
            })
        };
        assert_eq!(check_words("host=h dbname=d", "host=h dbname=d"), Ok(()));
        assert_eq!(
            check_words("host=h passwd=s", "host=h passwd=***"),
            unknown(Some("passwd"), Some("password"), false)
        );
        assert_eq!(
            check_words("hots=h", "hots=***"),
            unknown(Some("hots"), Some("host"), false)
        );
        assert_eq!(
            check_words("Host=h", "Host=h"),
            unknown(Some("Host"), Some("host"), false)
        );
        // a piece of an unquoted password is not named, nor anything like it
        assert_eq!(
            check_words("host=h password=a Zqx=1", "host=h password=***"),
            unknown(None, None, false)
        );
        assert_eq!(
            check_words("host=h sslcert=/c", "host=h sslcert=/c"),
            Err(Refusal::Unsupported("sslcert".into()))
        );
        assert!(matches!(
            check_words("host=h password=a b", "host=h password=***"),
            Err(Refusal::Malformed(_))
        ));
        assert_eq!(
            check_url(
                "postgres://h/d?pass%77ord=s&sslmode=disable",
                "postgres://h/d?pass%77ord=***"
            ),
            Ok(())
        );
        assert_eq!(
            check_url("postgres://h/d?sslmdoe=x", "postgres://h/d?sslmdoe=***"),
            unknown(Some("sslmdoe"), Some("sslmode"), true)
        );
        assert_eq!(
            check_url("postgres://h/d?PASSWORD=s", "postgres://h/d?PASSWORD=***"),
            unknown(Some("PASSWORD"), Some("password"), true)
        );
        assert_eq!(
            check_url(
                "postgres://h/d?password=a&Zqx=1",
                "postgres://h/d?password=***"
            ),
            unknown(None, None, true)
        );
        // the user-info part ends at the first '@'; its '?' starts no query
        assert_eq!(
            check_url("postgres://u:p?x@h/d", "postgres://u:***@h/d"),
            Ok(())
        );
        assert!(matches!(
            check_url("postgres://h/d?sslmode", "postgres://h/d?sslmode"),
            Err(Refusal::Malformed(_))
        ));
    }
}
