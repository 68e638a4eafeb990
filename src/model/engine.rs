//! The name of the system interface a figure's I/O went through. It is a name, not a
//! list of ours: which engines this build has, and what each can do, is the bench's
//! registry (`bench::engine`); a run imported from another tool keeps the engine that
//! tool named (fio's `libaio`), never one of ours it resembles.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An engine, by the name runs store (`posix`, `uring`, `libaio`, …). Compared, hashed
/// and stored by its name; ordered as [`EngineKind::LISTED`] says.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EngineKind(&'static str);

// Named as the enum's variants were, so that code naming an engine reads as before;
// each is a value, and deciding by it is the bench's registry's job (tests/layering.rs).
#[allow(non_upper_case_globals)]
impl EngineKind {
    pub const Posix: EngineKind = EngineKind("posix");
    pub const Pread: EngineKind = EngineKind("pread");
    pub const Mmap: EngineKind = EngineKind("mmap");
    pub const Stdio: EngineKind = EngineKind("stdio");
    pub const Uring: EngineKind = EngineKind("uring");
}

impl EngineKind {
    /// The order engines are listed in wherever a run's figures are (tables, exports,
    /// the store's reading order): the order these were added in, which every run
    /// recorded so far follows. Any other engine, a later one of ours or an imported
    /// one, comes after them, by name.
    pub const LISTED: [EngineKind; 5] = [
        EngineKind::Posix,
        EngineKind::Pread,
        EngineKind::Mmap,
        EngineKind::Stdio,
        EngineKind::Uring,
    ];

    /// The longest name kept: fio's are a dozen characters at most.
    pub const MAX_NAME: usize = 64;

    /// An engine whose name is known when the program is built: one of ours, in its
    /// own file under `bench::engine`.
    pub const fn new(name: &'static str) -> EngineKind {
        EngineKind(name)
    }

    /// The engine named `name`, as read from a store, a file or a selector: any
    /// printable name without spaces, up to [`EngineKind::MAX_NAME`] bytes.
    pub fn named(name: &str) -> Result<EngineKind, String> {
        let valid = !name.is_empty()
            && name.len() <= Self::MAX_NAME
            && name.bytes().all(|b| b.is_ascii_graphic());
        if !valid {
            return Err(format!(
                "'{name}' is not an engine's name (printable, no spaces, at most {} bytes)",
                Self::MAX_NAME
            ));
        }
        if let Some(&listed) = Self::LISTED.iter().find(|e| e.0 == name) {
            return Ok(listed);
        }
        Ok(EngineKind(intern(name)))
    }

    pub fn name(self) -> &'static str {
        self.0
    }

    /// Where the engine falls in [`EngineKind::LISTED`]'s order, then by name.
    fn rank(self) -> (usize, &'static str) {
        let listed = Self::LISTED.iter().position(|e| e.0 == self.0);
        (listed.unwrap_or(Self::LISTED.len()), self.0)
    }
}

/// The one copy of `name` kept for the rest of the process, so that an engine stays
/// `Copy`. Each distinct name is kept once: a store or an import names a handful.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&kept) = names.get(name) {
        return kept;
    }
    let kept: &'static str = Box::leak(name.into());
    names.insert(kept);
    kept
}

/// A blank for a store to decode into, and a run's engine when it does not say.
impl Default for EngineKind {
    fn default() -> Self {
        EngineKind::Posix
    }
}

impl Ord for EngineKind {
    fn cmp(&self, other: &Self) -> Ordering {
        // the same name, most often the same listed one (`named` hands those out): a
        // walk of the history sorts each run's results, comparing their engines
        if std::ptr::eq(self.0, other.0) {
            return Ordering::Equal;
        }
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for EngineKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for EngineKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for EngineKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor)
    }
}

/// An engine read from its name as the deserializer lends it, not copied into a
/// `String` first: a store's walk reads one a result.
struct NameVisitor;

impl serde::de::Visitor<'_> for NameVisitor {
    type Value = EngineKind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<EngineKind, E> {
        EngineKind::named(name).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_keep_the_order_runs_were_listed_in_and_others_follow_by_name() {
        let libaio = EngineKind::named("libaio").unwrap();
        let posixaio = EngineKind::named("posixaio").unwrap();
        let mut all = [
            posixaio,
            EngineKind::Uring,
            libaio,
            EngineKind::Mmap,
            EngineKind::Posix,
            EngineKind::Stdio,
            EngineKind::Pread,
        ];
        all.sort();
        let names: Vec<&str> = all.iter().map(|e| e.name()).collect();
        assert_eq!(
            names,
            [
                "posix", "pread", "mmap", "stdio", "uring", "libaio", "posixaio"
            ]
        );
    }

    #[test]
    fn a_name_reads_back_as_the_engine_it_names() {
        assert_eq!(EngineKind::named("uring"), Ok(EngineKind::Uring));
        let libaio = EngineKind::named("libaio").unwrap();
        assert_eq!(libaio.name(), "libaio");
        assert_eq!(EngineKind::named("libaio"), Ok(libaio));
        let json = serde_json::to_string(&[EngineKind::Mmap, libaio]).unwrap();
        assert_eq!(json, r#"["mmap","libaio"]"#);
        let back: Vec<EngineKind> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, [EngineKind::Mmap, libaio]);
    }

    #[test]
    fn a_name_with_spaces_or_nothing_in_it_is_refused() {
        for bad in ["", "lib aio", "posix\n", &"x".repeat(65)] {
            assert!(EngineKind::named(bad).is_err(), "{bad:?}");
        }
        assert!(serde_json::from_str::<EngineKind>(r#""""#).is_err());
    }
}
