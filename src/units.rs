//! Sizes and rates: parsing `4k`/`32M`/`1G` (k = 1024) and printing them back the way
//! a storage engineer reads them; and counts of things in words (`1 run`, `2 runs`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A number of bytes: a file size or a record size.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ByteSize(pub u64);

/// Why a size given on the command line was not accepted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseSizeError {
    #[error(
        "invalid size '{0}': expected a number with an optional unit, e.g. 512, 4k, 64KiB, 32M, 1G"
    )]
    Invalid(String),
    #[error("invalid size '{0}': sizes must be greater than zero")]
    Zero(String),
    #[error("invalid size '{0}': too large")]
    TooLarge(String),
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
const TIB: u64 = 1024 * GIB;
const PIB: u64 = 1024 * TIB;
const EIB: u64 = 1024 * PIB;

impl ByteSize {
    pub fn bytes(self) -> u64 {
        self.0
    }

    /// Parses a size where a bare number means bytes (as in fio); units are binary.
    pub fn parse_bytes(text: &str) -> Result<Self, ParseSizeError> {
        Self::parse_with_bare_unit(text, 1)
    }

    /// Parses a size where a bare number means bytes, and nothing (0, `0k`) is one:
    /// the bytes of a file that may be empty.
    pub fn parse_bytes_or_none(text: &str) -> Result<Self, ParseSizeError> {
        match Self::parse_bytes(text) {
            Err(ParseSizeError::Zero(_)) => Ok(ByteSize(0)),
            other => other,
        }
    }

    /// Parses a size as iozone3 reads `-s` and `-r`: a bare number is KiB (`-r 512` is
    /// 512 KiB), a unit as here (`4k`, `1g`).
    pub fn parse_kibibytes(text: &str) -> Result<Self, ParseSizeError> {
        Self::parse_with_bare_unit(text, KIB)
    }

    /// The size as a flag takes it, in the largest unit that holds it whole: `1g`,
    /// `512k`, `1000`.
    pub fn flag_text(self) -> String {
        match [(GIB, "g"), (MIB, "m"), (KIB, "k")]
            .into_iter()
            .find(|(unit, _)| self.0 >= *unit && self.0.is_multiple_of(*unit))
        {
            Some((unit, name)) => format!("{}{name}", self.0 / unit),
            None => self.0.to_string(),
        }
    }

    /// Parses a size where a bare number means MiB, the classic `iozone 32 512` form;
    /// a bare decimal too (`1.5` is 1,572,864 bytes, rounded to a byte).
    pub fn parse_megabytes(text: &str) -> Result<Self, ParseSizeError> {
        Self::parse_with_bare_unit(text, MIB)
    }

    fn parse_with_bare_unit(text: &str, bare_unit: u64) -> Result<Self, ParseSizeError> {
        let trimmed = text.trim();
        // The bare unit scales a number without a unit, a decimal one included.
        let config = parse_size::Config::new()
            .with_binary()
            .with_default_factor(bare_unit);
        let value = config.parse_size(trimmed).map_err(|e| match e {
            parse_size::Error::PosOverflow => ParseSizeError::TooLarge(text.to_string()),
            _ => ParseSizeError::Invalid(text.to_string()),
        })?;
        if value == 0 {
            return Err(ParseSizeError::Zero(text.to_string()));
        }
        Ok(ByteSize(value))
    }
}

impl FromStr for ByteSize {
    type Err = ParseSizeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse_bytes(s)
    }
}

impl fmt::Display for ByteSize {
    /// Exact multiples print as whole units (`64 KiB`, `32 MiB`); others keep one decimal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (unit, name) in [
            (EIB, "EiB"),
            (PIB, "PiB"),
            (TIB, "TiB"),
            (GIB, "GiB"),
            (MIB, "MiB"),
            (KIB, "KiB"),
        ] {
            if b >= unit {
                return if b.is_multiple_of(unit) {
                    write!(f, "{} {name}", b / unit)
                } else {
                    write!(f, "{:.1} {name}", b as f64 / unit as f64)
                };
            }
        }
        write!(f, "{b} B")
    }
}

/// The unit rates are shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RateUnit {
    /// bytes/s, like the classic table
    Bytes,
    /// KiB/s, like iozone3's kB/s
    KiB,
    /// MiB/s
    MiB,
    /// GiB/s
    GiB,
    /// the largest unit that keeps every figure of a table at 1 or more
    Auto,
}

impl RateUnit {
    /// Every unit, in the order `--help` lists them.
    pub const ALL: [RateUnit; 5] = [
        RateUnit::Bytes,
        RateUnit::KiB,
        RateUnit::MiB,
        RateUnit::GiB,
        RateUnit::Auto,
    ];

    /// The unit's name as `--units` takes it.
    pub fn name(self) -> &'static str {
        match self {
            RateUnit::Bytes => "B",
            RateUnit::KiB => "kB",
            RateUnit::MiB => "MiB",
            RateUnit::GiB => "GiB",
            RateUnit::Auto => "auto",
        }
    }

    /// Resolves `Auto` against the figures a table will show, so one table has one unit.
    pub fn resolve(self, rates: impl IntoIterator<Item = f64>) -> RateUnit {
        if self != RateUnit::Auto {
            return self;
        }
        match RateUnit::least_shown(rates) {
            s if s.is_infinite() => RateUnit::MiB,
            s if s >= GIB as f64 => RateUnit::GiB,
            s if s >= MIB as f64 => RateUnit::MiB,
            s if s >= KIB as f64 => RateUnit::KiB,
            _ => RateUnit::Bytes,
        }
    }

    /// The one figure [`RateUnit::resolve`] decides by: the smallest finite rate above
    /// zero, infinity when there is none. The least of some pages' least is the least
    /// of them all, so a listing read a page at a time keeps this, not its figures.
    pub fn least_shown(rates: impl IntoIterator<Item = f64>) -> f64 {
        rates
            .into_iter()
            .filter(|r| r.is_finite() && *r > 0.0)
            .fold(f64::INFINITY, f64::min)
    }

    pub fn label(self) -> &'static str {
        match self {
            RateUnit::Bytes => "B/s",
            RateUnit::KiB => "KiB/s",
            RateUnit::MiB | RateUnit::Auto => "MiB/s",
            RateUnit::GiB => "GiB/s",
        }
    }

    /// Bytes per second in one of this unit (`Auto` is MiB/s, as in `label`).
    pub fn bytes_per_sec(self) -> f64 {
        (match self {
            RateUnit::Bytes => 1,
            RateUnit::KiB => KIB,
            RateUnit::MiB | RateUnit::Auto => MIB,
            RateUnit::GiB => GIB,
        }) as f64
    }

    /// Formats bytes/s in this unit, without the unit label.
    pub fn format(self, bytes_per_sec: f64) -> String {
        match self {
            RateUnit::Bytes => format!("{:.0}", bytes_per_sec),
            RateUnit::KiB => format!("{:.0}", bytes_per_sec / KIB as f64),
            RateUnit::MiB | RateUnit::Auto => format!("{:.1}", bytes_per_sec / MIB as f64),
            RateUnit::GiB => format!("{:.2}", bytes_per_sec / GIB as f64),
        }
    }
}

/// A number of seconds as a duration ("60", "0.5"), as the environment variables that
/// tune waits give it; `None` for anything else (negative, not a number).
pub fn parse_seconds(text: &str) -> Option<std::time::Duration> {
    let seconds = text.trim().parse::<f64>().ok()?;
    std::time::Duration::try_from_secs_f64(seconds).ok()
}

/// Formats a duration in nanoseconds with a unit that keeps 3 significant figures.
pub fn format_nanos(ns: u64) -> String {
    match ns {
        n if n >= 1_000_000_000 => format!("{:.2} s", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{:.2} ms", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} µs", n as f64 / 1e3),
        n => format!("{n} ns"),
    }
}

/// `n` things in words, singular for one: `count(1, "run")` is `1 run`, `count(7,
/// "run")` is `7 runs`. For nouns whose plural adds an `s`, which are all a count here names.
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_parse_whole_and_fractional_never_negative() {
        use std::time::Duration;
        assert_eq!(parse_seconds("60"), Some(Duration::from_secs(60)));
        assert_eq!(parse_seconds(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("soon"), None);
    }

    #[test]
    fn the_least_of_pages_resolves_the_unit_every_figure_does() {
        let figures = [
            3.0e9,
            f64::NAN,
            0.0,
            -5.0,
            f64::INFINITY,
            2048.0,
            5e6,
            700.0,
            1.5 * GIB as f64,
        ];
        // every choice of figures, read in pages of two
        for chosen in 0..1u32 << figures.len() {
            let shown: Vec<f64> = (figures.iter().enumerate())
                .filter(|(at, _)| chosen & 1 << at != 0)
                .map(|(_, &f)| f)
                .collect();
            let least = shown
                .chunks(2)
                .map(|page| RateUnit::least_shown(page.iter().copied()))
                .fold(f64::INFINITY, f64::min);
            assert_eq!(
                RateUnit::Auto.resolve([least]),
                RateUnit::Auto.resolve(shown.iter().copied()),
                "{shown:?}"
            );
        }
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(0, "run"), "0 runs");
        assert_eq!(count(1, "run"), "1 run");
        assert_eq!(count(7, "warm-up round"), "7 warm-up rounds");
    }

    #[test]
    fn bare_numbers_in_flags_are_bytes() {
        assert_eq!(ByteSize::parse_bytes("512"), Ok(ByteSize(512)));
        assert_eq!(ByteSize::parse_bytes("4k"), Ok(ByteSize(4096)));
        assert_eq!(ByteSize::parse_bytes("64KiB"), Ok(ByteSize(65536)));
        assert_eq!(ByteSize::parse_bytes("32M"), Ok(ByteSize(32 * MIB)));
        assert_eq!(ByteSize::parse_bytes("1G"), Ok(ByteSize(GIB)));
        assert_eq!(ByteSize::parse_bytes("1KB"), Ok(ByteSize(1024)));
    }

    #[test]
    fn iozone3_sizes_are_kibibytes_and_flags_read_back() {
        assert_eq!(ByteSize::parse_kibibytes("512"), Ok(ByteSize(512 * KIB)));
        assert_eq!(ByteSize::parse_kibibytes("1g"), Ok(ByteSize(GIB)));
        for (bytes, text) in [
            (GIB, "1g"),
            (1536 * MIB, "1536m"),
            (512 * KIB, "512k"),
            (1000, "1000"),
        ] {
            assert_eq!(ByteSize(bytes).flag_text(), text);
            assert_eq!(ByteSize::parse_bytes(text), Ok(ByteSize(bytes)));
        }
    }

    #[test]
    fn bare_numbers_in_the_classic_form_are_megabytes() {
        assert_eq!(ByteSize::parse_megabytes("32"), Ok(ByteSize(32 * MIB)));
        assert_eq!(ByteSize::parse_megabytes("512k"), Ok(ByteSize(512 * KIB)));
        // decimals too: 1.5 MB, not 1.5 bytes rounded up to 2
        assert_eq!(ByteSize::parse_megabytes("1.5"), Ok(ByteSize(1_572_864)));
        assert_eq!(ByteSize::parse_megabytes("0.5"), Ok(ByteSize(MIB / 2)));
    }

    #[test]
    fn bad_sizes_say_what_was_wrong() {
        assert!(matches!(
            ByteSize::parse_bytes("32X"),
            Err(ParseSizeError::Invalid(_))
        ));
        assert!(matches!(
            ByteSize::parse_bytes("-5"),
            Err(ParseSizeError::Invalid(_))
        ));
        assert!(matches!(
            ByteSize::parse_bytes("0"),
            Err(ParseSizeError::Zero(_))
        ));
        assert!(matches!(
            ByteSize::parse_bytes(""),
            Err(ParseSizeError::Invalid(_))
        ));
        assert!(matches!(
            ByteSize::parse_megabytes("99999999999999999"),
            Err(ParseSizeError::TooLarge(_))
        ));
    }

    #[test]
    fn sizes_print_in_whole_units_when_exact() {
        assert_eq!(ByteSize(512).to_string(), "512 B");
        assert_eq!(ByteSize(65536).to_string(), "64 KiB");
        assert_eq!(ByteSize(32 * MIB).to_string(), "32 MiB");
        assert_eq!(ByteSize(1536).to_string(), "1.5 KiB");
        assert_eq!(ByteSize(1 << 60).to_string(), "1 EiB");
        assert_eq!(ByteSize(3 << 40).to_string(), "3 TiB");
    }

    #[test]
    fn auto_unit_keeps_the_smallest_figure_above_one() {
        let rates = [3.0 * MIB as f64, 2.0 * GIB as f64];
        assert_eq!(RateUnit::Auto.resolve(rates), RateUnit::MiB);
        assert_eq!(RateUnit::Auto.resolve([900.0]), RateUnit::Bytes);
        assert_eq!(RateUnit::KiB.resolve([900.0]), RateUnit::KiB);
        assert_eq!(RateUnit::MiB.format(1.5 * MIB as f64), "1.5");
        assert_eq!(RateUnit::Bytes.format(773910.4), "773910");
    }
}
