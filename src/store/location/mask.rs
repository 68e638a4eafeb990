//! The one masking of every location printed: what may be a password, in a URL or in
//! a libpq string, becomes `***`.

use super::options::{self, Next, is_known, shows_value, word_at};
use super::{password_at, scheme_end, starts_with_key};

/// The one masking of every printed location. What may be a password becomes `***`:
/// in a URL (with its `//` or without), the user-info part from its first `:` to the
/// last `@`, and a query from the first parameter that is not a known option showing
/// no secret to the end; in a libpq string, the value of every option that is not
/// such an option (an unquoted one up to the next known option); anywhere, what
/// follows a password parameter. Option names count in any case and percent-decoded.
/// Where two readings of a URL disagree (a password holding `@`, `?`, `&`), what
/// either would hide is hidden.
pub fn mask_url(text: &str) -> String {
    if starts_with_key(text) {
        return mask_words(text);
    }
    let secret = [query_secret(text), password_at(text)]
        .into_iter()
        .flatten()
        .min();
    match (user_password(text), secret) {
        (Some(user), Some(from)) if from <= user.end => {
            format!("{}***", &text[..user.start.min(from)])
        }
        (Some(user), _) => {
            let rest = &text[user.end..secret.unwrap_or(text.len())];
            let tail = if secret.is_some() { "***" } else { "" };
            format!("{}***{rest}{tail}", &text[..user.start])
        }
        (None, Some(from)) => format!("{}***", &text[..from]),
        (None, None) => text.to_string(),
    }
}

/// Where a URL's password may be: from the first `:` of the part after `scheme://`
/// (or of the whole text, for a URL missing its `//`, which hides the user too) to an
/// `@`. Which `@` is ambiguous when the password holds `@`, `/` or `?`, so the last:
/// at worst that hides the host too, it never shows a piece of the password.
fn user_password(text: &str) -> Option<std::ops::Range<usize>> {
    let start = scheme_end(text)
        .filter(|&end| text[end..].starts_with("//"))
        .map_or(0, |end| end + 2);
    let rest = &text[start..];
    match (rest.find(':'), rest.find('@'), rest.rfind('@')) {
        (Some(colon), Some(first_at), Some(last_at)) if colon < first_at => {
            Some(start + colon + 1..start + last_at)
        }
        _ => None,
    }
}

/// Where a query (from the first `?`) stops showing: at the value of the first
/// parameter that is not a known option showing no secret, masked to the end, since
/// an unencoded `&` or `#` in a password would otherwise start what looks like the
/// next parameter.
fn query_secret(text: &str) -> Option<usize> {
    let q = text.find('?')? + 1;
    let query = &text[q..];
    options::query_pairs(query)
        .into_iter()
        .find_map(|(name, value)| {
            let value = value?;
            (!shows_value(&query[name])).then_some(q + value.start)
        })
}

/// A libpq string with every value that may be a secret masked: a quoted one to its
/// closing quote, an unquoted one to the next known option (a space in an unquoted
/// password is a mistake libpq would take for the start of another option, but it is
/// still the password). A word without `=` and all after it are masked too.
fn mask_words(text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    loop {
        match word_at(text, at) {
            Next::End | Next::NoValue(_) => {
                out.push_str(&text[at..]);
                return out;
            }
            Next::Option(word) if shows_value(&text[word.key.clone()]) => {
                out.push_str(&text[at..word.value.end]);
                at = word.value.end;
            }
            Next::Option(word) => {
                out.push_str(&text[at..word.value.start]);
                out.push_str("***");
                at = match word.quoted {
                    true => word.value.end,
                    false => unquoted_end(text, word.value.start),
                };
            }
            Next::Unclosed { value_start, .. } => {
                out.push_str(&text[at..value_start]);
                out.push_str("***");
                return out;
            }
            Next::Stray(start) => {
                out.push_str(&text[at..start]);
                out.push_str("***");
                return out;
            }
        }
    }
}

/// Where an unquoted value from `from` ends for masking: at the (unescaped) whitespace
/// before the next known `KEYWORD=`, else at the end.
fn unquoted_end(text: &str, from: usize) -> usize {
    let mut escaped = false;
    for (i, c) in text[from..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c.is_whitespace() => {
                if let Next::Option(word) = word_at(text, from + i)
                    && is_known(&text[word.key])
                {
                    return from + i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("postgres://h:5432/d", "postgres://h:5432/d"),
            ("postgres://h/d?password=x", "postgres://h/d?password=***"),
            // unencoded '@', '/' or '?' in the password: nothing of it shows
            ("postgres://a:b@c:d@h/x", "postgres://a:***@h/x"),
            ("postgres://u:pa/ss@h/x", "postgres://u:***@h/x"),
            (
                "postgres://iozone:pa@ss?word@host/db",
                "postgres://iozone:***@host/db",
            ),
            // an '@' in the query may hide the host too: never any of the password
            ("postgres://u:p@ss@h/d?x=a@b", "postgres://u:***"),
            // a password parameter in any spelling, percent-encoded or not
            ("postgres://h/d?PASSWORD=x", "postgres://h/d?PASSWORD=***"),
            (
                "postgres://h/d?%70assword=x",
                "postgres://h/d?%70assword=***",
            ),
            ("postgres://h/d?pwd=x&sslmode=y", "postgres://h/d?pwd=***"),
            // an unknown parameter may be a misspelt password: it and all after it
            (
                "postgres://h/d?sslmode=disable&paswrd=x&port=1",
                "postgres://h/d?sslmode=disable&paswrd=***",
            ),
            // URLs missing their `//` (the user hidden too)
            ("postgres:iozone:s@h/d", "postgres:***@h/d"),
            ("postgres//iozone:s@h/d", "postgres//iozone:***@h/d"),
            ("postgres:/h/d?pass=s", "postgres:/h/d?pass=***"),
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
            // an escaped space does not end an unquoted value
            ("password=a\\ host=b", "password=***"),
            // mistyped names, in any case
            ("host=h passwd=s dbname=d", "host=h passwd=*** dbname=d"),
            ("PassWord=s host=h", "PassWord=*** host=h"),
            ("pass%77ord=s", "pass%77ord=***"),
            ("host=h pwd='s t'", "host=h pwd=***"),
            ("hots=h dbname=d", "hots=*** dbname=d"),
            // a quote never closed, a word that is no option
            ("host=h password='a b", "host=h password=***"),
            ("host=h a b c", "host=h ***"),
            ("options='-c x=y' host=h", "options='-c x=y' host=h"),
        ];
        for (url, want) in cases {
            assert_eq!(mask_url(url), want, "{url}");
        }
    }
}
