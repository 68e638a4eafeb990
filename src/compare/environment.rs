//! What differs between the two sides' environments: host, filesystem, the
//! parameters outside the row key, and whether the machine was busy.

use std::collections::{BTreeMap, BTreeSet};

use super::EnvChange;
use crate::model::Run;

/// The facts compared between sides: what an upgrade changes, and the parameters
/// that are not part of the row key.
fn facts(run: &Run) -> Vec<(&'static str, Option<String>)> {
    let (h, f, p) = (&run.host, &run.filesystem, &run.params);
    let s = |v: &Option<String>| v.clone();
    let n = |v: Option<u64>| v.map(|x| x.to_string());
    vec![
        ("host.hostname", s(&h.hostname)),
        ("host.os", s(&h.os)),
        ("host.os_version", s(&h.os_version)),
        ("host.kernel", s(&h.kernel)),
        ("host.kernel_cmdline", s(&h.kernel_cmdline)),
        ("host.arch", s(&h.arch)),
        ("host.cpu_model", s(&h.cpu_model)),
        ("host.cpus", h.cpus.map(|c| c.to_string())),
        ("host.cpu_governor", s(&h.cpu_governor)),
        ("host.memory_bytes", n(h.memory_bytes)),
        ("host.page_size", n(h.page_size)),
        ("host.dirty_ratio", n(h.dirty_ratio)),
        ("host.dirty_background_ratio", n(h.dirty_background_ratio)),
        ("host.dirty_bytes", n(h.dirty_bytes)),
        ("host.dirty_background_bytes", n(h.dirty_background_bytes)),
        ("host.dirty_expire_centisecs", n(h.dirty_expire_centisecs)),
        (
            "host.dirty_writeback_centisecs",
            n(h.dirty_writeback_centisecs),
        ),
        ("host.virtualization", s(&h.virtualization)),
        ("host.container", s(&h.container)),
        ("filesystem.type", s(&f.fs_type)),
        ("filesystem.mount_point", s(&f.mount_point)),
        ("filesystem.device", s(&f.device)),
        ("filesystem.mount_options", s(&f.mount_options)),
        ("filesystem.block_size", n(f.block_size)),
        ("filesystem.block_device", s(&f.block_device)),
        ("filesystem.device_model", s(&f.device_model)),
        ("filesystem.rotational", f.rotational.map(|r| r.to_string())),
        ("filesystem.scheduler", s(&f.scheduler)),
        ("filesystem.device_size", n(f.device_size)),
        ("params.engine", Some(p.engine.name().into())),
        ("params.cache", Some(p.cache.name().into())),
        ("params.threads", Some(p.threads.to_string())),
        ("params.verify", Some(p.verify.to_string())),
        ("params.read_pct", Some(p.read_pct.to_string())),
        ("params.stride_records", Some(p.stride_records.to_string())),
        ("params.warmup", Some(p.warmup.to_string())),
        ("params.order", Some(p.order.name().into())),
        ("machine.at_start", machine(&run.state_at_start, h.cpus)),
        ("machine.at_end", machine(&run.state_at_end, h.cpus)),
        ("tool_version", Some(run.tool_version.clone())),
    ]
}

/// The machine's state as what matters for a run's level: `quiet`, or why it was
/// busy (writeback, load, pressure). Raw load figures differ between any two runs;
/// only a busy machine shifts a run.
fn machine(state: &Option<crate::model::MachineState>, cpus: Option<u32>) -> Option<String> {
    let reasons = crate::host::busy_reasons(state.as_ref()?, cpus);
    Some(match reasons.is_empty() {
        true => "quiet".into(),
        false => format!("busy: {}", reasons.join("; ")),
    })
}

pub(super) fn environment_changes(baseline: &[Run], candidate: &[Run]) -> Vec<EnvChange> {
    let collect = |runs: &[Run]| {
        let mut values: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
        for run in runs {
            for (field, value) in facts(run) {
                values
                    .entry(field)
                    .or_default()
                    .insert(value.unwrap_or_else(|| "unknown".into()));
            }
        }
        values
    };
    let (base, cand) = (collect(baseline), collect(candidate));
    // keep the order of `facts`, which groups host, filesystem and parameters
    let order = baseline
        .first()
        .or(candidate.first())
        .map(facts)
        .unwrap_or_default();
    order
        .into_iter()
        .map(|(field, _)| field)
        .filter(|field| base.get(field) != cand.get(field))
        .map(|field| EnvChange {
            field: field.to_string(),
            baseline: base
                .get(field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
            candidate: cand
                .get(field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
        })
        .collect()
}
