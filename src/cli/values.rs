//! Parsers of flag values that are more than a number or a name: tags, tests, times,
//! `--repeat`. Each error says what was expected, as clap prints it after the flag.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use clap::builder::{PossibleValue, TypedValueParser};

use crate::model::{EngineKind, TestKind};

/// A parser with the names shells complete: clap's completions offer an argument's
/// possible values, which a parser of our own does not have. Parsing and its errors
/// stay the inner parser's; the names only complete (and `--help` does not list them:
/// the argument's own help says what it takes).
#[derive(Clone)]
pub(super) struct Completed<P> {
    inner: P,
    names: fn() -> Vec<&'static str>,
}

impl<P: TypedValueParser> TypedValueParser for Completed<P> {
    type Value = P::Value;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Self::Value, clap::Error> {
        self.inner.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(PossibleValue::new)))
    }
}

/// `-i/--test` of `run`: tests and groups by name, completed by name (iozone3's numbers
/// parse too, but name nothing a shell should offer).
pub(super) fn test_groups() -> Completed<impl TypedValueParser<Value = Vec<TestKind>>> {
    Completed {
        inner: clap::builder::StringValueParser::new().try_map(|t| TestKind::parse_group(&t)),
        names: || {
            vec![
                "write",
                "read",
                "random",
                "backward",
                "record-rewrite",
                "stride",
                "mix",
                "all",
                "rewrite",
                "reread",
                "random-read",
                "random-write",
                "metadata",
                "mkdir",
                "create",
                "stat",
                "open",
                "readfile",
                "readdir",
                "rename",
                "unlink",
                "rmdir",
            ]
        },
    }
}

/// `--test` of the filters: one test by its own name, completed by those names.
pub(super) fn one_test() -> Completed<impl TypedValueParser<Value = TestKind>> {
    Completed {
        inner: clap::builder::StringValueParser::new().try_map(|t| parse_one_test(&t)),
        names: || TestKind::ALL.iter().map(|t| t.name()).collect(),
    }
}

/// `--repeat`: a number of rounds, or as many as precision asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeat {
    Rounds(u32),
    Auto,
}

/// As `--help` shows the default: what [`parse_repeat`] reads back.
impl std::fmt::Display for Repeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Repeat::Rounds(n) => write!(f, "{n}"),
            Repeat::Auto => f.write_str("auto"),
        }
    }
}

pub(super) fn parse_repeat(text: &str) -> Result<Repeat, String> {
    match text.trim() {
        "auto" => Ok(Repeat::Auto),
        t => t.parse().map(Repeat::Rounds).map_err(|_| {
            format!("'{text}' is not a number of rounds; give a number such as 5, or auto")
        }),
    }
}

/// `--tag key=value`, split at the first `=`: values may hold one, keys may not be blank.
pub(super) fn parse_tag(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("invalid tag '{text}': expected key=value")),
    }
}

/// `--label` of `run` and `import`: a selector joins its terms with commas
/// (`label:DR9,host:bebox`), so a label holding one could never be selected; refusing
/// it where labels are given keeps every label selectable.
pub(super) fn parse_label(text: &str) -> Result<String, String> {
    match text.contains(',') {
        true => Err(
            "a label cannot hold a comma (selectors join their terms with commas); \
             give two --label flags, or another character"
                .to_string(),
        ),
        false => Ok(text.to_string()),
    }
}

/// One test by its own name (`write` here is the write test, not the write group).
fn parse_one_test(text: &str) -> Result<TestKind, String> {
    let key = text.trim().to_ascii_lowercase().replace('-', "_");
    TestKind::ALL
        .into_iter()
        .find(|t| t.name() == key)
        .ok_or_else(|| {
            let names: Vec<&str> = TestKind::ALL.iter().map(|t| t.name()).collect();
            format!(
                "unknown test '{text}': expected one of {}",
                names.join(", ")
            )
        })
}

/// `trend --min-step`: a percentage strictly between 0 and 100.
pub(super) fn parse_min_step(text: &str) -> Result<f64, String> {
    let pct: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number; give a percentage such as 5"))?;
    if pct > 0.0 && pct < 100.0 {
        Ok(pct)
    } else {
        Err("must be more than 0 and less than 100 (a percentage, such as 5)".to_string())
    }
}

/// `trend --min-runs`: two or more, since a step's level on each side is a median.
pub(super) fn parse_min_runs(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 2 => Ok(n),
        Ok(_) => Err(
            "must be 2 or more: a step needs at least two runs on each side to be told from noise"
                .to_string(),
        ),
        Err(_) => Err(format!(
            "'{text}' is not a whole number of runs (2 or more)"
        )),
    }
}

/// `--since`: a date means its midnight (UTC), a time itself, an age that long ago.
pub(super) fn parse_since(text: &str) -> Result<DateTime<Utc>, String> {
    parse_when(text, false)
}

/// `--until`: as `--since`, but a date means the end of that day.
pub(super) fn parse_until(text: &str) -> Result<DateTime<Utc>, String> {
    parse_when(text, true)
}

fn parse_when(text: &str, end_of_day: bool) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(t) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        let day = if end_of_day {
            date.succ_opt().unwrap_or(date)
        } else {
            date
        };
        return Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    age(t)
        .map(|ago| Utc::now() - ago)
        .ok_or_else(|| {
            format!(
                "invalid time '{text}': expected a date (2026-11-01), an RFC 3339 time, or an age (30m, 12h, 7d, 2w)"
            )
        })
}

fn age(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().ok()?;
    match unit {
        "m" | "min" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
}

/// `--engine` of `run`: the engines this build has, as the bench registers them, each
/// with its line of help. An engine only an imported run names (fio's `libaio`) is
/// not one: it can be selected among runs, not run.
pub(super) fn engines() -> impl TypedValueParser<Value = EngineKind> {
    let ours = crate::bench::engine::ALL
        .into_iter()
        .map(|e| PossibleValue::new(e.kind().name()).help(e.about()));
    clap::builder::PossibleValuesParser::new(ours).try_map(|name| EngineKind::named(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_dates_and_ages() {
        assert_eq!(
            parse_since("2026-11-01").unwrap().to_rfc3339(),
            "2026-11-01T00:00:00+00:00"
        );
        assert_eq!(
            parse_until("2026-11-01").unwrap().to_rfc3339(),
            "2026-11-02T00:00:00+00:00"
        );
        assert_eq!(
            parse_since("2026-11-01T10:00:00+02:00")
                .unwrap()
                .to_rfc3339(),
            "2026-11-01T08:00:00+00:00"
        );
        let week = Utc::now() - parse_since("7d").unwrap();
        assert!((week - Duration::days(7)).num_seconds().abs() < 5);
        assert!(
            parse_since("12h").is_ok() && parse_since("2w").is_ok() && parse_since("30m").is_ok()
        );
        assert!(parse_since("7x").is_err());
        assert!(parse_since("yesterday").is_err());
        assert!(parse_since("").is_err());
        assert!(parse_since("99999999999999999999d").is_err());
    }

    #[test]
    fn the_test_names_completed_are_the_ones_parsed() {
        let groups: Vec<TestKind> = (test_groups().names)()
            .into_iter()
            .flat_map(|name| TestKind::parse_group(name).unwrap())
            .collect();
        for test in TestKind::ALL {
            assert!(groups.contains(&test), "{test} cannot be completed");
        }
        for name in (one_test().names)() {
            assert!(parse_one_test(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn tags_split_on_the_first_equals() {
        assert_eq!(parse_tag("os=dr9").unwrap(), ("os".into(), "dr9".into()));
        assert_eq!(parse_tag("a=b=c").unwrap(), ("a".into(), "b=c".into()));
        assert!(parse_tag("novalue").is_err());
        assert!(parse_tag("=x").is_err());
    }

    #[test]
    fn bounds_are_inside_and_refusals_say_the_range() {
        assert_eq!(parse_min_step("5"), Ok(5.0));
        assert_eq!(parse_min_step("99.5"), Ok(99.5));
        for bad in ["0", "100", "-1", "NaN"] {
            let e = parse_min_step(bad).unwrap_err();
            assert!(e.contains("more than 0 and less than 100"), "{bad}: {e}");
        }
        assert_eq!(parse_min_runs("2"), Ok(2));
        assert!(parse_min_runs("1").unwrap_err().contains("2 or more"));
        assert!(parse_min_runs("two").unwrap_err().contains("2 or more"));
    }

    #[test]
    fn labels_hold_no_comma() {
        assert_eq!(parse_label("kernel-6.12 rc1").unwrap(), "kernel-6.12 rc1");
        assert!(parse_label("DR8,DR9").is_err());
    }
}
