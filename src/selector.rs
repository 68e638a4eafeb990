//! The selector language: which runs a command means. A [`RunRef`] names one run
//! (`42`, `latest~2`, a UUID prefix), a [`RunFilter`] narrows by host, label, time and
//! so on, and a [`Selector`] is one side of a comparison written as comma-joined terms.
//! These are plain values parsed from the user's text; the store turns them into SQL.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::model::{CacheMode, EngineKind, RunStatus, TestKind};

/// Which runs `history` lists. Every field narrows the selection; `None` or empty
/// means no condition.
#[derive(Clone, Debug, Default)]
pub struct RunFilter {
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

/// One side of a comparison, as the user writes it: terms joined by commas, each a
/// run reference (`42`, `latest`, `latest~2`, `uuid:4f0c`), a condition (`label:DR9`,
/// `tag:os=dr9`, `host:bebox`, `fs:ext4`, `engine:mmap`, `cache:direct`), or a bare
/// word, which is a label (or, when no run has that label, a UUID prefix).
#[derive(Clone, Debug, Default)]
pub struct Selector {
    pub text: String,
    pub refs: Vec<RunRef>,
    pub bare: Vec<String>,
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
            match term.parse::<RunRef>() {
                Ok(r @ (RunRef::Id(_) | RunRef::Latest(_))) => self.refs.push(r),
                _ if term.is_empty() => return Err(bad("empty")),
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
            "engine" => {
                f.engine = Some(
                    <EngineKind as clap::ValueEnum>::from_str(value, true)
                        .map_err(|_| bad(&expected::<EngineKind>("engine")))?,
                )
            }
            "cache" => {
                f.cache = Some(
                    <CacheMode as clap::ValueEnum>::from_str(value, true)
                        .map_err(|_| bad(&expected::<CacheMode>("cache")))?,
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
            "id" | "run" => self
                .refs
                .push(value.parse::<RunRef>().map_err(|e| bad(&e))?),
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
}

/// `expected engine:posix|pread|…`: the values a key takes, as the enum names them.
fn expected<T: clap::ValueEnum>(key: &str) -> String {
    let names: Vec<String> = T::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
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
    fn bad_terms_say_why() {
        for bad in [
            "",
            "colour:red",
            "tag:noequals",
            "engine:aio",
            "iodepth:0",
            "iodepth:deep",
            "label:",
            "a,,b",
            "uuid:zz",
        ] {
            assert!(bad.parse::<Selector>().is_err(), "{bad}");
        }
        // the values a key takes come from the enum: every engine, uring too
        let e = "engine:aio".parse::<Selector>().unwrap_err().to_string();
        assert!(e.contains("posix|pread|mmap|stdio|uring"), "{e}");
    }
}
