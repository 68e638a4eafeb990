//! What to select: filters for `history`, references to one run for `show`.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::model::{RunStatus, TestKind};

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
    pub limit: Option<usize>,
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
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
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
        assert!("latest~x".parse::<RunRef>().is_err());
        assert!("abc".parse::<RunRef>().is_err());
        assert!("nope!".parse::<RunRef>().is_err());
        assert!("".parse::<RunRef>().is_err());
        assert!("99999999999999999999999".parse::<RunRef>().is_err());
    }
}
