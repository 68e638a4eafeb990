//! Host and filesystem facts as label/value pairs, for `info` and `show`. The labels
//! and values come from [`crate::facts`]; here is which facts show, in what order,
//! and the few that share a line.

use super::listing::Listing;
use crate::facts::Fact;
use crate::model::{Filesystem, Host};

/// The host's lines: one fact each, but for the OS with its version and the
/// writeback settings in pairs.
pub fn host_pairs(h: &Host) -> Vec<(&'static str, String)> {
    let fs = Filesystem::default();
    let show = |fact: Fact| fact.value(h, &fs).shown();
    let pair = |a: Fact, b: Fact| format!("{} / {}", show(a), show(b));
    let os = match (&h.os, &h.os_version) {
        (Some(os), Some(v)) => format!("{os} {v}"),
        (Some(os), None) => os.clone(),
        _ => "-".into(),
    };
    let one = |fact: Fact| (fact.label(), show(fact));
    vec![
        one(Fact::Hostname),
        (Fact::Os.label(), os),
        one(Fact::Kernel),
        one(Fact::KernelCmdline),
        one(Fact::BootId),
        one(Fact::Arch),
        one(Fact::CpuModel),
        one(Fact::Cpus),
        one(Fact::CpuGovernor),
        one(Fact::MemoryBytes),
        one(Fact::PageSize),
        (
            "dirty ratio / background",
            pair(Fact::DirtyRatio, Fact::DirtyBackgroundRatio),
        ),
        (
            "dirty bytes / background",
            pair(Fact::DirtyBytes, Fact::DirtyBackgroundBytes),
        ),
        (
            "dirty expire / writeback",
            pair(Fact::DirtyExpireCentisecs, Fact::DirtyWritebackCentisecs) + " centisecs",
        ),
        one(Fact::Virtualization),
        one(Fact::Container),
    ]
}

/// The filesystem's lines: every filesystem fact, in the order a run records them.
pub fn filesystem_pairs(f: &Filesystem) -> Vec<(&'static str, String)> {
    let host = Host::default();
    Fact::ALL
        .into_iter()
        .filter(|fact| fact.of_filesystem())
        .map(|fact| (fact.label(), fact.value(&host, f).shown()))
        .collect()
}

/// Both, as a two-column listing with a section column.
pub fn environment_listing(host: &Host, fs: &Filesystem) -> Listing {
    let mut listing = Listing::new(&["", "fact", "value"]).wrapped(110);
    for (section, pairs) in [
        ("host", host_pairs(host)),
        ("filesystem", filesystem_pairs(fs)),
    ] {
        for (i, (fact, value)) in pairs.into_iter().enumerate() {
            let section = if i == 0 { section } else { "" };
            listing.push(vec![section.into(), fact.into(), value]);
        }
    }
    listing
}
