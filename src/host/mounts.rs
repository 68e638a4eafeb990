//! The mount table as `/proc/self/mountinfo` states it (format in proc(5)), and which
//! mount a path lives on. Pure functions over text, so tests can feed them fixtures.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use super::blockdev::Dev;

/// One line of mountinfo, with the fields the probes use.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MountEntry {
    /// Device number of the filesystem (`major:minor`); major 0 means no block device.
    pub dev: Dev,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub source: String,
    /// Per-mount options, then superblock options, without repeats.
    pub options: String,
}

/// Parses every well-formed line; a line the kernel never writes is skipped, not fatal.
pub(super) fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<MountEntry> {
    let mut fields = line.split(' ');
    let (_id, _parent) = (fields.next()?, fields.next()?);
    let (major, minor) = fields.next()?.split_once(':')?;
    let dev = (major.parse().ok()?, minor.parse().ok()?);
    let _root = fields.next()?;
    let mount_point = PathBuf::from(OsString::from_vec(unescape(fields.next()?)));
    let mount_options = fields.next()?;
    // optional fields (shared:N, master:N, ...) are as many as the kernel likes, up to "-"
    fields.find(|f| *f == "-")?;
    let fs_type = fields.next()?;
    let source = unescape(fields.next()?);
    let super_options = fields.next().unwrap_or("");
    Some(MountEntry {
        dev,
        mount_point,
        fs_type: String::from_utf8_lossy(&unescape(fs_type)).into_owned(),
        source: String::from_utf8_lossy(&source).into_owned(),
        options: merge_options(mount_options, super_options),
    })
}

/// Undoes the kernel's `\ooo` octal escapes (space, tab, newline, backslash).
fn unescape(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal {
            Some(d) if bytes[i] == b'\\' => {
                let value = d.iter().fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 4;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

fn merge_options(mount: &str, superblock: &str) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for option in mount.split(',').chain(superblock.split(',')) {
        if !option.is_empty() && !seen.contains(&option) {
            seen.push(option);
        }
    }
    seen.join(",")
}

/// The mount whose mount point is the longest component-wise prefix of `path`
/// (`/mnt/a` holds `/mnt/a/x`, not `/mnt/ab`). Among mounts on the same point the
/// last one listed was mounted last and hides the others.
pub(super) fn find_mount<'a>(entries: &'a [MountEntry], path: &Path) -> Option<&'a MountEntry> {
    let mut best: Option<(usize, &MountEntry)> = None;
    for entry in entries.iter().filter(|e| path.starts_with(&e.mount_point)) {
        let depth = entry.mount_point.components().count();
        if best.is_none_or(|(d, _)| depth >= d) {
            best = Some((depth, entry));
        }
    }
    best.map(|(_, entry)| entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Vec<MountEntry> {
        parse_mountinfo(include_str!("testdata/mountinfo.txt"))
    }

    fn mount_of(entries: &[MountEntry], path: &str) -> (String, String) {
        let m = find_mount(entries, Path::new(path)).expect("a mount");
        (m.mount_point.display().to_string(), m.source.clone())
    }

    #[test]
    fn parses_every_fixture_line() {
        let entries = fixture();
        assert_eq!(entries.len(), 11);
        assert_eq!(
            entries[0],
            MountEntry {
                dev: (8, 2),
                mount_point: PathBuf::from("/"),
                fs_type: "ext4".into(),
                source: "/dev/sda2".into(),
                options: "rw,relatime,errors=remount-ro".into(),
            }
        );
    }

    #[test]
    fn optional_fields_and_escapes() {
        let entries = fixture();
        let spaced = &entries[7];
        assert_eq!(spaced.mount_point, Path::new("/mnt/my files"));
        assert_eq!(spaced.fs_type, "ext4");
        assert_eq!(spaced.options, "rw,nosuid,relatime,errors=remount-ro");
        assert_eq!(
            entries[10].mount_point,
            Path::new("/tmp/back\\slash\ttab\nnl")
        );
        assert_eq!(entries[10].dev, (0, 50));
    }

    #[test]
    fn pseudo_overlay_and_loop_mounts() {
        let entries = fixture();
        assert_eq!(
            (entries[3].fs_type.as_str(), entries[3].dev),
            ("tmpfs", (0, 26))
        );
        let overlay = &entries[8];
        assert_eq!(
            (overlay.fs_type.as_str(), overlay.source.as_str()),
            ("overlay", "overlay")
        );
        assert!(
            overlay
                .options
                .starts_with("rw,relatime,lowerdir=/var/lib/docker/")
        );
        assert_eq!(
            (entries[9].source.as_str(), entries[9].dev),
            ("/dev/loop0", (7, 0))
        );
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let text = "garbage\n1 2 x:y / / rw - ext4 /dev/a rw\n1 2 8:1 / / rw no-dash\n";
        assert!(parse_mountinfo(text).is_empty());
    }

    #[test]
    fn longest_component_prefix_wins() {
        let entries = fixture();
        assert_eq!(mount_of(&entries, "/"), ("/".into(), "/dev/sda2".into()));
        assert_eq!(
            mount_of(&entries, "/home/u"),
            ("/".into(), "/dev/sda2".into())
        );
        assert_eq!(
            mount_of(&entries, "/mnt/ab/x"),
            ("/mnt/ab".into(), "/dev/sdc1".into())
        );
        assert_eq!(
            mount_of(&entries, "/mnt/abc"),
            ("/".into(), "/dev/sda2".into())
        );
        assert_eq!(mount_of(&entries, "/tmp/x/y").0, "/tmp");
        assert_eq!(mount_of(&entries, "/mnt/my files/doc").0, "/mnt/my files");
    }

    #[test]
    fn the_last_of_an_over_mount_wins() {
        let entries = fixture();
        let m = find_mount(&entries, Path::new("/mnt/a/x")).expect("a mount");
        assert_eq!((m.dev, m.fs_type.as_str()), ((8, 2), "ext4"));
    }
}
