//! The host and filesystem facts a run records, named once. A fact has three
//! spellings, each meaning the same thing: its column (`fs_type`: the field of
//! [`Filesystem`], the CSV header), its JSON path (`filesystem.type`: what docs/formats.md's
//! JSON output and `compare`'s environment diff say) and its label (`type`, under the
//! filesystem heading of `show` and `info`). Users pick which facts they show and in
//! what order; the names and values come from here.

use crate::model::{ClientHost, Filesystem, Host};
use crate::units::ByteSize;

/// One recorded fact about the host or the filesystem under the measured directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fact {
    Hostname,
    Os,
    OsVersion,
    Kernel,
    KernelCmdline,
    BootId,
    Arch,
    CpuModel,
    Cpus,
    CpuGovernor,
    MemoryBytes,
    PageSize,
    DirtyRatio,
    DirtyBackgroundRatio,
    DirtyBytes,
    DirtyBackgroundBytes,
    DirtyExpireCentisecs,
    DirtyWritebackCentisecs,
    Virtualization,
    Container,
    MountPoint,
    FsType,
    Device,
    MountOptions,
    BlockSize,
    TotalBytes,
    FreeBytes,
    BlockDevice,
    DeviceModel,
    Rotational,
    Scheduler,
    DeviceSize,
}

/// A fact's value as recorded; `None` for what the probe could not tell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FactValue<'a> {
    Text(Option<&'a str>),
    Count(Option<u64>),
    Bytes(Option<u64>),
    Flag(Option<bool>),
}

impl Fact {
    /// Every fact, host first, each in the order of its struct (and of docs/formats.md's JSON).
    pub const ALL: [Fact; 32] = [
        Fact::Hostname,
        Fact::Os,
        Fact::OsVersion,
        Fact::Kernel,
        Fact::KernelCmdline,
        Fact::BootId,
        Fact::Arch,
        Fact::CpuModel,
        Fact::Cpus,
        Fact::CpuGovernor,
        Fact::MemoryBytes,
        Fact::PageSize,
        Fact::DirtyRatio,
        Fact::DirtyBackgroundRatio,
        Fact::DirtyBytes,
        Fact::DirtyBackgroundBytes,
        Fact::DirtyExpireCentisecs,
        Fact::DirtyWritebackCentisecs,
        Fact::Virtualization,
        Fact::Container,
        Fact::MountPoint,
        Fact::FsType,
        Fact::Device,
        Fact::MountOptions,
        Fact::BlockSize,
        Fact::TotalBytes,
        Fact::FreeBytes,
        Fact::BlockDevice,
        Fact::DeviceModel,
        Fact::Rotational,
        Fact::Scheduler,
        Fact::DeviceSize,
    ];

    /// Whether the fact is about the filesystem (else about the host).
    pub fn of_filesystem(self) -> bool {
        matches!(
            self,
            Fact::MountPoint
                | Fact::FsType
                | Fact::Device
                | Fact::MountOptions
                | Fact::BlockSize
                | Fact::TotalBytes
                | Fact::FreeBytes
                | Fact::BlockDevice
                | Fact::DeviceModel
                | Fact::Rotational
                | Fact::Scheduler
                | Fact::DeviceSize
        )
    }

    /// The field's name, as CSV headers spell it: `hostname`, `fs_type`.
    pub const fn column(self) -> &'static str {
        match self {
            Fact::Hostname => "hostname",
            Fact::Os => "os",
            Fact::OsVersion => "os_version",
            Fact::Kernel => "kernel",
            Fact::KernelCmdline => "kernel_cmdline",
            Fact::BootId => "boot_id",
            Fact::Arch => "arch",
            Fact::CpuModel => "cpu_model",
            Fact::Cpus => "cpus",
            Fact::CpuGovernor => "cpu_governor",
            Fact::MemoryBytes => "memory_bytes",
            Fact::PageSize => "page_size",
            Fact::DirtyRatio => "dirty_ratio",
            Fact::DirtyBackgroundRatio => "dirty_background_ratio",
            Fact::DirtyBytes => "dirty_bytes",
            Fact::DirtyBackgroundBytes => "dirty_background_bytes",
            Fact::DirtyExpireCentisecs => "dirty_expire_centisecs",
            Fact::DirtyWritebackCentisecs => "dirty_writeback_centisecs",
            Fact::Virtualization => "virtualization",
            Fact::Container => "container",
            Fact::MountPoint => "mount_point",
            Fact::FsType => "fs_type",
            Fact::Device => "device",
            Fact::MountOptions => "mount_options",
            Fact::BlockSize => "block_size",
            Fact::TotalBytes => "total_bytes",
            Fact::FreeBytes => "free_bytes",
            Fact::BlockDevice => "block_device",
            Fact::DeviceModel => "device_model",
            Fact::Rotational => "rotational",
            Fact::Scheduler => "scheduler",
            Fact::DeviceSize => "device_size",
        }
    }

    /// The path in a run's JSON: `host.hostname`, `filesystem.type` (the one field
    /// JSON names differently, by serde's rename on [`Filesystem::fs_type`]).
    pub fn path(self) -> String {
        match self {
            Fact::FsType => "filesystem.type".into(),
            f if f.of_filesystem() => format!("filesystem.{}", f.column()),
            f => format!("host.{}", f.column()),
        }
    }

    /// The label `show` and `info` print beside the value.
    pub fn label(self) -> &'static str {
        match self {
            Fact::KernelCmdline => "kernel cmdline",
            Fact::BootId => "boot id",
            Fact::CpuModel => "cpu",
            Fact::CpuGovernor => "cpu governor",
            Fact::MemoryBytes => "memory",
            Fact::PageSize => "page size",
            Fact::MountPoint => "mount point",
            Fact::FsType => "type",
            // the mount table's word for it: a device, or a server's export
            Fact::Device => "source",
            Fact::MountOptions => "mount options",
            Fact::BlockSize => "block size",
            Fact::TotalBytes => "total",
            Fact::FreeBytes => "free",
            Fact::BlockDevice => "block device",
            Fact::DeviceModel => "device model",
            Fact::DeviceSize => "device size",
            f => f.column(),
        }
    }

    /// The fact's value in `host` or `fs`.
    pub fn value<'a>(self, host: &'a Host, fs: &'a Filesystem) -> FactValue<'a> {
        use FactValue::{Bytes, Count, Flag, Text};
        let (h, f) = (host, fs);
        match self {
            Fact::Hostname => Text(h.hostname.as_deref()),
            Fact::Os => Text(h.os.as_deref()),
            Fact::OsVersion => Text(h.os_version.as_deref()),
            Fact::Kernel => Text(h.kernel.as_deref()),
            Fact::KernelCmdline => Text(h.kernel_cmdline.as_deref()),
            Fact::BootId => Text(h.boot_id.as_deref()),
            Fact::Arch => Text(h.arch.as_deref()),
            Fact::CpuModel => Text(h.cpu_model.as_deref()),
            Fact::Cpus => Count(h.cpus.map(u64::from)),
            Fact::CpuGovernor => Text(h.cpu_governor.as_deref()),
            Fact::MemoryBytes => Bytes(h.memory_bytes),
            Fact::PageSize => Count(h.page_size),
            Fact::DirtyRatio => Count(h.dirty_ratio),
            Fact::DirtyBackgroundRatio => Count(h.dirty_background_ratio),
            Fact::DirtyBytes => Count(h.dirty_bytes),
            Fact::DirtyBackgroundBytes => Count(h.dirty_background_bytes),
            Fact::DirtyExpireCentisecs => Count(h.dirty_expire_centisecs),
            Fact::DirtyWritebackCentisecs => Count(h.dirty_writeback_centisecs),
            Fact::Virtualization => Text(h.virtualization.as_deref()),
            Fact::Container => Text(h.container.as_deref()),
            Fact::MountPoint => Text(f.mount_point.as_deref()),
            Fact::FsType => Text(f.fs_type.as_deref()),
            Fact::Device => Text(f.device.as_deref()),
            Fact::MountOptions => Text(f.mount_options.as_deref()),
            Fact::BlockSize => Count(f.block_size),
            Fact::TotalBytes => Bytes(f.total_bytes),
            Fact::FreeBytes => Bytes(f.free_bytes),
            Fact::BlockDevice => Text(f.block_device.as_deref()),
            Fact::DeviceModel => Text(f.device_model.as_deref()),
            Fact::Rotational => Flag(f.rotational),
            Fact::Scheduler => Text(f.scheduler.as_deref()),
            Fact::DeviceSize => Bytes(f.device_size),
        }
    }
}

impl FactValue<'_> {
    /// The value as data: text as recorded, numbers in decimal, `true`/`false`.
    pub fn raw(self) -> Option<String> {
        match self {
            FactValue::Text(v) => v.map(str::to_string),
            FactValue::Count(v) | FactValue::Bytes(v) => v.map(|n| n.to_string()),
            FactValue::Flag(v) => v.map(|b| b.to_string()),
        }
    }

    /// The value for a person: sizes with their unit and exact bytes, `yes`/`no`,
    /// `-` for unknown.
    pub fn shown(self) -> String {
        match self {
            FactValue::Bytes(Some(n)) => format!("{} ({n} bytes)", ByteSize(n)),
            FactValue::Flag(Some(b)) => if b { "yes" } else { "no" }.into(),
            v => v.raw().unwrap_or_else(|| "-".into()),
        }
    }
}

/// The facts in which hosts differ, as warnings name them: each host that differs
/// from the first in its kernel, OS or filesystem ("vm-b: kernel 6.1.0 (vm-a:
/// 6.12.0)"). Empty when all agree.
pub fn host_differences(hosts: &[ClientHost]) -> Vec<String> {
    const FACTS: [Fact; 6] = [
        Fact::Os,
        Fact::OsVersion,
        Fact::Kernel,
        Fact::FsType,
        Fact::Device,
        Fact::MountOptions,
    ];
    let Some((first, others)) = hosts.split_first() else {
        return Vec::new();
    };
    let name = |h: &ClientHost| h.host.hostname.clone().unwrap_or_else(|| "?".into());
    let value = |fact: Fact, h: &ClientHost| fact.value(&h.host, &h.filesystem).shown();
    others
        .iter()
        .filter_map(|other| {
            let differ: Vec<String> = (FACTS.into_iter())
                .filter(|&f| value(f, other) != value(f, first))
                .map(|f| {
                    format!(
                        "{} {} ({}: {})",
                        f.label(),
                        value(f, other),
                        name(first),
                        value(f, first)
                    )
                })
                .collect();
            (!differ.is_empty()).then(|| format!("{}: {}", name(other), differ.join(", ")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(host: &str, fs_type: &str, kernel: &str) -> ClientHost {
        ClientHost {
            host: Host {
                hostname: Some(host.into()),
                kernel: Some(kernel.into()),
                ..Host::default()
            },
            filesystem: Filesystem {
                fs_type: Some(fs_type.into()),
                ..Filesystem::default()
            },
        }
    }

    #[test]
    fn hosts_that_differ_in_kernel_or_filesystem_are_named() {
        let same = [facts("a", "nfs4", "6.1"), facts("b", "nfs4", "6.1")];
        assert!(host_differences(&same).is_empty());
        let differ = [
            facts("a", "nfs4", "6.1"),
            facts("b", "nfs4", "6.12"),
            facts("c", "ext4", "6.1"),
        ];
        assert_eq!(
            host_differences(&differ),
            ["b: kernel 6.12 (a: 6.1)", "c: type ext4 (a: nfs4)"]
        );
    }

    #[test]
    fn three_spellings_of_one_fact() {
        assert_eq!(Fact::FsType.column(), "fs_type");
        assert_eq!(Fact::FsType.path(), "filesystem.type");
        assert_eq!(Fact::FsType.label(), "type");
        assert_eq!(Fact::Device.path(), "filesystem.device");
        assert_eq!(Fact::Device.label(), "source");
        assert_eq!(Fact::Kernel.path(), "host.kernel");
        assert_eq!(Fact::KernelCmdline.label(), "kernel cmdline");
    }

    #[test]
    fn every_json_path_is_a_field_of_a_serialized_run() {
        let host = serde_json::to_value(Host::default()).unwrap();
        let fs = serde_json::to_value(Filesystem::default()).unwrap();
        for fact in Fact::ALL {
            let path = fact.path();
            let (section, field) = path.split_once('.').unwrap();
            let object = if section == "host" { &host } else { &fs };
            assert!(object.get(field).is_some(), "{path}");
        }
    }

    #[test]
    fn values_raw_and_shown() {
        let host = Host {
            memory_bytes: Some(2048),
            ..Host::default()
        };
        let fs = Filesystem {
            rotational: Some(false),
            ..Filesystem::default()
        };
        let memory = Fact::MemoryBytes.value(&host, &fs);
        assert_eq!(memory.raw().as_deref(), Some("2048"));
        assert_eq!(memory.shown(), "2 KiB (2048 bytes)");
        assert_eq!(
            Fact::Rotational.value(&host, &fs).raw().as_deref(),
            Some("false")
        );
        assert_eq!(Fact::Rotational.value(&host, &fs).shown(), "no");
        assert_eq!(Fact::Kernel.value(&host, &fs).shown(), "-");
    }
}
