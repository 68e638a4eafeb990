//! What differs between the two sides' environments: host, filesystem, the
//! parameters outside the row key, and whether the machine was busy.

use std::collections::{BTreeMap, BTreeSet};

use super::{EnvChange, Ignored, RunValue, RunsRead, SidesSummary, combinations};
use crate::facts::Fact;
use crate::model::{CacheMode, EngineKind, MachineState, Run};

/// The host and filesystem facts compared, in the order the diff lists them: what an
/// upgrade or a remount changes. Left out: the boot id, which every reboot changes,
/// and the filesystem's total and free bytes, which every run changes.
const COMPARED: [Fact; 29] = [
    Fact::Hostname,
    Fact::Os,
    Fact::OsVersion,
    Fact::Kernel,
    Fact::KernelCmdline,
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
    Fact::FsType,
    Fact::MountPoint,
    Fact::Device,
    Fact::MountOptions,
    Fact::BlockSize,
    Fact::BlockDevice,
    Fact::DeviceModel,
    Fact::Rotational,
    Fact::Scheduler,
    Fact::DeviceSize,
];

/// The distinct `name`s of what a run's figures went through (`combinations`),
/// comma-joined; `fallback` for a run without any.
fn measured(
    combinations: &[(EngineKind, CacheMode)],
    name: fn(&(EngineKind, CacheMode)) -> &'static str,
    fallback: &str,
) -> String {
    let names = crate::model::first_seen(combinations.iter().map(name));
    match names.is_empty() {
        true => fallback.to_string(),
        false => names.join(","),
    }
}

/// What a compared value is: a host or filesystem fact, or another field of a run's
/// JSON. Its path is spelled only for the differences found: a fleet comparison reads
/// 41 values of each of thousands of runs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Field {
    Fact(Fact),
    Other(&'static str),
}

impl Field {
    /// The path in a run's JSON.
    fn path(self) -> String {
        match self {
            Field::Fact(fact) => fact.path(),
            Field::Other(path) => path.to_string(),
        }
    }
}

/// The facts compared between sides: the host and filesystem facts above, the
/// parameters that are not part of the row key, and the machine's state.
fn facts(run: &Run, read: &RunsRead) -> Vec<(Field, Option<String>)> {
    let (h, p) = (&run.host, &run.params);
    let combinations = combinations(run, read);
    let environment = COMPARED
        .into_iter()
        .map(|fact| (Field::Fact(fact), across_hosts(run, fact)));
    let others = [
        // what the side's measurements went through: one part of a run of several
        // (`42,engine:posix`) is that engine alone
        (
            "params.engine",
            Some(measured(&combinations, |c| c.0.name(), p.engine().name())),
        ),
        (
            "params.cache",
            Some(measured(&combinations, |c| c.1.name(), p.cache().name())),
        ),
        ("params.iodepth", Some(p.iodepth.to_string())),
        ("params.threads", Some(p.threads.to_string())),
        ("params.verify", Some(p.verify.to_string())),
        ("params.read_pct", p.read_pct.map(|v| v.to_string())),
        (
            "params.stride_records",
            p.stride_records.map(|v| v.to_string()),
        ),
        ("params.warmup", Some(p.warmup.to_string())),
        ("params.order", Some(p.order.name().into())),
        ("params.clients", Some(p.clients.to_string())),
        ("params.shared_file", Some(p.shared_file.to_string())),
        ("params.stonewall", Some(p.stonewall.to_string())),
        (MACHINE[0].0, machine(&run.state_at_start, h.cpus)),
        (MACHINE[1].0, machine(&run.state_at_end, h.cpus)),
        ("tool_version", Some(run.tool_version.clone())),
    ]
    .map(|(path, value)| (Field::Other(path), value));
    environment.chain(others).collect()
}

/// A fact of the run's host and filesystem; of a run of many clients on several
/// hosts, each distinct value in the order of the hosts (`6.1.0, 6.12.0`), so that a
/// change on any host, or another set of hosts, is a change.
fn across_hosts(run: &Run, fact: Fact) -> Option<String> {
    let own = fact.value(&run.host, &run.filesystem).raw();
    let Some(cluster) = run.cluster.as_ref().filter(|c| c.hosts.len() > 1) else {
        return own;
    };
    let values = (cluster.hosts.iter()).map(|h| fact.value(&h.host, &h.filesystem).raw());
    let values = crate::model::first_seen(values);
    match values.as_slice() {
        [one] => one.clone(),
        many => Some(
            (many.iter())
                .map(|v| v.as_deref().unwrap_or("-"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

/// What cuts a series' history into segments (`super::history`): every fact the diff
/// compares but the machine's state, which is not what a run was measured on but how
/// busy the machine was meanwhile, part of the noise to be measured. The engines and
/// cache modes a run went through count only where the row key does not already hold
/// them (`--ignore-param`, whose rows pool them).
pub(super) fn segment_key(run: &Run, read: &RunsRead, ignore: Ignored) -> Vec<Option<String>> {
    facts(run, read)
        .into_iter()
        .filter(|(field, _)| match *field {
            Field::Other("machine.at_start" | "machine.at_end") => false,
            Field::Other("params.engine") => ignore.engine,
            Field::Other("params.cache") => ignore.cache,
            _ => true,
        })
        .map(|(_, value)| value)
        .collect()
}

/// The machine's state as what matters for a run's level: `quiet`, or why it was
/// busy (writeback, load, pressure). Raw load figures differ between any two runs;
/// only a busy machine shifts a run.
fn machine(state: &Option<MachineState>, cpus: Option<u32>) -> Option<String> {
    let reasons = crate::host::busy_reasons(state.as_ref()?, cpus);
    Some(match reasons.is_empty() {
        true => "quiet".into(),
        false => format!("busy: {}", reasons.join("; ")),
    })
}

/// How busy a side's machine was when its runs began (their recorded states at start).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum SideState {
    /// No run recorded a busy machine (or any state at all).
    #[default]
    Quiet,
    /// Every run did: the first run's reasons (`host::busy_reasons`).
    Busy(String),
    /// Some runs did, some did not: the spread of the side's runs holds what the
    /// machine's state did to them.
    Mixed,
}

/// How busy a side's machine was.
pub(super) fn side_state(read: &RunsRead) -> SideState {
    let reasons: Vec<Vec<String>> = (read.runs.iter())
        .map(|run| {
            // the state before the run measured: at its end the machine holds the run's
            // own writes (a slow, synchronous filesystem raises its own I/O pressure), so
            // a slower side would excuse itself as busy
            let reasons = [&run.state_at_start]
                .into_iter()
                .flatten()
                .flat_map(|state| crate::host::busy_reasons(state, run.host.cpus));
            crate::model::first_seen(reasons)
        })
        .collect();
    let busy = reasons.iter().filter(|r| !r.is_empty()).count();
    match (busy, reasons.first()) {
        (0, _) | (_, None) => SideState::Quiet,
        (n, Some(first)) if n == reasons.len() => {
            let first = first.join("; ");
            SideState::Busy(match n {
                1 => first,
                n => format!("{first}; all {n} runs busy"),
            })
        }
        _ => SideState::Mixed,
    }
}

/// Which of a run's machine states: at its start or at its end.
type StateOf = fn(&Run) -> &Option<MachineState>;

/// The machine's states, at the start or at the end of a run: compared as
/// [`machine`] words them, summed up for a side by [`side_summary`].
const MACHINE: [(&str, StateOf); 2] = [
    ("machine.at_start", |run| &run.state_at_start),
    ("machine.at_end", |run| &run.state_at_end),
];

/// A side's runs' machine states (those `state` picks) in a few words, and each run's.
fn side_summary(runs: &[Run], state: StateOf) -> (Option<String>, Vec<RunValue>) {
    let signals: Vec<_> = (runs.iter())
        .map(|run| {
            let state = state(run).as_ref()?;
            Some(crate::host::busy_signals(state, run.host.cpus))
        })
        .collect();
    let each = (runs.iter())
        .map(|run| RunValue {
            id: run.id,
            value: machine(state(run), run.host.cpus),
        })
        .collect();
    (crate::host::busy_summary(&signals), each)
}

/// The machine-state change's two sides summed up, for `field` if it is one.
fn summary(field: &str, baseline: &RunsRead, candidate: &RunsRead) -> Option<SidesSummary> {
    let (_, state) = MACHINE.iter().find(|(path, _)| *path == field)?;
    let (baseline, baseline_runs) = side_summary(baseline.runs, *state);
    let (candidate, candidate_runs) = side_summary(candidate.runs, *state);
    Some(SidesSummary {
        baseline,
        candidate,
        baseline_runs,
        candidate_runs,
    })
}

pub(super) fn environment_changes(baseline: &RunsRead, candidate: &RunsRead) -> Vec<EnvChange> {
    let collect = |read: &RunsRead| {
        let mut values: BTreeMap<Field, BTreeSet<Option<String>>> = BTreeMap::new();
        for run in read.runs {
            for (field, value) in facts(run, read) {
                values.entry(field).or_default().insert(value);
            }
        }
        values
    };
    let (base, cand) = (collect(baseline), collect(candidate));
    // keep the order of `facts`, which groups host, filesystem and parameters
    let order = (baseline.runs.first().map(|run| facts(run, baseline)))
        .or_else(|| candidate.runs.first().map(|run| facts(run, candidate)))
        .unwrap_or_default();
    order
        .into_iter()
        .map(|(field, _)| field)
        .filter(|field| base.get(field) != cand.get(field))
        .map(|field| EnvChange {
            baseline: base
                .get(&field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
            candidate: cand
                .get(&field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
            summary: summary(&field.path(), baseline, candidate),
            field: field.path(),
        })
        .collect()
}
