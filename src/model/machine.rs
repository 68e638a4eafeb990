//! Where a run ran: facts about the machine, its state at an instant, and the
//! filesystem under the measured directory.

use serde::{Deserialize, Serialize};

/// Facts about the machine. Filled by host probing; unknown values stay `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: Option<String>,
    /// OS name, e.g. "Debian GNU/Linux" (os-release `NAME`).
    pub os: Option<String>,
    /// OS version, e.g. "12" (os-release `VERSION_ID`).
    pub os_version: Option<String>,
    /// Kernel release, e.g. "6.12.0-1-amd64".
    pub kernel: Option<String>,
    pub kernel_cmdline: Option<String>,
    /// Changes at every boot: tells runs on one boot from runs across a reboot.
    pub boot_id: Option<String>,
    pub arch: Option<String>,
    pub cpu_model: Option<String>,
    /// Logical CPUs online.
    pub cpus: Option<u32>,
    /// cpufreq scaling governor of CPU 0, e.g. "performance".
    pub cpu_governor: Option<String>,
    pub memory_bytes: Option<u64>,
    pub page_size: Option<u64>,
    /// Dirty-page writeback settings (/proc/sys/vm/dirty_*).
    pub dirty_ratio: Option<u64>,
    pub dirty_background_ratio: Option<u64>,
    pub dirty_bytes: Option<u64>,
    pub dirty_background_bytes: Option<u64>,
    pub dirty_expire_centisecs: Option<u64>,
    pub dirty_writeback_centisecs: Option<u64>,
    /// Hypervisor when detectable, e.g. "kvm".
    pub virtualization: Option<String>,
    /// Container runtime when detectable, e.g. "docker".
    pub container: Option<String>,
}

/// The machine's state at one instant: what shifts a whole run's level (other load,
/// writeback left over from earlier work, memory pressure). Unknown values are `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// Load averages over 1 and 5 minutes (/proc/loadavg).
    pub load_1m: Option<f64>,
    pub load_5m: Option<f64>,
    /// Page cache waiting to be written (/proc/meminfo `Dirty`), in bytes.
    pub dirty_bytes: Option<u64>,
    /// Being written back right now (/proc/meminfo `Writeback`), in bytes.
    pub writeback_bytes: Option<u64>,
    /// /proc/meminfo `MemFree` and `MemAvailable`, in bytes.
    pub mem_free_bytes: Option<u64>,
    pub mem_available_bytes: Option<u64>,
    /// Share of the last 10 s in which some task waited for I/O or for a CPU
    /// (/proc/pressure/io and /proc/pressure/cpu, `some avg10`), in percent.
    pub io_pressure_pct: Option<f64>,
    pub cpu_pressure_pct: Option<f64>,
}

/// Facts about the filesystem under the measured directory; unknown values are `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Filesystem {
    pub mount_point: Option<String>,
    #[serde(rename = "type")]
    pub fs_type: Option<String>,
    /// The mount source, e.g. "/dev/nvme0n1p2".
    pub device: Option<String>,
    /// Per-mount and superblock options, comma-separated, as the mount table says.
    pub mount_options: Option<String>,
    pub block_size: Option<u64>,
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// The block device behind the filesystem, after following partitions,
    /// device-mapper and loop devices, e.g. "nvme0n1".
    pub block_device: Option<String>,
    pub device_model: Option<String>,
    pub rotational: Option<bool>,
    /// The active I/O scheduler, e.g. "mq-deadline" or "none".
    pub scheduler: Option<String>,
    pub device_size: Option<u64>,
}
