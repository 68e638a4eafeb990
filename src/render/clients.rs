//! A run of many clients in `show`: how they were laid out, on which hosts (and how
//! those differ), the rank whose failure stopped the run, and per row the figures the
//! field defines beside the headline "all done" of the results table, with the slowest
//! and fastest rank and its host.

use super::listing::Listing;
use crate::facts::{Fact, host_differences};
use crate::model::{Aggregates, Params, RankFigure, Run, by_row};
use crate::stats::Summary;
use crate::units::{RateUnit, count};

/// The header's lines of a run of many clients: their layout, and the failed rank.
pub fn header_lines(run: &Run) -> Vec<(&'static str, String)> {
    let p = &run.params;
    let Some(cluster) = run.cluster.as_ref().filter(|_| p.clients > 1) else {
        return Vec::new();
    };
    let mut lines = vec![("clients", layout(p))];
    if let Some(failure) = &cluster.failure {
        let who = match (failure.rank, &failure.host) {
            (Some(rank), Some(host)) => format!("rank {rank} on {host}: "),
            (Some(rank), None) => format!("rank {rank}: "),
            _ => String::new(),
        };
        lines.push(("failed", format!("{who}{}", failure.error)));
    }
    lines
}

/// "4 (MPI ranks) on 2 hosts, each its own files, stonewalled".
fn layout(p: &Params) -> String {
    let hosts = crate::model::first_seen(p.hosts.iter()).len();
    format!(
        "{} (MPI ranks) on {}, {}{}",
        p.clients,
        count(hosts, "host"),
        match p.shared_file {
            true => "one file shared, each its region",
            false => "each its own files",
        },
        if p.stonewall {
            ", each phase ended when the first rank finished (stonewall)"
        } else {
            ""
        }
    )
}

/// Every host of the run, its ranks and what tells hosts apart, and the facts in
/// which they differ from rank 0's.
pub fn hosts(run: &Run) -> Option<(Listing, Vec<String>)> {
    let cluster = run.cluster.as_ref()?;
    if run.params.clients <= 1 || cluster.hosts.is_empty() {
        return None;
    }
    let mut listing = Listing::new(&[
        "host",
        "ranks",
        "kernel",
        "os",
        "type",
        "source",
        "mount options",
    ])
    .wrapped(110);
    for h in &cluster.hosts {
        let name = h.host.hostname.clone().unwrap_or_default();
        let ranks: Vec<String> = (run.params.hosts.iter().enumerate())
            .filter(|(_, host)| **host == name)
            .map(|(rank, _)| rank.to_string())
            .collect();
        let show = |fact: Fact| fact.value(&h.host, &h.filesystem).shown();
        let os = format!("{} {}", show(Fact::Os), show(Fact::OsVersion));
        listing.push(vec![
            name,
            ranks.join(","),
            show(Fact::Kernel),
            os,
            show(Fact::FsType),
            show(Fact::Device),
            show(Fact::MountOptions),
        ]);
    }
    Some((listing, host_differences(&cluster.hosts)))
}

/// Per row of the results: "all done" (the table's figure), the sum of the ranks' own
/// rates, "first done" where the ranks stopped with the first, and the slowest and
/// fastest rank with its host; medians over the repetitions, in `unit`.
pub fn figures(run: &Run, unit: RateUnit) -> Option<Listing> {
    let cluster = run.cluster.as_ref().filter(|_| run.params.clients > 1)?;
    let mut rows: Vec<_> = by_row(&run.params, &run.results).into_iter().collect();
    rows.sort_by_key(|(key, _)| key.list_order());
    let unit = unit.resolve(run.results.iter().map(|m| m.throughput));
    let stonewall = run.params.stonewall;
    let mut headers = vec!["File", "Record", "Test", "all done", "rank sum"];
    if stonewall {
        headers.push("first done");
    }
    let numeric: Vec<usize> = [0, 1].into_iter().chain(3..headers.len()).collect();
    headers.extend(["slowest rank", "fastest rank"]);
    let mut listing = Listing::new(&headers).numeric(&numeric);
    for (key, measurements) in rows {
        let ranks: Vec<&[RankFigure]> = measurements
            .iter()
            .filter_map(|m| cluster.figures_of(m))
            .collect();
        let aggregates: Vec<Aggregates> = ranks
            .iter()
            .filter_map(|r| Aggregates::of(r, stonewall))
            .collect();
        let median =
            |values: Vec<f64>| Summary::of(&values).map_or("-".into(), |s| unit.format(s.median));
        let mut row = vec![
            key.file_size.to_string(),
            key.record_size.to_string(),
            key.test.name().into(),
            median(measurements.iter().map(|m| m.throughput).collect()),
            median(aggregates.iter().map(|a| a.rank_sum).collect()),
        ];
        if stonewall {
            row.push(median(
                aggregates.iter().filter_map(|a| a.first_done).collect(),
            ));
        }
        let (slowest, fastest) = extremes(&run.params, &ranks, unit);
        row.extend([slowest, fastest]);
        listing.push(row);
    }
    Some(listing)
}

/// The rank whose median rate over the repetitions is lowest, and the one whose is
/// highest: "2 on vm-b: 210.4".
fn extremes(params: &Params, ranks: &[&[RankFigure]], unit: RateUnit) -> (String, String) {
    let clients = ranks.iter().map(|r| r.len()).max().unwrap_or(0);
    let medians: Vec<(usize, f64)> = (0..clients)
        .filter_map(|rank| {
            let rates: Vec<f64> = ranks
                .iter()
                .filter_map(|r| r.get(rank))
                .map(RankFigure::rate)
                .collect();
            Some((rank, Summary::of(&rates)?.median))
        })
        .collect();
    let said = |found: Option<&(usize, f64)>| {
        found.map_or("-".into(), |&(rank, rate)| {
            let host = params.hosts.get(rank).map_or("?", String::as_str);
            format!("{rank} on {host}: {}", unit.format(rate))
        })
    };
    let slowest = medians.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let fastest = medians.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    (said(slowest), said(fastest))
}

/// What the clients' table's figures are, said under it.
pub fn legend(run: &Run, unit: RateUnit) -> String {
    let unit = unit.resolve(run.results.iter().map(|m| m.throughput));
    let mut out = format!(
        "{}, medians over the repetitions. all done: all bytes ÷ (latest end − earliest \
         start), the results' figure (IOR's); rank sum: Σ each rank's bytes ÷ its own time \
         (iozone3's \"children see\")",
        unit.label()
    );
    if run.params.stonewall {
        out.push_str(
            "; first done: the bytes all ranks had moved when the first finished ÷ its time \
             (the ranks stopped then: stonewall)",
        );
    }
    out.push_str("; a rank's rate is its bytes ÷ its own time\n");
    out
}
