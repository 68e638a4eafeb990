//! Host and filesystem facts as label/value pairs, for `info` and `show`.

use super::listing::Listing;
use crate::model::{Filesystem, Host};
use crate::units::ByteSize;

fn text(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "-".into())
}

fn number(v: Option<u64>) -> String {
    v.map_or("-".into(), |n| n.to_string())
}

fn bytes(v: Option<u64>) -> String {
    v.map_or("-".into(), |n| format!("{} ({n} bytes)", ByteSize(n)))
}

pub fn host_pairs(h: &Host) -> Vec<(&'static str, String)> {
    let os = match (&h.os, &h.os_version) {
        (Some(os), Some(v)) => format!("{os} {v}"),
        (Some(os), None) => os.clone(),
        _ => "-".into(),
    };
    vec![
        ("hostname", text(&h.hostname)),
        ("os", os),
        ("kernel", text(&h.kernel)),
        ("kernel cmdline", text(&h.kernel_cmdline)),
        ("boot id", text(&h.boot_id)),
        ("arch", text(&h.arch)),
        ("cpu", text(&h.cpu_model)),
        ("cpus", h.cpus.map_or("-".into(), |n| n.to_string())),
        ("cpu governor", text(&h.cpu_governor)),
        ("memory", bytes(h.memory_bytes)),
        ("page size", number(h.page_size)),
        (
            "dirty ratio / background",
            format!(
                "{} / {}",
                number(h.dirty_ratio),
                number(h.dirty_background_ratio)
            ),
        ),
        (
            "dirty bytes / background",
            format!(
                "{} / {}",
                number(h.dirty_bytes),
                number(h.dirty_background_bytes)
            ),
        ),
        (
            "dirty expire / writeback",
            format!(
                "{} / {} centisecs",
                number(h.dirty_expire_centisecs),
                number(h.dirty_writeback_centisecs)
            ),
        ),
        ("virtualization", text(&h.virtualization)),
        ("container", text(&h.container)),
    ]
}

pub fn filesystem_pairs(f: &Filesystem) -> Vec<(&'static str, String)> {
    vec![
        ("mount point", text(&f.mount_point)),
        ("type", text(&f.fs_type)),
        ("source", text(&f.device)),
        ("mount options", text(&f.mount_options)),
        ("block size", number(f.block_size)),
        ("total", bytes(f.total_bytes)),
        ("free", bytes(f.free_bytes)),
        ("block device", text(&f.block_device)),
        ("device model", text(&f.device_model)),
        (
            "rotational",
            f.rotational
                .map_or("-".into(), |r| if r { "yes" } else { "no" }.into()),
        ),
        ("scheduler", text(&f.scheduler)),
        ("device size", bytes(f.device_size)),
    ]
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
