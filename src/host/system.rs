//! Host facts Linux states in /proc, /sys and /etc: the OS, CPUs, memory, writeback
//! settings, hypervisor and container. Parsers are pure; `probe` reads under a root.

use std::fs;
use std::path::Path;

use super::{at, read_trimmed};
use crate::model::Host;

/// Fills what Linux can tell beyond uname; every field it cannot read stays `None`.
pub(super) fn probe(root: &Path, host: &mut Host) {
    let os_release = fs::read_to_string(at(root, "/etc/os-release"))
        .or_else(|_| fs::read_to_string(at(root, "/usr/lib/os-release")))
        .unwrap_or_default();
    host.os = os_release_value(&os_release, "NAME");
    host.os_version = os_release_value(&os_release, "VERSION_ID");
    host.kernel_cmdline = read_trimmed(&at(root, "/proc/cmdline"));
    host.boot_id = read_trimmed(&at(root, "/proc/sys/kernel/random/boot_id"));
    let cpuinfo = fs::read_to_string(at(root, "/proc/cpuinfo")).unwrap_or_default();
    host.cpu_model = cpu_model(&cpuinfo);
    host.cpus = read_trimmed(&at(root, "/sys/devices/system/cpu/online"))
        .and_then(|list| count_cpu_list(&list))
        .or_else(|| count_processors(&cpuinfo));
    host.cpu_governor = read_trimmed(&at(
        root,
        "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
    ));
    host.memory_bytes = fs::read_to_string(at(root, "/proc/meminfo"))
        .ok()
        .and_then(|text| mem_total(&text));
    host.page_size = Some(rustix::param::page_size() as u64);
    let vm = |name: &str| {
        read_trimmed(&at(root, &format!("/proc/sys/vm/{name}")))?
            .parse()
            .ok()
    };
    host.dirty_ratio = vm("dirty_ratio");
    host.dirty_background_ratio = vm("dirty_background_ratio");
    host.dirty_bytes = vm("dirty_bytes");
    host.dirty_background_bytes = vm("dirty_background_bytes");
    host.dirty_expire_centisecs = vm("dirty_expire_centisecs");
    host.dirty_writeback_centisecs = vm("dirty_writeback_centisecs");
    host.virtualization = virtualization(root, &cpuinfo);
    host.container = container(root);
}

/// A value of os-release(5), whose syntax is a subset of shell assignments.
fn os_release_value(text: &str, key: &str) -> Option<String> {
    // as in shell, a later assignment overrides an earlier one
    let (_, value) = text
        .lines()
        .filter_map(|line| line.trim().split_once('='))
        .rfind(|(k, _)| *k == key)?;
    Some(shell_unquote(value)).filter(|v| !v.is_empty())
}

/// Undoes shell quoting: '…' is literal, "…" honours \" \\ \$ \`, a bare \ escapes.
fn shell_unquote(value: &str) -> String {
    let (mut out, mut quote) = (String::new(), None);
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (Some('\''), _) => out.push(c),
            (None, '\\') => out.extend(chars.next()),
            (Some(_), '\\') => match chars.next() {
                Some(e @ ('"' | '\\' | '$' | '`')) => out.push(e),
                Some(e) => out.extend(['\\', e]),
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// `key: value` pairs of /proc/cpuinfo, whose keys are padded with tabs.
fn cpuinfo_values<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = &'a str> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(move |(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
}

/// x86 says `model name`, MIPS `cpu model`; ARM boards may say `Model`. ARM's bare
/// implementer and part numbers name no model, so they are not used.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "cpu model", "Model"]
        .iter()
        .find_map(|key| cpuinfo_values(cpuinfo, key).find(|v| !v.is_empty()))
        .map(str::to_string)
}

fn count_processors(cpuinfo: &str) -> Option<u32> {
    let n = cpuinfo_values(cpuinfo, "processor").count();
    u32::try_from(n).ok().filter(|&n| n > 0)
}

/// Counts a kernel CPU list such as `0-3,8-11`.
fn count_cpu_list(list: &str) -> Option<u32> {
    let mut total = 0u32;
    for part in list.trim().split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let (lo, hi): (u32, u32) = (lo.parse().ok()?, hi.parse().ok()?);
        total = total.checked_add(hi.checked_sub(lo)?.checked_add(1)?)?;
    }
    Some(total).filter(|&n| n > 0)
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    let mut words = line.split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// DMI vendor strings as systemd-detect-virt knows them, matched as prefixes.
const DMI_VENDORS: &[(&str, &str)] = &[
    ("KVM", "kvm"),
    ("OpenStack", "kvm"),
    ("KubeVirt", "kvm"),
    ("Amazon EC2", "amazon"),
    ("QEMU", "qemu"),
    ("VMware", "vmware"),
    ("VMW", "vmware"),
    ("innotek GmbH", "oracle"),
    ("VirtualBox", "oracle"),
    ("Xen", "xen"),
    ("Bochs", "bochs"),
    ("Parallels", "parallels"),
    ("BHYVE", "bhyve"),
    ("Hyper-V", "microsoft"),
    ("Apple Virtualization", "apple"),
    // not bare "Google": Chromebooks say that
    ("Google Compute Engine", "google"),
];

/// Follows systemd-detect-virt's order: DMI names that hide a KVM underneath come
/// first, then the hypervisor's own signature, then the rest of DMI.
fn virtualization(root: &Path, cpuinfo: &str) -> Option<String> {
    let dmi = dmi_vm(root);
    if matches!(
        dmi,
        Some("oracle" | "xen" | "amazon" | "parallels" | "google")
    ) {
        return dmi.map(str::to_string);
    }
    clocksource_vm(root)
        .or(dmi)
        .map(str::to_string)
        .or_else(|| read_trimmed(&at(root, "/sys/hypervisor/type")).map(|t| t.to_lowercase()))
        // the CPU flag proves a hypervisor but names none
        .or_else(|| has_hypervisor_flag(cpuinfo).then(|| "vm".to_string()))
}

fn has_hypervisor_flag(cpuinfo: &str) -> bool {
    let flags = cpuinfo_values(cpuinfo, "flags").next().unwrap_or("");
    flags.split_whitespace().any(|f| f == "hypervisor")
}

fn dmi_vm(root: &Path) -> Option<&'static str> {
    let dmi = |name: &str| read_trimmed(&at(root, &format!("/sys/class/dmi/id/{name}")));
    let (vendor, product) = (dmi("sys_vendor"), dmi("product_name"));
    if vendor.as_deref() == Some("Microsoft Corporation")
        && product.as_deref() == Some("Virtual Machine")
    {
        return Some("microsoft");
    }
    [product, vendor, dmi("board_vendor"), dmi("bios_vendor")]
        .into_iter()
        .flatten()
        .find_map(|id| {
            DMI_VENDORS
                .iter()
                .find(|(prefix, _)| id.starts_with(prefix))
                .map(|(_, vm)| *vm)
        })
}

/// The kernel registers these clocksources only after finding the hypervisor's CPUID
/// signature, which is what systemd-detect-virt reads; /proc offers no other view of it.
fn clocksource_vm(root: &Path) -> Option<&'static str> {
    let available = read_trimmed(&at(
        root,
        "/sys/devices/system/clocksource/clocksource0/available_clocksource",
    ))?;
    available.split_whitespace().find_map(|c| match c {
        "kvm-clock" => Some("kvm"),
        "xen" => Some("xen"),
        c if c.starts_with("hyperv_clocksource") => Some("microsoft"),
        _ => None,
    })
}

fn container(root: &Path) -> Option<String> {
    if at(root, "/.dockerenv").exists() {
        return Some("docker".into());
    }
    if at(root, "/run/.containerenv").exists() {
        return Some("podman".into());
    }
    // PID 1's environment is often unreadable; then the cgroup paths are the hint
    let environ = fs::read(at(root, "/proc/1/environ")).unwrap_or_default();
    let from_env = environ
        .split(|&b| b == 0)
        .find_map(|var| var.strip_prefix(b"container="))
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .filter(|v| !v.is_empty());
    from_env.or_else(|| cgroup_container(&fs::read_to_string(at(root, "/proc/1/cgroup")).ok()?))
}

fn cgroup_container(cgroup: &str) -> Option<String> {
    // kubernetes pods run under a runtime too, so "kubepods" is looked for first
    ["kubepods", "docker", "lxc"]
        .into_iter()
        .find(|hint| cgroup.contains(hint))
        .map(|hint| {
            if hint == "kubepods" {
                "kubernetes"
            } else {
                hint
            }
            .to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release_quoting() {
        let text = "# comment\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n";
        assert_eq!(
            os_release_value(text, "NAME").as_deref(),
            Some("Debian GNU/Linux")
        );
        assert_eq!(os_release_value(text, "VERSION_ID").as_deref(), Some("12"));
        assert_eq!(os_release_value(text, "ID").as_deref(), Some("debian"));
        assert_eq!(os_release_value(text, "VERSION"), None);
        assert_eq!(
            os_release_value("NAME='Arch Linux'", "NAME").as_deref(),
            Some("Arch Linux")
        );
        assert_eq!(
            os_release_value("NAME=Fedora\\ Linux", "NAME").as_deref(),
            Some("Fedora Linux")
        );
        let escaped = r#"NAME="Say \"hi\" \$5 \n""#;
        assert_eq!(
            os_release_value(escaped, "NAME").as_deref(),
            Some(r#"Say "hi" $5 \n"#)
        );
        assert_eq!(os_release_value("VERSION_ID=\"\"", "VERSION_ID"), None);
    }

    #[test]
    fn cpuinfo_model_and_processors() {
        let x86 = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu hypervisor\n\n\
                   processor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(count_processors(x86), Some(2));
        let pi = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n\n\
                  Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            cpu_model(pi).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        let bare_arm = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        assert_eq!(cpu_model(bare_arm), None);
        assert_eq!(count_processors(""), None);
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(count_cpu_list("0-3,8-11\n"), Some(8));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("0-1,5"), Some(3));
        assert_eq!(count_cpu_list("3-1"), None);
        assert_eq!(count_cpu_list(""), None);
    }

    #[test]
    fn meminfo_total() {
        let text = "MemTotal:       16316412 kB\nMemFree:         1234 kB\n";
        assert_eq!(mem_total(text), Some(16_316_412 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn virtualization_sources_in_order() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        let write = |rel: &str, text: &str| {
            fs::create_dir_all(root.join(rel).parent().expect("parent")).expect("mkdir");
            fs::write(root.join(rel), text).expect("write");
        };
        assert_eq!(virtualization(root, ""), None);
        assert_eq!(
            virtualization(root, "flags\t: fpu hypervisor\n").as_deref(),
            Some("vm")
        );
        write("sys/class/dmi/id/sys_vendor", "QEMU\n");
        assert_eq!(virtualization(root, "").as_deref(), Some("qemu"));
        write(
            "sys/devices/system/clocksource/clocksource0/available_clocksource",
            "tsc kvm-clock \n",
        );
        assert_eq!(virtualization(root, "").as_deref(), Some("kvm"));
        write("sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
        assert_eq!(virtualization(root, "").as_deref(), Some("amazon"));
    }

    #[test]
    fn cgroup_hints() {
        assert_eq!(cgroup_container("0::/\n"), None);
        assert_eq!(
            cgroup_container("1:cpu:/docker/3f2a\n").as_deref(),
            Some("docker")
        );
        let pod = "0::/kubepods/burstable/pod1/docker-3f2a.scope\n";
        assert_eq!(cgroup_container(pod).as_deref(), Some("kubernetes"));
    }
}
