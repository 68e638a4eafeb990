//! The selector language: which runs a command means. A [`RunRef`] names one run
//! (`42`, `latest~2`, a UUID prefix), an [`IdRange`] a run of ids (`3..7`, `40..`), a
//! [`RunFilter`] narrows by host, label, time and so on, and a [`Selector`] is one side
//! of a comparison written as comma-joined terms: the runs it names are any of them,
//! its conditions all hold, and with both the conditions narrow the runs named. These
//! are plain values parsed from the user's text; the store turns them into SQL.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::model::{CacheMode, EngineKind, RunStatus, TestKind};

/// Which runs `history` lists. Every field narrows the selection; `None` or empty
/// means no condition.
#[derive(Clone, Debug, Default)]
pub struct RunFilter {
    /// Runs whose id is in any of these ranges (a selector's runs named).
    pub ids: Vec<IdRange>,
    pub host: Option<String>,
    /// Filesystem type, e.g. `ext4`.
    pub fs: Option<String>,
    /// Runs carrying every one of these labels.
    pub labels: Vec<String>,
    /// Runs carrying every one of these tags.
    pub tags: Vec<(String, String)>,
    /// Runs that measured this test.
    pub test: Option<TestKind>,
    /// Runs that measured this record size.
    pub record: Option<u64>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub status: Option<RunStatus>,
    pub engine: Option<EngineKind>,
    pub cache: Option<CacheMode>,
    /// Runs at this queue depth.
    pub iodepth: Option<u32>,
    pub limit: Option<usize>,
    /// Oldest first instead of newest first.
    pub oldest_first: bool,
    /// Only runs listed after this one (its start and id) in the listing's order: the
    /// next page of a listing read a page at a time, found through the index rather
    /// than by counting the runs before it.
    pub after: Option<(DateTime<Utc>, i64)>,
}

/// One run, as the user names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunRef {
    Id(i64),
    /// `latest` is `Latest(0)`, `latest~2` the third newest.
    Latest(u32),
    /// At least 4 characters of the UUID, hyphens allowed.
    UuidPrefix(String),
}

impl FromStr for RunRef {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let t = text.trim();
        if t == "latest" {
            return Ok(RunRef::Latest(0));
        }
        if let Some(n) = t.strip_prefix("latest~") {
            return n
                .parse()
                .map(RunRef::Latest)
                .map_err(|_| format!("invalid run '{text}': expected latest~N with N a number"));
        }
        // an id is never written with a leading zero, so `0910…` is a UUID's start
        let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if digits && !(t.len() >= 4 && t.starts_with('0')) {
            return t
                .parse()
                .map(RunRef::Id)
                .map_err(|_| format!("invalid run '{text}': the id is too large"));
        }
        let hex = t.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        if hex && t.len() >= 4 {
            return Ok(RunRef::UuidPrefix(t.to_ascii_lowercase()));
        }
        Err(format!(
            "invalid run '{text}': expected an id (42), latest, latest~N, or a UUID prefix of 4 or more characters"
        ))
    }
}

impl fmt::Display for RunRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunRef::Id(id) => write!(f, "{id}"),
            RunRef::Latest(0) => write!(f, "latest"),
            RunRef::Latest(n) => write!(f, "latest~{n}"),
            RunRef::UuidPrefix(p) => write!(f, "{p}"),
        }
    }
}

/// Ids from `first` to `last`, both in (`3..7`), or from `first` on (`40..`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdRange {
    pub first: i64,
    pub last: Option<i64>,
}

impl IdRange {
    /// The one id `id`.
    pub fn one(id: i64) -> Self {
        IdRange {
            first: id,
            last: Some(id),
        }
    }

    /// `3..7` or `40..`; `None` for what is not written as a range at all (a label may
    /// hold dots), an error for a range written wrong.
    fn parse(text: &str) -> Option<Result<Self, String>> {
        let (first, last) = text.split_once("..")?;
        // digits before the dots make a range, and so do nothing before them and digits
        // after (a range missing its start); anything else is a word
        if !(all_digits(first) || first.is_empty() && all_digits(last)) {
            return None;
        }
        let bad = |what: String| format!("invalid range '{text}': {what}");
        let id = |end: &str| -> Result<i64, String> {
            if !all_digits(end) {
                return Err(bad(
                    "expected two run ids, as in 3..7, or one, as in 40.. for it and every later run"
                        .into(),
                ));
            }
            // as for one id: 4 digits or more with a leading zero are a UUID's start
            if end.len() >= 4 && end.starts_with('0') {
                return Err(bad(format!(
                    "{end} is no run id (ids have no leading zero): a range is of ids, never of UUID prefixes"
                )));
            }
            end.parse()
                .map_err(|_| bad(format!("{end}: the id is too large")))
        };
        if first.is_empty() {
            return Some(Err(bad("expected its first id, as in 1..7".into())));
        }
        let range = (|| {
            let first = id(first)?;
            let last = match last {
                "" => None,
                last => Some(id(last)?),
            };
            if last.is_some_and(|last| last < first) {
                return Err(bad("its ids go up, as in 3..7".into()));
            }
            Ok(IdRange { first, last })
        })();
        Some(range)
    }
}

fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

impl fmt::Display for IdRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.last {
            Some(last) => write!(f, "{}..{last}", self.first),
            None => write!(f, "{}..", self.first),
        }
    }
}

/// One side of a comparison, as the user writes it: terms joined by commas. Some
/// terms name runs, and a run any of them names is selected: an id (`42`), a range of
/// ids (`3..7`, both ends in; `40..`, 40 and every later id), `latest`, `latest~2`,
/// `uuid:4f0c`, `id:42`. The others are conditions, and every one of them must hold:
/// `label:DR9`, `tag:os=dr9`, `host:bebox`, `fs:ext4`, `engine:mmap`, `cache:direct`,
/// `iodepth:32`, or a bare word, which is a label (or, when no run has that label, a
/// UUID prefix). A selector with both takes the runs it names that meet every
/// condition: `3..7,label:journal` is the runs 3 to 7 labelled journal.
/// [`Selector::reading`] says so in words.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    pub text: String,
    /// Runs named one by one: any of them (with [`Selector::ranges`]).
    pub refs: Vec<RunRef>,
    /// Runs named by a range of ids: any of them (with [`Selector::refs`]).
    pub ranges: Vec<IdRange>,
    /// Bare words: labels, or UUID prefixes (the store tells which).
    pub bare: Vec<String>,
    /// The conditions: all of them.
    pub filter: RunFilter,
}

impl FromStr for Selector {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut selector = Selector {
            text: text.trim().to_string(),
            ..Selector::default()
        };
        if selector.text.is_empty() {
            return Err("empty selector: expected a run id, latest, a label, or key:value".into());
        }
        for term in selector.text.clone().split(',').map(str::trim) {
            selector.add(term)?;
        }
        Ok(selector)
    }
}

impl Selector {
    fn add(&mut self, term: &str) -> Result<(), String> {
        let bad = |what: &str| format!("invalid selector term '{term}': {what}");
        let Some((key, value)) = term.split_once(':') else {
            if term.is_empty() {
                return Err(bad("empty"));
            }
            if let Some(range) = IdRange::parse(term) {
                self.ranges.push(range?);
                return Ok(());
            }
            match term.parse::<RunRef>() {
                Ok(r @ (RunRef::Id(_) | RunRef::Latest(_))) => self.refs.push(r),
                _ => self.bare.push(term.to_string()),
            }
            return Ok(());
        };
        let value = value.trim();
        if value.is_empty() {
            return Err(bad("no value after ':'"));
        }
        let f = &mut self.filter;
        match key.trim() {
            "label" => f.labels.push(value.to_string()),
            "tag" => {
                let (k, v) = value
                    .split_once('=')
                    .ok_or_else(|| bad("expected tag:key=value"))?;
                f.tags.push((k.to_string(), v.to_string()));
            }
            "host" => f.host = Some(value.to_string()),
            "fs" => f.fs = Some(value.to_string()),
            // any engine a run may name: ours, or another tool's an imported run keeps
            "engine" => {
                f.engine = Some(
                    EngineKind::named(&value.to_ascii_lowercase())
                        .map_err(|e| bad(&format!("expected engine:NAME; {e}")))?,
                )
            }
            "cache" => {
                f.cache = Some(
                    named(&CacheMode::ALL, CacheMode::name, value)
                        .ok_or_else(|| bad(&expected(&CacheMode::ALL, CacheMode::name, "cache")))?,
                )
            }
            "iodepth" => {
                f.iodepth = Some(
                    value
                        .parse::<u32>()
                        .ok()
                        .filter(|&d| d >= 1)
                        .ok_or_else(|| bad("expected iodepth: and a queue depth of 1 or more"))?,
                )
            }
            "id" | "run" => match IdRange::parse(value) {
                Some(range) => self.ranges.push(range.map_err(|e| bad(&e))?),
                None => self
                    .refs
                    .push(value.parse::<RunRef>().map_err(|e| bad(&e))?),
            },
            "uuid" => self
                .refs
                .push(RunRef::UuidPrefix(match value.parse::<RunRef>() {
                    Ok(RunRef::UuidPrefix(p)) => p,
                    _ => return Err(bad("expected uuid: and 4 or more hex digits")),
                })),
            other => {
                return Err(bad(&format!(
                    "unknown key '{other}'; expected label, tag, host, fs, engine, cache, iodepth, id or uuid"
                )));
            }
        }
        Ok(())
    }

    /// Whether any condition narrows the runs (besides references and bare words).
    pub fn has_conditions(&self) -> bool {
        let f = &self.filter;
        !f.labels.is_empty()
            || !f.tags.is_empty()
            || f.host.is_some()
            || f.fs.is_some()
            || f.engine.is_some()
            || f.cache.is_some()
            || f.iodepth.is_some()
    }

    /// Whether it names runs: ids, ranges, `latest`, UUID prefixes.
    pub fn names_runs(&self) -> bool {
        !self.refs.is_empty() || !self.ranges.is_empty()
    }

    /// Whether it names runs and sets conditions too (a bare word counts as a label):
    /// the selectors whose reading is worth saying, as the conditions narrow the runs
    /// named rather than add to them.
    pub fn mixes(&self) -> bool {
        self.names_runs() && (self.has_conditions() || !self.bare.is_empty())
    }

    /// How it is read, in words: `runs 3, 5 or 7`, `every run with label journal and
    /// host vm`, `runs 3 to 7 with label journal`.
    pub fn reading(&self) -> String {
        let conditions = self.conditions();
        let with = |conditions: Vec<String>| and_list(&conditions, "and");
        match (self.runs_named(), conditions.is_empty()) {
            (Some(runs), true) => runs,
            (Some(runs), false) => format!("{runs} with {}", with(conditions)),
            (None, _) => format!("every run with {}", with(conditions)),
        }
    }

    /// `run 3`, `runs 3 to 7`, `runs 3, 5 or 7`: the runs named, any of them.
    fn runs_named(&self) -> Option<String> {
        let terms: Vec<String> = (self.refs.iter().map(|r| match r {
            RunRef::UuidPrefix(p) => format!("uuid {p}"),
            other => other.to_string(),
        }))
        .chain(self.ranges.iter().map(|r| match r.last {
            Some(last) => format!("{} to {last}", r.first),
            None => format!("{} on", r.first),
        }))
        .collect();
        match (terms.len(), self.refs.len()) {
            (0, _) => None,
            (1, 1) => Some(format!("run {}", terms[0])),
            _ => Some(format!("runs {}", and_list(&terms, "or"))),
        }
    }

    /// `label journal`, `host vm`…: the conditions, each of which must hold.
    fn conditions(&self) -> Vec<String> {
        let f = &self.filter;
        let mut out: Vec<String> = (f.labels.iter().chain(&self.bare))
            .map(|l| format!("label {l}"))
            .collect();
        out.extend(f.tags.iter().map(|(k, v)| format!("tag {k}={v}")));
        let named = |key: &str, value: Option<String>| value.map(|v| format!("{key} {v}"));
        out.extend(named("host", f.host.clone()));
        out.extend(named("fs", f.fs.clone()));
        out.extend(named("engine", f.engine.map(|e| e.name().to_string())));
        out.extend(named("cache", f.cache.map(|c| c.name().to_string())));
        out.extend(named("iodepth", f.iodepth.map(|d| d.to_string())));
        out
    }
}

/// `a`, `a or b`, `a, b or c`.
fn and_list(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

/// The one of `all` named `text`, in any case (`engine:POSIX`).
fn named<T: Copy>(all: &[T], name: fn(T) -> &'static str, text: &str) -> Option<T> {
    all.iter()
        .copied()
        .find(|&v| name(v).eq_ignore_ascii_case(text))
}

/// `expected engine:posix|pread|…`: the values a key takes, as the enum names them.
fn expected<T: Copy>(all: &[T], name: fn(T) -> &'static str, key: &str) -> String {
    let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
    format!("expected {key}:{}", names.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_references() {
        assert_eq!("42".parse::<RunRef>(), Ok(RunRef::Id(42)));
        assert_eq!("latest".parse::<RunRef>(), Ok(RunRef::Latest(0)));
        assert_eq!("latest~3".parse::<RunRef>(), Ok(RunRef::Latest(3)));
        assert_eq!(
            "4F0C1a2b".parse::<RunRef>(),
            Ok(RunRef::UuidPrefix("4f0c1a2b".into()))
        );
        assert_eq!(
            "0910".parse::<RunRef>(),
            Ok(RunRef::UuidPrefix("0910".into()))
        );
        assert_eq!("007".parse::<RunRef>(), Ok(RunRef::Id(7)));
        assert!("latest~x".parse::<RunRef>().is_err());
        assert!("abc".parse::<RunRef>().is_err());
        assert!("nope!".parse::<RunRef>().is_err());
        assert!("".parse::<RunRef>().is_err());
        assert!("99999999999999999999999".parse::<RunRef>().is_err());
    }

    #[test]
    fn terms_combine() {
        let s: Selector = "label:DR9,host:bebox".parse().unwrap();
        assert_eq!(s.filter.labels, ["DR9"]);
        assert_eq!(s.filter.host.as_deref(), Some("bebox"));
        assert!(s.refs.is_empty() && s.bare.is_empty());
        let s: Selector = "DR8".parse().unwrap();
        assert_eq!(s.bare, ["DR8"]);
        let s: Selector = "42".parse().unwrap();
        assert_eq!(s.refs, [RunRef::Id(42)]);
        let s: Selector = "latest~1".parse().unwrap();
        assert_eq!(s.refs, [RunRef::Latest(1)]);
        let s: Selector = "tag:os=dr9,engine:mmap,cache:direct,fs:xfs"
            .parse()
            .unwrap();
        assert_eq!(s.filter.tags, [("os".to_string(), "dr9".to_string())]);
        assert_eq!(s.filter.engine, Some(EngineKind::Mmap));
        assert_eq!(s.filter.cache, Some(CacheMode::Direct));
        assert_eq!(s.filter.fs.as_deref(), Some("xfs"));
        let s: Selector = "engine:uring,iodepth:32".parse().unwrap();
        assert_eq!(
            (s.filter.engine, s.filter.iodepth),
            (Some(EngineKind::Uring), Some(32))
        );
        let s: Selector = "uuid:4f0c1a".parse().unwrap();
        assert_eq!(s.refs, [RunRef::UuidPrefix("4f0c1a".into())]);
    }

    #[test]
    fn ids_and_ranges_are_any_of_conditions_all_of() {
        let s: Selector = "3,5,7".parse().unwrap();
        assert_eq!(s.refs, [RunRef::Id(3), RunRef::Id(5), RunRef::Id(7)]);
        assert_eq!(s.reading(), "runs 3, 5 or 7");
        assert!(!s.mixes());
        let s: Selector = "3..7".parse().unwrap();
        assert_eq!(
            s.ranges,
            [IdRange {
                first: 3,
                last: Some(7)
            }]
        );
        assert!(s.refs.is_empty() && s.bare.is_empty());
        assert_eq!(s.reading(), "runs 3 to 7");
        let s: Selector = "1,10..20,40..,latest".parse().unwrap();
        assert_eq!(
            s.ranges,
            [
                IdRange {
                    first: 10,
                    last: Some(20)
                },
                IdRange {
                    first: 40,
                    last: None
                }
            ]
        );
        assert_eq!(s.reading(), "runs 1, latest, 10 to 20 or 40 on");
        let s: Selector = "label:journal,host:vm".parse().unwrap();
        assert_eq!(s.reading(), "every run with label journal and host vm");
        assert!(!s.mixes());
        let s: Selector = "42".parse().unwrap();
        assert_eq!(s.reading(), "run 42");
        let s: Selector = "id:3..5".parse().unwrap();
        assert_eq!(s.reading(), "runs 3 to 5");
        let s: Selector = "uuid:4f0c".parse().unwrap();
        assert_eq!(s.reading(), "run uuid 4f0c");
    }

    #[test]
    fn a_selector_of_both_says_how_it_is_read() {
        for (text, reading) in [
            ("3,label:journal", "run 3 with label journal"),
            ("2,journal", "run 2 with label journal"),
            (
                "3..7,label:journal,tag:os=dr9",
                "runs 3 to 7 with label journal and tag os=dr9",
            ),
            ("42,engine:posix", "run 42 with engine posix"),
            (
                "latest,host:vm,fs:ext4",
                "run latest with host vm and fs ext4",
            ),
        ] {
            let s: Selector = text.parse().unwrap();
            assert!(s.mixes(), "{text}");
            assert_eq!(s.reading(), reading, "{text}");
        }
    }

    #[test]
    fn ranges_leave_words_and_uuid_prefixes_alone() {
        // a word with dots is a label; four digits with a leading zero are a UUID's start
        let s: Selector = "v1..2,release..rc".parse().unwrap();
        assert_eq!(s.bare, ["v1..2", "release..rc"]);
        assert!(s.ranges.is_empty());
        let s: Selector = "0910".parse().unwrap();
        assert_eq!(s.bare, ["0910"]);
        let s: Selector = "12345678".parse().unwrap();
        assert_eq!(s.refs, [RunRef::Id(12345678)]);
        for (bad, why) in [
            ("7..3", "its ids go up"),
            ("..7", "its first id"),
            ("3..x", "expected two run ids"),
            ("3...7", "expected two run ids"),
            ("0910..0920", "a range is of ids"),
            ("1..99999999999999999999", "too large"),
            ("id:5..2", "its ids go up"),
        ] {
            let e = bad.parse::<Selector>().unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn bad_terms_say_why() {
        for bad in [
            "",
            "colour:red",
            "tag:noequals",
            "engine:lib aio",
            "iodepth:0",
            "iodepth:deep",
            "label:",
            "a,,b",
            "uuid:zz",
        ] {
            assert!(bad.parse::<Selector>().is_err(), "{bad}");
        }
        // the values a key takes come from the enum
        let e = "cache:warm".parse::<Selector>().unwrap_err().to_string();
        assert!(e.contains("flush|buffered|direct|sync"), "{e}");
    }

    /// An imported run keeps another tool's engine under its own name, so that name
    /// selects it; ours read in any case, as they did.
    #[test]
    fn an_engine_is_any_name_a_run_may_carry() {
        let s: Selector = "engine:libaio".parse().unwrap();
        assert_eq!(s.filter.engine.map(EngineKind::name), Some("libaio"));
        let s: Selector = "engine:MMAP".parse().unwrap();
        assert_eq!(s.filter.engine, Some(EngineKind::Mmap));
    }
}
