//! Facts about the machine. A probe that fails leaves `None`; it never fails a run.

use crate::model::Host;

/// What the kernel states about itself through uname(2).
pub fn probe_host() -> Host {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| {
        let s = s.to_string_lossy().trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    Host {
        hostname: text(uname.nodename()),
        kernel: text(uname.release()),
        arch: text(uname.machine()),
        ..Host::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_kernel_answers() {
        let host = probe_host();
        assert!(host.kernel.is_some());
        assert_eq!(host.arch.as_deref(), Some(std::env::consts::ARCH));
    }
}
